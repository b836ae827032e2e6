//! An assistant's posts are capped at 5 a minute, sends and schedules together, counted in the
//! store: two MCP servers on the same store share the cap. The sixth is refused in the owner's
//! words and reaches no Discord; the owner's own `send` from the terminal is not capped.

use serde_json::json;

use crate::support::time::Stamp;
use crate::support::fake_discord::{FakeDiscord, GENERAL};
use crate::support::live::store_sending_to;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = store_sending_to(&fake).setting("DISCORD_MANAGER_SEND_CHANNELS", GENERAL);
    let tomorrow = Stamp::now().plus_minutes(24 * 60).iso();
    let first = store.mcp().await;
    let second = store.mcp().await;
    for n in 1..=3 {
        first
            .call("messages_send", json!({"channelId": GENERAL, "content": format!("first {n}")}))
            .await
            .structured();
    }
    second
        .call("messages_send", json!({"channelId": GENERAL, "content": "second 1"}))
        .await
        .structured();
    second
        .call(
            "schedules_add",
            json!({"channelId": GENERAL, "content": "second, later", "sendAt": tomorrow}),
        )
        .await
        .structured();
    let cap = "An assistant may post at most 5 messages a minute (sends, edits and schedules together), \
               and that many were started in the last minute; nothing was sent: wait a minute, \
               or send it from the terminal with `discord-manager send`";
    let refused = first
        .call_err("messages_send", json!({"channelId": GENERAL, "content": "first 4"}))
        .await;
    assert_eq!(refused, cap);
    let refused = second
        .call_err(
            "schedules_add",
            json!({"channelId": GENERAL, "content": "second, later again", "sendAt": tomorrow}),
        )
        .await;
    assert_eq!(refused, cap);
    first.stop().await;
    second.stop().await;
    store
        .cli()
        .json_value(&["send", "typed by the owner", "--channel-id", GENERAL]);

    let posted: Vec<String> = fake
        .posts()
        .iter()
        .map(|post| post["content"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(
        posted,
        ["first 1", "first 2", "first 3", "second 1", "typed by the owner"]
    );
}
