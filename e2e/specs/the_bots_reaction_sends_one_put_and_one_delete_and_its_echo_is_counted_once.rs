//! `reactions_add` sends exactly one `PUT .../reactions/{emoji}/@me` (the emoji
//! percent-encoded) and `reactions_remove` one `DELETE` of it; each answers the message with
//! its reactions as the store recorded them, and the gateway's echo of the bot's reaction is
//! not counted a second time.

use serde_json::json;

use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE};
use crate::support::live::{Daemon, PATIENCE, caught_up_until};
use crate::support::{Message, Store};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner()
        .sending_to(&fake)
        .setting("DISCORD_MANAGER_SEND_CHANNELS", GENERAL);
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    fake.play(&FakeDiscord::message_line(
        "@id:shipped",
        GENERAL,
        GRACE,
        "Shipped the fix!",
    ));
    caught_up_until(&store, GENERAL, "grace's message", |messages| {
        messages.len() == 1
    });
    let shipped = fake.id("shipped");

    let mcp = store.mcp().await;
    let reacted: Message = mcp
        .call_ok("reactions_add", json!({"messageId": shipped, "emoji": "👍"}))
        .await;
    assert_eq!(reacted.reactions.len(), 1);
    assert_eq!(reacted.reactions[0].emoji, "👍");
    assert_eq!(reacted.reactions[0].count, 1);
    fake.wait_for("the echo of the reaction", PATIENCE, |view| {
        view.count_out("MESSAGE_REACTION_ADD") == 1
    });
    // The daemon records in order: a message after the echo proves it got past it.
    fake.play(&FakeDiscord::message_line(
        "@id:after",
        GENERAL,
        GRACE,
        "and the docs",
    ));
    let messages = caught_up_until(&store, GENERAL, "the message after the echo", |messages| {
        messages.len() == 2
    });
    assert_eq!(
        messages[0]["reactions"],
        json!([{"emoji": "👍", "count": 1}]),
        "the echo of the bot's own reaction is not a second one"
    );
    let removed: Message = mcp
        .call_ok("reactions_remove", json!({"messageId": shipped, "emoji": "👍"}))
        .await;
    assert_eq!(removed.reactions.len(), 0);
    mcp.stop().await;

    let route = format!("/api/v10/channels/{GENERAL}/messages/{shipped}/reactions/%F0%9F%91%8D/@me");
    let reactions: Vec<(String, String, u16)> = fake
        .requests()
        .into_iter()
        .filter(|request| request.path.contains("/reactions/"))
        .map(|request| (request.method, request.path, request.status))
        .collect();
    assert_eq!(
        reactions,
        [
            ("PUT".to_string(), route.clone(), 204),
            ("DELETE".to_string(), route, 204)
        ]
    );
    daemon.stop();
}
