use serde_json::json;

use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, GUILD, LINUS, OWNER};
use crate::support::Store;
use crate::support::live::{Daemon, EVER, caught_up_until, ids};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let edit = json!({"t": "MESSAGE_UPDATE", "d": {"id": "@id:first", "channel_id": GENERAL,
        "guild_id": GUILD, "content": "Standup moved to 10:30", "edited_timestamp": "@now",
        "mentions": [], "mention_roles": []}});
    let delete = json!({"t": "MESSAGE_DELETE", "d": {"id": "@id:second", "channel_id": GENERAL,
        "guild_id": GUILD}});
    let react = |user: &str, emoji: &str| {
        json!({"t": "MESSAGE_REACTION_ADD", "d": {"user_id": user, "channel_id": GENERAL,
            "message_id": "@id:first", "guild_id": GUILD, "emoji": {"id": null, "name": emoji},
            "burst": false, "type": 0}})
    };
    let unreact = json!({"t": "MESSAGE_REACTION_REMOVE", "d": {"user_id": OWNER,
        "channel_id": GENERAL, "message_id": "@id:first", "guild_id": GUILD,
        "emoji": {"id": null, "name": "👀"}, "burst": false, "type": 0}});
    fake.play(
        &[
            FakeDiscord::message_line("@id:first", GENERAL, GRACE, "Standup at 10"),
            FakeDiscord::message_line("@id:second", GENERAL, LINUS, "oops, wrong channel"),
            edit.to_string(),
            delete.to_string(),
            react(LINUS, "👍").to_string(),
            react(OWNER, "👍").to_string(),
            react(OWNER, "👀").to_string(),
            unreact.to_string(),
        ]
        .join("\n"),
    );
    let (first, second) = (fake.id("first"), fake.id("second"));

    let messages = caught_up_until(&store, GENERAL, "the edit, deletion and reactions", |m| {
        m.len() == 2
            && m[0]["reactions"] == json!([{"emoji": "👍", "count": 2}])
            && m[0]["editedAt"].is_string()
            && m[1]["deleted"] == true
    });
    assert_eq!(ids(&messages), vec![first, second]);
    assert_eq!(messages[0]["content"], "Standup moved to 10:30");
    assert_eq!(messages[0]["authorId"], GRACE);
    assert_eq!(messages[0].get("deleted"), None, "not deleted: left out at its default");
    assert_eq!(messages[1]["content"], "oops, wrong channel");
    assert_eq!(messages[1].get("reactions"), None, "no reactions left: left out");
    let page = store.cli().json_value(&["catch-up", "--since", EVER]);
    assert_eq!(page["channels"][0]["guildId"], GUILD, "the channel's group states its guild");
    daemon.stop();
}
