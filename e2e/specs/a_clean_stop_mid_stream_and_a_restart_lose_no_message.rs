//! SIGTERM while messages stream in: the daemon commits what it received and says so; what it
//! had not received yet is backfilled on the next start. Every message ends up stored once.

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, LINUS};
use crate::support::live::{Daemon, caught_up, ids, EVER};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let mut daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let lines: Vec<String> = (0..300)
        .map(|n| FakeDiscord::message_line(&format!("@id:m{n}"), GENERAL, LINUS, &format!("tick {n}")))
        .collect();
    fake.play(&lines.join("\n"));
    let status = daemon.terminate();
    assert!(status.success(), "a clean stop exits 0: {status}");
    daemon.wait_for("stopped cleanly: ");
    daemon.assert_hygiene();

    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    let mut stored = ids(&caught_up(&store, GENERAL, EVER));
    stored.sort();
    let mut expected: Vec<String> = (0..300).map(|n| fake.id(&format!("m{n}"))).collect();
    expected.sort();
    assert_eq!(stored, expected);
    daemon.stop();
}
