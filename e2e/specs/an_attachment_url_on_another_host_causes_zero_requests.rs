use std::net::TcpListener;

use serde_json::json;

use crate::support::Store;
use crate::support::cache;
use crate::support::fake_discord::{FakeDiscord, GRACE, INCIDENTS};
use crate::support::live::Daemon;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    // Another host on this machine, listening: it would see any connection made to it.
    let elsewhere = TcpListener::bind("127.0.0.1:0").unwrap();
    elsewhere.set_nonblocking(true).unwrap();
    let port = elsewhere.local_addr().unwrap().port();
    let bytes = cache::file_bytes(4, 2_000);
    let mut planted = fake.attachment(INCIDENTS, "invoice.png", "image/png", &bytes);
    let url = format!("http://127.0.0.1:{port}/attachments/{INCIDENTS}/1/invoice.png");
    planted["url"] = json!(url);
    planted["proxy_url"] = json!(url);
    let planted_id = planted["id"].as_str().unwrap().to_string();
    // Then one on the fake Discord's own CDN: once it is kept, the planted one was decided.
    let genuine = cache::file_bytes(5, 3_000);
    let control = fake.attachment(INCIDENTS, "graph.png", "image/png", &genuine);
    let control_id = control["id"].as_str().unwrap().to_string();
    let mut message = FakeDiscord::message_value("@id:planted", INCIDENTS, GRACE, "look");
    message["d"]["attachments"] = json!([planted, control]);
    fake.play(&message.to_string());

    let skipped = daemon.wait_for(&format!("skipped attachment {planted_id}"));
    assert!(
        skipped.contains(&format!(
            "the attachment's URL is on 127.0.0.1:{port}, not the Discord on this machine"
        )),
        "{skipped}"
    );
    daemon.wait_for(&format!("kept attachment {control_id}"));

    assert_eq!(
        elsewhere.accept().map(|_| ()).unwrap_err().kind(),
        std::io::ErrorKind::WouldBlock,
        "a connection reached the other host"
    );
    let asked: Vec<String> = fake
        .cdn_requests()
        .into_iter()
        .map(|request| request.path)
        .collect();
    assert_eq!(
        asked,
        [format!("/attachments/{INCIDENTS}/{control_id}/graph.png")]
    );
    assert_eq!(cache::files(&store), [cache::as_kept(&genuine)]);
    daemon.stop();
}
