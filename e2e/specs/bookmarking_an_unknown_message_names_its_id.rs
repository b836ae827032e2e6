//! Bookmarking a message the store does not hold is refused with a not-found message naming
//! the id, on both surfaces (the CLI exits with the not-found code); resolving a message that
//! was never bookmarked names it too.

use serde_json::json;

use crate::support::{Feed, Guild, Post, Store, fresh_id};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let stored = feed.post(Post::new(&general, &grace, "Morning all!"));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let unknown = fresh_id();
    let mcp = store.mcp().await;

    let refusal = mcp
        .call_err("bookmarks_add", json!({"messageId": unknown}))
        .await;
    let never_bookmarked = mcp
        .call_err("bookmarks_resolve", json!({"messageId": stored.id}))
        .await;

    assert_eq!(refusal, format!("`messageId`: no stored message has id {unknown}"));
    assert_eq!(never_bookmarked, format!("`messageId`: message {} has no bookmark", stored.id));
    store
        .cli()
        .run(&["bookmarks", "add", &unknown])
        .code(3)
        .stdout("")
        .stderr(format!("error: `messageId`: no stored message has id {unknown}\n"));
    mcp.stop().await;
}
