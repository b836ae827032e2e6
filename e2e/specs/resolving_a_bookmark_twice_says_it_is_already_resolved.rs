//! Resolving a bookmark closes it (it leaves `bookmarks_list`, with when and from where it was
//! resolved); resolving it again is refused with "That bookmark is already resolved".

use serde_json::json;

use crate::support::{Bookmark, Bookmarks, Feed, Guild, Post, ResolvedBookmark, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let linus = guild.member("linus", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let message = feed.post(
        Post::new(&general, &linus, format!("{} could you review the storage PR?", owner.mention()))
            .mentioning(&owner),
    );
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let note = "review the storage PR";
    let added: Bookmark = mcp
        .call_ok("bookmarks_add", json!({"messageId": message.id, "note": note}))
        .await;

    let resolved: ResolvedBookmark = mcp
        .call_ok("bookmarks_resolve", json!({"messageId": message.id}))
        .await;
    let again = mcp
        .call_err("bookmarks_resolve", json!({"messageId": message.id}))
        .await;

    assert_eq!(resolved.message_id, message.id);
    assert_eq!(resolved.note.as_deref(), Some(note));
    assert_eq!(resolved.source, "mcp");
    assert!(resolved.resolved_at > added.bookmarked_at);
    assert_eq!(again, "That bookmark is already resolved");
    let listed: Bookmarks = mcp.call_ok("bookmarks_list", json!({})).await;
    assert_eq!(listed.of(&message.id), Vec::<&Bookmark>::new());
    mcp.stop().await;
}
