//! With `DISCORD_MANAGER_COMPRESS_STORE=1` the store's pages are written compressed, and a
//! `kill -9` of `ingest` (mid-write, mid-checkpoint: wherever it lands) loses nothing: a
//! restart records what was posted while it was down exactly once, `doctor` finds the store
//! sound and says its pages are compressed, holding fewer blocks than its length; and a process
//! without the setting reads it the same.

use serde_json::Value;

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, LINUS};
use crate::support::live::{Daemon, EVER, caught_up, caught_up_until, ids};
use crate::support::mcp::BINARY;

const COMPRESS: &str = "DISCORD_MANAGER_COMPRESS_STORE";

fn check<'a>(doctor: &'a Value, name: &str) -> &'a Value {
    doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|check| check["check"] == name)
        .unwrap_or_else(|| panic!("a {name} line: {doctor:#}"))
}

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner().setting(COMPRESS, "1");
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    let burst: Vec<String> = (0..120)
        .map(|n| {
            FakeDiscord::message_line(
                &format!("@id:live{n}"),
                GENERAL,
                if n % 2 == 0 { GRACE } else { LINUS },
                &format!("message {n} of the burst, about the cache and its expiry"),
            )
        })
        .collect();
    fake.play(&burst.join("\n"));
    caught_up_until(&store, GENERAL, "the burst", |m| m.len() == 120);

    let daemon = daemon.kill9_and_restart_after_two_posts(&fake, &store);
    caught_up_until(&store, GENERAL, "the backfill", |m| m.len() == 122);
    daemon.stop();

    let mut expected: Vec<String> = (0..120).map(|n| fake.id(&format!("live{n}"))).collect();
    expected.push(fake.id("down1"));
    expected.push(fake.id("down2"));
    expected.sort();
    let mut stored = ids(&caught_up(&store, GENERAL, EVER));
    stored.sort();
    assert_eq!(stored, expected, "every message exactly once");

    // doctor may fail other checks here (no token): its report is what is read.
    let doctor = std::process::Command::new(BINARY)
        .env_clear()
        .envs(store.env())
        .current_dir(store.folder())
        .args(["doctor", "--json"])
        .output()
        .unwrap();
    let doctor: Value = serde_json::from_slice(&doctor.stdout).unwrap();
    assert_eq!(check(&doctor, "integrity")["status"], "ok", "{doctor:#}");
    // The file holds fewer blocks than its length: its pages were written compressed.
    let file = check(&doctor, "store")["detail"].as_str().unwrap();
    assert!(file.contains("; its pages compressed, "), "{file}");

    // A process without the setting reads the compressed pages the same.
    let plain = store.without_setting(COMPRESS);
    let mut read = ids(&caught_up(&plain, GENERAL, EVER));
    read.sort();
    assert_eq!(read, expected);
}
