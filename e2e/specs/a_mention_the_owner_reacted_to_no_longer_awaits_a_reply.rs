//! A mention the owner reacted to no longer awaits a reply, and `mentions_list` says it closed
//! as `reacted`; someone else's reaction on a mention answers nothing.

use serde_json::json;

use crate::support::{Emoji, Feed, Guild, Mentions, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let linus = guild.member("linus", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let acknowledged = feed.post(
        Post::new(&general, &grace, format!("{} the build is green again", owner.mention()))
            .mentioning(&owner)
            .sent_minutes_ago(90),
    );
    let open = feed.post(
        Post::new(&general, &linus, format!("{} can you look at the flaky test?", owner.mention()))
            .mentioning(&owner)
            .sent_minutes_ago(80),
    );
    feed.react(&acknowledged, &owner, &Emoji::unicode("👍"));
    feed.react(&open, &grace, &Emoji::unicode("👀"));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let awaiting: Mentions = mcp
        .call_ok(
            "mentions_awaiting_reply",
            json!({"since": feed.opened_at(), "silenceMinutes": 0}),
        )
        .await;
    let ids: Vec<&str> = awaiting.mentions.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(ids, [open.id.as_str()]);
    assert_eq!(awaiting.mentions[0].closed, None);

    let all: Mentions = mcp
        .call_ok("mentions_list", json!({"since": feed.opened_at()}))
        .await;
    let closed: Vec<(&str, Option<&str>)> = all
        .mentions
        .iter()
        .map(|m| (m.message_id.as_str(), m.closed.as_deref()))
        .collect();
    assert_eq!(
        closed,
        [(acknowledged.id.as_str(), Some("reacted")), (open.id.as_str(), None)]
    );
    mcp.stop().await;
}
