//! The prompts' arguments and budget, without a store: what is refused, in which words, and
//! how a tool's answer too long for one prompt is cut.

use serde_json::json;

use super::*;

fn object(value: Value) -> Option<JsonObject> {
    match value {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

#[test]
fn an_unknown_prompt_is_refused_with_the_names_of_the_prompts() {
    let refused = find("catch-me-up").err().unwrap();
    assert_eq!(refused.code, rmcp::model::ErrorCode::INVALID_PARAMS);
    assert_eq!(
        refused.message,
        "There is no prompt named `catch-me-up`: the prompts are `what-did-i-miss`, \
         `triage-my-mentions`, `reply-to-a-message`"
    );
}

#[test]
fn a_missing_unknown_or_non_text_argument_is_refused_by_name() {
    let reply = find("reply-to-a-message").unwrap();
    let missing = reply.given(None).err().unwrap();
    assert_eq!(missing.code, rmcp::model::ErrorCode::INVALID_PARAMS);
    assert_eq!(
        missing.message,
        "The prompt `reply-to-a-message` needs `message`: The message to answer: its id \
         (digits), or its link (https://discord.com/channels/…)."
    );
    // Clients send an argument left blank as empty text: it is not given.
    let blank = reply.given(object(json!({"message": "  "}))).err().unwrap();
    assert_eq!(blank.message, missing.message);
    let unknown = reply
        .given(object(json!({"message": "1", "thread": "2"})))
        .err()
        .unwrap();
    assert_eq!(
        unknown.message,
        "The prompt `reply-to-a-message` has no argument `thread`: it takes `message` and \
         `channel`"
    );
    let number = reply.given(object(json!({"message": 15}))).err().unwrap();
    assert_eq!(
        number.message,
        "`message` must be text: The message to answer: its id (digits), or its link \
         (https://discord.com/channels/…)."
    );
    let briefing = find("what-did-i-miss").unwrap();
    let extra = briefing
        .given(object(json!({"since": "yesterday"})))
        .err()
        .unwrap();
    assert_eq!(
        extra.message,
        "The prompt `what-did-i-miss` has no argument `since`: it takes no arguments"
    );
    let given = reply
        .given(object(
            json!({"message": " 1500000000000000009 ", "channel": ""}),
        ))
        .unwrap();
    assert_eq!(given.get("message"), Some("1500000000000000009"));
    assert_eq!(given.get("channel"), None);
}

#[test]
fn a_message_id_without_its_channel_is_refused_before_any_tool_is_called() {
    let reply = find("reply-to-a-message").unwrap();
    let given = reply
        .given(object(json!({"message": "1500000000000000009"})))
        .unwrap();
    let mut called = Vec::new();
    let refused = reply
        .render(&given, &mut |capability, _| {
            called.push(capability.name);
            Err(Error::internal("not called"))
        })
        .err()
        .unwrap();
    assert_eq!(refused.code, rmcp::model::ErrorCode::INVALID_PARAMS);
    assert_eq!(
        refused.message,
        "The prompt `reply-to-a-message` needs `channel` with a message id: the id of the \
         channel or thread message 1500000000000000009 is in (or give the message's link as \
         `message`)"
    );
    assert!(called.is_empty());
}

#[test]
fn a_tools_refusal_is_the_prompts_and_a_failure_not_the_requests_is_an_internal_error() {
    let reply = find("reply-to-a-message").unwrap();
    let given = reply
        .given(object(json!({"message": "15", "channel": "14"})))
        .unwrap();
    let mut inputs = Vec::new();
    let refused = reply
        .render(&given, &mut |capability, input| {
            inputs.push((capability.name, input));
            Err(Error::not_found("no stored message of #general has id 15"))
        })
        .err()
        .unwrap();
    assert_eq!(refused.code, rmcp::model::ErrorCode::INVALID_PARAMS);
    assert_eq!(refused.message, "no stored message of #general has id 15");
    assert_eq!(
        inputs,
        [(
            "messages_history",
            json!({"channelId": "14", "around": "15", "limit": 20})
        )]
    );
    let failed = reply
        .render(&given, &mut |_, _| Err(Error::internal("disk on fire")))
        .err()
        .unwrap();
    assert_eq!(failed.code, rmcp::model::ErrorCode::INTERNAL_ERROR);
    assert_eq!(failed.message, "disk on fire");
    let unconfigured = reply
        .render(&given, &mut |_, _| {
            Err(Error::config(
                "Set DISCORD_OWNER_ID to your Discord user id",
            ))
        })
        .err()
        .unwrap();
    assert_eq!(unconfigured.code, rmcp::model::ErrorCode::INTERNAL_ERROR);
    assert_eq!(
        unconfigured.message,
        "Set DISCORD_OWNER_ID to your Discord user id"
    );
}

#[test]
fn a_tools_answer_too_long_for_the_prompt_is_cut_at_a_line_and_says_so() {
    let line = "x".repeat(99);
    let answer = format!("{line}\n").repeat(400);
    let prompt = compose(
        "Opening.",
        "mentions_awaiting_reply",
        &answer,
        "Instructions.\n",
    );
    assert!(prompt.len() <= ANSWER_BYTES, "{}", prompt.len());
    assert!(prompt.starts_with("Opening.\n\nxxx"));
    assert!(prompt.ends_with(
        "xxx\n[Cut to fit one answer: call mentions_awaiting_reply for the rest.]\n\nInstructions.\n"
    ));
    let kept = prompt.matches(&line).count();
    // 31,902 bytes of room (the opening, the instructions, the note and the breaks aside).
    assert_eq!(kept, 319);
    let short = compose(
        "Opening.",
        "activity_briefing",
        "one line\n\n",
        "Instructions.\n",
    );
    assert_eq!(short, "Opening.\n\none line\n\nInstructions.\n");
}
