//! A refusal whose remedy is known says what failed, then what to do about it, a `Hint:` line
//! each, the same on both surfaces: with search by meaning turned off, a search by meaning is
//! refused over MCP as an `isError` tool result whose text is the message and its two hints,
//! and on the CLI with that same text after `error:` on stderr, nothing on stdout, and the
//! configuration exit code 6.

use serde_json::json;

use crate::support::{Feed, Guild, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    guild.text_channel("general");
    let store = Store::for_owner(&owner).setting("DISCORD_MANAGER_MEANING", "off");
    store.play(&Feed::joining(&guild)).await;
    let mcp = store.mcp().await;

    let refused = mcp
        .call_err(
            "messages_search",
            json!({"query": "where is lunch", "mode": "meaning"}),
        )
        .await;
    assert_eq!(
        refused,
        "`mode` \"meaning\" searches by meaning, which is off (DISCORD_MANAGER_MEANING=off)\n\
         Hint: Set DISCORD_MANAGER_MEANING=on, or remove it, and run `discord-manager ingest`, \
         which embeds every message in the background\n\
         Hint: Or search with mode \"words\""
    );
    store
        .cli()
        .run(&["search", "where is lunch", "--mode", "meaning"])
        .code(6)
        .stdout("")
        .stderr(format!("error: {refused}\n"));
    mcp.stop().await;
}
