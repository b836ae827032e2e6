use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, LINUS};
use crate::support::Store;
use crate::support::live::{Daemon, EVER, caught_up, caught_up_until, ids, status};

/// The host's clock 5 minutes ahead of Discord's (a Raspberry Pi at boot, without NTP): every
/// snowflake Discord mints is below one computed from the host's clock, so coverage that came
/// from the host's clock would skip everything posted while the daemon was down.
const DISCORD_BEHIND_MS: i64 = 5 * 60 * 1_000;

pub async fn spec() {
    let fake = FakeDiscord::start();
    fake.set_clock_offset_ms(-DISCORD_BEHIND_MS);
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    // One message the gateway never delivers, below one it does.
    fake.post_offline(&FakeDiscord::message_line(
        "@id:dropped",
        GENERAL,
        LINUS,
        "never delivered",
    ));
    fake.play(&FakeDiscord::message_line(
        "@id:seen",
        GENERAL,
        GRACE,
        "delivered",
    ));
    caught_up_until(&store, GENERAL, "the delivered message", |m| m.len() == 1);
    let watermark = store.cli().json_value(&["catch-up", "--since", EVER])["watermark"]
        .as_str()
        .unwrap()
        .to_string();

    let daemon = daemon.kill9_and_restart_after_two_posts(&fake, &store);

    let mut stored = ids(&caught_up(&store, GENERAL, EVER));
    stored.sort();
    let mut expected = vec![
        fake.id("dropped"),
        fake.id("seen"),
        fake.id("down1"),
        fake.id("down2"),
    ];
    expected.sort();
    assert_eq!(stored, expected, "every message exactly once");
    // New on the arrival clock for a poller holding the watermark from before the crash.
    let mut new: Vec<String> = ids(&caught_up(&store, GENERAL, &watermark))
        .into_iter()
        .filter(|id| *id != fake.id("seen"))
        .collect();
    new.sort();
    let mut backfilled = vec![fake.id("dropped"), fake.id("down1"), fake.id("down2")];
    backfilled.sort();
    assert_eq!(new, backfilled);

    // status says how far off the host's clock is (Discord's Date header has whole seconds).
    let clock = &status(&store)["discordClock"];
    let ahead = clock["hostAheadMs"].as_i64().unwrap();
    assert!(
        (DISCORD_BEHIND_MS..DISCORD_BEHIND_MS + 1_500).contains(&ahead),
        "hostAheadMs {ahead} in {clock}"
    );
    let assert = store.cli().run(&["status"]).success();
    let text = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(
        text.contains("clock: this machine is 300 s ahead of Discord's")
            || text.contains("clock: this machine is 301 s ahead of Discord's"),
        "{text}"
    );
    daemon.stop();
}
