//! The morning loop over MCP: catch up, mark read through the catch-up's `watermark`, and a
//! second `messages_catch_up` with `fromReadMarkers: true` reads only what arrived after, while
//! `channels_list` counts it as `unread`; a channel never marked read is read from `since`.

use serde_json::json;

use crate::support::{CaughtUp, ChannelList, Feed, Guild, MarkedRead, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let general = guild.text_channel("general");
    let releases = guild.announcement_channel("releases");
    let mut feed = Feed::joining(&guild);
    let standup = feed.post(Post::new(&general, &grace, "Standup notes are in the doc."));
    let review = feed.post(Post::new(&general, &grace, "The storage PR is ready."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let morning: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at()}))
        .await;
    assert_eq!(morning.ids_in(&general.id), [&standup.id, &review.id]);
    assert_eq!(morning.next_cursor, None);
    let marked: MarkedRead = mcp
        .call_ok(
            "channels_mark_read",
            json!({"channelId": general.id, "through": morning.watermark}),
        )
        .await;
    assert_eq!(marked.through, morning.watermark);
    assert_eq!(marked.channels.len(), 1);
    assert_eq!(marked.channels[0].channel_id, general.id);
    assert_eq!(marked.source, "mcp");

    // Later in the day.
    let mut news = Feed::new();
    let lunch = news.post(Post::new(&general, &grace, "Lunch at noon?"));
    let tagged = news.post(Post::new(&releases, &grace, "v2.4.1 is tagged."));
    store.play(&news).await;

    let listed: ChannelList = mcp
        .call_ok("channels_list", json!({"since": feed.opened_at()}))
        .await;
    let general_summary = listed.channel(&general.id);
    assert_eq!(general_summary.unread, 1, "only what arrived after the marker");
    assert_eq!(general_summary.read_through.as_deref(), Some(morning.watermark.as_str()));
    assert_eq!(general_summary.new_since, 3);
    let releases_summary = listed.channel(&releases.id);
    assert_eq!((releases_summary.unread, releases_summary.read_through.clone()), (1, None));

    let afternoon: CaughtUp = mcp
        .call_ok(
            "messages_catch_up",
            json!({"fromReadMarkers": true, "since": feed.opened_at()}),
        )
        .await;
    assert_eq!(afternoon.ids_in(&general.id), [&lunch.id]);
    assert_eq!(afternoon.ids_in(&releases.id), [&tagged.id]);
    mcp.stop().await;
}
