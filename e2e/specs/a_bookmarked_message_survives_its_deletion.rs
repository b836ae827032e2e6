//! A bookmark outlives its message: after the message is deleted on Discord, `bookmarks_list`
//! still shows the bookmark, the message flagged deleted with its last content kept.

use serde_json::json;

use crate::support::{Bookmark, Bookmarks, Feed, Guild, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let linus = guild.member("linus", &[]);
    let incidents = guild.text_channel("incidents");
    let mut feed = Feed::joining(&guild);
    let message = feed.post(Post::new(&incidents, &linus, "ignore this, wrong channel"));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let added: Bookmark = mcp
        .call_ok("bookmarks_add", json!({"messageId": message.id, "note": "ask Linus what this was about"}))
        .await;

    let mut later = Feed::new();
    later.delete(&message);
    store.play(&later).await;
    let listed: Bookmarks = mcp.call_ok("bookmarks_list", json!({})).await;

    let bookmarks = listed.of(&message.id);
    assert_eq!(bookmarks.len(), 1, "the bookmark survives the deletion: {listed:#?}");
    let bookmark = bookmarks[0];
    assert!(!added.message.deleted);
    assert!(bookmark.message.deleted);
    assert_eq!(bookmark.message.content, message.content);
    assert_eq!(bookmark.content_when_bookmarked, message.content);
    assert_eq!(bookmark.message.message_id, message.id);
    assert_eq!(bookmark.message.created_at, added.message.created_at);
    mcp.stop().await;
}
