//! A measurement, not a test: how many events a second `discord-manager ingest` stores from
//! the fake Discord's feed, and how long a 10,000-message backfill takes.
//!
//! Build the binary first, then run this with the same profile:
//! `cargo build && cargo run --example ingest_throughput`
//! (`--release` on both for release figures). It prints the figures; it asserts nothing.

#[path = "support/daemon.rs"]
mod daemon;
#[path = "../tests/support/fake_discord/mod.rs"]
mod fake_discord;

use std::time::{Duration, Instant};

use daemon::{json, start, wait_for};
use fake_discord::{FakeDiscord, GENERAL, GRACE};
use serde_json::Value;

const LIVE_MESSAGES: usize = 20_000;
const BACKFILL_MESSAGES: usize = 10_000;

fn seconds_between(first: &Value, last: &Value) -> f64 {
    let at = |value: &Value| {
        discord_manager_vocabulary::instant::Instant::parse(value.as_str().unwrap())
            .unwrap()
            .as_micros()
    };
    (at(last) - at(first)) as f64 / 1e6
}

fn main() {
    let folder = tempfile::tempdir().unwrap();
    let db = folder.path().join("store.sqlite3");
    let fake = FakeDiscord::start();

    // A first run proves every channel complete up to its start, then dies.
    let (mut daemon, lines) = start(&fake, &db, &[]);
    wait_for(&lines, "for guild Lighthouse Labs");
    let _ = daemon.kill();
    let _ = daemon.wait();

    // Backfill: 10,000 messages posted while it was down.
    let history: Vec<String> = (0..BACKFILL_MESSAGES)
        .map(|n| {
            FakeDiscord::message_line(
                &format!("@id:down{n}"),
                GENERAL,
                GRACE,
                &format!("posted while down {n}: another ordinary line of chat"),
            )
        })
        .collect();
    fake.post_offline(&history.join("\n"));
    let restarted = Instant::now();
    let (mut daemon, lines) = start(&fake, &db, &[]);
    let channel = wait_for(&lines, "backfilled #general");
    let done = wait_for(&lines, "for guild Lighthouse Labs");
    let wall = restarted.elapsed().as_secs_f64();
    println!(
        "backfill: {}",
        &channel[channel.find("backfilled").unwrap()..]
    );
    println!("backfill: {}", &done[done.find("backfill done").unwrap()..]);
    println!(
        "backfill: {BACKFILL_MESSAGES} messages; wall clock from the restart to done: {wall:.2} s"
    );

    // Live: 20,000 MESSAGE_CREATE as fast as the fake sends them.
    let feed: Vec<String> = (0..LIVE_MESSAGES)
        .map(|n| {
            FakeDiscord::message_line(
                &format!("@id:live{n}"),
                GENERAL,
                GRACE,
                &format!("message {n}: a line of ordinary chat, about sixty characters"),
            )
        })
        .collect();
    let expected = (BACKFILL_MESSAGES + LIVE_MESSAGES) as u64;
    let sent = Instant::now();
    fake.play(&feed.join("\n"));
    let queued = sent.elapsed().as_secs_f64();
    fake.wait_for("every frame sent", Duration::from_secs(600), |fake| {
        fake.count_out("MESSAGE_CREATE") >= LIVE_MESSAGES
    });
    let sending = sent.elapsed().as_secs_f64();
    println!("live: the fake had sent every frame {sending:.2} s after the first");
    while json(&db, &["status"])["messageCount"].as_u64() != Some(expected) {
        std::thread::sleep(Duration::from_millis(200));
    }
    let wall = sent.elapsed().as_secs_f64();
    let first_live = json(&db, &["search", "\"message 0\"", "--limit", "1"]);
    let last = json(&db, &["status"])["newestGatewayEvent"].clone();
    let first = first_live["results"][0]["message"]["createdAt"].clone();
    let stored = seconds_between(&first, &last);
    println!(
        "live: {LIVE_MESSAGES} MESSAGE_CREATE committed in {stored:.2} s between the first and \
         the last commit = {:.0} events/s (the fake took {queued:.2} s to parse and queue the \
         feed; wall clock from the first send to the count reaching {expected}: {wall:.2} s)",
        (LIVE_MESSAGES - 1) as f64 / stored
    );
    let _ = daemon.kill();
    let _ = daemon.wait();
}
