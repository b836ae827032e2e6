//! SIGTERM arrives while the gateway connection is still being opened (serenity has no shard
//! runner yet, so its own shutdown does nothing): the daemon still stops cleanly once the
//! connection comes up, instead of staying connected for ever.

use crate::support::Store;
use crate::support::fake_discord::FakeDiscord;
use crate::support::live::{Daemon, PATIENCE};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    fake.hold_handshakes(true);
    let mut daemon = Daemon::start(&fake, &store);
    daemon.wait_for("connecting to the gateway at");
    daemon.send_sigterm();
    daemon.wait_for("stopping: SIGTERM received");
    fake.hold_handshakes(false);
    let status = daemon.wait_exit(PATIENCE);
    assert!(
        status.success(),
        "the daemon did not stop cleanly ({status}); it logged:\n{}",
        daemon.output().join("\n")
    );
    daemon.assert_hygiene();
}
