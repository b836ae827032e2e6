//! When a channel's permissions change so the bot can no longer view it, catch-up skips it from
//! then on (with the reason) and stops showing what it had stored from it, and `channels_list`
//! marks it unreadable.

use serde_json::json;

use crate::support::{CaughtUp, ChannelList, Feed, Guild, Post, SkippedChannel, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let general = guild.text_channel("general");
    let planning = guild.text_channel("planning");
    let mut feed = Feed::joining(&guild);
    let kept = feed.post(Post::new(&general, &grace, "Roadmap review on Friday."));
    let stored = feed.post(Post::new(&planning, &grace, "Q3 planning starts Monday."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let before: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at()}))
        .await;
    assert_eq!(before.ids_in(&planning.id), [&stored.id]);

    let mut change = Feed::new();
    change.hide_from_the_bot(&planning);
    store.play(&change).await;
    let after: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at()}))
        .await;
    let list: ChannelList = mcp
        .call_ok("channels_list", json!({"since": feed.opened_at()}))
        .await;

    let reason = "the bot cannot view this channel (View Channel is denied)";
    assert_eq!(after.message_ids(), [&kept.id]);
    assert_eq!(
        after.skipped_channels,
        [SkippedChannel {
            channel_id: planning.id.clone(),
            channel_name: planning.name.clone(),
            reason: reason.to_string(),
        }]
    );
    assert!(!list.channel(&planning.id).readable);
    assert_eq!(list.channel(&planning.id).unreadable_reason.as_deref(), Some(reason));
    assert!(list.channel(&general.id).readable);
    mcp.stop().await;
}
