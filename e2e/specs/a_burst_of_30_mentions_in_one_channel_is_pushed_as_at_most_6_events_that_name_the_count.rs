//! Grace mentions the owner 30 times in #incidents in a burst. The session is not flooded:
//! what arrives together in one channel is one event naming the count, and at most 6 events
//! come in a minute; the events account for all 30, each once.

use serde_json::{Value, json};

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GRACE, INCIDENTS, OWNER};
use crate::support::live::Daemon;

/// How many items an event gives: one, or the count it names.
fn items(event: &Value) -> usize {
    match event["meta"]["count"].as_str() {
        Some(count) => count.parse().unwrap(),
        None => 1,
    }
}

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    let mcp = store.mcp().await;

    let burst: Vec<String> = (0..30)
        .map(|n| {
            let mut mention = FakeDiscord::message_value(
                &format!("@id:m{n}"),
                INCIDENTS,
                GRACE,
                &format!("<@{OWNER}> ping {n}"),
            );
            mention["d"]["mentions"] = json!([FakeDiscord::user(OWNER)]);
            mention.to_string()
        })
        .collect();
    fake.play(&burst.join("\n"));
    let pushed = mcp
        .wait_until_pushed("events giving all 30 mentions", |pushed| {
            pushed.iter().map(items).sum::<usize>() >= 30
        })
        .await;
    mcp.ping().await;
    let pushed_now = mcp.pushed();
    assert_eq!(pushed_now.iter().map(items).sum::<usize>(), 30, "{pushed_now:#?}");
    assert!(pushed.len() <= 6, "{} events: {pushed:#?}", pushed.len());
    for event in pushed.iter().filter(|event| items(event) > 1) {
        let count = items(event);
        assert_eq!(event["meta"]["kind"], "burst");
        assert_eq!(event["meta"]["channel_id"], INCIDENTS);
        assert!(
            event["content"]
                .as_str()
                .unwrap()
                .contains(&format!("{count} messages need you in ")),
            "{event:#}"
        );
    }
    mcp.stop().await;
    daemon.stop();
}
