//! A bookmark records the surface it came from: one added on the command line says `cli`, one
//! added by an MCP client says `mcp`; `bookmarks_list` shows both, oldest first, whichever
//! surface reads it, and a resolution from the CLI says `cli`.

use serde_json::json;

use crate::support::{Bookmark, Bookmarks, Feed, Guild, Post, ResolvedBookmark, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let margaret = guild.member("margaret", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let first = feed.post(Post::new(&general, &grace, "Release notes draft is up."));
    let second = feed.post(Post::new(&general, &margaret, "Postmortem on Thursday."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let cli = store.cli();
    let mcp = store.mcp().await;

    let from_cli: Bookmark = cli.json(&["bookmarks", "add", &first.id, "--note", "proofread"]);
    let from_mcp: Bookmark = mcp
        .call_ok("bookmarks_add", json!({"messageId": second.id}))
        .await;

    assert_eq!(from_cli.source, "cli");
    assert_eq!(from_cli.note.as_deref(), Some("proofread"));
    assert_eq!(from_mcp.source, "mcp");
    let over_mcp: Bookmarks = mcp.call_ok("bookmarks_list", json!({})).await;
    let on_cli: Bookmarks = cli.json(&["bookmarks", "list"]);
    assert_eq!(over_mcp.bookmarks, [from_cli.clone(), from_mcp.clone()]);
    assert_eq!(on_cli, over_mcp);

    let resolved: ResolvedBookmark = cli.json(&["bookmarks", "resolve", &first.id]);
    assert_eq!(resolved.source, "cli");
    assert_eq!(resolved.note.as_deref(), Some("proofread"));
    let after: Bookmarks = mcp.call_ok("bookmarks_list", json!({})).await;
    assert_eq!(after.bookmarks, [from_mcp]);
    mcp.stop().await;
}
