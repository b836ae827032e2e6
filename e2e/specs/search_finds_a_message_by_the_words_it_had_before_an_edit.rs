//! `messages_search` searches every version of a message: words that only the original had find
//! the message, shown as it is now, with the snippet taken from the version that matched and
//! the match marked; words of the current version find it too.

use serde_json::json;

use crate::support::{Feed, Guild, Post, SearchResults, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let margaret = guild.member("margaret", &[]);
    let incidents = guild.text_channel("incidents");
    let mut feed = Feed::joining(&guild);
    let message = feed.post(Post::new(&incidents, &margaret, "Rotate the staging credentials tonight"));
    feed.post(Post::new(&incidents, &margaret, "Credentials for production stay as they are"));
    let edit = feed.edit(&message, "Rotated the credentials", 30);
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let found: SearchResults = mcp.call_ok("messages_search", json!({"query": "staging"})).await;

    assert_eq!(found.query, "\"staging\"");
    assert_eq!(found.results.len(), 1, "{found:#?}");
    let result = &found.results[0];
    assert_eq!(result.message.message_id, message.id);
    assert_eq!(result.message.content, edit.content, "the message as it is now");
    assert_eq!(result.message.edited_at.as_deref(), Some(edit.edited_at.as_str()));
    assert_eq!(result.snippet, message.content.replace("staging", "[staging]"));

    let current: SearchResults = mcp.call_ok("messages_search", json!({"query": "rotated"})).await;
    assert_eq!(current.results.len(), 1, "{current:#?}");
    assert_eq!(current.results[0].message.message_id, message.id);
    assert_eq!(current.results[0].snippet, edit.content.replace("Rotated", "[Rotated]"));
    mcp.stop().await;
}
