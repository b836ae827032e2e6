//! A bookmark's note may be up to 1000 characters: a note of exactly 1000 is kept whole, one of
//! 1001 is refused naming the field and its length, and no bookmark is left behind.

use serde_json::json;

use crate::support::{Bookmark, Bookmarks, Feed, Guild, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let kept = feed.post(Post::new(&general, &grace, "Design doc for the compaction rewrite."));
    let refused = feed.post(Post::new(&general, &grace, "Benchmarks for the compaction rewrite."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let longest = "é".repeat(1000);
    let too_long = "é".repeat(1001);
    let mcp = store.mcp().await;

    let bookmark: Bookmark = mcp
        .call_ok("bookmarks_add", json!({"messageId": kept.id, "note": longest}))
        .await;
    let refusal = mcp
        .call_err("bookmarks_add", json!({"messageId": refused.id, "note": too_long}))
        .await;

    assert_eq!(bookmark.note.as_deref(), Some(longest.as_str()));
    assert_eq!(
        refusal,
        "`note` must be text of at most 1000 characters; got text of 1001 characters"
    );
    let listed: Bookmarks = mcp.call_ok("bookmarks_list", json!({})).await;
    assert_eq!(listed.of(&kept.id), [&bookmark]);
    assert_eq!(listed.of(&refused.id), Vec::<&Bookmark>::new());
    mcp.stop().await;
}
