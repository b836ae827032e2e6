//! Paging `messages_history` with its own cursors reaches every message of the channel exactly
//! once, in Discord's order, in both directions: from the newest page, `olderCursor` as
//! `before` until it is null; from the oldest, `newerCursor` as `after` until it is null. Two
//! messages sent in the same instant fall on either side of a page boundary and are neither
//! lost nor repeated.

use serde_json::json;

use crate::support::{Feed, Guild, History, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let linus = guild.member("linus", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let minutes_ago = [50, 49, 48, 47, 47, 46, 45];
    let posted: Vec<String> = minutes_ago
        .iter()
        .enumerate()
        .map(|(index, minutes)| {
            let author = if index % 2 == 0 { &grace } else { &linus };
            let text = format!("Release checklist item {}", index + 1);
            feed.post(Post::new(&general, author, text).sent_minutes_ago(*minutes)).id
        })
        .collect();
    let snowflake = |id: &str| id.parse::<u64>().expect("a snowflake");
    assert!(
        snowflake(&posted[3]) < snowflake(&posted[4]),
        "the two messages sent in the same instant are in the order of their ids"
    );
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let page = async |anchor: Option<(&str, &str)>| -> History {
        let mut arguments = json!({"channelId": general.id, "limit": 3});
        if let Some((field, cursor)) = anchor {
            arguments[field] = json!(cursor);
        }
        mcp.call_ok("messages_history", arguments).await
    };

    // Backwards from the newest page.
    let mut backwards: Vec<Vec<String>> = Vec::new();
    let mut current = page(None).await;
    assert_eq!(current.newer_cursor, None, "nothing is newer than the newest page");
    loop {
        backwards.push(current.ids().into_iter().map(str::to_string).collect());
        let Some(cursor) = current.older_cursor.clone() else {
            break;
        };
        assert!(backwards.len() < 10, "paging backwards ends: {backwards:?}");
        current = page(Some(("before", &cursor))).await;
    }
    assert_eq!(
        backwards,
        [
            posted[4..7].to_vec(),
            posted[1..4].to_vec(),
            posted[0..1].to_vec()
        ]
    );

    // Forwards from the oldest page.
    let mut forwards: Vec<Vec<String>> = vec![current.ids().into_iter().map(str::to_string).collect()];
    while let Some(cursor) = current.newer_cursor.clone() {
        assert!(forwards.len() < 10, "paging forwards ends: {forwards:?}");
        current = page(Some(("after", &cursor))).await;
        forwards.push(current.ids().into_iter().map(str::to_string).collect());
    }
    assert_eq!(
        forwards,
        [
            posted[0..1].to_vec(),
            posted[1..4].to_vec(),
            posted[4..7].to_vec()
        ]
    );
    mcp.stop().await;
}
