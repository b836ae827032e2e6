//! `cargo bench`: what the product costs on stores of 10k, 100k and 1M messages, measured,
//! never asserted, next to what SQLite itself does on the same machine.
//!
//! For each store size it builds a synthetic store through the real recorders (in a child
//! process, so its peak memory is the recorders' own), copies the same rows into a fresh
//! store with raw rusqlite (the floor), times every reading capability in-process, drives the
//! real `discord-manager mcp` over stdio with JSON-RPC lines, and runs `catch-up --json` as a
//! whole process. It prints Markdown tables and writes the same figures as JSON to
//! `bench-results/latest.json`.
//!
//! Knobs (environment variables):
//! - `BENCH_SIZES` (default `10000,100000,1000000`): message counts;
//! - `BENCH_SEED` (default 1), `BENCH_PER_DAY` (default 2000 messages a day),
//!   `BENCH_BATCH` (default 64 events per transaction);
//! - `BENCH_REPS` (default 200): most runs of an in-process reading measurement (at least 20,
//!   within about 2 s each); `BENCH_PROCESS_REPS` (default 20): MCP sessions and CLI runs;
//! - `BENCH_REUSE=1`: reuse stores built by an earlier run (under `target/bench-stores/`)
//!   and report the ingest figures recorded when they were built;
//! - `BENCH_FLOOR=0`: skip the raw rusqlite floor (minutes at 1M), for a run about reading;
//! - `BENCH_COMPRESS=1`: the stores' pages written compressed (`DISCORD_MANAGER_COMPRESS_STORE=1`
//!   for the build, the in-process readers and the MCP and CLI processes alike).
//!
//! The `discord-manager` binary it drives is the one Cargo builds for benches
//! (`target/release/discord-manager`).

#[path = "support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant as Stopwatch};

use discord_manager_store::Store;
use discord_manager_synthetic::{Plan, Produced};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::ChannelId;
use serde_json::{Value, json};

use support::{DAY_SECONDS, Repeat, Samples, round3};

const BINARY: &str = env!("CARGO_BIN_EXE_discord-manager");
/// How many first calls of the day each reader is measured with.
const COLD_RUNS: usize = 5;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|value| value.trim().replace('_', "").parse().ok())
        .unwrap_or(default)
}

fn main() {
    if std::env::var_os("BENCH_CHILD_BUILD").is_some() {
        child_build();
        return;
    }
    let sizes: Vec<u64> = std::env::var("BENCH_SIZES")
        .unwrap_or_else(|_| "10000,100000,1000000".into())
        .split(',')
        .filter_map(|size| size.trim().replace('_', "").parse().ok())
        .collect();
    let seed = env_number("BENCH_SEED", 1);
    let per_day = env_number("BENCH_PER_DAY", 2_000);
    let batch = env_number("BENCH_BATCH", 64);
    let reps = env_number("BENCH_REPS", 200) as usize;
    let process_reps = env_number("BENCH_PROCESS_REPS", 20) as usize;
    let reuse = std::env::var("BENCH_REUSE").is_ok_and(|value| value == "1");
    let floor = std::env::var("BENCH_FLOOR").map_or(true, |value| value != "0");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Compressed stores are kept apart, so BENCH_REUSE never mixes the two.
    let stores = root.join("target").join(match support::page_compression() {
        discord_manager_store::PageCompression::On => "bench-stores-compressed",
        discord_manager_store::PageCompression::Off => "bench-stores",
    });
    std::fs::create_dir_all(&stores).expect("target/bench-stores can be created");

    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|line| line.starts_with("model name"))
                .and_then(|line| line.split(':').nth(1))
                .map(|name| name.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    eprintln!(
        "bench: {cores} cores ({cpu}); sizes {sizes:?}, seed {seed}, {per_day}/day, batch {batch}"
    );

    let mut results = Vec::new();
    for &messages in &sizes {
        results.push(bench_size(&BenchConfig {
            messages,
            seed,
            per_day,
            batch,
            reps,
            process_reps,
            reuse,
            floor,
            stores: stores.clone(),
        }));
    }

    let report = json!({
        "command": command_line(&sizes),
        "machine": {"cores": cores, "cpu": cpu},
        "commit": git_commit(root),
        "measuredAt": Instant::now().to_iso(),
        "config": {"seed": seed, "messagesPerDay": per_day, "batch": batch,
                   "reps": reps, "processReps": process_reps, "reused": reuse},
        "sizes": results,
    });
    let markdown = markdown(&report);
    println!("{markdown}");
    let out = root.join("bench-results");
    std::fs::create_dir_all(&out).expect("bench-results can be created");
    std::fs::write(
        out.join("latest.json"),
        serde_json::to_string_pretty(&report).expect("the report is JSON") + "\n",
    )
    .expect("bench-results/latest.json can be written");
    std::fs::write(out.join("latest.md"), markdown + "\n")
        .expect("bench-results/latest.md can be written");
    eprintln!("bench: wrote bench-results/latest.json and bench-results/latest.md");
}

fn command_line(sizes: &[u64]) -> String {
    let mut knobs = Vec::new();
    for name in [
        "BENCH_SEED",
        "BENCH_PER_DAY",
        "BENCH_BATCH",
        "BENCH_REPS",
        "BENCH_PROCESS_REPS",
        "BENCH_REUSE",
        "BENCH_FLOOR",
        "BENCH_COMPRESS",
    ] {
        if let Ok(value) = std::env::var(name) {
            knobs.push(format!("{name}={value}"));
        }
    }
    let sizes: Vec<String> = sizes.iter().map(u64::to_string).collect();
    format!(
        "BENCH_SIZES={} {}cargo bench --bench store",
        sizes.join(","),
        knobs
            .iter()
            .map(|knob| format!("{knob} "))
            .collect::<String>()
    )
}

fn git_commit(root: &Path) -> Option<String> {
    let output = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(root)
        .output()
        .ok()?;
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .current_dir(root)
        .output()
        .ok()
        .is_some_and(|status| !status.stdout.is_empty());
    let commit = String::from_utf8_lossy(&output.stdout).trim().to_string();
    Some(if dirty {
        format!("{commit}+dirty")
    } else {
        commit
    })
}

struct BenchConfig {
    messages: u64,
    seed: u64,
    per_day: u64,
    batch: u64,
    reps: usize,
    process_reps: usize,
    reuse: bool,
    floor: bool,
    stores: PathBuf,
}

fn remove_store(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

fn bench_size(config: &BenchConfig) -> Value {
    let name = format!(
        "synthetic-{}-seed{}-{}perday-batch{}",
        config.messages, config.seed, config.per_day, config.batch
    );
    let path = config.stores.join(format!("{name}.sqlite3"));
    let sidecar = config.stores.join(format!("{name}.json"));

    // 1. Ingest: build the store through the recorders in a child process.
    let built: Value = match std::fs::read_to_string(&sidecar) {
        Ok(text) if config.reuse && path.exists() => {
            eprintln!("bench: reusing {}", path.display());
            serde_json::from_str(&text).expect("the sidecar is JSON")
        }
        _ => {
            remove_store(&path);
            eprintln!("bench: building {} messages ...", config.messages);
            let output = Command::new(std::env::current_exe().expect("the bench's own path"))
                .env("BENCH_CHILD_BUILD", &path)
                .env("BENCH_CHILD_MESSAGES", config.messages.to_string())
                .env("BENCH_CHILD_SEED", config.seed.to_string())
                .env("BENCH_CHILD_PER_DAY", config.per_day.to_string())
                .env("BENCH_CHILD_BATCH", config.batch.to_string())
                .stderr(Stdio::inherit())
                .output()
                .expect("the build child runs");
            assert!(output.status.success(), "the build child failed");
            let text = String::from_utf8(output.stdout).expect("the child prints UTF-8");
            std::fs::write(&sidecar, &text).expect("the sidecar can be written");
            serde_json::from_str(&text).expect("the child prints JSON")
        }
    };
    let produced: Produced = produced_from(&built["produced"]);
    let recording_s = built["recordingSeconds"].as_f64().unwrap_or(f64::NAN);
    let events = produced.events as f64;

    // 2. The floor: the same rows with raw rusqlite, in as many transactions.
    let floor_figures = if config.floor {
        let floor_path = config.stores.join(format!("{name}-floor.sqlite3"));
        remove_store(&floor_path);
        eprintln!("bench: raw floor ...");
        let floor =
            support::floor(&path, &floor_path, produced.transactions).expect("the floor runs");
        remove_store(&floor_path);
        let floor_s = floor.writing.as_secs_f64();
        Some((
            json!({
                "rows": floor.rows + floor.text_rows,
                "transactions": floor.transactions,
                "writingSeconds": round3(floor_s),
                "rowsPerSecond": ((floor.rows + floor.text_rows) as f64 / floor_s).round(),
                "eventsPerSecond": (events / floor_s).round(),
                "tables": floor.tables.iter().map(|(name, rows)| json!({"table": name, "rows": rows})).collect::<Vec<_>>(),
                "virtualTables": floor.virtual_tables,
                "fullTextRows": floor.text_rows,
                "fullTextRowsInStore": floor.text_rows_in_source,
            }),
            round3(floor_s / recording_s),
        ))
    } else {
        eprintln!("bench: BENCH_FLOOR=0, no raw floor");
        None
    };
    let store_bytes = support::checkpointed_size(&path).expect("the store checkpoints");

    // Search by meaning's vectors: a stand-in for every message that has none (all of them in
    // a store built fresh, where the bytes they add are measured too).
    eprintln!("bench: stand-in vectors ...");
    let bases = support::search_modes::embedded_chat_lines().expect("the chat lines embed");
    let (vectors_written, vectors_took) =
        support::search_modes::write_vectors(&path, &bases).expect("the vectors are written");
    let bytes_with_meanings = support::checkpointed_size(&path).expect("the store checkpoints");
    let meanings = json!({
        "written": vectors_written,
        "writingSeconds": round3(vectors_took.as_secs_f64()),
        "storeBytesWithMeanings": bytes_with_meanings,
        "bytesPerVectorWritten": (vectors_written > 0)
            .then(|| bytes_with_meanings.saturating_sub(store_bytes) / vectors_written as u64),
    });

    // 3. Reading capabilities in-process.
    let last = produced.last_arrival.expect("the store has history");
    let day_ago = last.minus_seconds(DAY_SECONDS);
    let services = support::services(&path);
    let runtime = support::runtime();
    let repeat = Repeat {
        warmup: 3,
        min: 20.min(config.reps),
        max: config.reps,
        budget: Duration::from_secs(2),
    };
    let busiest: ChannelId = built["produced"]["busiestReadableChannel"]
        .as_str()
        .and_then(|id| id.parse().ok())
        .expect("the store has a readable channel");
    let first = produced.first_arrival.expect("the store has history");
    let sample = support::sample(&runtime, &services, &busiest, first, last)
        .expect("the store has what the readers' examples point at");
    let mut readers = serde_json::Map::new();
    for (tool, arguments) in support::defaults(&sample) {
        eprintln!("bench: {tool} in-process ...");
        let business = support::measure(repeat, || {
            support::call_unrendered(&runtime, &services, tool, &arguments)
        })
        .expect("the capability answers");
        // As the MCP server renders it: the structured result serialised, and the text block.
        let rendered = support::measure(repeat, || {
            support::answer(&runtime, &services, tool, &arguments)
        })
        .expect("the capability answers");
        let answer = support::answer(&runtime, &services, tool, &arguments).expect("answers");
        let mut figures = business.to_json();
        figures["rendered"] = rendered.to_json();
        figures["answer"] = answer.to_json();
        figures["shape"] = shape(tool, &answer.structured);
        readers.insert(tool.to_string(), figures);
    }

    // The largest answer of each reader: its default, and every bound at its largest.
    for (tool, arguments) in support::largest_inputs(&sample) {
        eprintln!("bench: {tool} at its largest inputs ...");
        let started = Stopwatch::now();
        let answer = match support::answer(&runtime, &services, tool, &arguments) {
            Ok(answer) => answer,
            Err(refusal) => {
                // A call past the capability's own time limit on a loaded machine: said in
                // the report, and the run goes on.
                eprintln!("bench: {tool} {arguments} was not answered: {refusal}");
                readers[tool]["largestNotAnswered"] =
                    json!({"arguments": arguments, "why": refusal});
                continue;
            }
        };
        let elapsed = started.elapsed();
        let figures = &mut readers[tool];
        let largest = figures["largest"]["bytes"]
            .as_u64()
            .unwrap_or(figures["answer"]["bytes"].as_u64().unwrap_or(0));
        if answer.bytes() as u64 >= largest {
            let mut record = answer.to_json();
            record["arguments"] = arguments.clone();
            record["onceMs"] = json!(round3(elapsed.as_secs_f64() * 1_000.0));
            figures["largest"] = record;
        }
    }
    for figures in readers.values_mut() {
        if figures["largest"].is_null() {
            figures["largest"] = figures["answer"].clone();
        }
    }

    // Reading one day to its end, page after page, with the cursors.
    eprintln!("bench: paging through one day ...");
    let mut read = support::PageThrough::default();
    let paging = support::measure(
        Repeat {
            min: 5.min(config.reps),
            max: 50.min(config.reps),
            ..repeat
        },
        || {
            read = support::page_through(&runtime, &services, &day_ago.to_iso())?;
            Ok::<_, String>(())
        },
    )
    .expect("catch-up pages through the day");
    let mut unique = read.message_ids.clone();
    unique.sort_unstable();
    unique.dedup();
    let mut page_through = paging.to_json();
    page_through["pages"] = json!(read.pages);
    page_through["messages"] = json!(read.message_ids.len());
    page_through["distinctMessages"] = json!(unique.len());
    page_through["bytes"] = json!(read.bytes);
    page_through["tokens"] = json!(read.bytes.div_ceil(4));
    page_through["largestPageBytes"] = json!(read.largest_page_bytes);

    // Search in each mode, asked the evaluation set's questions.
    eprintln!("bench: messages_search by words, meaning and both ...");
    let questions = support::search_modes::questions().expect("the evaluation set's questions");
    let search_modes = support::search_modes::measure(&runtime, &services, repeat, &questions)
        .expect("search answers in each mode");

    // attachments_get on a kept image (issue 25): a 3000 × 1000 screenshot read from the
    // cache, decoded, downscaled and encoded, in-process like the readers above. Played after
    // the day was paged through, so on a store built fresh the figures above read it as
    // before; a reused store holds it from the run before (one message more in the last
    // day, without words).
    let screenshot = runtime
        .block_on(support::attachments::play_kept_screenshot(
            &services.store,
            &busiest,
        ))
        .expect("the screenshot is kept");
    let (image_reader, image_arguments) = support::attachments::image_reader(&screenshot);
    eprintln!("bench: {image_reader} in-process ...");
    let business = support::measure(repeat, || {
        support::call_unrendered(&runtime, &services, "attachments_get", &image_arguments)
    })
    .expect("the image is served");
    let rendered = support::measure(repeat, || {
        support::answer(&runtime, &services, "attachments_get", &image_arguments)
    })
    .expect("the image is served");
    let answer = support::answer(&runtime, &services, "attachments_get", &image_arguments)
        .expect("the image is served");
    let mut figures = business.to_json();
    figures["rendered"] = rendered.to_json();
    figures["answer"] = answer.to_json();
    figures["largest"] = answer.to_json();
    let served = support::attachments::served_image(&runtime, &services, &image_arguments)
        .expect("the image is served");
    let served = served.map(|(media_type, bytes)| json!({"mediaType": media_type, "bytes": bytes}));
    figures["shape"] = json!({
        "image": answer.structured["image"],
        "fileBytes": answer.structured["size"],
        "servedImage": served,
    });
    readers.insert(image_reader.to_string(), figures);
    drop(services);

    // The first call of the day, after every warm in-process figure (dropping the page cache
    // between readers would leave the next one measuring a cache still filling); the MCP
    // sessions after it warm up with a session of their own.
    #[cfg(unix)]
    for (tool, arguments) in support::defaults(&sample) {
        eprintln!("bench: {tool}, first call of the day ...");
        let cold = support::cold_calls(&path, &runtime, tool, &arguments, COLD_RUNS)
            .expect("the capability answers from a cold cache");
        readers[tool]["cold"] = cold.to_json();
    }
    #[cfg(unix)]
    {
        eprintln!("bench: {image_reader}, first call of the day ...");
        let cold = support::cold_calls(
            &path,
            &runtime,
            "attachments_get",
            &image_arguments,
            COLD_RUNS,
        )
        .expect("the image is served from a cold cache");
        readers[image_reader]["cold"] = cold.to_json();
    }

    // 4. MCP over a real stdio session, and 5. the CLI as a whole process.
    eprintln!("bench: MCP sessions ...");
    let catch_up_arguments = json!({"since": day_ago.to_iso()});
    let mcp = mcp_sessions(&path, &catch_up_arguments, config.process_reps);
    eprintln!("bench: CLI processes ...");
    let cli = cli_runs(&path, &day_ago, config.process_reps);

    let in_process = readers["messages_catch_up"]["rendered"]["p50Ms"]
        .as_f64()
        .unwrap_or(f64::NAN);
    let over_mcp = mcp["catchUpCall"]["p50Ms"].as_f64().unwrap_or(f64::NAN);
    let briefing_in_process = readers["activity_briefing"]["rendered"]["p50Ms"]
        .as_f64()
        .unwrap_or(f64::NAN);
    let briefing_over_mcp = mcp["briefingCall"]["p50Ms"].as_f64().unwrap_or(f64::NAN);
    json!({
        "messages": config.messages,
        "mcpCallAboveInProcessMs": round3(over_mcp - in_process),
        "mcpBriefingAboveInProcessMs": round3(briefing_over_mcp - briefing_in_process),
        "produced": built["produced"],
        "ingest": {
            "events": produced.events,
            "transactions": produced.transactions,
            "recordingSeconds": round3(recording_s),
            "eventsPerSecond": (events / recording_s).round(),
            "decodingSeconds": built["decodingSeconds"],
            "totalSeconds": built["totalSeconds"],
            "peakRssKb": built["peakRssKb"],
            "rssNote": "the generator and the recorders in one process (the ingest daemon is not merged yet)",
        },
        "floor": floor_figures.as_ref().map(|(figures, _)| figures),
        "ingestToFloor": floor_figures.as_ref().map(|(_, ratio)| ratio),
        "storeBytes": store_bytes,
        "meanings": meanings,
        "searchModes": search_modes,
        "bytesPerMillionMessages": (store_bytes as f64 * 1e6 / config.messages as f64).round(),
        "readers": readers,
        "attachmentCache": support::attachments::attachment_cache(config.messages, config.seed),
        "pageThrough": page_through,
        "mcp": mcp,
        "cli": cli,
        "window": {"since": day_ago.to_iso(), "newestArrival": last.to_iso()},
    })
}

fn produced_from(value: &Value) -> Produced {
    let number = |name: &str| value[name].as_u64().unwrap_or(0);
    let instant = |name: &str| value[name].as_str().and_then(Instant::parse);
    Produced {
        messages: number("messages"),
        events: number("events"),
        transactions: number("transactions"),
        first_arrival: instant("firstArrival"),
        last_arrival: instant("lastArrival"),
        ..Produced::default()
    }
}

/// Five calls of `tool` in an MCP session: their durations go into `timings` when the session
/// is `counted` (the first one warms up), and the first answer's sizes into `received`.
fn calls_over_mcp(
    session: &mut Session,
    tool: &str,
    arguments: &Value,
    counted: bool,
    timings: &mut Vec<Duration>,
    received: &mut Value,
) {
    for _ in 0..5 {
        let at = Stopwatch::now();
        let answer = session.request("tools/call", json!({"name": tool, "arguments": arguments}));
        if counted {
            timings.push(at.elapsed());
        }
        if received.is_null() {
            let parsed: Value = serde_json::from_str(&answer).expect("the answer is JSON");
            assert_eq!(
                parsed["result"]["isError"].as_bool(),
                Some(false),
                "{tool} failed over MCP: {answer:.400}"
            );
            *received = received_sizes(&answer, &parsed["result"]);
        }
    }
}

/// How big an answer was, so a figure is read with what it returned.
fn shape(tool: &str, result: &Value) -> Value {
    let count = |field: &str| result[field].as_array().map_or(0, Vec::len);
    let more = result["nextCursor"].is_string();
    match tool {
        "messages_catch_up" => json!({
            "channels": count("channels"),
            "messages": result["channels"].as_array().map_or(0, |channels| channels
                .iter()
                .map(|c| c["messages"].as_array().map_or(0, Vec::len))
                .sum::<usize>()),
            // The window as the overview counts it: channels with news and their messages.
            "overviewChannels": count("overview") as u64
                + result["overviewLeftOut"].as_u64().unwrap_or(0),
            // What the page showed and what waits after it.
            "windowMessages": result["channels"].as_array().map_or(0, |channels| channels
                .iter()
                .map(|c| c["messages"].as_array().map_or(0, Vec::len) as u64)
                .sum::<u64>()) + result["remaining"].as_u64().unwrap_or(0),
            "remaining": result["remaining"].as_u64().unwrap_or(0),
            "skippedChannels": count("skippedChannels") as u64
                + result["skippedLeftOut"].as_u64().unwrap_or(0),
            "more": more,
        }),
        "mentions_list" => json!({"mentions": count("mentions"), "more": more}),
        // Recall of what was addressed to the owner: listed in the first answer, of all open.
        "activity_briefing" => {
            let news_channels: u64 = ["conversations", "mostActive", "rest"]
                .iter()
                .map(|section| result[*section]["total"].as_u64().unwrap_or(0))
                .sum();
            json!({
            "needsYouListed": result["needsYou"]["items"].as_array().map_or(0, Vec::len),
            "needsYouOpen": result["needsYou"]["total"],
            "needsYouClosed": result["needsYou"]["closed"],
            "needsYouCursor": result["needsYou"]["nextCursor"].is_string(),
            "channels": news_channels,
            })
        }
        "channels_list" => json!({"channels": count("channels"), "more": more}),
        "bookmarks_list" => json!({"bookmarks": count("bookmarks"), "more": more}),
        "messages_history" => json!({"messages": count("messages")}),
        "messages_search" => json!({"results": count("results"), "more": more}),
        _ => json!({}),
    }
}

/// The child that builds one store and reports what it took.
fn child_build() {
    let path = PathBuf::from(std::env::var_os("BENCH_CHILD_BUILD").expect("a path"));
    let plan = Plan {
        messages: env_number("BENCH_CHILD_MESSAGES", 10_000),
        seed: env_number("BENCH_CHILD_SEED", 1),
        messages_per_day: env_number("BENCH_CHILD_PER_DAY", 2_000),
        batch: env_number("BENCH_CHILD_BATCH", 64) as usize,
        end: Instant::now(),
    };
    let store = Store::open_as(&path, support::page_compression()).expect("the store opens");
    let (produced, timing) =
        discord_manager_synthetic::build(&store, &plan).expect("the generator runs");
    drop(store);
    let report = json!({
        "produced": produced,
        "recordingSeconds": timing.recording.as_secs_f64(),
        "decodingSeconds": round3(timing.decoding.as_secs_f64()),
        "totalSeconds": round3(timing.total.as_secs_f64()),
        "peakRssKb": support::peak_rss_kb(std::process::id()),
    });
    println!("{report}");
}

/// A JSON-RPC client over a child's stdio, one line per message.
struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    fn spawn(store: &Path, scratch: &Path) -> Session {
        let mut command = Command::new(BINARY);
        command
            .arg("--db")
            .arg(store)
            .arg("mcp")
            .current_dir(scratch)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        clean_environment(&mut command);
        let mut child = command.spawn().expect("discord-manager mcp starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Session {
            child,
            stdin,
            stdout,
            next_id: 1,
        }
    }

    /// Sends a request and reads lines until its response; returns the raw line.
    fn request(&mut self, method: &str, params: Value) -> String {
        let id = self.next_id;
        self.next_id += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{line}").expect("the server reads");
        self.stdin.flush().expect("the server reads");
        let marker = format!("\"id\":{id}");
        loop {
            let mut response = String::new();
            let read = self
                .stdout
                .read_line(&mut response)
                .expect("the server answers");
            assert!(
                read > 0,
                "the server closed stdout before answering {method}"
            );
            // Only the response's head is inspected, so the client's own cost stays tiny.
            let head: String = response.chars().take(64).collect();
            if head.contains(&marker) || response.contains(&marker) {
                return response;
            }
        }
    }

    fn notify(&mut self, method: &str) {
        let line = json!({"jsonrpc": "2.0", "method": method});
        writeln!(self.stdin, "{line}").expect("the server reads");
        self.stdin.flush().expect("the server reads");
    }

    fn close(self) {
        let Session {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        let _ = child.wait();
    }
}

fn clean_environment(command: &mut Command) {
    for name in [
        "DISCORD_TOKEN",
        "DISCORD_OWNER_ID",
        "DISCORD_GUILD_IDS",
        "DISCORD_MANAGER_DB",
        "DISCORD_MANAGER_READ_ONLY",
        "DISCORD_MANAGER_SEND_CHANNELS",
        "DISCORD_API_BASE",
        "RUST_LOG",
    ] {
        command.env_remove(name);
    }
    if support::page_compression() == discord_manager_store::PageCompression::On {
        command.env("DISCORD_MANAGER_COMPRESS_STORE", "1");
    } else {
        command.env_remove("DISCORD_MANAGER_COMPRESS_STORE");
    }
}

fn initialize_params() -> Value {
    json!({"protocolVersion": "2025-06-18", "capabilities": {},
           "clientInfo": {"name": "discord-manager-bench", "version": "0"}})
}

fn mcp_sessions(store: &Path, catch_up: &Value, sessions: usize) -> Value {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let mut initialize = Vec::new();
    let mut list = Vec::new();
    let mut call = Vec::new();
    let mut rss = Vec::new();
    let mut paging = Vec::new();
    let mut paging_pages = 0;
    let mut received = Value::Null;
    let mut briefing = Vec::new();
    let mut briefing_received = Value::Null;
    for session_index in 0..sessions.max(1) + 1 {
        let started = Stopwatch::now();
        let mut session = Session::spawn(store, scratch.path());
        let answer = session.request("initialize", initialize_params());
        let initialized = started.elapsed();
        assert!(answer.contains("\"result\""), "initialize failed: {answer}");
        session.notify("notifications/initialized");
        for _ in 0..10 {
            let at = Stopwatch::now();
            let answer = session.request("tools/list", json!({}));
            if session_index > 0 {
                list.push(at.elapsed());
            }
            assert!(answer.contains("messages_catch_up"), "tools/list failed");
        }
        let counted = session_index > 0;
        calls_over_mcp(
            &mut session,
            "messages_catch_up",
            catch_up,
            counted,
            &mut call,
            &mut received,
        );
        // The briefing at its default inputs, as an assistant asked "what did I miss?" calls it.
        calls_over_mcp(
            &mut session,
            "activity_briefing",
            &json!({}),
            counted,
            &mut briefing,
            &mut briefing_received,
        );
        // The whole window, page after page, feeding each `nextCursor` back.
        let at = Stopwatch::now();
        let pages = mcp_page_through(&mut session, catch_up);
        if session_index > 0 {
            paging.push(at.elapsed());
            paging_pages = pages;
        }
        if let Some(kb) = support::peak_rss_kb(session.child.id()) {
            rss.push(kb);
        }
        // The first session warms the page cache and the binary; it is not counted.
        if session_index > 0 {
            initialize.push(initialized);
        }
        session.close();
    }
    rss.sort_unstable();
    json!({
        "spawnToInitialize": Samples::new(initialize).to_json(),
        "toolsList": Samples::new(list).to_json(),
        "catchUpCall": Samples::new(call).to_json(),
        "catchUpAnswer": received,
        "briefingCall": Samples::new(briefing).to_json(),
        "briefingAnswer": briefing_received,
        "pageThrough": {"pages": paging_pages, "whole": Samples::new(paging).to_json()},
        "peakRssKb": rss.last(),
    })
}

/// What a client received for one tool call: the JSON-RPC line, and in it the structured
/// result and the text block (the answer budget counts these two).
fn received_sizes(line: &str, result: &Value) -> Value {
    let json_bytes = result["structuredContent"].to_string().len();
    let text_bytes = result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|block| block["text"].as_str())
        .map(str::len)
        .sum::<usize>();
    json!({"lineBytes": line.trim_end().len(), "jsonBytes": json_bytes,
           "textBytes": text_bytes, "bytes": json_bytes + text_bytes,
           "tokens": (json_bytes + text_bytes).div_ceil(4)})
}

/// Reads a catch-up window to its end over MCP; returns how many pages it took.
fn mcp_page_through(session: &mut Session, first: &Value) -> usize {
    let mut arguments = first.clone();
    let mut pages = 0;
    loop {
        let line = session.request(
            "tools/call",
            json!({"name": "messages_catch_up", "arguments": arguments}),
        );
        pages += 1;
        let parsed: Value = serde_json::from_str(&line).expect("the answer is JSON");
        match parsed["result"]["structuredContent"]["nextCursor"].as_str() {
            Some(cursor) => arguments = json!({"cursor": cursor}),
            None => return pages,
        }
    }
}

fn cli_runs(store: &Path, since: &Instant, runs: usize) -> Value {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let mut durations = Vec::new();
    let mut bytes = 0;
    for run in 0..runs.max(1) + 1 {
        let mut command = Command::new(BINARY);
        command
            .arg("--db")
            .arg(store)
            .args(["catch-up", "--json", "--since", &since.to_iso()])
            .current_dir(scratch.path())
            .stdin(Stdio::null())
            .stderr(Stdio::null());
        clean_environment(&mut command);
        let started = Stopwatch::now();
        let output = command.output().expect("discord-manager catch-up runs");
        let elapsed = started.elapsed();
        assert!(output.status.success(), "catch-up --json failed");
        bytes = output.stdout.len();
        // The first run warms the page cache: a warm process is what is quoted.
        if run > 0 {
            durations.push(elapsed);
        }
    }
    let mut figures = Samples::new(durations).to_json();
    figures["outputBytes"] = json!(bytes);
    figures
}

// ---------------------------------------------------------------------------------------
// The report.

fn ms(value: &Value) -> String {
    match value.as_f64() {
        Some(ms) if ms >= 100.0 => format!("{ms:.0}"),
        Some(ms) if ms >= 10.0 => format!("{ms:.1}"),
        Some(ms) => format!("{ms:.2}"),
        None => "–".into(),
    }
}

fn thousands(value: f64) -> String {
    let whole = value.round() as i64;
    let digits = whole.abs().to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    if whole < 0 { format!("-{out}") } else { out }
}

/// One cell of a report row, from one store size's figures.
type Cell = fn(&Value) -> String;

/// Appends one line of the Markdown report.
fn push(out: &mut String, line: String) {
    out.push_str(&line);
    out.push('\n');
}

/// A table's header and rule: `first`, a column per store size, then `last`.
fn size_columns(out: &mut String, first: &str, sizes: &[Value], last: &str) {
    let mut header = format!("| {first} |");
    let mut rule = "|---|".to_string();
    for size in sizes {
        header.push_str(&format!(
            " {} |",
            size_label(size["messages"].as_u64().unwrap_or(0))
        ));
        rule.push_str("---:|");
    }
    header.push_str(&format!(" {last} |"));
    rule.push_str("---|");
    push(out, header);
    push(out, rule);
}

fn size_label(messages: u64) -> String {
    match messages {
        n if n >= 1_000_000 && n % 1_000_000 == 0 => format!("{}M", n / 1_000_000),
        n if n >= 1_000 && n % 1_000 == 0 => format!("{}k", n / 1_000),
        n => n.to_string(),
    }
}

fn markdown(report: &Value) -> String {
    let sizes = report["sizes"].as_array().cloned().unwrap_or_default();
    let mut out = String::new();
    push(
        &mut out,
        format!(
            "Machine: {} cores ({}); commit {}; {} synthetic messages a day, seed {}, {} events per transaction.",
            report["machine"]["cores"],
            report["machine"]["cpu"].as_str().unwrap_or("?"),
            report["commit"].as_str().unwrap_or("?"),
            report["config"]["messagesPerDay"],
            report["config"]["seed"],
            report["config"]["batch"],
        ),
    );
    push(&mut out, String::new());
    push(
        &mut out,
        "| ingest | events | recorders events/s | raw rusqlite floor events/s (rows/s) | recorders ÷ floor (target ≥ 0.80) | peak RSS | store on disk | per 1M messages |".into(),
    );
    push(&mut out, "|---|---:|---:|---:|---:|---:|---:|---:|".into());
    for size in &sizes {
        let ingest = &size["ingest"];
        let floor = &size["floor"];
        push(
            &mut out,
            format!(
                "| {} messages | {} | {} | {} ({}) | {} | {} MB | {:.0} MB | {:.0} MB |",
                size_label(size["messages"].as_u64().unwrap_or(0)),
                thousands(ingest["events"].as_f64().unwrap_or(0.0)),
                thousands(ingest["eventsPerSecond"].as_f64().unwrap_or(0.0)),
                floor["eventsPerSecond"]
                    .as_f64()
                    .map_or("–".into(), thousands),
                floor["rowsPerSecond"]
                    .as_f64()
                    .map_or("–".into(), thousands),
                size["ingestToFloor"]
                    .as_f64()
                    .map_or("–".into(), |ratio| format!("{ratio:.2}")),
                ingest["peakRssKb"]
                    .as_u64()
                    .map_or("–".into(), |kb| format!("{:.0}", kb as f64 / 1024.0)),
                size["storeBytes"].as_f64().unwrap_or(0.0) / 1_048_576.0,
                size["bytesPerMillionMessages"].as_f64().unwrap_or(0.0) / 1_048_576.0,
            ),
        );
    }
    if report["config"]["reused"].as_bool() == Some(true) {
        push(
            &mut out,
            "\nBENCH_REUSE=1: the recorders' figures come from the run that built each store; \
             the floor was measured now, so their ratio is not from one run."
                .into(),
        );
    }
    push(&mut out, String::new());
    size_columns(
        &mut out,
        "in-process, p50 / p95 ms",
        &sizes,
        "target (largest store)",
    );
    let tools: Vec<String> = sizes
        .first()
        .and_then(|size| size["readers"].as_object())
        .map(|readers| readers.keys().cloned().collect())
        .unwrap_or_default();
    // Each reader alone, then with its answer rendered as the MCP server does.
    for with_json in [false, true] {
        for tool in &tools {
            let (name, target) = match (with_json, tool.as_str()) {
                (true, _) => (format!("{tool} + JSON and text"), ""),
                (false, "messages_catch_up") => (tool.clone(), "p50 ≤ 5 ms"),
                (false, "mentions_list") => (tool.clone(), "p50 ≤ 1 ms"),
                (false, "activity_briefing") => (tool.clone(), "p50 ≤ 10 ms"),
                (false, "messages_search") => (tool.clone(), "p50 ≤ 2 ms"),
                (false, support::attachments::IMAGE_READER) => {
                    (tool.clone(), "decode, downscale, encode")
                }
                (false, _) => (tool.clone(), "flat with size"),
            };
            let mut line = format!("| {name} |");
            for size in &sizes {
                let mut figures = &size["readers"][tool];
                if with_json {
                    figures = &figures["rendered"];
                }
                line.push_str(&format!(
                    " {} / {} |",
                    ms(&figures["p50Ms"]),
                    ms(&figures["p95Ms"])
                ));
            }
            line.push_str(&format!(" {target} |"));
            push(&mut out, line);
        }
    }
    // Search in each mode, asked the evaluation set's questions over stand-in vectors.
    for mode in support::search_modes::MODES {
        let mut line = format!("| messages_search by {mode}, a question |");
        for size in &sizes {
            let figures = &size["searchModes"][mode];
            line.push_str(&format!(
                " {} / {} |",
                ms(&figures["p50Ms"]),
                ms(&figures["p95Ms"])
            ));
        }
        let target = match mode {
            "words" => "",
            _ => "p50 ≤ 30 ms",
        };
        line.push_str(&format!(" {target} |"));
        push(&mut out, line);
    }
    let mut line = "| what the first page of one day returns |".to_string();
    for size in &sizes {
        let shape = &size["readers"]["messages_catch_up"]["shape"];
        line.push_str(&format!(
            " {} msgs in {} channels (of {} in {} channels), {} mentions |",
            shape["messages"],
            shape["channels"],
            thousands(shape["windowMessages"].as_f64().unwrap_or(0.0)),
            shape["overviewChannels"],
            size["readers"]["mentions_list"]["shape"]["mentions"]
        ));
    }
    line.push_str(" |");
    push(&mut out, line);
    let mut line = "| what the briefing of that day lists in Needs you |".to_string();
    for size in &sizes {
        let shape = &size["readers"]["activity_briefing"]["shape"];
        line.push_str(&format!(
            " {} of {} open ({} closed){}, {} channels with news |",
            shape["needsYouListed"],
            shape["needsYouOpen"],
            shape["needsYouClosed"],
            if shape["needsYouCursor"] == true {
                ", a cursor for the rest"
            } else {
                ""
            },
            shape["channels"]
        ));
    }
    line.push_str(" |");
    push(&mut out, line);
    push(&mut out, String::new());
    size_columns(
        &mut out,
        &format!(
            "first call of the day (store dropped from the page cache, opened, one call), \
             median / slowest of {COLD_RUNS} ms"
        ),
        &sizes,
        "",
    );
    for tool in &tools {
        let mut line = format!("| {tool} |");
        for size in &sizes {
            let figures = &size["readers"][tool]["cold"];
            line.push_str(&format!(
                " {} / {} |",
                ms(&figures["p50Ms"]),
                ms(&figures["maxMs"])
            ));
        }
        line.push_str(" |");
        push(&mut out, line);
    }
    push(&mut out, String::new());

    // What an MCP client receives: structured JSON and text block, and estimated tokens.
    size_columns(
        &mut out,
        "answer an MCP client receives, ≈ tokens (bytes ÷ 4): default / largest inputs",
        &sizes,
        "budget",
    );
    for tool in &tools {
        let mut line = format!("| {tool} |");
        for size in &sizes {
            let figures = &size["readers"][tool];
            line.push_str(&format!(
                " {} / {} |",
                thousands(figures["answer"]["tokens"].as_f64().unwrap_or(f64::NAN)),
                thousands(figures["largest"]["tokens"].as_f64().unwrap_or(f64::NAN)),
            ));
        }
        line.push_str(" ≤ 8,000 |");
        push(&mut out, line);
    }
    if let Some(size) = sizes.last() {
        push(&mut out, String::new());
        push(
            &mut out,
            format!(
                "| at {} messages, bytes | default: JSON + text | ≈ tokens | largest: JSON + text | ≈ tokens | largest with |",
                size_label(size["messages"].as_u64().unwrap_or(0))
            ),
        );
        push(&mut out, "|---|---:|---:|---:|---:|---|".into());
        for tool in &tools {
            let answer = &size["readers"][tool]["answer"];
            let largest = &size["readers"][tool]["largest"];
            let bytes = |figures: &Value| {
                format!(
                    "{} + {}",
                    thousands(figures["jsonBytes"].as_f64().unwrap_or(f64::NAN)),
                    thousands(figures["textBytes"].as_f64().unwrap_or(f64::NAN))
                )
            };
            push(
                &mut out,
                format!(
                    "| {tool} | {} | {} | {} | {} | `{}` |",
                    bytes(answer),
                    thousands(answer["tokens"].as_f64().unwrap_or(f64::NAN)),
                    bytes(largest),
                    thousands(largest["tokens"].as_f64().unwrap_or(f64::NAN)),
                    if largest["arguments"].is_null() {
                        "default".to_string()
                    } else {
                        largest["arguments"].to_string()
                    }
                ),
            );
        }
    }
    push(&mut out, String::new());

    size_columns(
        &mut out,
        "one day, page after page (default inputs)",
        &sizes,
        "",
    );
    let paging_rows: [(&str, Cell); 5] = [
        ("pages", |size| size["pageThrough"]["pages"].to_string()),
        ("messages read (distinct)", |size| {
            format!(
                "{} ({})",
                thousands(size["pageThrough"]["messages"].as_f64().unwrap_or(0.0)),
                thousands(
                    size["pageThrough"]["distinctMessages"]
                        .as_f64()
                        .unwrap_or(0.0)
                )
            )
        }),
        ("all pages, ≈ tokens (largest page)", |size| {
            format!(
                "{} ({})",
                thousands(size["pageThrough"]["tokens"].as_f64().unwrap_or(0.0)),
                thousands(
                    size["pageThrough"]["largestPageBytes"]
                        .as_f64()
                        .unwrap_or(0.0)
                        / 4.0
                )
            )
        }),
        ("whole day in-process, p50 / p95 ms", |size| {
            format!(
                "{} / {}",
                ms(&size["pageThrough"]["p50Ms"]),
                ms(&size["pageThrough"]["p95Ms"])
            )
        }),
        ("whole day over one MCP session, p50 / p95 ms", |size| {
            format!(
                "{} / {}",
                ms(&size["mcp"]["pageThrough"]["whole"]["p50Ms"]),
                ms(&size["mcp"]["pageThrough"]["whole"]["p95Ms"])
            )
        }),
    ];
    for (label, cell) in paging_rows {
        let mut line = format!("| {label} |");
        for size in &sizes {
            line.push_str(&format!(" {} |", cell(size)));
        }
        line.push_str(" |");
        push(&mut out, line);
    }
    push(&mut out, String::new());
    size_columns(&mut out, "whole processes, p50 / p95 ms", &sizes, "target");
    let rows: [(&str, &str, &str); 5] = [
        ("MCP spawn → initialize", "spawnToInitialize", "≤ 20 ms"),
        ("MCP tools/list", "toolsList", "≤ 1 ms"),
        (
            "MCP messages_catch_up call",
            "catchUpCall",
            "≤ in-process + 2 ms",
        ),
        (
            "MCP activity_briefing call (default inputs)",
            "briefingCall",
            "≤ in-process + 2 ms",
        ),
        ("CLI `catch-up --json`", "", "≤ 10 ms (1M, warm)"),
    ];
    for (label, key, target) in rows {
        let mut line = format!("| {label} |");
        for size in &sizes {
            let figures = if key.is_empty() {
                &size["cli"]
            } else {
                &size["mcp"][key]
            };
            line.push_str(&format!(
                " {} / {} |",
                ms(&figures["p50Ms"]),
                ms(&figures["p95Ms"])
            ));
        }
        line.push_str(&format!(" {target} |"));
        push(&mut out, line);
    }
    for (label, key) in [
        ("catch-up", "mcpCallAboveInProcessMs"),
        ("briefing", "mcpBriefingAboveInProcessMs"),
    ] {
        let mut line = format!("| MCP {label} call above in-process (+ JSON and text), p50 |");
        for size in &sizes {
            line.push_str(&format!(" {} |", ms(&size[key])));
        }
        line.push_str(" ≤ 2 ms |");
        push(&mut out, line);
    }
    for (label, key) in [
        ("catch-up", "catchUpAnswer"),
        ("briefing", "briefingAnswer"),
    ] {
        let mut line =
            format!("| MCP {label} answer received: JSON-RPC line (JSON + text ≈ tokens) |");
        for size in &sizes {
            let received = &size["mcp"][key];
            line.push_str(&format!(
                " {} B ({} + {} ≈ {}) |",
                thousands(received["lineBytes"].as_f64().unwrap_or(f64::NAN)),
                thousands(received["jsonBytes"].as_f64().unwrap_or(f64::NAN)),
                thousands(received["textBytes"].as_f64().unwrap_or(f64::NAN)),
                thousands(received["tokens"].as_f64().unwrap_or(f64::NAN)),
            ));
        }
        line.push_str(" ≤ 8,000 tokens |");
        push(&mut out, line);
    }
    let mut line = "| CLI `catch-up --json` output |".to_string();
    for size in &sizes {
        line.push_str(&format!(
            " {} B |",
            thousands(size["cli"]["outputBytes"].as_f64().unwrap_or(f64::NAN))
        ));
    }
    line.push_str(" |");
    push(&mut out, line);
    let mut line = "| MCP server peak RSS |".to_string();
    for size in &sizes {
        line.push_str(&format!(
            " {} MB |",
            size["mcp"]["peakRssKb"]
                .as_u64()
                .map_or("–".into(), |kb| format!("{:.1}", kb as f64 / 1024.0))
        ));
    }
    line.push_str(" ≤ 30 MB |");
    push(&mut out, line);
    push(&mut out, String::new());
    size_columns(
        &mut out,
        "attachment cache, modelled: the synthetic mix under the default policy",
        &sizes,
        "",
    );
    let cache_rows: [(&str, Cell); 4] = [
        ("messages with files (files)", |size| {
            let cache = &size["attachmentCache"];
            format!(
                "{} ({})",
                thousands(cache["messagesWithFiles"].as_f64().unwrap_or(f64::NAN)),
                thousands(cache["files"].as_f64().unwrap_or(f64::NAN))
            )
        }),
        (
            "kept by type and per-file cap, no total cap: files, MB",
            |size| {
                let kept = &size["attachmentCache"]["keptWithoutTotalCap"];
                format!(
                    "{}, {:.0} MB",
                    thousands(kept["files"].as_f64().unwrap_or(f64::NAN)),
                    kept["bytes"].as_f64().unwrap_or(f64::NAN) / 1_048_576.0
                )
            },
        ),
        ("kept within the total cap: files, MB", |size| {
            let kept = &size["attachmentCache"]["keptWithinTotalCap"];
            format!(
                "{}, {:.0} MB",
                thousands(kept["files"].as_f64().unwrap_or(f64::NAN)),
                kept["bytes"].as_f64().unwrap_or(f64::NAN) / 1_048_576.0
            )
        }),
        ("first file skipped for the total cap, at message", |size| {
            size["attachmentCache"]["keptWithinTotalCap"]["firstSkippedAtMessage"]
                .as_f64()
                .map_or("none".into(), thousands)
        }),
    ];
    for (label, cell) in cache_rows {
        let mut line = format!("| {label} |");
        for size in &sizes {
            line.push_str(&format!(" {} |", cell(size)));
        }
        line.push_str(" |");
        push(&mut out, line);
    }
    push(&mut out, String::new());
    push(
        &mut out,
        format!("Command: `{}`", report["command"].as_str().unwrap_or("")),
    );
    out
}
