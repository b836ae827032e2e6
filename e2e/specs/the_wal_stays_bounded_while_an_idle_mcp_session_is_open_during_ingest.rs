//! An MCP session that answered a call and then sits idle holds no read transaction: while
//! ingest writes thousands of events, SQLite's checkpoints keep the write-ahead log bounded.
//! (A held snapshot would make it grow with every commit, by ~20 KB an event here.)
//!
//! The spec looks at the size of the store's `-wal` file, never at its content.

use std::time::Duration;

use serde_json::json;

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE};
use crate::support::live::{Daemon, status};

const MESSAGES: usize = 3000;
/// SQLite checkpoints at 1000 pages (4 MB); the log is reused from its start once a
/// checkpoint completes, so it stays near that size plus one transaction.
const BOUND: u64 = 8 * 1024 * 1024;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let mcp = store.mcp().await;
    mcp.call("messages_catch_up", json!({})).await;

    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    let text = "a fairly ordinary message of about one hundred characters, like most in a busy channel".repeat(2);
    let lines: Vec<String> = (0..MESSAGES)
        .map(|n| FakeDiscord::message_line(&format!("@id:m{n}"), GENERAL, GRACE, &format!("{n} {text}")))
        .collect();
    fake.play(&lines.join("\n"));
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while status(&store)["messageCount"] != MESSAGES {
        assert!(std::time::Instant::now() < deadline, "ingest stored every message");
        std::thread::sleep(Duration::from_millis(200));
    }

    let mut wal = store.path().as_os_str().to_owned();
    wal.push("-wal");
    let size = std::fs::metadata(&wal).expect("the store is in WAL mode").len();
    assert!(
        size < BOUND,
        "the write-ahead log grew to {size} bytes while an MCP session was open"
    );
    // The session is still alive and answers.
    mcp.call("messages_catch_up", json!({})).await;
    mcp.stop().await;
    daemon.stop();
}
