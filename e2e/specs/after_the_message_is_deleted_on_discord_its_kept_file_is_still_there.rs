use serde_json::json;

use crate::support::Store;
use crate::support::cache;
use crate::support::fake_discord::{FakeDiscord, GRACE, GUILD, INCIDENTS};
use crate::support::live::{Daemon, caught_up_until};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let screenshot = cache::file_bytes(7, 30_000);
    let attachment = fake.attachment(INCIDENTS, "outage.png", "image/png", &screenshot);
    let id = attachment["id"].as_str().unwrap().to_string();
    let mut message = FakeDiscord::message_value("@id:outage", INCIDENTS, GRACE, "");
    message["d"]["attachments"] = json!([attachment]);
    fake.play(&message.to_string());
    daemon.wait_for(&format!("kept attachment {id}"));

    // Deleted on Discord: the CDN no longer serves the file, the store marks it deleted.
    let delete = json!({"t": "MESSAGE_DELETE", "d": {"id": "@id:outage",
                        "channel_id": INCIDENTS, "guild_id": GUILD}});
    fake.play(&delete.to_string());
    let outage = fake.id("outage");
    caught_up_until(&store, INCIDENTS, "the deletion", |messages| {
        messages
            .iter()
            .any(|m| m["messageId"] == outage.as_str() && m["deleted"] == true)
    });
    daemon.stop();
    assert_eq!(cache::files(&store), [cache::as_kept(&screenshot)]);

    // A restart neither loses it nor asks the CDN again.
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    daemon.stop();
    assert_eq!(cache::files(&store), [cache::as_kept(&screenshot)]);
    assert_eq!(fake.cdn_requests().len(), 1);
}
