//! A bookmark is kept by message: after the author edits the message, `bookmarks_list` still
//! shows the bookmark, with the content as it was when bookmarked beside the message as it is
//! now.

use serde_json::json;

use crate::support::{Bookmark, Bookmarks, Feed, Guild, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let margaret = guild.member("margaret", &[]);
    let incidents = guild.text_channel("incidents");
    let mut feed = Feed::joining(&guild);
    let message = feed.post(Post::new(&incidents, &margaret, "Resolved: one bad cache node."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let note = "read the postmortem when it lands";
    let added: Bookmark = mcp
        .call_ok("bookmarks_add", json!({"messageId": message.id, "note": note}))
        .await;

    let mut later = Feed::new();
    let edit = later.edit(
        &message,
        "Resolved: one bad cache node in eu-west-2, replaced. Postmortem on Thursday.",
        20,
    );
    store.play(&later).await;
    let listed: Bookmarks = mcp.call_ok("bookmarks_list", json!({})).await;

    assert_eq!(added.content_when_bookmarked, message.content);
    assert_eq!(added.message.content, message.content);
    let bookmarks = listed.of(&message.id);
    assert_eq!(bookmarks.len(), 1, "the bookmark survives the edit: {listed:#?}");
    let bookmark = bookmarks[0];
    assert_eq!(bookmark.note.as_deref(), Some(note));
    assert_eq!(bookmark.source, "mcp");
    assert_eq!(bookmark.bookmarked_at, added.bookmarked_at);
    assert_eq!(bookmark.content_when_bookmarked, message.content);
    assert_eq!(bookmark.message.content, edit.content);
    assert_eq!(bookmark.message.edited_at.as_deref(), Some(edit.edited_at.as_str()));
    assert!(!bookmark.message.deleted);
    mcp.stop().await;
}
