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

    // Signed an hour ago for a second: past its `ex` when the daemon sees it.
    let bytes = cache::file_bytes(6, 20_000);
    let attachment =
        fake.attachment_signed_for(INCIDENTS, "p99-latency.png", "image/png", &bytes, -3_600);
    let id = attachment["id"].as_str().unwrap().to_string();
    let expired_ex = attachment["url"]
        .as_str()
        .unwrap()
        .split("ex=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap()
        .to_string();
    let mut message = FakeDiscord::message_value("@id:expired", INCIDENTS, GRACE, "");
    message["d"]["attachments"] = json!([attachment]);
    fake.play(&message.to_string());
    daemon.wait_for(&format!("kept attachment {id}"));

    let message_id = fake.id("expired");
    let fetches = fake
        .requests()
        .into_iter()
        .filter(|request| {
            request.method == "GET"
                && request.path == format!("/api/v10/channels/{INCIDENTS}/messages/{message_id}")
        })
        .count();
    assert_eq!(fetches, 1, "one fetch of the message for a fresh URL");
    // The expired URL was never asked for: only the fresh one, once.
    let requests = fake.cdn_requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    assert_eq!(requests[0].status, 200);
    let fresh_ex = requests[0].param("ex").unwrap();
    assert_ne!(fresh_ex, expired_ex);
    assert!(
        u64::from_str_radix(fresh_ex, 16).unwrap() > u64::from_str_radix(&expired_ex, 16).unwrap()
    );
    assert_eq!(cache::files(&store), [cache::as_kept(&bytes)]);
    daemon.stop();
}
