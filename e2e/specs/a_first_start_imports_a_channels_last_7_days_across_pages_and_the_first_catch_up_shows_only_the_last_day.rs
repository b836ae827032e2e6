//! A fresh install has history: on a first start `ingest` imports what each channel held
//! before it was first seen, newest page first, back 7 days (in Discord's ids, from the
//! channel's newest message then). Imported history is history, not news: the first catch-up
//! (its default window, the last 24 hours) shows only what was sent in the last day before
//! the channel was first seen, and `wait` does not
//! count the rest; `history` has all seven days, and not a message more.

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL};
use crate::support::live::{Daemon, EVER, a_minute_ago_ms, history_before_install, ids, status};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    // 256 messages, one every 45 minutes, the newest a minute ago: 8 days less 45 minutes.
    let newest_ms = a_minute_ago_ms();
    let history = history_before_install(&fake, GENERAL, newest_ms, 45, 256);

    let daemon = Daemon::start(&fake, &store);
    daemon.wait_for("imported #general's history back to");

    // Pages of 100, newest first, from just above the newest message down: three pages reach
    // the window's edge (message 224 is 7 days exactly before the newest).
    let befores: Vec<String> = fake
        .requests()
        .into_iter()
        .filter(|request| request.path.ends_with(&format!("/channels/{GENERAL}/messages")))
        .filter_map(|request| request.param("before").map(str::to_string))
        .collect();
    let newest: u64 = history[0].parse().unwrap();
    assert_eq!(
        befores,
        vec![
            (newest + 1).to_string(),
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
    let window_from = discord_manager_vocabulary::instant::Instant::from_micros(
        (newest_ms - 7 * 24 * 60 * 60_000) as i64 * 1_000,
    )
    .to_iso();
    assert_eq!(
        general["import"],
        serde_json::json!({"state": "done", "importedBackTo": window_from,
                           "windowFrom": window_from, "pages": 3, "messages": 225})
    );

    // The first catch-up (since 24 hours ago): the last day before the daemon first saw the
    // channel, by Discord's clock then: message 31 (23 h 15 min before the newest) is news;
    // message 32, sent exactly a day before the newest and so a day and a minute before first
    // sight, is history, as the rule says (the newest message was a minute old when seen).
    let first = store
        .cli()
        .json_value(&["catch-up", "--channel-id", GENERAL, "--limit", "500"]);
    let shown = first["channels"][0]["messages"].as_array().unwrap().clone();
    let mut shown = ids(&shown);
    shown.sort();
    let mut last_day: Vec<String> = history[..=31].to_vec();
    last_day.sort();
    assert_eq!(shown, last_day);
    // Nor does a catch-up of all time, or the cursor tool, count the older history as news.
    let everything = store.cli().json_value(&[
        "catch-up", "--channel-id", GENERAL, "--since", EVER, "--limit", "500",
    ]);
    assert_eq!(everything["channels"][0]["messages"].as_array().unwrap().len(), 32);
    let activity = store
        .cli()
        .json_value(&["wait", "--after", EVER, "--channel-id", GENERAL]);
    assert_eq!(activity["channels"][0]["messages"], 32);

    // History has the whole window: message 224 (7 days exactly) is there, 225 is not.
    let around = store
        .cli()
        .json_value(&["history", GENERAL, "--around", &history[224]]);
    let around = ids(around["messages"].as_array().unwrap());
    assert!(around.contains(&history[224]), "{around:?}");
    assert!(around.contains(&history[223]), "{around:?}");
    assert!(!around.contains(&history[225]), "{around:?}");
    daemon.stop();
}
