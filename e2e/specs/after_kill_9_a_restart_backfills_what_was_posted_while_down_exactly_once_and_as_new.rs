use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, LINUS};
use crate::support::Store;
use crate::support::live::{Daemon, EVER, caught_up, caught_up_until, ids};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    // One message the gateway never delivers, below one it does: the newest stored message
    // then says nothing about what is missing beneath it.
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

    let everything = caught_up(&store, GENERAL, EVER);
    let mut stored = ids(&everything);
    stored.sort();
    let mut expected = vec![
        fake.id("dropped"),
        fake.id("seen"),
        fake.id("down1"),
        fake.id("down2"),
    ];
    expected.sort();
    assert_eq!(stored, expected, "every message exactly once");
    // A poller holding the watermark from before the crash sees the backfilled ones as new.
    let since_crash = caught_up(&store, GENERAL, &watermark);
    let new: Vec<String> = ids(&since_crash)
        .into_iter()
        .filter(|id| *id != fake.id("seen"))
        .collect();
    let mut new_sorted = new.clone();
    new_sorted.sort();
    let mut backfilled = vec![fake.id("dropped"), fake.id("down1"), fake.id("down2")];
    backfilled.sort();
    assert_eq!(new_sorted, backfilled);
    // The backfill started from the point the first run proved, not from the newest stored.
    let pages: Vec<String> = fake
        .requests()
        .into_iter()
        .filter(|request| {
            request
                .path
                .ends_with(&format!("/channels/{GENERAL}/messages"))
        })
        .filter_map(|request| request.param("after").map(str::to_string))
        .collect();
    assert!(pages.len() >= 2, "{pages:?}");
    assert_eq!(pages[pages.len() - 1], pages[0]);
    daemon.stop();
}
