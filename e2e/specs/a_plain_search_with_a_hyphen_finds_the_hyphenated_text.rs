//! Plain words are text, never search syntax: `eu-west-2` finds the message that says
//! `eu-west-2` (the query is run quoted), and not one that merely has the same words apart.

use serde_json::json;

use crate::support::{Feed, Guild, Post, SearchResults, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let margaret = guild.member("margaret", &[]);
    let incidents = guild.text_channel("incidents");
    let mut feed = Feed::joining(&guild);
    let failover = feed.post(Post::new(&incidents, &margaret, "Failover to eu-west-2 is done"));
    feed.post(Post::new(&incidents, &margaret, "The EU team moved west, 2 desks left"));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let found: SearchResults = mcp.call_ok("messages_search", json!({"query": "eu-west-2"})).await;

    assert_eq!(found.query, "\"eu-west-2\"");
    let ids: Vec<&str> = found.results.iter().map(|result| result.message.message_id.as_str()).collect();
    assert_eq!(ids, [&failover.id]);
    assert_eq!(found.results[0].message.content, failover.content);
    assert_eq!(found.results[0].snippet, failover.content.replace("eu-west-2", "[eu-west-2]"));
    mcp.stop().await;
}
