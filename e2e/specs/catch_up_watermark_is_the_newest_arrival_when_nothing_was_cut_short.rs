//! When no channel is cut short, the watermark is the newest `createdAt` returned across all
//! channels, and passing it back shows only that boundary message again.

use serde_json::json;

use crate::support::{CaughtUp, Feed, Guild, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let general = guild.text_channel("general");
    let incidents = guild.text_channel("incidents");
    let mut feed = Feed::joining(&guild);
    feed.post(Post::new(&general, &grace, "Deploy window opens at 14:00."));
    feed.post(Post::new(&incidents, &grace, "Latency spike on eu-west, investigating."));
    // The newest message is in the channel listed first, not the last one.
    let newest = feed.post(Post::new(&general, &grace, "Deploy window is closed."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let caught_up: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at()}))
        .await;

    let listed: Vec<&str> = caught_up.channels.iter().map(|c| c.channel_id.as_str()).collect();
    assert_eq!(listed, [&general.id, &incidents.id]);
    let newest_arrival = caught_up.messages_in(&general.id)[1].created_at.clone();
    assert_eq!(caught_up.messages_in(&general.id)[1].message_id, newest.id);
    assert_eq!(caught_up.watermark, newest_arrival);

    let again: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": caught_up.watermark}))
        .await;
    assert_eq!(again.message_ids(), [&newest.id]);
    assert_eq!(again.watermark, newest_arrival);
    mcp.stop().await;
}
