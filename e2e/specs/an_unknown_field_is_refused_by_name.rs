//! A field a tool does not take is refused, naming it and listing the fields there are, rather
//! than silently ignored; a tool that takes no fields says so.

use serde_json::json;

use crate::support::{Feed, Guild, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    guild.text_channel("general");
    let store = Store::for_owner(&owner);
    store.play(&Feed::joining(&guild)).await;
    let mcp = store.mcp().await;

    let misspelt = mcp
        .call_err("messages_catch_up", json!({"sinse": "2026-01-01T00:00:00Z"}))
        .await;
    let no_fields = mcp
        .call_err("bookmarks_list", json!({"open": true}))
        .await;

    assert_eq!(
        misspelt,
        "Unknown field `sinse`; the fields are: channelId, cursor, fromReadMarkers, limit, since"
    );
    assert_eq!(no_fields, "Unknown field `open`; the fields are: cursor, limit");
    mcp.stop().await;
}
