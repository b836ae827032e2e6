//! serenity identifies again by itself when a session cannot be resumed, and an IDENTIFY that
//! Discord closes before READY still counts toward the 1000 a day that reset the token. Every
//! one the process sends is counted: after five in quick succession the daemon pauses.

use crate::support::Store;
use crate::support::fake_discord::FakeDiscord;
use crate::support::live::Daemon;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    // Every IDENTIFY is closed with 4009 (session timed out): no READY ever comes, and
    // serenity answers each close by identifying again on its own.
    fake.close_identify_with(Some(4009));
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_for("pausing before the next IDENTIFY");
    let waiting = daemon.wait_for("before identifying");
    assert!(
        waiting.contains("5 identifies in the last 18 minutes"),
        "{waiting}"
    );
    // The fifth was counted as it left; the fake receives it a moment later. None of the
    // five reached READY, yet the pause came at the fifth.
    fake.wait_for("the fifth IDENTIFY", crate::support::live::PATIENCE, |fake| {
        fake.count_in(2) >= 5
    });
    assert_eq!(fake.frames_in(2).len(), 5);
    assert!(fake.frames().iter().all(|frame| frame.t.as_deref() != Some("READY")));
    daemon.stop();
}
