//! With `DISCORD_GUILD_IDS` set, a guild outside it is invisible on every tool: its channels
//! are not listed, its messages and mentions are not shown, naming one of its channels is
//! refused as out of scope, and its messages cannot be bookmarked.

use serde_json::json;

use crate::support::{CaughtUp, ChannelList, Feed, Guild, Mentions, Post, Store};

pub async fn spec() {
    let mut work = Guild::new("Lighthouse Labs");
    let mut hobby = Guild::alongside(&work, "Model Railways");
    let owner = work.member("ada", &[]);
    let linus = work.member("linus", &[]);
    hobby.join(&owner, &[]);
    let railfan = hobby.member("railfan", &[]);
    let general = work.text_channel("general");
    let layouts = hobby.text_channel("layouts");
    let mut feed = Feed::joining(&work);
    feed.guild_create(&hobby);
    let in_scope = feed.post(
        Post::new(&general, &linus, format!("{} review please?", owner.mention())).mentioning(&owner),
    );
    let out_of_scope = feed.post(
        Post::new(&layouts, &railfan, format!("{} nice viaduct!", owner.mention()))
            .mentioning(&owner),
    );
    let store = Store::for_owner(&owner).scoped_to(&[&work.id]);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let since = feed.opened_at();

    let list: ChannelList = mcp.call_ok("channels_list", json!({"since": since})).await;
    let caught_up: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": since}))
        .await;
    let mentions: Mentions = mcp.call_ok("mentions_list", json!({"since": since})).await;
    let named = mcp
        .call_err("messages_catch_up", json!({"since": since, "channelId": layouts.id}))
        .await;
    let bookmark = mcp
        .call_err("bookmarks_add", json!({"messageId": out_of_scope.id}))
        .await;

    let listed: Vec<&str> = list.channels.iter().map(|c| c.channel_id.as_str()).collect();
    assert_eq!(listed, [&general.id]);
    assert_eq!(caught_up.message_ids(), [&in_scope.id]);
    let mentioned: Vec<&str> = mentions.mentions.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(mentioned, [&in_scope.id]);
    assert_eq!(
        named,
        format!("Channel {} is outside the guilds in scope (DISCORD_GUILD_IDS)", layouts.id)
    );
    assert_eq!(bookmark, format!("`messageId`: no stored message has id {}", out_of_scope.id));
    mcp.stop().await;
}
