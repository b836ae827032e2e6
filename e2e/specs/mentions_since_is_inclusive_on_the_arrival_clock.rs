//! `mentions_list` reads `since` inclusively on the arrival clock: a mention whose `createdAt`
//! equals `since` is listed, and one microsecond later it is not.

use serde_json::json;

use crate::support::{Feed, Guild, Mentions, Post, Store, micro_after};

fn ids(mentions: &Mentions) -> Vec<&str> {
    mentions.mentions.iter().map(|m| m.message_id.as_str()).collect()
}

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let linus = guild.member("linus", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let first = feed.post(
        Post::new(&general, &linus, format!("{} review please?", owner.mention())).mentioning(&owner),
    );
    let second = feed.post(
        Post::new(&general, &linus, format!("{} ping on the review.", owner.mention()))
            .mentioning(&owner),
    );
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let everything: Mentions = mcp
        .call_ok("mentions_list", json!({"since": feed.opened_at()}))
        .await;
    assert_eq!(ids(&everything), [&first.id, &second.id]);
    let second_arrival = everything.mentions[1].created_at.clone();

    let at: Mentions = mcp
        .call_ok("mentions_list", json!({"since": second_arrival}))
        .await;
    let after: Mentions = mcp
        .call_ok("mentions_list", json!({"since": micro_after(&second_arrival)}))
        .await;

    assert_eq!(ids(&at), [&second.id]);
    assert_eq!(ids(&after), Vec::<&str>::new());
    mcp.stop().await;
}
