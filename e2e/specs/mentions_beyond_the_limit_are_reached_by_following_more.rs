//! When more mentions arrived than `limit`, `mentions_list` says `more: true`; following the
//! field's own recipe (pass the last listed mention's `createdAt` as `since`) reaches the rest
//! without losing any.

use serde_json::json;

use crate::support::{Feed, Guild, Mentions, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let linus = guild.member("linus", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let mut posted = Vec::new();
    for topic in ["the WAL change", "the release notes", "the on-call rota"] {
        posted.push(
            feed.post(
                Post::new(&general, &linus, format!("{} could you look at {topic}?", owner.mention()))
                    .mentioning(&owner),
            )
            .id,
        );
    }
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let page: Mentions = mcp
        .call_ok("mentions_list", json!({"since": feed.opened_at(), "limit": 2}))
        .await;
    assert!(page.more, "more mentions wait beyond the limit");
    let last = page.mentions.last().expect("a full page").created_at.clone();
    let rest: Mentions = mcp
        .call_ok("mentions_list", json!({"since": last, "limit": 2}))
        .await;

    let first_ids: Vec<&str> = page.mentions.iter().map(|m| m.message_id.as_str()).collect();
    let rest_ids: Vec<&str> = rest.mentions.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(first_ids, [&posted[0], &posted[1]]);
    assert_eq!(rest_ids, [&posted[1], &posted[2]], "the boundary mention is shown again");
    assert!(!rest.more);
    mcp.stop().await;
}
