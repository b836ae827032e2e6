//! A search query that FTS5 cannot parse (an unbalanced quote or parenthesis) is refused in the
//! owner's words, never SQLite's, identically on both surfaces: an `isError` result over MCP,
//! and on the CLI the same message on stderr, nothing on stdout, the input-error exit code 2.

use serde_json::json;

use crate::support::{Feed, Guild, Post, Store};

const SYNTAX: &str = "`query` is not valid search syntax: use words, \"exact phrases\", OR, NOT, \
                      parentheses, prefix* or NEAR(a b, 5), with quotes and parentheses balanced";

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    feed.post(Post::new(&general, &grace, "The release notes are drafted."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let cli = store.cli();
    let mcp = store.mcp().await;

    for query in ["\"release notes", "(release OR notes"] {
        let refused = mcp.call_err("messages_search", json!({"query": query})).await;
        assert_eq!(refused, SYNTAX, "for {query:?}");
        cli.run(&["search", query])
            .code(2)
            .stdout("")
            .stderr(format!("error: {refused}\n"));
    }
    mcp.stop().await;
}
