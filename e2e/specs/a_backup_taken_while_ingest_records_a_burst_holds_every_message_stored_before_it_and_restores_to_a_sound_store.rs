//! `discord-manager backup PATH` while `ingest` records a burst of messages from the gateway:
//! the copy holds every message the store held when the backup began (and perhaps some of the
//! burst), is the owner's only (0600), passes SQLite's integrity check as `doctor` runs it, and
//! restored over a store's path reads like the store it was taken from.

use std::os::unix::fs::PermissionsExt;

use serde_json::Value;

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE};
use crate::support::live::{Daemon, status};
use crate::support::mcp::BINARY;

/// `discord-manager --db <db> <args…> --json` in the spec's environment, as JSON.
fn json_on(store: &Store, db: &std::path::Path, args: &[&str]) -> Value {
    let output = std::process::Command::new(BINARY)
        .env_clear()
        .envs(store.env())
        .current_dir(store.folder())
        .arg("--db")
        .arg(db)
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "{args:?} on {} printed no JSON ({error}): {}",
            db.display(),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn burst(fake: &FakeDiscord, from: usize, count: usize) {
    let feed: Vec<String> = (from..from + count)
        .map(|n| {
            FakeDiscord::message_line(&format!("@id:m{n}"), GENERAL, GRACE, &format!("burst {n}"))
        })
        .collect();
    fake.play(&feed.join("\n"));
}

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner().sending_to(&fake);
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    burst(&fake, 0, 150);
    crate::support::live::caught_up_until(&store, GENERAL, "the first 150", |m| m.len() >= 150);
    let before = status(&store)["messageCount"].as_u64().unwrap();
    assert!(before >= 150, "{before}");

    // The burst goes on while the backup is taken.
    let copy = store.folder().join("backup.sqlite3");
    let backed_up = std::thread::scope(|scope| {
        let writing = scope.spawn(|| burst(&fake, 150, 300));
        let backed_up = store
            .cli()
            .run_with(&["backup", copy.to_str().unwrap()], "", &[])
            .code(0)
            .stderr("");
        writing.join().unwrap();
        backed_up
    });
    let said = String::from_utf8_lossy(&backed_up.get_output().stdout).into_owned();
    assert!(
        said.starts_with(&format!(
            "Backed up {} to {}: ",
            store.path().display(),
            copy.display()
        )),
        "{said}"
    );
    assert_eq!(
        std::fs::metadata(&copy).unwrap().permissions().mode() & 0o777,
        0o600
    );

    let held = json_on(&store, &copy, &["status"])["messageCount"]
        .as_u64()
        .unwrap();
    assert!(
        held >= before,
        "the copy holds {held} messages, the store held {before} when the backup began"
    );
    assert!(said.contains(&format!(": {held} messages, ")), "{said}");
    crate::support::live::caught_up_until(&store, GENERAL, "the whole burst", |m| m.len() >= 450);
    daemon.stop();

    // doctor finds the copy sound.
    let doctor = std::process::Command::new(BINARY)
        .env_clear()
        .envs(store.env())
        .current_dir(store.folder())
        .arg("--db")
        .arg(&copy)
        .args(["doctor", "--json"])
        .output()
        .unwrap();
    let doctor: Value = serde_json::from_slice(&doctor.stdout).unwrap();
    let integrity = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|check| check["check"] == "integrity")
        .expect("an integrity line");
    assert_eq!(integrity["status"], "ok", "{integrity:#}");

    // Restored over a store's path, it reads as the store did: its oldest messages are the
    // burst's first.
    let restored = store.folder().join("restored.sqlite3");
    std::fs::copy(&copy, &restored).unwrap();
    let history = json_on(
        &store,
        &restored,
        &["history", GENERAL, "--after", "2000-01-01T00:00:00Z", "--limit", "3"],
    );
    let contents: Vec<&str> = history["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|message| message["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["burst 0", "burst 1", "burst 2"]);
}
