//! `kill -9` while the ingest daemon is embedding a backlog: after a restart the pass goes on
//! from where the store says it is, and every message ends with exactly one current vector of
//! the bundled model (`store_status`: embedded equals messages; the store keeps one row per
//! message, so equal counts are one each). The messages are then found by meaning.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GRACE, INCIDENTS};
use crate::support::live::{Daemon, status};

/// Messages posted while the daemon runs: enough that the pass is caught mid-way.
const POSTED: usize = 200;

/// (embedded, messages) from `store_status`.
fn embedded(store: &Store) -> (u64, u64) {
    let status: Value = status(store);
    let count = |field: &str| status["meaning"][field].as_u64().expect("a count");
    (count("embedded"), count("messages"))
}

/// Polls `store_status` until `done` holds, for at most a minute.
fn poll_until(store: &Store, what: &str, done: impl Fn((u64, u64)) -> bool) -> (u64, u64) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let counts = embedded(store);
        if done(counts) {
            return counts;
        }
        assert!(Instant::now() < deadline, "waited a minute for {what}: {counts:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let mut daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    let before = embedded(&store).1;
    let feed: Vec<String> = (0..POSTED)
        .map(|n| {
            FakeDiscord::message_value(
                &format!("@id:note{n}"),
                INCIDENTS,
                GRACE,
                &format!("note {n}: the cache node in rack {n} was replaced after the outage"),
            )
            .to_string()
        })
        .collect();
    fake.play(&feed.join("\n"));
    let total = before + POSTED as u64;
    poll_until(&store, "every posted message stored", |(_, messages)| messages == total);
    let mid_way = poll_until(&store, "the pass part of the way", |(embedded, _)| {
        embedded > before
    });
    daemon.kill9();
    let after_kill = embedded(&store);
    assert!(
        after_kill.0 < total,
        "the pass was caught mid-way: {mid_way:?}, then {after_kill:?}"
    );

    let daemon = Daemon::start(&fake, &store);
    daemon.wait_for("search by meaning is up to date");
    daemon.stop();
    assert_eq!(embedded(&store), (total, total));

    let found = store.cli().json_value(&[
        "search",
        "--mode",
        "meaning",
        "--limit",
        "1",
        "was the broken server in rack 7 swapped out?",
    ]);
    assert_eq!(found["results"][0]["matchedBy"], json!("meaning"));
}
