//! Chinese and Japanese are written without spaces: a word inside a sentence (缓存, "cache",
//! in a sentence about the cache policy; キャッシュ in a Japanese one) is found by words, with
//! the word marked in the snippet, and the same characters in another order are not.

use serde_json::json;

use crate::support::{Feed, Guild, Post, SearchResults, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let wei = guild.member("wei", &[]);
    let incidents = guild.text_channel("incidents");
    let mut feed = Feed::joining(&guild);
    let chinese = feed.post(Post::new(&incidents, &wei, "最后我们决定使用LRU缓存策略"));
    let japanese = feed.post(Post::new(&incidents, &wei, "キャッシュの方針はLRUに決めました"));
    feed.post(Post::new(&incidents, &wei, "we chose LRU for the cache"));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let found: SearchResults = mcp.call_ok("messages_search", json!({"query": "缓存"})).await;
    let ids: Vec<&str> = found.results.iter().map(|result| result.message.message_id.as_str()).collect();
    assert_eq!(ids, [&chinese.id]);
    assert_eq!(found.results[0].snippet, "最后我们决定使用LRU[缓存]策略");

    let found: SearchResults = mcp.call_ok("messages_search", json!({"query": "キャッシュ"})).await;
    let ids: Vec<&str> = found.results.iter().map(|result| result.message.message_id.as_str()).collect();
    assert_eq!(ids, [&japanese.id]);

    let found: SearchResults = mcp.call_ok("messages_search", json!({"query": "存缓"})).await;
    assert!(found.results.is_empty());
    mcp.stop().await;
}
