//! A thread created and archived while the daemon was down is never announced by the gateway:
//! the repair pass pages Discord's archived-thread lists (public and private) of each readable
//! channel, records the thread under its parent, and backfills every message of it, since its
//! id says it was created after the store began covering its parent.

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, LINUS};
use crate::support::live::{Daemon, Start, caught_up_until, ids};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let start = || Start {
        token: fake.token(),
        rust_log: "warn,discord_manager=info",
        arguments: &["--repair-every", "1"],
    };
    let daemon = Daemon::start_with(&fake, &store, start());
    daemon.wait_until_caught_up(1);
    daemon.stop();

    let retro = fake.archived_thread("retro", GENERAL, "Flaky deploy retro", false);
    fake.post_offline(
        &[
            FakeDiscord::message_line("@id:first", &retro, GRACE, "what went wrong on Tuesday"),
            FakeDiscord::message_line("@id:second", &retro, LINUS, "the canary skipped eu-west"),
        ]
        .join("\n"),
    );
    let daemon = Daemon::start_with(&fake, &store, start());
    daemon.wait_for("backfilled #Flaky deploy retro: 1 pages, 2 messages fetched, 2 new");
    let messages = caught_up_until(&store, &retro, "the archived thread's messages", |m| {
        m.len() == 2
    });
    assert_eq!(ids(&messages), vec![fake.id("first"), fake.id("second")]);

    // Both lists were read, the private one too (the fake lets the bot).
    let paths: Vec<String> = fake
        .requests()
        .into_iter()
        .map(|request| request.path)
        .collect();
    for which in ["public", "private"] {
        let path = format!("/api/v10/channels/{GENERAL}/threads/archived/{which}");
        assert!(paths.contains(&path), "{path} in {paths:?}");
    }
    // The thread is listed under its parent.
    let channels = store.cli().json_value(&["channels", "list"]);
    let general = channels["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|channel| channel["channelId"] == GENERAL)
        .unwrap_or_else(|| panic!("the parent is listed: {channels}"));
    let thread = general["threads"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|thread| thread["channelId"] == retro.as_str())
        .unwrap_or_else(|| panic!("the thread is listed under its parent: {channels}"));
    assert_eq!(thread["name"], "Flaky deploy retro");
    daemon.stop();
}
