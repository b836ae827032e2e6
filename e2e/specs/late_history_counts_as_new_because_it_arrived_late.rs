//! A message Discord sent days ago that reaches the store only now (history delivered after
//! downtime) counts as new: catch-up orders and cuts by arrival, never by Discord's timestamp,
//! and still reports Discord's own time as `sentAt`.

use serde_json::json;

use crate::support::{CaughtUp, Feed, Guild, Post, Store, micro_after};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let live = feed.post(Post::new(&general, &grace, "Back online after the outage.").sent_minutes_ago(1));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let before: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at()}))
        .await;
    let cutoff = micro_after(&before.watermark);

    let mut history = Feed::new();
    let missed = history.post(
        Post::new(&general, &grace, "Posted while the bot was down.").sent_minutes_ago(3 * 24 * 60),
    );
    store.play(&history).await;
    let after: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": cutoff}))
        .await;

    assert_eq!(after.ids_in(&general.id), [&missed.id]);
    let message = after.messages_in(&general.id)[0];
    assert_eq!(message.sent_at, missed.sent_at);
    assert!(message.sent_at < live.sent_at, "Discord's own clock says it is older");
    assert!(message.created_at >= cutoff, "the arrival clock says it is new");

    let both: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at()}))
        .await;
    assert_eq!(both.ids_in(&general.id), [&live.id, &missed.id], "oldest arrival first");
    mcp.stop().await;
}
