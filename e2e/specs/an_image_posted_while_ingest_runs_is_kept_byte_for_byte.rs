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

    let screenshot = cache::file_bytes(1, 48_213);
    let attachment = fake.attachment(INCIDENTS, "eu-west-2-latency.png", "image/png", &screenshot);
    let id = attachment["id"].as_str().unwrap().to_string();
    let mut message = FakeDiscord::message_value("@id:shot", INCIDENTS, GRACE, "");
    message["d"]["attachments"] = json!([attachment]);
    fake.play(&message.to_string());
    daemon.wait_for(&format!("kept attachment {id}"));

    // Kept whole, under the SHA-256 of the bytes served, readable by the owner only.
    assert_eq!(cache::files(&store), [cache::as_kept(&screenshot)]);
    // One request to the fake Discord's CDN, for that file, without the bot's token.
    let requests = fake.cdn_requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    assert_eq!(
        requests[0].path,
        format!("/attachments/{INCIDENTS}/{id}/eu-west-2-latency.png")
    );
    assert_eq!(requests[0].status, 200);
    assert!(!requests[0].authorized, "the token went to the CDN");
    daemon.stop();
}
