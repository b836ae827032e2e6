//! A message has at most one open bookmark: bookmarking it again is refused with "That message
//! is already bookmarked" and the first bookmark stays as it was; once resolved, the message
//! can be bookmarked afresh.

use serde_json::json;

use crate::support::{Bookmark, Bookmarks, Feed, Guild, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let releases = guild.announcement_channel("releases");
    let mut feed = Feed::joining(&guild);
    let message = feed.post(Post::new(&releases, &grace, "v2.4.0 is tagged."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let first: Bookmark = mcp
        .call_ok("bookmarks_add", json!({"messageId": message.id, "note": "write the blog post"}))
        .await;

    let twice = mcp
        .call_err("bookmarks_add", json!({"messageId": message.id, "note": "another note"}))
        .await;

    assert_eq!(twice, "That message is already bookmarked");
    let listed: Bookmarks = mcp.call_ok("bookmarks_list", json!({})).await;
    assert_eq!(listed.of(&message.id), [&first]);

    mcp.call_ok::<serde_json::Value>("bookmarks_resolve", json!({"messageId": message.id}))
        .await;
    let afresh: Bookmark = mcp
        .call_ok("bookmarks_add", json!({"messageId": message.id}))
        .await;
    assert_eq!(afresh.note, None);
    assert!(afresh.bookmarked_at > first.bookmarked_at);
    let listed: Bookmarks = mcp.call_ok("bookmarks_list", json!({})).await;
    assert_eq!(listed.of(&message.id), [&afresh]);
    mcp.stop().await;
}
