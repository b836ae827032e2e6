//! When more mentions arrived than `limit`, `mentions_list` gives a `nextCursor`; passing it
//! back as `cursor` reads on from exactly the first mention left out: none lost, none repeated.

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
    let cursor = page.next_cursor.clone().expect("more mentions wait beyond the limit");
    let rest: Mentions = mcp
        .call_ok("mentions_list", json!({"cursor": cursor, "limit": 2}))
        .await;

    let first_ids: Vec<&str> = page.mentions.iter().map(|m| m.message_id.as_str()).collect();
    let rest_ids: Vec<&str> = rest.mentions.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(first_ids, [&posted[0], &posted[1]]);
    assert_eq!(rest_ids, [&posted[2]], "exactly the mention left out, none repeated");
    assert_eq!(rest.next_cursor, None);
    mcp.stop().await;
}
