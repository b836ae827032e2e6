//! While one `ingest` records into a store, a second one on the same store exits at once with
//! exit 4 and names the running one, without a single request to Discord. Once the first has
//! stopped (even by `kill -9`), a new one starts.

use crate::support::Store;
use crate::support::fake_discord::FakeDiscord;
use crate::support::live::{Daemon, PATIENCE};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let mut first = Daemon::start(&fake, &store);
    first.wait_until_caught_up(1);
    let requests = fake.requests().len();
    let identifies = fake.frames_in(2).len();

    let mut second = Daemon::start(&fake, &store);
    let status = second.wait_exit(PATIENCE);
    assert_eq!(status.code(), Some(4), "{:?}", second.output());
    assert_eq!(
        second.output(),
        [format!(
            "error: Another `discord-manager ingest` (pid {}) is already recording into {}: \
             stop it first (two would record every event twice and could send a scheduled \
             message twice)",
            first.pid(),
            store.path().display()
        )]
    );
    assert_eq!(fake.requests().len(), requests, "no request from the second");
    assert_eq!(fake.frames_in(2).len(), identifies, "no second IDENTIFY");

    first.kill9();
    let third = Daemon::start(&fake, &store);
    third.wait_until_caught_up(1);
    third.stop();
}
