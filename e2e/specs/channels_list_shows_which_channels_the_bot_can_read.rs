//! `channels_list` lists every channel in scope with its kind, each thread nested under its
//! parent, and says whether the bot can read it and, when it cannot, why, in the same words
//! catch-up uses; a thread reads as its parent does.

use serde_json::json;

use crate::support::{ChannelList, ChannelSummary, Feed, Guild, Store, ThreadSummary};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let maintainers = guild.role("maintainers");
    let owner = guild.member("ada", &[&maintainers]);
    let general = guild.text_channel("general");
    let releases = guild.announcement_channel("releases");
    let private = guild.channel_hidden_from_the_bot("maintainers-only", &maintainers);
    let archive = guild.channel_without_history("old-announcements");
    let rollout = guild.thread(&releases, "v2.4 rollout");
    let archived_thread = guild.thread(&archive, "2023 announcements");
    let feed = Feed::joining(&guild);
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let list: ChannelList = mcp
        .call_ok("channels_list", json!({"since": feed.opened_at()}))
        .await;

    let summary = |channel: &crate::support::feed::Channel, kind: &str, reason: Option<&str>| {
        ChannelSummary {
            channel_id: channel.id.clone(),
            guild_id: Some(guild.id.clone()),
            name: channel.name.clone(),
            kind: kind.to_string(),
            parent_id: channel.parent_id.clone(),
            readable: reason.is_none(),
            unreadable_reason: reason.map(str::to_string),
            newest_arrival: None,
            new_since: 0,
            tags: Vec::new(),
            read_through: None,
            unread: 0,
            continued: false,
            threads: Vec::new(),
        }
    };
    let thread = |channel: &crate::support::feed::Channel, reason: Option<&str>| ThreadSummary {
        channel_id: channel.id.clone(),
        name: channel.name.clone(),
        kind: "public_thread".to_string(),
        readable: reason.is_none(),
        unreadable_reason: reason.map(str::to_string),
        newest_arrival: None,
        new_since: 0,
        tags: Vec::new(),
        read_through: None,
        unread: 0,
    };
    assert_eq!(*list.channel(&general.id), summary(&general, "text", None));
    assert_eq!(
        *list.channel(&releases.id),
        ChannelSummary {
            threads: vec![thread(&rollout, None)],
            ..summary(&releases, "news", None)
        }
    );
    assert_eq!(
        *list.channel(&private.id),
        summary(
            &private,
            "text",
            Some("the bot cannot view this channel (View Channel is denied)")
        )
    );
    let no_history = "the bot cannot read this channel's history (Read Message History is denied)";
    assert_eq!(
        *list.channel(&archive.id),
        ChannelSummary {
            threads: vec![thread(&archived_thread, Some(no_history))],
            ..summary(&archive, "text", Some(no_history))
        },
        "a thread reads as its parent does"
    );
    assert_eq!(list.channels.len(), 4, "the spec's own store holds only its guild");
    mcp.stop().await;
}
