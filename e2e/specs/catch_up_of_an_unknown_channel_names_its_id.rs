//! Asking `messages_catch_up` for a channel the store has never seen is refused with a
//! not-found message naming the id, rather than an empty answer that looks like "nothing new".

use serde_json::json;

use crate::support::{Feed, Guild, Store, fresh_id};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    guild.text_channel("general");
    let store = Store::for_owner(&owner);
    store.play(&Feed::joining(&guild)).await;
    let unknown = fresh_id();
    let mcp = store.mcp().await;

    let refusal = mcp
        .call_err("messages_catch_up", json!({"channelId": unknown}))
        .await;

    assert_eq!(refusal, format!("`channelId`: no channel with id {unknown} is in the store"));
    store
        .cli()
        .run(&["catch-up", "--channel-id", &unknown])
        .code(3)
        .stdout("")
        .stderr(format!("error: {refusal}\n"));
    mcp.stop().await;
}
