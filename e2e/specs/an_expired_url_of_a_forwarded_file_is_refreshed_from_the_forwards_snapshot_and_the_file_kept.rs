use serde_json::json;

use crate::support::Store;
use crate::support::cache;
use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, RELEASES};
use crate::support::live::Daemon;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    // A screenshot first posted in #releases, forwarded to #general with a URL signed an hour
    // ago for a second: the forward's snapshot is the only copy the bot sees.
    let bytes = cache::file_bytes(8, 12_000);
    let attachment =
        fake.attachment_signed_for(RELEASES, "rollout-graph.png", "image/png", &bytes, -3_600);
    let id = attachment["id"].as_str().unwrap().to_string();
    let mut forward = FakeDiscord::message_value("@id:forward", GENERAL, GRACE, "");
    forward["d"]["message_reference"] =
        json!({"type": 1, "channel_id": RELEASES, "message_id": "1300000000000000077"});
    forward["d"]["message_snapshots"] = json!([{"message": {
        "content": "rollout at 40%", "timestamp": "2026-11-29T09:00:00+00:00",
        "edited_timestamp": null, "mentions": [], "mention_roles": [],
        "attachments": [attachment], "embeds": [], "type": 0, "flags": 0, "components": []
    }}]);
    fake.play(&forward.to_string());
    daemon.wait_for(&format!("kept attachment {id}"));

    let forward_id = fake.id("forward");
    let fetches = fake
        .requests()
        .into_iter()
        .filter(|request| {
            request.method == "GET"
                && request.path == format!("/api/v10/channels/{GENERAL}/messages/{forward_id}")
        })
        .count();
    assert_eq!(fetches, 1, "one fetch of the forward for a fresh URL");
    let requests = fake.cdn_requests();
    assert_eq!(requests.len(), 1, "{requests:#?}");
    assert_eq!(requests[0].status, 200);
    assert!(requests[0].path.starts_with(&format!("/attachments/{RELEASES}/{id}/")));
    assert_eq!(cache::files(&store), [cache::as_kept(&bytes)]);
    daemon.stop();
}
