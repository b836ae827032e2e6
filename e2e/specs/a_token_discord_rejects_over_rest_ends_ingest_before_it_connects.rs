//! A wrong token is caught by the first REST call: ingest exits at once with an error that
//! says so, never printing the token, and never opens a gateway connection.

use crate::support::Store;
use crate::support::fake_discord::FakeDiscord;
use crate::support::live::{Daemon, PATIENCE, Start};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let mut daemon = Daemon::start_with(
        &fake,
        &store,
        Start {
            token: "a-token.never-issued.7f3e",
            rust_log: "trace",
            arguments: &[],
        },
    );
    let status = daemon.wait_exit(PATIENCE);

    assert_eq!(status.code(), Some(7));
    assert_eq!(
        daemon.output().last().map(String::as_str),
        Some("error: Discord rejected the bot token (401 Unauthorized): check DISCORD_TOKEN")
    );
    assert!(fake.frames().is_empty(), "no gateway connection was made");
    let requests = fake.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(requests[0].path, "/api/v10/users/@me");
    assert!(!requests[0].authorized);
    daemon.assert_hygiene();
}
