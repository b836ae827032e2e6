//! A measurement, not a test: whether keeping attachments' files, or embedding messages for
//! search by meaning, slows the gateway's writer, and how fast the embedder keeps up.
//!
//! The real `discord-manager ingest` runs against the fake Discord, and the fake plays a live
//! feed of 20,000 MESSAGE_CREATE, 4% of them carrying a file from the synthetic attachment
//! mix (`discord_manager_synthetic::attachment_mix`), each served by the fake's own CDN on the
//! loopback (images as a 300 KB PNG, text files as a 20 KB log; videos and documents are
//! announced at their size only: the policy skips them without a request). The same feed is
//! played to a fresh store with the fetcher off (`DISCORD_MANAGER_ATTACHMENTS=0`) and on
//! (the defaults), alternately, `RUNS` times each (`INGEST_RUNS=n` for another count). For
//! each run it prints:
//!
//! - the writer's events/s: the 20,000 messages between the first and the last commit, by
//!   the store's arrival clock;
//! - how long the fake took to send every frame, and the writer's lag: from the fake's last
//!   frame sent to the store holding every message. The fake sends faster than the writer
//!   stores (about 20,000 frames in 2 to 3 s on 2 cores), so the events/s are the writer's;
//!   with the fetcher on, the fake's one thread also serves the CDN's downloads;
//! - the files the fetcher kept while the feed was being written (it keeps one at a time, with
//!   a pause after each: a few a second).
//!
//! With `INGEST_KNOB=meaning`, the runs alternate the embedder instead, off
//! (`DISCORD_MANAGER_MEANING=off`) and on, with the fetcher off in both, and each run also
//! prints how many messages the embedder had embedded when the writer was done (at that
//! rate, embeddings a second while ingesting), and its pace in the 15 s after.
//!
//! Build the binary first, then run this with the same profile:
//! `cargo build --release && cargo run --release --example ingest_with_attachments`.
//! It prints the figures; it asserts nothing.

#[path = "support/daemon.rs"]
mod daemon;
#[path = "../tests/support/fake_discord/mod.rs"]
mod fake_discord;

use std::path::Path;
use std::process::Child;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use daemon::{json, wait_for};
use discord_manager_synthetic::attachment_mix;
use fake_discord::{FakeDiscord, GENERAL, GRACE};
use serde_json::{Value, json};

const LIVE_MESSAGES: u64 = 20_000;
/// Runs with the fetcher off and on, alternately, unless `INGEST_RUNS` says how many.
const RUNS: usize = 5;
/// The bytes an image and a text file are served with.
const IMAGE_BYTES: usize = 300_000;
const TEXT_BYTES: usize = 20_000;
/// How long each run watches the embedder after the feed is stored.
const EMBEDDING_WINDOW_SECONDS: u64 = 15;

/// What a run's daemon runs beside the gateway's writer.
#[derive(Debug, Clone, Copy)]
struct Beside {
    fetcher: bool,
    embedder: bool,
}

/// Which knob the runs turn (`INGEST_KNOB`): the fetcher (the default) or the embedder.
fn knob_is_meaning() -> bool {
    std::env::var("INGEST_KNOB").is_ok_and(|knob| knob == "meaning")
}

fn start(fake: &FakeDiscord, db: &Path, beside: Beside) -> (Child, mpsc::Receiver<String>) {
    let mut settings = Vec::new();
    if !beside.fetcher {
        settings.push(("DISCORD_MANAGER_ATTACHMENTS", "0"));
    }
    if !beside.embedder {
        settings.push(("DISCORD_MANAGER_MEANING", "off"));
    }
    daemon::start(fake, db, &settings)
}

fn micros(value: &Value) -> i64 {
    discord_manager_vocabulary::instant::Instant::parse(value.as_str().unwrap())
        .unwrap()
        .as_micros()
}

/// The live feed: every message a line of chat, the mix's files attached to theirs.
fn feed(fake: &FakeDiscord) -> (String, usize) {
    let image = |n: u64| {
        let mut bytes = vec![0u8; IMAGE_BYTES];
        bytes[..8].copy_from_slice(&n.to_be_bytes());
        bytes
    };
    let mut files: Vec<Vec<attachment_mix::PlannedFile>> = vec![Vec::new(); LIVE_MESSAGES as usize];
    let mut count = 0;
    for file in attachment_mix::planned_files(LIVE_MESSAGES, 1) {
        files[file.message as usize].push(file);
        count += 1;
    }
    let lines: Vec<String> = files
        .iter()
        .enumerate()
        .map(|(n, attached)| {
            let mut message = FakeDiscord::message_value(
                &format!("@id:live{n}"),
                GENERAL,
                GRACE,
                &format!("message {n}: a line of ordinary chat, about sixty characters"),
            );
            let attachments: Vec<Value> = attached
                .iter()
                .map(|file| {
                    let served = match file.content_type {
                        kind if kind.starts_with("image/") => image(n as u64),
                        kind if kind.starts_with("text/") => vec![b'x'; TEXT_BYTES],
                        _ => Vec::new(),
                    };
                    let mut attachment =
                        fake.attachment(GENERAL, &file.filename, file.content_type, &served);
                    if served.is_empty() {
                        // Announced at its size, never requested: the policy skips it.
                        attachment["size"] = json!(file.size);
                    }
                    attachment
                })
                .collect();
            message["d"]["attachments"] = json!(attachments);
            message.to_string()
        })
        .collect();
    (lines.join("\n"), count)
}

/// One run: a fresh store and fake, the feed played live; the figures.
fn run(beside: Beside) -> Value {
    let folder = tempfile::tempdir().unwrap();
    let db = folder.path().join("store.sqlite3");
    let fake = FakeDiscord::start();
    let (mut daemon, lines) = start(&fake, &db, beside);
    wait_for(&lines, "for guild Lighthouse Labs");
    let (feed, files) = feed(&fake);
    let base = json(&db, &["status"])["messageCount"].as_u64().unwrap_or(0);
    let expected = base + LIVE_MESSAGES;
    let sent = Instant::now();
    fake.play(&feed);
    fake.wait_for("every frame sent", Duration::from_secs(600), |fake| {
        fake.count_out("MESSAGE_CREATE") >= LIVE_MESSAGES as usize
    });
    let sending = sent.elapsed().as_secs_f64();
    while json(&db, &["status"])["messageCount"].as_u64() != Some(expected) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let stored = sent.elapsed().as_secs_f64();
    let embedded_at = |db: &Path| {
        json(db, &["status"])["meaning"]["embedded"]
            .as_u64()
            .unwrap_or(0)
    };
    let embedded = embedded_at(&db);
    // The pass's own pace in the running daemon, over a window after the feed (the writer
    // stores a burst faster than a first batch is embedded).
    let window = Instant::now();
    std::thread::sleep(Duration::from_secs(EMBEDDING_WINDOW_SECONDS));
    let embedded_after = embedded_at(&db);
    let embedding_rate =
        (embedded_after - embedded.min(embedded_after)) as f64 / window.elapsed().as_secs_f64();
    let kept = lines
        .try_iter()
        .filter(|line| line.contains("kept attachment"))
        .count();
    let first = json(&db, &["search", "\"message 0\"", "--limit", "1"]);
    let status = json(&db, &["status"]);
    let seconds = (micros(&status["newestGatewayEvent"])
        - micros(&first["results"][0]["message"]["createdAt"])) as f64
        / 1e6;
    let _ = daemon.kill();
    let _ = daemon.wait();
    json!({
        "fetching": beside.fetcher,
        "embedding": beside.embedder,
        "embeddedMeanwhile": embedded,
        "embeddingsPerSecond": (embedded as f64 / stored).round(),
        "embeddingsPerSecondAfter": embedding_rate.round(),
        "messages": LIVE_MESSAGES,
        "filesAttached": files,
        "eventsPerSecond": ((LIVE_MESSAGES - 1) as f64 / seconds).round(),
        "fakeSendingSeconds": (sending * 100.0).round() / 100.0,
        "writerLagSeconds": ((stored - sending) * 100.0).round() / 100.0,
        "filesKeptMeanwhile": kept,
    })
}

fn main() {
    let runs = std::env::var("INGEST_RUNS")
        .ok()
        .and_then(|runs| runs.parse().ok())
        .filter(|runs| *runs > 0)
        .unwrap_or(RUNS);
    let meaning = knob_is_meaning();
    let (name, field) = if meaning {
        ("embedder", "embedding")
    } else {
        ("fetcher", "fetching")
    };
    let mut results = Vec::new();
    for round in 0..runs {
        for on in [false, true] {
            let beside = Beside {
                fetcher: on && !meaning,
                embedder: !meaning || on,
            };
            let figures = run(beside);
            println!(
                "round {}: {name} {}: {} events/s between the first and the last commit; the \
                 fake sent every frame in {} s, the store held them all {} s after that; {} of \
                 {} attached files kept and {} messages embedded meanwhile ({} a second); \
                 {} a second embedded in the {EMBEDDING_WINDOW_SECONDS} s after",
                round + 1,
                if on { "on " } else { "off" },
                figures["eventsPerSecond"],
                figures["fakeSendingSeconds"],
                figures["writerLagSeconds"],
                figures["filesKeptMeanwhile"],
                figures["filesAttached"],
                figures["embeddedMeanwhile"],
                figures["embeddingsPerSecond"],
                figures["embeddingsPerSecondAfter"],
            );
            results.push(figures);
        }
    }
    for on in [false, true] {
        let mut rates: Vec<f64> = results
            .iter()
            .filter(|figures| figures[field] == on)
            .filter_map(|figures| figures["eventsPerSecond"].as_f64())
            .collect();
        rates.sort_by(f64::total_cmp);
        println!(
            "{name} {}: median {} events/s of {runs} runs (slowest {}, fastest {})",
            if on { "on " } else { "off" },
            rates[rates.len() / 2],
            rates[0],
            rates[rates.len() - 1]
        );
    }
}
