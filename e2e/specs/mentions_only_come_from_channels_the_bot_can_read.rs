//! A mention of the owner in a channel whose history the bot may not read is not listed by
//! `mentions_list`, though the gateway delivered it; the same mention in a readable channel is.

use serde_json::json;

use crate::support::{Feed, Guild, Mentions, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let linus = guild.member("linus", &[]);
    let general = guild.text_channel("general");
    let archive = guild.channel_without_history("old-announcements");
    let mut feed = Feed::joining(&guild);
    let text = format!("{} can we unarchive this?", owner.mention());
    feed.post(Post::new(&archive, &linus, text.clone()).mentioning(&owner));
    let readable = feed.post(Post::new(&general, &linus, text).mentioning(&owner));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let listed: Mentions = mcp
        .call_ok("mentions_list", json!({"since": feed.opened_at()}))
        .await;

    let ids: Vec<&str> = listed.mentions.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(ids, [&readable.id]);
    mcp.stop().await;
}
