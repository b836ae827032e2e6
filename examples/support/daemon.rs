//! What the ingest examples share: the binary built beside them, a CLI call's JSON, and a
//! daemon started against the fake Discord with its log lines read as they come.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::fake_discord::FakeDiscord;

/// The binary of the same profile: target/<profile>/examples/<example> → target/<profile>/discord-manager.
pub fn binary() -> PathBuf {
    let examples = std::env::current_exe().unwrap();
    examples
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("discord-manager")
}

/// `discord-manager --db <db> <args> --json`, with nothing from this shell's environment; its
/// answer, or a panic with its error.
pub fn json(db: &Path, args: &[&str]) -> serde_json::Value {
    let output = Command::new(binary())
        .env_clear()
        .arg("--db")
        .arg(db)
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// `discord-manager ingest` on `db` against `fake`, with `settings` added to its environment;
/// the child, and its log lines as they come.
pub fn start(
    fake: &FakeDiscord,
    db: &Path,
    settings: &[(&str, &str)],
) -> (Child, mpsc::Receiver<String>) {
    let mut child = Command::new(binary())
        .env_clear()
        .env("DISCORD_TOKEN", fake.token())
        .env("DISCORD_API_BASE", fake.api_base())
        .env("RUST_LOG", "warn,discord_manager=info")
        .envs(settings.iter().copied())
        .arg("--db")
        .arg(db)
        .arg("ingest")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (lines, received) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    (child, received)
}

/// The first log line holding `needle` (ten minutes at most).
pub fn wait_for(lines: &mpsc::Receiver<String>, needle: &str) -> String {
    loop {
        let line = lines
            .recv_timeout(Duration::from_secs(600))
            .expect("the daemon keeps logging");
        if line.contains(needle) {
            return line;
        }
    }
}
