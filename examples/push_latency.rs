//! A measurement, not a test: how soon what needs the owner reaches an assistant's session,
//! and what a server waiting for news costs.
//!
//! The real `discord-manager ingest` runs against the fake Discord, and a real
//! `discord-manager mcp` session is open on the same store, read by this program as a client
//! reads it (JSON-RPC lines on its stdout). The fake plays a live feed at `PUSH_RATE` events a
//! second (default 200) for `PUSH_SECONDS` (default 120): chat, with a mention of the owner
//! every 10 s (6 a minute, the most pushed one by one). For each mention it takes the time
//! from the fake's sending it to the notification's arrival (an upper bound on the time from
//! the recorder's commit to the write, since it includes the gateway and the recording), and
//! prints p50, p99 and the worst. Then, with nothing arriving, it reads the server's CPU time
//! over `PUSH_IDLE_SECONDS` (default 30) from `/proc` and prints it as a share of one core.
//!
//! Build the binary first, then run this with the same profile:
//! `cargo build --release && cargo run --release --example push_latency`. It asserts nothing.

#[path = "support/daemon.rs"]
mod daemon;
#[path = "../tests/support/fake_discord/mod.rs"]
mod fake_discord;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use daemon::{binary, json as cli_json, wait_for};
use fake_discord::{FakeDiscord, GENERAL, GRACE, INCIDENTS, OWNER};
use serde_json::{Value, json};

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// The server's user and system CPU time so far, in clock ticks (`/proc/PID/stat`).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after_name = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // utime and stime are the 14th and 15th fields; after the name, the 12th and 13th.
    let field = |index: usize| {
        fields
            .get(index)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(11) + field(12)
}

fn main() {
    let rate = setting("PUSH_RATE", 200);
    let seconds = setting("PUSH_SECONDS", 120);
    let idle_seconds = setting("PUSH_IDLE_SECONDS", 30);
    let folder = tempfile::tempdir().unwrap();
    let db = folder.path().join("store.sqlite3");
    let fake = FakeDiscord::start();
    let settings = [
        ("DISCORD_MANAGER_ATTACHMENTS", "0"),
        ("DISCORD_MANAGER_MEANING", "off"),
    ];
    let (mut ingest, lines) = daemon::start(&fake, &db, &settings);
    wait_for(&lines, "for guild Lighthouse Labs");

    let mut server = Command::new(binary())
        .env_clear()
        .arg("--db")
        .arg(&db)
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = server.id();
    let mut stdin = server.stdin.take().unwrap();
    let mut stdout = BufReader::new(server.stdout.take().unwrap());
    let mut send = |message: Value| {
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    };
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "push_latency", "version": "1"}}}),
    );
    let mut answer = String::new();
    stdout.read_line(&mut answer).unwrap();
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let (pushed, arrived) = mpsc::channel::<(Instant, String, usize)>();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message["method"] == "notifications/claude/channel" {
                let meta = &message["params"]["meta"];
                let count = meta["count"]
                    .as_str()
                    .and_then(|c| c.parse().ok())
                    .unwrap_or(1);
                let id = meta["message_id"].as_str().unwrap_or("").to_string();
                let _ = pushed.send((Instant::now(), id, count));
            }
        }
    });

    let period = Duration::from_micros(1_000_000 / rate.max(1));
    let every_mention = rate * 10;
    let total = rate * seconds;
    let mut sent: HashMap<String, Instant> = HashMap::new();
    let started = Instant::now();
    for n in 0..total {
        let due = started + period * u32::try_from(n).unwrap();
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        if n % every_mention == every_mention / 2 {
            let name = format!("ask{n}");
            let mut mention = FakeDiscord::message_value(
                &format!("@id:{name}"),
                INCIDENTS,
                GRACE,
                &format!("<@{OWNER}> question {n}"),
            );
            mention["d"]["mentions"] = json!([FakeDiscord::user(OWNER)]);
            let line = mention.to_string();
            let at = Instant::now();
            fake.play(&line);
            sent.insert(fake.id(&name), at);
        } else {
            fake.play(&FakeDiscord::message_line(
                &format!("@id:chat{n}"),
                GENERAL,
                GRACE,
                "a line of ordinary chat, about sixty characters long",
            ));
        }
    }
    let fed_in = started.elapsed();
    let mut latencies: Vec<Duration> = Vec::new();
    let mut events = 0;
    let deadline = Instant::now() + Duration::from_secs(10);
    while latencies.len() < sent.len() {
        let Ok((at, id, _count)) =
            arrived.recv_timeout(deadline.saturating_duration_since(Instant::now()))
        else {
            break;
        };
        events += 1;
        if let Some(played) = sent.get(&id) {
            latencies.push(at.duration_since(*played));
        }
    }
    latencies.sort();
    let percentile = |percent: usize| {
        let rank = (percent * latencies.len()).div_ceil(100).max(1);
        latencies.get(rank - 1).copied().unwrap_or_default()
    };
    println!(
        "fed {total} events at {rate} a second in {:.1} s; {} mentions sent, {} pushed in {events} events",
        fed_in.as_secs_f64(),
        sent.len(),
        latencies.len()
    );
    println!(
        "from the fake's send to the notification: p50 {:.0} ms, p99 {:.0} ms, worst {:.0} ms",
        percentile(50).as_secs_f64() * 1000.0,
        percentile(99).as_secs_f64() * 1000.0,
        latencies.last().copied().unwrap_or_default().as_secs_f64() * 1000.0
    );

    let stored = cli_json(&db, &["status"])["messageCount"]
        .as_u64()
        .unwrap_or(0);
    println!("the store holds {stored} messages once the feed is played");

    let before = cpu_ticks(pid);
    std::thread::sleep(Duration::from_secs(idle_seconds));
    let after = cpu_ticks(pid);
    // Linux counts CPU time in ticks of 1/100 s.
    let share = (after - before) as f64 / (idle_seconds as f64 * 100.0) * 100.0;
    println!(
        "the server waiting for news, {idle_seconds} s: {} ticks of CPU, {share:.2}% of one core",
        after - before
    );
    let _ = server.kill();
    let _ = ingest.kill();
    let _ = server.wait();
    let _ = ingest.wait();
}
