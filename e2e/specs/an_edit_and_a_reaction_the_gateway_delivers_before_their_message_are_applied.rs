use serde_json::json;

use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, GUILD, LINUS};
use crate::support::Store;
use crate::support::live::{Daemon, caught_up_until, ids};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    // Discord does not promise order: the edit and a reaction come first.
    let edit = json!({"t": "MESSAGE_UPDATE", "d": {"id": "@id:late", "channel_id": GENERAL,
        "guild_id": GUILD, "content": "Deploy window is 14:00 UTC (corrected)",
        "edited_timestamp": "@now", "mentions": [], "mention_roles": []}});
    let react = json!({"t": "MESSAGE_REACTION_ADD", "d": {"user_id": LINUS,
        "channel_id": GENERAL, "message_id": "@id:late", "guild_id": GUILD,
        "emoji": {"id": null, "name": "✅"}, "burst": false, "type": 0}});
    fake.play(&[edit.to_string(), react.to_string()].join("\n"));
    fake.play(&FakeDiscord::message_line(
        "@id:late",
        GENERAL,
        GRACE,
        "Deploy window is 13:00 UTC",
    ));
    let late = fake.id("late");

    let messages = caught_up_until(&store, GENERAL, "the early edit applied", |m| {
        m.len() == 1 && m[0]["editedAt"].is_string() && m[0]["reactions"] != json!([])
    });
    assert_eq!(ids(&messages), vec![late]);
    assert_eq!(
        messages[0]["content"],
        "Deploy window is 14:00 UTC (corrected)"
    );
    assert_eq!(
        messages[0]["reactions"],
        json!([{"emoji": "✅", "count": 1}])
    );
    daemon.stop();
}
