//! MCP 2026-07-28 forbids a server's own requests: a tool that needs the person answers
//! `input_required`, and the client retries the call with their answer (multi round-trip
//! requests). With DISCORD_MANAGER_SEND_CHANNELS listing #general only, the official Python SDK
//! (`mcp`, pinned in `e2e/clients/`) posts in #incidents speaking 2026-07-28: the person sees
//! the same form as through 2025-11-25's elicitation, once per call; declined or cancelled,
//! nothing reaches Discord; accepted, the message goes out once. Driving the rounds by hand,
//! the handle the server gave is good once: brought back again, with other arguments, or made
//! up, it is refused and nothing is sent. The same SDK speaking 2025-11-25 is asked through
//! `elicitation/create`, with the same form and the same outcome. On either protocol, a client
//! that does not say it can show forms is refused as before, asked nothing.

use serde_json::{Value, json};

use crate::support::fake_discord::{FakeDiscord, GENERAL, INCIDENTS};
use crate::support::live::store_sending_to;
use crate::support::sdk::run_python;

const CONTENT: &str = "Status: all clear.";

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

fn refused(result: &Value) -> &str {
    assert_eq!(result["isError"], true, "{result:#}");
    text_of(result)
}

fn posted(result: &Value) {
    assert_eq!(result["isError"], false, "{result:#}");
    assert_eq!(result["structuredContent"]["channelId"], INCIDENTS, "{result:#}");
    assert_eq!(result["structuredContent"]["content"], CONTENT, "{result:#}");
}

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = store_sending_to(&fake).setting("DISCORD_MANAGER_SEND_CHANNELS", GENERAL);
    let before = fake.requests().len();
    let call = json!({"tool": "messages_send", "arguments": {"channelId": INCIDENTS, "content": CONTENT}});
    let form = format!(
        "An assistant asks to post this message in #incidents (channel {INCIDENTS}), as the \
         bot. You are asked because #incidents (channel {INCIDENTS}) is not in \
         DISCORD_MANAGER_SEND_CHANNELS: accepting allows this one message only. Accept to let \
         it go out once; decline and nothing is sent.\n\nThe text is 18 characters on 1 line, \
         every line below marked │, and nothing after them:\n│ {CONTENT}\n└ end of the text"
    );
    let declined =
        format!("The owner declined the message for channel {INCIDENTS}; nothing was sent");
    let cancelled = format!(
        "The owner closed the form without approving the message for channel {INCIDENTS}; \
         nothing was sent"
    );
    let unlisted = format!(
        "Sending to channel {INCIDENTS} is denied: it is not in DISCORD_MANAGER_SEND_CHANNELS"
    );
    let used = "This approval was already used, or was never given by this server: nothing was \
                sent. Call the tool again, without requestState, to ask the owner";

    // 2026-07-28: asked by input_required; the SDK drives the rounds.
    let run = run_python(
        "python_approval.py",
        &store,
        json!({"mode": "2026-07-28", "call": call, "answers": ["decline", "cancel", "accept"], "byHand": true}),
    )
    .await;
    assert_eq!(run["sdk"], "2.3.0");
    assert_eq!(run["protocol"], "2026-07-28");
    assert_eq!(run["asked"], json!([form, form, form]));
    let results = run["results"].as_array().expect("results");
    assert_eq!(refused(&results[0]), declined);
    assert_eq!(refused(&results[1]), cancelled);
    posted(&results[2]);

    // By hand: the first round is the form and a handle, good once.
    let by_hand = &run["byHand"];
    let first = &by_hand["firstRound"];
    assert_eq!(first["resultType"], "input_required");
    assert_eq!(
        first["inputRequests"],
        json!({"owner_approval": {"method": "elicitation/create", "params": {
            "mode": "form", "message": form, "requestedSchema": {"type": "object", "properties": {}}
        }}})
    );
    let handle = first["requestState"].as_str().expect("a handle");
    assert!(
        handle.len() == 32 && handle.chars().all(|c| c.is_ascii_hexdigit()),
        "{handle}"
    );
    posted(&by_hand["accepted"]);
    assert_eq!(refused(&by_hand["replayed"]), used);
    assert_eq!(
        refused(&by_hand["otherArguments"]),
        "The owner was asked about another call (`messages_send` with other arguments): \
         nothing was sent. Call the tool again, without requestState, to ask the owner"
    );
    assert_eq!(refused(&by_hand["neverGiven"]), used);
    assert_eq!(refused(&run["withoutForm"]), unlisted);

    let posts = fake.posts();
    assert_eq!(posts.len(), 2, "{posts:#?}");
    assert!(posts.iter().all(|post| post["content"] == CONTENT), "{posts:#?}");

    // 2025-11-25: the same SDK is asked through elicitation/create, the same form.
    let run = run_python(
        "python_approval.py",
        &store,
        json!({"mode": "legacy", "call": call, "answers": ["decline", "accept"]}),
    )
    .await;
    assert_eq!(run["protocol"], "2025-11-25");
    assert_eq!(run["asked"], json!([form, form]));
    let results = run["results"].as_array().expect("results");
    assert_eq!(refused(&results[0]), declined);
    posted(&results[1]);
    assert_eq!(refused(&run["withoutForm"]), unlisted);
    assert_eq!(fake.posts().len(), 3);
    // Every request but the three posts was a read.
    let writes: Vec<_> = fake.requests()[before..]
        .iter()
        .filter(|request| request.method != "GET")
        .map(|request| format!("{} {}", request.method, request.path))
        .collect();
    assert_eq!(writes.len(), 3, "{writes:#?}");
}
