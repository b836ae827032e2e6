//! A measurement, not a test: what search by meaning costs a process, in memory and time.
//!
//! `cargo run --release --example meaning_index_cost [messages]` (default 1,000,000) builds
//! the benchmark's synthetic store, gives every message a stand-in vector (the evaluation
//! set's chat lines embedded by the bundled model, with noise, as the store benchmark does),
//! then, in this one process as the MCP server would: drops the store from the page cache,
//! reads its resident memory, opens the store and asks `messages_search` by meaning once (the
//! call that loads the index: the first of the day), then 50 of the set's
//! questions by meaning and 50 by both, `limit` 10, through the registry, and reads its
//! resident memory and peak again; then the 50 by meaning again, their pages now in the page
//! cache. `KEEP_STORE=<path>` builds the store there and leaves it;
//! when that file exists already it is used as it is (a second run, another build of the code,
//! the same store). It asserts nothing.

use std::time::{Duration, Instant as Stopwatch};

use discord_manager_core::business::Source;
use discord_manager_core::business::kernel::context::build_owner_context;
use discord_manager_core::config::Config;
use discord_manager_core::registry::{self, Services};
use discord_manager_meaning::model::Encoder;
use discord_manager_store::Store;
use discord_manager_synthetic::stand_in_meanings::write_stand_in_meanings;
use discord_manager_synthetic::{Plan, build};
use serde_json::{Value, json};

/// How many questions each mode is asked after the first call.
const QUESTIONS: usize = 50;

fn main() {
    let messages: u64 = std::env::args()
        .nth(1)
        .and_then(|count| count.parse().ok())
        .unwrap_or(1_000_000);
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = std::env::var_os("KEEP_STORE").map_or_else(
        || folder.path().join("meaning.sqlite3"),
        std::path::PathBuf::from,
    );
    let set: Value = serde_json::from_str(include_str!("../benches/eval/meaning.json"))
        .expect("the evaluation set");
    let texts = |list: &str| -> Vec<String> {
        set[list]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|item| item["text"].as_str().map(str::to_string))
            .collect()
    };
    if !path.exists() {
        let store = Store::open(&path).expect("the store opens");
        let started = Stopwatch::now();
        let (produced, _) = build(&store, &Plan::new(messages, 7)).expect("the history builds");
        let lines = texts("messages");
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let bases = Encoder::bundled()
            .and_then(|encoder| encoder.embed_messages(&lines))
            .expect("the chat lines embed");
        let written = write_stand_in_meanings(&store, &bases).expect("the stand-ins are written");
        println!(
            "{} messages built and {written} stand-in vectors written in {:.0} s",
            produced.messages,
            started.elapsed().as_secs_f64()
        );
    }
    // The first call of the day: the store's pages dropped from the page cache, the store
    // opened afresh, and one search by meaning (which loads the index).
    evict_from_page_cache(&path).expect("the store's pages are dropped");
    let (baseline, _) = memory();
    let opened = Stopwatch::now();
    let store = Store::open(&path).expect("the store opens");
    let config = Config::from_lookup(|_| None).expect("the default configuration");
    let context = build_owner_context(&config, &store, Source::Mcp).expect("the owner context");
    let services = Services {
        store: std::sync::Arc::new(store),
        context,
        sender: None,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let search = registry::find("messages_search").expect("messages_search is registered");
    let questions = texts("queries");
    let ask = |question: &str, mode: &str| {
        let input = json!({"query": question, "mode": mode, "limit": 10});
        let started = Stopwatch::now();
        let answer = runtime
            .block_on(search.call(input, &services))
            .map(|outcome| outcome.to_json());
        match answer {
            Ok(answer) => assert!(answer["results"].is_array()),
            Err(error) => panic!("{mode} {question:?}: {}", error.message()),
        }
        started.elapsed()
    };
    let first = ask(&questions[0], "meaning");
    let from_open = opened.elapsed();
    let (after_load, _) = memory();
    println!(
        "first search by meaning, store cold from disk (loads the index): {:.0} ms, {:.0} ms \
         with the store's opening; resident {baseline} → {after_load} MiB",
        ms(first),
        ms(from_open)
    );
    let median = |mode: &str, label: &str| {
        let mut timings: Vec<Duration> = (0..QUESTIONS)
            .map(|n| ask(&questions[(n + 1) % questions.len()], mode))
            .collect();
        timings.sort();
        println!(
            "{label}: p50 {:.2} ms, p95 {:.2} ms over {QUESTIONS} questions",
            ms(timings[QUESTIONS / 2]),
            ms(timings[QUESTIONS * 95 / 100])
        );
    };
    median("meaning", "meaning");
    median("both", "both");
    let (resident, peak) = memory();
    let (anonymous, file_backed) = (status_mib("RssAnon:"), status_mib("RssFile:"));
    println!(
        "after the searches: resident {resident} MiB ({anonymous} MiB the process's own, \
         {file_backed} MiB pages of files: the binary, the store), peak {peak} MiB"
    );
    // The same questions again: the pages their candidates' vectors lie in are now in the
    // page cache, as in a server that has been answering for a while.
    median("meaning", "meaning, the same questions again");
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1_000.0
}

/// Drops the store's files from the page cache (clean pages only: the store was closed).
fn evict_from_page_cache(path: &std::path::Path) -> std::io::Result<()> {
    for suffix in ["", "-wal"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        if let Ok(file) = std::fs::File::open(&name) {
            rustix::fs::fadvise(&file, 0, None, rustix::fs::Advice::DontNeed)?;
        }
    }
    Ok(())
}

/// This process's resident memory and its peak, in MiB (`/proc/self/status`).
fn memory() -> (u64, u64) {
    (status_mib("VmRSS:"), status_mib("VmHWM:"))
}

/// One of `/proc/self/status`'s sizes, in MiB (0 where it cannot be read).
fn status_mib(name: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(name))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|kib| kib.parse::<u64>().ok())
        .map_or(0, |kib| kib / 1024)
}
