//! Discord may never deliver an event: the periodic repair compares each channel's
//! `last_message_id` with what the store has proved and backfills the difference.

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, INCIDENTS, LINUS};
use crate::support::live::{Daemon, Start, caught_up_until, ids};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start_with(
        &fake,
        &store,
        Start {
            token: fake.token(),
            rust_log: "warn,discord_manager=info",
            arguments: &["--repair-every", "1"],
        },
    );
    daemon.wait_until_caught_up(1);

    fake.post_offline(&FakeDiscord::message_line("@id:missed", INCIDENTS, LINUS, "never delivered"));
    daemon.wait_for("backfilled #incidents: 1 pages, 1 messages fetched, 1 new");
    let messages = caught_up_until(&store, INCIDENTS, "the repaired message", |m| m.len() == 1);
    assert_eq!(ids(&messages), vec![fake.id("missed")]);
    daemon.wait_for("backfill done (repair) for guild");
    daemon.stop();
}
