//! A day of about a thousand messages in a hundred channels, with three dozen messages
//! addressed to the owner scattered among them (a dozen each of mentions, replies to the
//! owner and the owner's role): one
//! `activity_briefing` call lists every one of them in "Needs you", and every section cut
//! short reads on through its own cursor, each of its items exactly once, to its stated count.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::support::{Feed, Guild, Post, Store};

/// The sections that list items, and the id that names an item of each.
const SECTIONS: &[(&str, &str)] = &[
    ("needsYou", "messageId"),
    ("keywords", "messageId"),
    ("conversations", "channelId"),
    ("mostActive", "channelId"),
    ("rest", "channelId"),
];

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let maintainers = guild.role("maintainers");
    let owner = guild.member("ada", &[&maintainers]);
    let people: Vec<_> = ["grace", "linus", "margaret", "ken", "barbara"]
        .iter()
        .map(|name| guild.member(name, &[]))
        .collect();
    let channels: Vec<_> = (0..100)
        .map(|n| guild.text_channel(&format!("team-{n:03}")))
        .collect();
    let mut feed = Feed::joining(&guild);
    let mine = feed.post(Post::new(&channels[7], &owner, "Draft of the plan is up."));
    let mut planted = BTreeSet::new();
    for n in 0..1000usize {
        let channel = &channels[(n * 37) % 100];
        let author = &people[n % people.len()];
        let post = Post::new(channel, author, format!("update {n}: all green here"));
        let post = match n {
            _ if n % 83 == 41 => post.mentioning(&owner),
            _ if n % 83 == 13 => post.replying_to(&mine),
            _ if n % 83 == 67 => post.mentioning_role(&maintainers),
            _ => post,
        };
        let addressed = n % 83 == 41 || n % 83 == 13 || n % 83 == 67;
        let posted = feed.post(post);
        if addressed {
            planted.insert(posted.id.clone());
        }
    }
    assert_eq!(planted.len(), 36, "a dozen of each kind, scattered");
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let briefing: Value = mcp
        .call_ok("activity_briefing", json!({"since": feed.opened_at()}))
        .await;
    let needs = &briefing["needsYou"];
    let listed: BTreeSet<String> = ids(needs, "messageId").into_iter().collect();
    assert_eq!(needs["total"], 36);
    assert_eq!(listed, planted, "every item addressed to the owner, in one call");
    assert!(needs.get("nextCursor").is_none());

    for (section, id) in SECTIONS {
        let first = &briefing[*section];
        let total = first["total"].as_u64().unwrap() as usize;
        let mut seen = ids(first, id);
        let mut cursor = first.get("nextCursor").cloned();
        while let Some(next) = cursor {
            let page: Value = mcp
                .call_ok("activity_briefing", json!({"cursor": next}))
                .await;
            assert_eq!(page["section"], *section);
            assert_eq!(page[*section]["total"], first["total"], "{section}: its count");
            seen.extend(ids(&page[*section], id));
            cursor = page[*section].get("nextCursor").cloned();
        }
        let distinct: BTreeSet<&String> = seen.iter().collect();
        assert_eq!(distinct.len(), seen.len(), "{section}: no item twice");
        assert_eq!(seen.len(), total, "{section}: every item reached");
    }
    // 101 channels had news; each is in exactly one of the last three sections.
    let channels_counted: u64 = ["conversations", "mostActive", "rest"]
        .iter()
        .map(|section| briefing[*section]["total"].as_u64().unwrap())
        .sum();
    assert_eq!(channels_counted, 100);
}

fn ids(section: &Value, id: &str) -> Vec<String> {
    section["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item[id].as_str().unwrap().to_string())
        .collect()
}
