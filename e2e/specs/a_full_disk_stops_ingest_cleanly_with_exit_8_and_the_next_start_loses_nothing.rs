//! When the store's disk fills up, `ingest` cannot record what arrives: it stops through its
//! clean path (the gateway connection closed, an owner-worded reason, its own exit code 8)
//! instead of losing events silently, and once there is room again the next start backfills
//! every message that arrived meanwhile: nothing is lost.

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE};
use crate::support::live::{Daemon, EVER, PATIENCE, caught_up, ids};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    // The disk has room for 30 more pages of the store (120 KiB), no more.
    let mut daemon =
        Daemon::start_with_env(&fake, &store, &[("DISCORD_MANAGER_TEST_STORE_ROOM_PAGES", "30")]);
    daemon.wait_until_caught_up(1);

    // Sixty long messages: far more than the room left.
    let names: Vec<String> = (0..60).map(|n| format!("long{n}")).collect();
    let lines: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(n, name)| {
            FakeDiscord::message_line(
                &format!("@id:{name}"),
                GENERAL,
                GRACE,
                &format!("message {n}: {}", "the incident review notes ".repeat(140)),
            )
        })
        .collect();
    fake.play(&lines.join("\n"));

    let status = daemon.wait_exit(PATIENCE);
    let output = daemon.output().join("\n");
    assert_eq!(status.code(), Some(8), "{output}");
    assert!(
        output.contains(
            "error: The store cannot be written: its disk is full\nHint: Free some space; \
             nothing already stored is lost, and the next `ingest` backfills what arrived \
             meanwhile"
        ),
        "{output}"
    );
    // The clean path: the daemon closed its gateway connection itself (1000), not by dying.
    assert!(
        fake.frames().iter().any(|frame| frame.close == Some(1000)),
        "{output}"
    );
    daemon.assert_hygiene();

    // Room again: the next start records every message exactly once.
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    let mut stored = ids(&caught_up(&store, GENERAL, EVER));
    stored.sort();
    let mut expected: Vec<String> = names.iter().map(|name| fake.id(name)).collect();
    expected.sort();
    assert_eq!(stored.len(), 60);
    assert_eq!(stored, expected, "every message exactly once");
    daemon.stop();
}
