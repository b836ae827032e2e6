//! Search by meaning on the demo store: `discord-manager seed` embeds every message as the
//! ingest daemon would, and `messages_search` with `mode: "meaning"` over rmcp's client puts
//! first the seeded paraphrase target, Margaret's "Resolved: one bad cache node in eu-west-2,
//! replaced." for "was the broken server swapped out?", which shares no word with it: words
//! search finds nothing, `both` finds it first too.

use serde_json::json;

use crate::support::{SearchResults, Store};

/// The demo feed's message (seed/demo.jsonl) that answers the question.
const TARGET: &str = "1500000000000000009";
const QUESTION: &str = "was the broken server swapped out?";

pub async fn spec() {
    let store = Store::without_owner();
    store.cli().run(&["seed", "--replace"]).success();
    let mcp = store.mcp().await;

    let by_meaning: SearchResults = mcp
        .call_ok("messages_search", json!({"query": QUESTION, "mode": "meaning", "limit": 3}))
        .await;
    assert_eq!(by_meaning.query, QUESTION);
    assert_eq!(by_meaning.results[0].message.message_id, TARGET);
    assert_eq!(by_meaning.results[0].matched_by, "meaning");
    assert_eq!(
        by_meaning.results[0].message.content,
        "Resolved: one bad cache node in eu-west-2, replaced. Postmortem on Thursday."
    );
    assert_eq!(by_meaning.results.len(), 3);

    let by_words: SearchResults = mcp.call_ok("messages_search", json!({"query": QUESTION})).await;
    assert!(by_words.results.is_empty());
    let by_both: SearchResults = mcp
        .call_ok("messages_search", json!({"query": QUESTION, "mode": "both"}))
        .await;
    assert_eq!(by_both.results[0].message.message_id, TARGET);
    mcp.stop().await;
}
