//! `channels_list` nests a forum's posts under the forum, each with its title as `name` and
//! its applied tags by name, and a page that ends inside the forum's posts goes on, on the
//! next page, under the forum repeated with `continued: true`: paging through reaches every
//! channel and post exactly once.

use std::collections::BTreeMap;

use serde_json::json;

use crate::support::{ChannelList, Feed, Guild, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let general = guild.text_channel("general");
    let help = guild.forum("help", &["rollout", "solved", "bug"]);
    let stuck = guild.forum_post(&help, "Rollout stuck at 40%", &["rollout"]);
    let solved = guild.forum_post(&help, "Login loop on Safari", &["bug", "solved"]);
    let untagged = guild.forum_post(&help, "How do I rotate the key?", &[]);
    let flaky = guild.forum_post(&help, "Flaky deploy on Fridays", &["bug"]);
    let retro = guild.thread(&general, "Friday retro");
    let releases = guild.announcement_channel("releases");
    let feed = Feed::joining(&guild);
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    // Three channels or posts to a page: the forum's four posts cannot fit on one.
    let mut pages = Vec::new();
    let mut cursor = None;
    loop {
        let mut arguments = json!({"since": feed.opened_at(), "limit": 3});
        if let Some(cursor) = &cursor {
            arguments["cursor"] = json!(cursor);
        }
        let page: ChannelList = mcp.call_ok("channels_list", arguments).await;
        cursor = page.next_cursor.clone();
        pages.push(page);
        if cursor.is_none() {
            break;
        }
        assert!(pages.len() < 10, "paging ends: {pages:#?}");
    }

    // Every channel and post once, in id order, each post under its forum.
    let mut seen = Vec::new();
    let mut posts = BTreeMap::new();
    for page in &pages {
        for channel in &page.channels {
            if channel.continued {
                assert_eq!(channel.channel_id, help.id, "only the forum goes on: {page:#?}");
                assert_eq!((channel.name.as_str(), channel.kind.as_str()), ("help", "forum"));
                assert!(channel.tags.is_empty(), "the forum's tags were on its first page");
            } else {
                seen.push(channel.channel_id.clone());
            }
            for thread in &channel.threads {
                seen.push(thread.channel_id.clone());
                posts.insert(thread.channel_id.clone(), (channel.channel_id.clone(), thread));
            }
        }
    }
    let mut in_listing_order = vec![general.id.clone(), retro.id.clone(), help.id.clone()];
    in_listing_order.extend([&stuck, &solved, &untagged, &flaky].map(|post| post.id.clone()));
    in_listing_order.push(releases.id.clone());
    assert_eq!(seen, in_listing_order, "each exactly once, every thread after its parent");
    assert!(
        pages.iter().any(|page| page.channels.iter().any(|c| c.continued)),
        "a page boundary fell inside the forum's posts: {pages:#?}"
    );

    let post = |id: &str| posts[id].1;
    for (channel, title, tags) in [
        (&stuck, "Rollout stuck at 40%", vec!["rollout"]),
        (&solved, "Login loop on Safari", vec!["solved", "bug"]),
        (&untagged, "How do I rotate the key?", vec![]),
        (&flaky, "Flaky deploy on Fridays", vec!["bug"]),
    ] {
        assert_eq!(posts[&channel.id].0, help.id, "{title} is under the forum");
        assert_eq!(post(&channel.id).name, title);
        assert_eq!(post(&channel.id).kind, "public_thread");
        assert_eq!(post(&channel.id).tags, tags, "{title}'s tags");
        assert!(post(&channel.id).readable);
    }
    assert_eq!(posts[&retro.id].0, general.id, "a thread nests under its channel too");
    let forum = pages
        .iter()
        .flat_map(|page| &page.channels)
        .find(|channel| channel.channel_id == help.id && !channel.continued)
        .expect("the forum is listed");
    assert_eq!(forum.tags, vec!["rollout", "solved", "bug"]);
    mcp.stop().await;
}
