//! Readers never see SQLITE_BUSY: CLI reads run back to back while ingest commits thousands of
//! events as fast as the fake sends them, and every one answers.

use std::time::Duration;

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, LINUS};
use crate::support::live::{Daemon, EVER, status};

const MESSAGES: u64 = 3000;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let lines: Vec<String> = (0..MESSAGES)
        .map(|n| FakeDiscord::message_line(&format!("@id:m{n}"), GENERAL, LINUS, &format!("burst {n}")))
        .collect();
    fake.play(&lines.join("\n"));
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    let mut reads = 0;
    loop {
        // Each call must succeed quietly (json_value asserts it): a busy store would fail it.
        let count = status(&store)["messageCount"].as_u64().unwrap();
        store
            .cli()
            .json_value(&["catch-up", "--channel-id", GENERAL, "--since", EVER, "--limit", "50"]);
        reads += 2;
        if count == MESSAGES {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "ingest stored every message");
    }
    assert!(reads >= 2);
    daemon.stop();
}
