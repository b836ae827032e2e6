//! Grace mentions the owner 30 times in #incidents in a burst, once the session pushes live
//! (a first mention has come through). The session is not flooded:
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
    // One mention first, pushed live: the session is past its replay (which gives what
    // arrived before it one by one) before the burst comes.
    let mut first = FakeDiscord::message_value(
        "@id:first",
        INCIDENTS,
        GRACE,
        &format!("<@{OWNER}> before the burst"),
    );
    first["d"]["mentions"] = json!([FakeDiscord::user(OWNER)]);
    fake.play(&first.to_string());
    let before = mcp.wait_for_pushed(1).await;
    assert_eq!(before[0]["meta"]["message_id"], fake.id("first"));

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
            pushed[1..].iter().map(items).sum::<usize>() >= 30
        })
        .await;
    mcp.ping().await;
    let pushed_now = mcp.pushed();
    assert_eq!(pushed_now[1..].iter().map(items).sum::<usize>(), 30, "{pushed_now:#?}");
    // Six in the minute in all, the first mention's event included.
    assert!(pushed.len() <= 6, "{} events: {pushed:#?}", pushed.len());
    let pushed = &pushed[1..];
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
