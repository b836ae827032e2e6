//! The prompts of the daily loop over rmcp's client, against the real binary on the demo store
//! (`discord-manager seed`): `prompts/list` lists exactly `what-did-i-miss`,
//! `triage-my-mentions` and `reply-to-a-message`, and `prompts/get` renders each from the
//! store with the demo's real message ids, their links and text, other people's text fenced.
//! `reply-to-a-message` renders the same from the message's link alone as from its id and
//! channel.

use serde_json::json;

use crate::support::Store;

/// Grace's mention of the owner in #incidents, still open (seed/demo.jsonl).
const GRACES_MENTION: &str = "1500000000000000014";
const INCIDENTS: &str = "1400000000000000003";
const GUILD: &str = "1200000000000000001";

/// A listed prompt: its name, its title, and each argument with whether it is required.
type Listed<'a> = (&'a str, Option<&'a str>, Vec<(&'a str, Option<bool>)>);

/// Whether `text` shows `words` fenced as other people's text.
fn fenced(text: &str, words: &str) -> bool {
    text.match_indices(words).any(|(at, _)| {
        text[..at].ends_with('›') && text[at + words.len()..].starts_with("‹/")
    })
}

/// `text` with every fence's nonce taken out: two renderings, each fenced afresh, compared.
fn unfenced(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('‹') {
        shown.push_str(&rest[..at]);
        let after = &rest[at + '‹'.len_utf8()..];
        let Some(end) = after.find('›') else {
            rest = &rest[at..];
            break;
        };
        shown.push_str("‹›");
        rest = &after[end + '›'.len_utf8()..];
    }
    shown.push_str(rest);
    shown
}

pub async fn spec() {
    let store = Store::without_owner();
    store.cli().run(&["seed", "--replace"]).success();
    let mcp = store.mcp().await;

    let prompts = mcp.prompts().await;
    let listed: Vec<Listed> = prompts
        .iter()
        .map(|prompt| {
            (
                prompt.name.as_str(),
                prompt.title.as_deref(),
                prompt
                    .arguments
                    .iter()
                    .flatten()
                    .map(|argument| (argument.name.as_str(), argument.required))
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("what-did-i-miss", Some("What did I miss"), vec![]),
            ("triage-my-mentions", Some("Triage my mentions"), vec![]),
            (
                "reply-to-a-message",
                Some("Reply to a message"),
                vec![("message", Some(true)), ("channel", Some(false))]
            ),
        ]
    );

    let briefing = mcp.prompt("what-did-i-miss", json!({})).await.unwrap();
    assert!(briefing.starts_with(
        "The owner asks what they missed on Discord. This is activity_briefing's answer"
    ));
    assert!(briefing.contains("## Needs you: 3 open"), "{briefing}");
    let graces_link = format!("https://discord.com/channels/{GUILD}/{INCIDENTS}/{GRACES_MENTION}");
    assert!(
        briefing.contains(&format!("message {GRACES_MENTION} ({graces_link}) in")),
        "{briefing}"
    );
    assert!(
        fenced(&briefing, "Grace: @Ada are you around for the incident review tomorrow?"),
        "{briefing}"
    );
    assert!(
        briefing.contains("mark it read with channels_mark_read, the briefing's watermark"),
        "{briefing}"
    );

    let triage = mcp.prompt("triage-my-mentions", json!({})).await.unwrap();
    assert!(triage.contains("3 mentions of the owner:"), "{triage}");
    for (id, words) in [
        ("1500000000000000008", "@here latency spike on eu-west, investigating."),
        ("1500000000000000013", "@Ada could you write the v2.4.0 announcement?"),
        (GRACES_MENTION, "@Ada are you around for the incident review tomorrow?"),
    ] {
        assert!(triage.contains(&format!("msg {id} (https://discord.com/channels/{GUILD}/")), "{id}: {triage}");
        assert!(fenced(&triage, words), "{words}: {triage}");
    }

    let reply = mcp
        .prompt(
            "reply-to-a-message",
            json!({"message": GRACES_MENTION, "channel": INCIDENTS}),
        )
        .await
        .unwrap();
    assert!(reply.starts_with(&format!(
        "The owner wants to reply to message {GRACES_MENTION}. This is messages_history's answer"
    )));
    assert!(
        reply.contains(&format!("(channel {INCIDENTS}): ")),
        "the channel by its id: {reply}"
    );
    assert!(reply.contains(&format!("msg {GRACES_MENTION} by")), "{reply}");
    assert!(
        fenced(&reply, "@Ada are you around for the incident review tomorrow?"),
        "{reply}"
    );
    assert!(
        reply.contains(&format!("Draft a reply to message {GRACES_MENTION} for the owner")),
        "{reply}"
    );
    assert!(reply.contains("Never post without the owner's yes."), "{reply}");
    // The link the owner pastes renders the same conversation.
    let pasted = mcp
        .prompt("reply-to-a-message", json!({"message": graces_link}))
        .await
        .unwrap();
    assert_eq!(unfenced(&pasted), unfenced(&reply));
    mcp.stop().await;
}
