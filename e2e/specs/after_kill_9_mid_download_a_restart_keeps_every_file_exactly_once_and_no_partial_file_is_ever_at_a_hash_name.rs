use serde_json::json;

use crate::support::Store;
use crate::support::cache;
use crate::support::fake_discord::{FakeDiscord, GRACE, INCIDENTS};
use crate::support::live::Daemon;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let mut daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    // A first file, kept before the crash.
    let first = cache::file_bytes(8, 10_000);
    let kept = fake.attachment(INCIDENTS, "before.png", "image/png", &first);
    let kept_id = kept["id"].as_str().unwrap().to_string();
    let mut message = FakeDiscord::message_value("@id:before", INCIDENTS, GRACE, "");
    message["d"]["attachments"] = json!([kept]);
    fake.play(&message.to_string());
    daemon.wait_for(&format!("kept attachment {kept_id}"));

    // A second, whose download stalls after 4096 of its 200,000 bytes.
    fake.stall_cdn_after(Some(4096));
    let second = cache::file_bytes(9, 200_000);
    let stalled = fake.attachment(INCIDENTS, "heap.log", "text/plain", &second);
    let stalled_id = stalled["id"].as_str().unwrap().to_string();
    let mut message = FakeDiscord::message_value("@id:during", INCIDENTS, GRACE, "");
    message["d"]["attachments"] = json!([stalled]);
    fake.play(&message.to_string());
    fake.wait_for(
        "the stalled download",
        std::time::Duration::from_secs(30),
        |view| view.requests_to(&format!("/{stalled_id}/")) == 1,
    );
    // Mid-download, and after kill -9: only whole files are at a hash's name.
    assert_eq!(cache::kept(&store), [cache::as_kept(&first)]);
    daemon.kill9();
    assert_eq!(cache::kept(&store), [cache::as_kept(&first)]);

    fake.stall_cdn_after(None);
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_for(&format!("kept attachment {stalled_id}"));
    daemon.stop();

    // Each file exactly once, whole, and nothing partial left behind.
    let mut expected = vec![cache::as_kept(&first), cache::as_kept(&second)];
    expected.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(cache::files(&store), expected);
    let asked = |id: &str| {
        fake.cdn_requests()
            .iter()
            .filter(|request| request.path.contains(&format!("/{id}/")))
            .count()
    };
    assert_eq!(asked(&kept_id), 1, "a kept file is never fetched again");
    assert_eq!(asked(&stalled_id), 2, "the cut download, then the whole one");
}
