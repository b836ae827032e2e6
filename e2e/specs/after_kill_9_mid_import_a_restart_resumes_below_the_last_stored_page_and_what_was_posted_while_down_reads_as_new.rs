//! The import survives `kill -9`: each page is stored with the import's progress in one
//! transaction, so a restart goes on below the last page stored and never asks Discord for a
//! stored page again. And the two clocks of news stay apart: the import's older pages, stored
//! after the restart, are history, while a message posted during the downtime, backfilled late,
//! reads as new to a catch-up from the watermark taken before the crash.

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE};
use crate::support::live::{Daemon, EVER, a_minute_ago_ms, history_before_install, ids, status};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let history = history_before_install(&fake, GENERAL, a_minute_ago_ms(), 45, 256);
    // The first page is answered; the second is refused once (a 403 is not retried), so the
    // import stops there, with its first page stored.
    let messages = format!("/channels/{GENERAL}/messages");
    fake.fail_http_after(&messages, 1, 403, 1, 0.0);
    let mut daemon = Daemon::start(&fake, &store);
    daemon.wait_for("the import of #general's history stopped below message");
    let first = store.cli().json_value(&[
        "catch-up", "--channel-id", GENERAL, "--since", EVER, "--limit", "500",
    ]);
    let seen = ids(first["channels"][0]["messages"].as_array().unwrap());
    assert_eq!(seen.len(), 32, "the first page holds the last day before first sight");
    let watermark = first["watermark"].as_str().unwrap().to_string();
    assert_eq!(
        status(&store)["channels"]
            .as_array()
            .unwrap()
            .iter()
            .find(|channel| channel["channelId"] == GENERAL)
            .unwrap()["import"]["state"],
        "in-progress"
    );

    daemon.kill9();
    fake.post_offline(&FakeDiscord::message_line(
        "@id:down",
        GENERAL,
        GRACE,
        "posted while the daemon was down",
    ));
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_for("imported #general's history back to");

    // Below the newest, the first page was fetched once; the refused one again, then the last.
    let newest: u64 = history[0].parse().unwrap();
    let befores: Vec<String> = fake
        .requests()
        .into_iter()
        .filter(|request| request.path.ends_with(&messages))
        .filter_map(|request| request.param("before").map(str::to_string))
        .collect();
    assert_eq!(
        befores,
        vec![
            (newest + 1).to_string(),
            history[99].clone(),
            history[99].clone(),
            history[199].clone()
        ]
    );
    let general = status(&store)["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|channel| channel["channelId"] == GENERAL)
        .cloned()
        .unwrap();
    assert_eq!(general["import"]["state"], "done");
    assert_eq!(general["import"]["pages"], 3);
    assert_eq!(general["import"]["messages"], 225);

    // From the watermark taken before the crash: the downtime's message is new; the 192
    // messages the resumed import stored are not.
    let since_crash = store.cli().json_value(&[
        "catch-up", "--channel-id", GENERAL, "--since", &watermark, "--limit", "500",
    ]);
    let new: Vec<String> = ids(since_crash["channels"][0]["messages"].as_array().unwrap())
        .into_iter()
        .filter(|id| !seen.contains(id))
        .collect();
    assert_eq!(new, vec![fake.id("down")]);
    daemon.stop();
}
