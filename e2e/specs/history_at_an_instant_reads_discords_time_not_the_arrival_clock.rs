//! `messages_history` is a channel's conversation in Discord's order: a message that reached
//! the store late (history delivered after downtime) takes its place by Discord's time. Anchored
//! at an instant of Discord's time, `before` reads messages sent strictly before it and `after`
//! those sent at or after it.

use serde_json::json;

use crate::support::{Feed, Guild, History, Post, Store, micro_after};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let earlier =
        feed.post(Post::new(&general, &grace, "Back online after the outage.").sent_minutes_ago(30));
    let later = feed.post(Post::new(&general, &grace, "All queues drained.").sent_minutes_ago(10));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mut backfill = Feed::new();
    let missed = backfill.post(
        Post::new(&general, &grace, "Posted while the bot was down.").sent_minutes_ago(3 * 24 * 60),
    );
    store.play(&backfill).await;
    let mcp = store.mcp().await;
    let read = async |arguments: serde_json::Value| -> Vec<String> {
        let history: History = mcp.call_ok("messages_history", arguments).await;
        history.ids().into_iter().map(str::to_string).collect()
    };

    let everything = read(json!({"channelId": general.id})).await;
    assert_eq!(
        everything,
        [missed.id.as_str(), earlier.id.as_str(), later.id.as_str()],
        "in Discord's order, though it arrived last"
    );

    let at = &earlier.sent_at;
    assert_eq!(
        read(json!({"channelId": general.id, "before": at})).await,
        [missed.id.as_str()],
        "before an instant: sent strictly before it"
    );
    assert_eq!(
        read(json!({"channelId": general.id, "before": micro_after(at)})).await,
        [missed.id.as_str(), earlier.id.as_str()]
    );
    assert_eq!(
        read(json!({"channelId": general.id, "after": at})).await,
        [earlier.id.as_str(), later.id.as_str()],
        "after an instant: sent at or after it"
    );
    assert_eq!(
        read(json!({"channelId": general.id, "after": micro_after(at)})).await,
        [later.id.as_str()]
    );
    mcp.stop().await;
}
