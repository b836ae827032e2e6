//! `limit` on the reading tools accepts exactly the whole numbers 1 to 500 (both ends of the
//! range are accepted, one past either end is refused naming the field), sent as native JSON
//! numbers.

use serde_json::json;

use crate::support::{CaughtUp, Feed, Guild, Mentions, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let linus = guild.member("linus", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let first = feed.post(
        Post::new(&general, &linus, format!("{} one", owner.mention())).mentioning(&owner),
    );
    let second = feed.post(
        Post::new(&general, &linus, format!("{} two", owner.mention())).mentioning(&owner),
    );
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let since = feed.opened_at();
    let mcp = store.mcp().await;

    for tool in ["messages_catch_up", "mentions_list"] {
        for (limit, got) in [(0, "0"), (501, "501")] {
            let refusal = mcp.call_err(tool, json!({"since": since, "limit": limit})).await;
            assert_eq!(
                refusal,
                format!("`limit` must be a whole number from 1 to 500; got {got}"),
                "{tool} with limit {limit}"
            );
        }
    }
    let one: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": since, "limit": 1}))
        .await;
    let most: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": since, "limit": 500}))
        .await;
    assert_eq!(one.ids_in(&general.id), [&first.id]);
    assert!(one.next_cursor.is_some(), "one message per page: the second waits");
    assert_eq!(most.ids_in(&general.id), [&first.id, &second.id]);
    let one: Mentions = mcp
        .call_ok("mentions_list", json!({"since": since, "limit": 1}))
        .await;
    let most: Mentions = mcp
        .call_ok("mentions_list", json!({"since": since, "limit": 500}))
        .await;
    assert_eq!((one.mentions.len(), one.next_cursor.is_some()), (1, true));
    assert_eq!((most.mentions.len(), most.next_cursor.is_some()), (2, false));
    mcp.stop().await;
}
