//! `prompts/get` refuses what it cannot render with a JSON-RPC `invalid params` error in the
//! owner's words, over rmcp's client against the real binary on the demo store: an unknown
//! prompt names the prompts there are, a missing or unknown argument is named with what is
//! wanted, and a message the store does not hold is named by its id. The server goes on
//! answering.

use rmcp::model::ErrorCode;
use serde_json::json;

use crate::support::Store;

pub async fn spec() {
    let store = Store::without_owner();
    store.cli().run(&["seed", "--replace"]).success();
    let mcp = store.mcp().await;

    let refusals = [
        (
            "catch-me-up",
            json!({}),
            "There is no prompt named `catch-me-up`: the prompts are `what-did-i-miss`, \
             `triage-my-mentions`, `reply-to-a-message`",
        ),
        (
            "reply-to-a-message",
            json!({}),
            "The prompt `reply-to-a-message` needs `message`: The message to answer: its id \
             (digits), or its link (https://discord.com/channels/…).",
        ),
        (
            "reply-to-a-message",
            json!({"message": "1500000000000000014"}),
            "The prompt `reply-to-a-message` needs `channel` with a message id: the id of the \
             channel or thread message 1500000000000000014 is in (or give the message's link \
             as `message`)",
        ),
        (
            "triage-my-mentions",
            json!({"since": "yesterday"}),
            "The prompt `triage-my-mentions` has no argument `since`: it takes no arguments",
        ),
        (
            "reply-to-a-message",
            json!({"message": "1500000000000000099", "channel": "1400000000000000003"}),
            "`around`: no stored message of channel 1400000000000000003 has id \
             1500000000000000099",
        ),
    ];
    for (name, arguments, expected) in refusals {
        let refused = mcp
            .prompt(name, arguments.clone())
            .await
            .expect_err("the prompt is refused");
        assert_eq!(refused.code, ErrorCode::INVALID_PARAMS, "{name} {arguments}");
        assert_eq!(refused.message, expected, "{name} {arguments}");
    }
    // Still serving.
    assert!(mcp.prompt("what-did-i-miss", json!({})).await.is_ok());
    mcp.stop().await;
}
