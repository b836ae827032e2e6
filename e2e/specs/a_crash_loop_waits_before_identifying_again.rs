//! A daemon restarted over and over must not burn Discord's IDENTIFY budget (1000 a day
//! resets the token): after five identifies in quick succession the next start waits.

use crate::support::Store;
use crate::support::fake_discord::FakeDiscord;
use crate::support::live::Daemon;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    for run in 1..=5 {
        let mut daemon = Daemon::start(&fake, &store);
        daemon.wait_for("connected: new gateway session");
        daemon.kill9();
        assert_eq!(fake.frames_in(2).len(), run);
    }
    let daemon = Daemon::start(&fake, &store);
    let waiting = daemon.wait_for("before identifying");
    assert!(
        waiting.contains("5 identifies in the last 18 minutes"),
        "{waiting}"
    );
    assert!(waiting.contains("waiting 2m") || waiting.contains("waiting 3m"), "{waiting}");
    assert_eq!(fake.frames_in(2).len(), 5, "the sixth start did not identify");
    daemon.stop();
}
