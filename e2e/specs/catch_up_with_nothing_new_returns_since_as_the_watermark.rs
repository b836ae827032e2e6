//! When nothing arrived at or after `since`, `messages_catch_up` returns no channels and the
//! `since` it was given as the watermark, written as UTC even when `since` was not.

use serde_json::json;

use crate::support::time::Stamp;
use crate::support::{CaughtUp, Feed, Guild, Post, Store, micro_after};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    feed.post(Post::new(&general, &grace, "Quiet day today."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let everything: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at()}))
        .await;
    let after_newest = micro_after(&everything.watermark);

    let quiet: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": after_newest}))
        .await;

    assert_eq!(quiet.channels, []);
    assert_eq!(quiet.skipped_channels, []);
    assert_eq!(quiet.watermark, after_newest);

    // The same instant written on a clock two hours ahead of UTC.
    let elsewhere: CaughtUp = mcp
        .call_ok(
            "messages_catch_up",
            json!({"since": Stamp::parse(&after_newest).at_offset(2)}),
        )
        .await;
    assert_eq!(elsewhere.channels, []);
    assert_eq!(elsewhere.watermark, after_newest);
    mcp.stop().await;
}
