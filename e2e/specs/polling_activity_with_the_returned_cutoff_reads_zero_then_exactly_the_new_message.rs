//! `activity_wait` followed exactly as its description tells the caller: call it, then call it
//! again with `after` set to the returned `cutoff`. While nothing happens it reads `total: 0`;
//! once the feed delivers one message (into the store the running server reads), the next poll
//! reads exactly that message, in its channel, as a message; the poll after that reads zero.

use serde_json::json;

use crate::support::{Activity, ChannelActivity, Feed, Guild, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let general = guild.text_channel("general");
    let releases = guild.announcement_channel("releases");
    let mut feed = Feed::joining(&guild);
    feed.post(Post::new(&general, &grace, "Morning all! Standup notes are in the team doc."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    // Call it.
    let first: Activity = mcp.call_ok("activity_wait", json!({})).await;
    assert_eq!((first.total, first.channels.len()), (0, 0), "nothing yet: {first:#?}");

    // Pass the cutoff back: still nothing.
    let quiet: Activity = mcp
        .call_ok("activity_wait", json!({"after": first.cutoff}))
        .await;
    assert_eq!((quiet.total, quiet.channels.len()), (0, 0), "all quiet: {quiet:#?}");

    // The feed delivers one message while the server runs.
    let mut news = Feed::new();
    news.post(Post::new(&releases, &grace, "v2.4.1 is out: it fixes the WAL growth."));
    store.play(&news).await;

    let one: Activity = mcp
        .call_ok("activity_wait", json!({"after": quiet.cutoff}))
        .await;
    assert_eq!(one.total, 1);
    assert_eq!(
        one.channels,
        [ChannelActivity {
            channel_id: releases.id.clone(),
            channel_name: releases.name.clone(),
            messages: 1,
            edits: 0,
            deletions: 0,
            reactions: 0,
        }]
    );
    assert!(one.cutoff > quiet.cutoff, "the cutoff moves past the new message");

    let after: Activity = mcp
        .call_ok("activity_wait", json!({"after": one.cutoff}))
        .await;
    assert_eq!((after.total, after.channels.len()), (0, 0), "read once: {after:#?}");
    assert!(after.cutoff >= one.cutoff, "a cutoff never moves back");
    mcp.stop().await;
}
