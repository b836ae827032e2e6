//! A measurement, not a test: whether the text of kept text files slows search by words.
//!
//! The attachment cache keeps text-like files up to its total cap (1 GiB by default), and
//! each is indexed for full-text search up to its first 64 KiB, in the same FTS5 index as
//! the messages: at worst about 16,000 files of 64 KiB. `cargo run --release --example
//! kept_text_search_cost [messages] [files]` (defaults 100,000 and 16,384) builds a synthetic
//! store, times `messages_search` by words (in-process, through the registry, as both
//! surfaces call it) on the evaluation set's questions and on words log files are full of,
//! then indexes `files` text files of 64 KiB of generated log lines on the store's messages
//! and times the same searches again. It prints p50 and p95 before and after, and the store's
//! size; it asserts nothing. `KEEP_STORE=<path>` leaves the store at `path`.

use std::time::{Duration, Instant as Stopwatch};

use discord_manager_core::business::Source;
use discord_manager_core::business::kernel::context::build_owner_context;
use discord_manager_core::config::Config;
use discord_manager_core::registry::{self, Services};
use discord_manager_store::{Attachment, AttachmentOutcome, AttachmentRecord, Store};
use discord_manager_synthetic::{Plan, build};
use discord_manager_vocabulary::snowflake::{AttachmentId, ChannelId, MessageId};
use serde_json::{Value, json};

/// The bytes of one file's text indexed unless a third argument gives KiB: what the fetcher
/// indexes of a kept text file at most.
const FILE_BYTES: usize = 64 * 1024;
/// Files indexed per write transaction.
const BATCH: usize = 256;
/// How many times each query is asked, per measurement.
const REPEATS: usize = 5;

fn main() {
    let mut arguments = std::env::args().skip(1);
    let messages: u64 = arguments
        .next()
        .and_then(|count| count.parse().ok())
        .unwrap_or(100_000);
    let files: usize = arguments
        .next()
        .and_then(|count| count.parse().ok())
        .unwrap_or(16_384);
    let file_bytes: usize = arguments
        .next()
        .and_then(|kib| kib.parse::<usize>().ok())
        .map_or(FILE_BYTES, |kib| kib * 1024);
    let folder = tempfile::tempdir().expect("a temporary folder");
    // KEEP_STORE=<path> builds the store there and leaves it, to look into afterwards.
    let path = std::env::var_os("KEEP_STORE").map_or_else(
        || folder.path().join("search.sqlite3"),
        std::path::PathBuf::from,
    );
    let store = Store::open(&path).expect("the store opens");
    let started = Stopwatch::now();
    let (produced, _) = build(&store, &Plan::new(messages, 7)).expect("the history builds");
    println!(
        "{} messages built in {:.0} s",
        produced.messages,
        started.elapsed().as_secs_f64()
    );
    let config = Config::from_lookup(|_| None).expect("the default configuration");
    let context = build_owner_context(&config, &store, Source::Cli).expect("the owner context");
    let services = Services {
        store: std::sync::Arc::new(store),
        context,
        sender: None,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let queries = queries();

    let before = measure(&runtime, &services, &queries);
    let size_before = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let started = Stopwatch::now();
    index_files(&services.store, &path, files, file_bytes);
    println!(
        "{files} text files of {} KiB indexed in {:.0} s",
        file_bytes / 1024,
        started.elapsed().as_secs_f64()
    );
    let after = measure(&runtime, &services, &queries);
    let size_after = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);

    println!("| query | p50 before | p95 before | p50 after | p95 after | results after |");
    println!("|---|---|---|---|---|---|");
    for ((query, before), (_, after)) in queries.iter().zip(&before).zip(queries.iter().zip(&after))
    {
        println!(
            "| {query} | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {} |",
            ms(before.p50),
            ms(before.p95),
            ms(after.p50),
            ms(after.p95),
            after.results
        );
    }
    let overall = |timings: &[Timing]| {
        let mut all: Vec<Duration> = timings.iter().flat_map(|t| t.all.clone()).collect();
        all.sort();
        (percentile(&all, 50), percentile(&all, 95))
    };
    let (before_p50, before_p95) = overall(&before);
    let (after_p50, after_p95) = overall(&after);
    println!(
        "all queries: p50 {:.2} → {:.2} ms, p95 {:.2} → {:.2} ms; store {:.0} → {:.0} MB",
        ms(before_p50),
        ms(after_p50),
        ms(before_p95),
        ms(after_p95),
        size_before as f64 / 1e6,
        size_after as f64 / 1e6
    );
}

/// The evaluation set's questions, then words kept log files are full of.
fn queries() -> Vec<String> {
    let set: Value = serde_json::from_str(include_str!("../benches/eval/meaning.json"))
        .expect("the evaluation set");
    let mut queries: Vec<String> = set["queries"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|query| query["text"].as_str().map(str::to_string))
        .take(20)
        .collect();
    queries.extend(
        [
            "error",
            "timeout",
            "connection refused",
            "deploy",
            "eu-west-2",
        ]
        .iter()
        .map(|word| word.to_string()),
    );
    queries
}

struct Timing {
    all: Vec<Duration>,
    p50: Duration,
    p95: Duration,
    results: usize,
}

/// Each query asked [`REPEATS`] times after one untimed call.
fn measure(
    runtime: &tokio::runtime::Runtime,
    services: &Services,
    queries: &[String],
) -> Vec<Timing> {
    let search = registry::find("messages_search").expect("messages_search is registered");
    queries
        .iter()
        .map(|query| {
            let input = json!({"query": query, "mode": "words"});
            let ask = || {
                runtime
                    .block_on(search.call(input.clone(), services))
                    .map(|outcome| outcome.to_json())
            };
            let results = match ask() {
                Ok(answer) => answer["results"].as_array().map_or(0, Vec::len),
                Err(error) => {
                    println!("{query:?}: {}", error.message());
                    0
                }
            };
            let mut all: Vec<Duration> = (0..REPEATS)
                .map(|_| {
                    let started = Stopwatch::now();
                    let _ = ask();
                    started.elapsed()
                })
                .collect();
            all.sort();
            Timing {
                p50: percentile(&all, 50),
                p95: percentile(&all, 95),
                all,
                results,
            }
        })
        .collect()
}

/// Indexes `files` generated log files, each on a message of the store (spread through it),
/// as the fetcher indexes a kept text file.
fn index_files(store: &Store, path: &std::path::Path, files: usize, file_bytes: usize) {
    let targets: Vec<(MessageId, ChannelId)> = {
        let connection = rusqlite::Connection::open(path).expect("the store opens");
        let total: i64 = connection
            .query_row("SELECT count(*) FROM messages", [], |row| row.get(0))
            .expect("the messages counted");
        let step = (total / files.max(1) as i64).max(1);
        let mut statement = connection
            .prepare("SELECT message_id, channel_id FROM messages WHERE rowid % ?1 = 0 LIMIT ?2")
            .expect("a query");
        statement
            .query_map([step, files as i64], |row| Ok((row.get(0)?, row.get(1)?)))
            .expect("the messages read")
            .filter_map(|row| row.ok())
            .collect()
    };
    for (batch, chunk) in targets.chunks(BATCH).enumerate() {
        store
            .write(|writer| {
                for (offset, (message_id, channel_id)) in chunk.iter().enumerate() {
                    let number = batch * BATCH + offset;
                    let id: AttachmentId = (1_700_000_000_000_000_000u64 + number as u64)
                        .to_string()
                        .parse()
                        .expect("an id");
                    let filename = format!("service-{number}.log");
                    let attachment = Attachment {
                        id,
                        filename: filename.clone(),
                        size: FILE_BYTES as u64,
                        content_type: Some("text/plain".into()),
                        url: format!("https://cdn.discordapp.com/attachments/1/{id}/{filename}"),
                        width: None,
                        height: None,
                        description: None,
                        duration_ms: None,
                    };
                    writer.record_attachments(message_id, channel_id, &[attachment])?;
                    writer.record_attachment_outcome(
                        &id,
                        &AttachmentOutcome::Fetched {
                            hash: format!("{number:064x}"),
                            bytes: FILE_BYTES as u64,
                        },
                    )?;
                    let record = AttachmentRecord {
                        seq: 0,
                        attachment_id: id,
                        message_id: *message_id,
                        channel_id: *channel_id,
                        filename,
                        content_type: Some("text/plain".into()),
                        size: FILE_BYTES as u64,
                        url: String::new(),
                        failed_attempts: 0,
                    };
                    writer.index_attachment_text(
                        &record,
                        &log_text(number, file_bytes),
                        file_bytes as u64,
                    )?;
                }
                Ok(())
            })
            .expect("the files indexed");
    }
}

/// 64 KiB of log lines, varied by `seed`: timestamps, levels, services, hosts and the words
/// such logs repeat.
fn log_text(seed: usize, bytes: usize) -> String {
    const LEVELS: [&str; 4] = ["INFO", "WARN", "ERROR", "DEBUG"];
    const SERVICES: [&str; 6] = ["api", "billing", "auth", "cache", "scheduler", "gateway"];
    const EVENTS: [&str; 8] = [
        "request completed in {n} ms",
        "connection refused by 10.0.{n}.4:5432",
        "timeout after {n} ms waiting for upstream",
        "deploy {n} rolled out to eu-west-2",
        "cache miss for key user:{n}",
        "retrying job {n} (attempt 2 of 5)",
        "error: unexpected EOF while reading frame {n}",
        "health check passed for pod web-{n}",
    ];
    let mut text = String::with_capacity(bytes + 128);
    let mut line = 0usize;
    while text.len() < bytes {
        let n = (seed * 7919 + line * 104_729) % 100_000;
        let event = EVENTS[(seed + line * 3) % EVENTS.len()].replace("{n}", &n.to_string());
        text.push_str(&format!(
            "2026-11-{:02}T{:02}:{:02}:{:02}Z {} {}: {event}\n",
            1 + line % 28,
            line % 24,
            line % 60,
            (line * 7) % 60,
            LEVELS[(seed + line) % LEVELS.len()],
            SERVICES[(seed * 3 + line) % SERVICES.len()],
        ));
        line += 1;
    }
    text.truncate(bytes);
    text
}

fn percentile(sorted: &[Duration], percent: usize) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = (percent * sorted.len()).div_ceil(100).max(1);
    sorted[rank - 1]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
