//! Four mentions of the owner arrive in #incidents while no MCP session runs, and one in
//! #general; the owner dismisses the fourth and marks #general read, from the CLI. The next
//! session to start replays the other three, newest first, once each, and neither handled one; a fifth, posted while it runs, is pushed live. A second
//! start replays none of the five: the first event it pushes is a mention posted after it
//! started (a replay is pushed before anything live). The fifth arrived after the first
//! session's start, so only the record of what was pushed keeps it from being replayed.

use serde_json::{Value, json};

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, INCIDENTS, OWNER};
use crate::support::live::{Daemon, caught_up_until};

fn mention(id: &str, text: &str) -> String {
    mention_in(INCIDENTS, id, text)
}

fn mention_in(channel: &str, id: &str, text: &str) -> String {
    let mut mention = FakeDiscord::message_value(
        &format!("@id:{id}"),
        channel,
        GRACE,
        &format!("<@{OWNER}> {text}"),
    );
    mention["d"]["mentions"] = json!([FakeDiscord::user(OWNER)]);
    mention.to_string()
}

fn pushed_ids(pushed: &[Value]) -> Vec<String> {
    pushed
        .iter()
        .map(|event| event["meta"]["message_id"].as_str().unwrap_or("").to_string())
        .collect()
}

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    fake.play(&mention("one", "the first question"));
    fake.play(&mention("two", "the second"));
    fake.play(&mention("three", "the third"));
    fake.play(&mention("four", "the fourth, handled"));
    fake.play(&mention_in(GENERAL, "read", "seen on my phone"));
    caught_up_until(&store, INCIDENTS, "the four mentions", |m| m.len() == 4);
    caught_up_until(&store, GENERAL, "the mention in #general", |m| m.len() == 1);
    store
        .cli()
        .json_value(&["mentions", "dismiss", &fake.id("four")]);
    store
        .cli()
        .json_value(&["mark-read", "--channel-id", GENERAL]);

    let first = store.mcp().await;
    let pushed = first.wait_for_pushed(3).await;
    first.ping().await;
    assert_eq!(
        pushed_ids(&first.pushed()),
        [fake.id("three"), fake.id("two"), fake.id("one")],
        "newest first, once each, the dismissed one and the one marked read left out"
    );
    assert!(pushed.iter().all(|event| event["meta"]["kind"] == "mention"));
    fake.play(&mention("five", "live, while the session runs"));
    let pushed = first.wait_for_pushed(4).await;
    assert_eq!(pushed_ids(&pushed)[3], fake.id("five"));
    first.stop().await;

    let second = store.mcp().await;
    fake.play(&mention("six", "a new one"));
    let pushed = second.wait_for_pushed(1).await;
    assert_eq!(pushed_ids(&pushed)[0], fake.id("six"), "{pushed:#?}");
    second.ping().await;
    assert_eq!(pushed_ids(&second.pushed()), [fake.id("six")]);
    second.stop().await;
    daemon.stop();
}
