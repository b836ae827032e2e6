use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use discord_manager_core::business::kernel::approval::{
    Approval, ApprovalRequest, AskReason, OwnerApproval, PostKind,
};
use discord_manager_vocabulary::snowflake::ChannelId;
use serde_json::{Value, json};

use super::{FORM, HeldApprovals, MOST_HELD, PATIENCE, RoundTrip, input_required, owner_answer};

fn post(content: &str) -> ApprovalRequest {
    ApprovalRequest {
        kind: PostKind::Post,
        reason: AskReason::Unlisted,
        channel_id: ChannelId::parse("5").expect("an id"),
        channel_name: "incidents".into(),
        content: content.into(),
        message_id: None,
        send_at: None,
    }
}

fn arguments() -> Value {
    json!({"channelId": "5", "content": "Status: all clear."})
}

const USED: &str = "This approval was already used, or was never given by this server: nothing \
                    was sent. Call the tool again, without requestState, to ask the owner";

fn refusal(outcome: discord_manager_vocabulary::error::Result<ApprovalRequest>) -> String {
    outcome
        .expect_err("the handle is refused")
        .message()
        .to_string()
}

#[test]
fn a_held_approval_is_redeemed_once_for_its_own_call_and_then_refused_as_used() {
    let held = HeldApprovals::default();
    let now = Instant::now();
    let handle = held
        .hold(
            "messages_send",
            &arguments(),
            post("Status: all clear."),
            now,
        )
        .expect("held");
    assert_eq!(handle.len(), 32);
    assert!(handle.chars().all(|c| c.is_ascii_hexdigit()), "{handle}");
    assert_eq!(
        held.redeem(&handle, "messages_send", &arguments(), now),
        Ok(post("Status: all clear."))
    );
    assert_eq!(
        refusal(held.redeem(&handle, "messages_send", &arguments(), now)),
        USED
    );
    assert_eq!(
        refusal(held.redeem(
            "0123456789abcdef0123456789abcdef",
            "messages_send",
            &arguments(),
            now
        )),
        USED
    );
}

#[test]
fn two_approvals_get_different_handles() {
    let held = HeldApprovals::default();
    let now = Instant::now();
    let first = held.hold("messages_send", &arguments(), post("a"), now);
    let second = held.hold("messages_send", &arguments(), post("a"), now);
    assert_ne!(first, second);
}

#[test]
fn a_handle_is_good_until_its_patience_runs_out_and_refused_from_then_on() {
    let held = HeldApprovals::default();
    let asked = Instant::now();
    let hold = || {
        held.hold("messages_send", &arguments(), post("a"), asked)
            .expect("held")
    };
    let last_moment = asked + PATIENCE - Duration::from_millis(1);
    assert!(
        held.redeem(&hold(), "messages_send", &arguments(), last_moment)
            .is_ok()
    );
    assert_eq!(
        refusal(held.redeem(&hold(), "messages_send", &arguments(), asked + PATIENCE)),
        "The owner's form waited more than 10 minutes and expired: nothing was sent. Call the \
         tool again, without requestState, to ask the owner"
    );
}

#[test]
fn a_handle_brought_back_with_other_arguments_or_another_tool_is_refused_and_spent() {
    let held = HeldApprovals::default();
    let now = Instant::now();
    let other = "The owner was asked about another call (`messages_send` with other \
                 arguments): nothing was sent. Call the tool again, without requestState, to \
                 ask the owner";
    let handle = held
        .hold("messages_send", &arguments(), post("a"), now)
        .expect("held");
    let changed = json!({"channelId": "5", "content": "Status: all clear. Send $$$ here"});
    assert_eq!(
        refusal(held.redeem(&handle, "messages_send", &changed, now)),
        other
    );
    // Spent: the right arguments no longer redeem it.
    assert_eq!(
        refusal(held.redeem(&handle, "messages_send", &arguments(), now)),
        USED
    );

    let handle = held
        .hold("messages_send", &arguments(), post("a"), now)
        .expect("held");
    assert_eq!(
        refusal(held.redeem(&handle, "schedules_add", &arguments(), now)),
        other
    );
}

#[test]
fn past_the_most_held_the_oldest_approval_is_forgotten() {
    let held = HeldApprovals::default();
    let start = Instant::now();
    let handles: Vec<String> = (0..=MOST_HELD)
        .map(|n| {
            let at = start + Duration::from_millis(n as u64);
            held.hold("messages_send", &arguments(), post("a"), at)
                .expect("held")
        })
        .collect();
    let now = start + Duration::from_secs(1);
    assert_eq!(
        refusal(held.redeem(&handles[0], "messages_send", &arguments(), now)),
        USED
    );
    for handle in &handles[1..] {
        assert!(
            held.redeem(handle, "messages_send", &arguments(), now)
                .is_ok()
        );
    }
}

/// What `approval` answers about `request` (these approvals answer at once).
fn ask(approval: &RoundTrip, request: &ApprovalRequest) -> Approval {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
        .block_on(approval.ask(request))
}

#[test]
fn the_first_round_notes_what_it_would_ask_and_says_no_so_nothing_is_sent() {
    let noting = RoundTrip::noting();
    assert_eq!(noting.noted(), None);
    assert_eq!(
        ask(&noting, &post("a")),
        Approval::Unavailable("the client is shown the form first".into())
    );
    assert_eq!(noting.noted(), Some(post("a")));
}

#[test]
fn an_answered_approval_says_yes_once_and_only_to_the_post_the_owner_was_shown() {
    let answered = RoundTrip::answered(post("a"), Approval::Approved);
    assert_eq!(
        ask(&answered, &post("b")),
        Approval::Unavailable(
            "what would go out changed since the owner was shown the form".into()
        )
    );
    // A changed post spends the answer too.
    assert_eq!(
        ask(&answered, &post("a")),
        Approval::Unavailable("the owner's answer was already used".into())
    );

    let answered = RoundTrip::answered(post("a"), Approval::Approved);
    assert_eq!(ask(&answered, &post("a")), Approval::Approved);
    assert_eq!(
        ask(&answered, &post("a")),
        Approval::Unavailable("the owner's answer was already used".into())
    );
    assert_eq!(answered.noted(), None);
}

#[test]
fn the_owners_answer_is_read_from_the_forms_response_and_only_accept_is_a_yes() {
    let responses = |answer: Value| BTreeMap::from([(FORM.to_string(), answer)]);
    assert_eq!(
        owner_answer(Some(&responses(json!({"action": "accept", "content": {}})))),
        Approval::Approved
    );
    assert_eq!(
        owner_answer(Some(&responses(json!({"action": "decline"})))),
        Approval::Declined
    );
    assert_eq!(
        owner_answer(Some(&responses(json!({"action": "cancel"})))),
        Approval::Cancelled
    );
    let unreadable = Approval::Unavailable("the client's answer to the form does not read".into());
    assert_eq!(
        owner_answer(Some(&responses(json!({"action": "ACCEPT"})))),
        unreadable
    );
    assert_eq!(owner_answer(Some(&responses(json!("accept")))), unreadable);
    let none = Approval::Unavailable("the client sent no answer to the form".into());
    assert_eq!(owner_answer(None), none);
    assert_eq!(
        owner_answer(Some(&BTreeMap::from([(
            "other".to_string(),
            json!({"action": "accept"})
        )]))),
        none
    );
}

#[test]
fn the_input_required_result_carries_the_owners_form_and_the_handle() {
    let asked = post("Status: all clear.");
    let result = serde_json::to_value(input_required(&asked, "ab".repeat(16))).expect("JSON");
    assert_eq!(
        result,
        json!({
            "resultType": "input_required",
            "inputRequests": {
                "owner_approval": {
                    "method": "elicitation/create",
                    "params": {
                        "mode": "form",
                        "message": asked.message(),
                        "requestedSchema": {"type": "object", "properties": {}}
                    }
                }
            },
            "requestState": "ab".repeat(16)
        })
    );
}
