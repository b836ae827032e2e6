//! An input the capability does not accept is refused in the owner's words, naming the field
//! and what is wanted, identically on both surfaces: an `isError` tool result over MCP, and on
//! the CLI the same message on stderr, nothing on stdout, and the input-error exit code 2.

use serde_json::json;

use crate::support::{Feed, Guild, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    guild.text_channel("general");
    let store = Store::for_owner(&owner);
    store.play(&Feed::joining(&guild)).await;
    let cli = store.cli();
    let mcp = store.mcp().await;

    let zero = mcp.call_err("messages_catch_up", json!({"limit": 0})).await;
    let words = mcp
        .call_err("messages_catch_up", json!({"limit": "five"}))
        .await;

    assert_eq!(zero, "`limit` must be a whole number from 1 to 500; got 0");
    assert_eq!(
        words,
        "`limit` must be a whole number from 1 to 500; got \"five\""
    );
    cli.run(&["catch-up", "--limit", "0"])
        .code(2)
        .stdout("")
        .stderr(format!("error: {zero}\n"));
    cli.run(&["catch-up", "--limit", "five"])
        .code(2)
        .stdout("")
        .stderr(format!("error: {words}\n"));
    mcp.stop().await;
}
