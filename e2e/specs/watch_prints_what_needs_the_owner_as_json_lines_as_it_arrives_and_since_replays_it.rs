//! `discord-manager watch --json`, for scripts and clients without channels: a mention posted
//! while it runs is printed as one JSON line (the same item the MCP server pushes), the
//! chatter before it is not, and SIGTERM ends it with exit 0. Started again with `--since` an
//! instant long before, it prints the mention first.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GRACE, INCIDENTS, LINUS, OWNER};
use crate::support::live::{Daemon, EVER, caught_up_until};
use crate::support::mcp::BINARY;

/// A safety net, not a measurement.
const PATIENCE: Duration = Duration::from_secs(60);

/// `watch --json` (and `more` arguments) on `store`, and its lines as they come.
fn watch(store: &Store, more: &[&str]) -> (Child, mpsc::Receiver<String>) {
    let mut child = Command::new(BINARY)
        .env_clear()
        .envs(store.env())
        .current_dir(store.folder())
        .args(["watch", "--json"])
        .args(more)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("watch starts");
    let stdout = child.stdout.take().unwrap();
    let (lines, received) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    (child, received)
}

fn terminate(mut child: Child) {
    let sent = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "watch ends cleanly on SIGTERM");
}

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    // Chatter stored before watch starts: nothing to print until the mention.
    fake.play(&FakeDiscord::message_line("@id:chat", INCIDENTS, LINUS, "lunch?"));
    caught_up_until(&store, INCIDENTS, "the chatter", |m| m.len() == 1);

    // From the store's clock now (after the chatter), so the mention played next is watched
    // whether watch reads the clock before or after it arrives.
    let now = store.cli().json_value(&["wait"]);
    let now = now["cutoff"].as_str().unwrap().to_string();
    let (child, lines) = watch(&store, &["--since", &now]);
    let mut mention =
        FakeDiscord::message_value("@id:ask", INCIDENTS, GRACE, &format!("<@{OWNER}> deploy?"));
    mention["d"]["mentions"] = json!([FakeDiscord::user(OWNER)]);
    fake.play(&mention.to_string());
    let line: Value = serde_json::from_str(&lines.recv_timeout(PATIENCE).unwrap()).unwrap();
    assert_eq!(line["kind"], "mention");
    assert_eq!(line["messageId"], fake.id("ask"));
    assert_eq!(line["channelId"], INCIDENTS);
    assert_eq!(line["authorName"], "grace");
    assert_eq!(line["text"], format!("<@{OWNER}> deploy?"));
    terminate(child);

    let (child, lines) = watch(&store, &["--since", EVER]);
    let replayed: Value = serde_json::from_str(&lines.recv_timeout(PATIENCE).unwrap()).unwrap();
    assert_eq!(replayed["messageId"], fake.id("ask"));
    terminate(child);
    daemon.stop();
}
