//! `channels_list` counts, per channel, the messages that arrived at or after `since` (both
//! sides of the boundary), reports when the newest one arrived, and echoes the `since` it
//! counted from.

use serde_json::json;

use crate::support::{CaughtUp, ChannelList, Feed, Guild, Post, Store, micro_after};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let general = guild.text_channel("general");
    let quiet = guild.text_channel("random");
    let mut feed = Feed::joining(&guild);
    feed.post(Post::new(&general, &grace, "Standup in five."));
    feed.post(Post::new(&general, &grace, "Notes are in the doc."));
    feed.post(Post::new(&general, &grace, "Who is on call?"));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let everything: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at()}))
        .await;
    let arrivals: Vec<String> = everything
        .messages_in(&general.id)
        .iter()
        .map(|message| message.created_at.clone())
        .collect();

    let at_second: ChannelList = mcp
        .call_ok("channels_list", json!({"since": arrivals[1]}))
        .await;
    let after_second: ChannelList = mcp
        .call_ok("channels_list", json!({"since": micro_after(&arrivals[1])}))
        .await;
    let after_newest: ChannelList = mcp
        .call_ok("channels_list", json!({"since": micro_after(&arrivals[2])}))
        .await;

    assert_eq!(at_second.since, arrivals[1]);
    assert_eq!(at_second.channel(&general.id).new_since, 2);
    assert_eq!(after_second.channel(&general.id).new_since, 1);
    assert_eq!(after_newest.channel(&general.id).new_since, 0);
    assert_eq!(after_newest.since, micro_after(&arrivals[2]));
    for list in [&at_second, &after_second, &after_newest] {
        assert_eq!(
            list.channel(&general.id).newest_arrival.as_deref(),
            Some(arrivals[2].as_str())
        );
        assert_eq!(list.channel(&quiet.id).new_since, 0);
        assert_eq!(list.channel(&quiet.id).newest_arrival, None);
    }
    mcp.stop().await;
}
