//! `mentions_awaiting_reply` leaves out a mention after which the owner wrote in the same
//! channel, and keeps one the owner has not answered there: an owner message in another
//! channel, or one sent before the mention, is no answer.

use serde_json::json;

use crate::support::{Feed, Guild, Mentions, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let linus = guild.member("linus", &[]);
    let margaret = guild.member("margaret", &[]);
    let general = guild.text_channel("general");
    let releases = guild.announcement_channel("releases");
    let incidents = guild.text_channel("incidents");
    let mut feed = Feed::joining(&guild);
    let answered = feed.post(
        Post::new(&general, &linus, format!("{} can you review the storage PR?", owner.mention()))
            .mentioning(&owner)
            .sent_minutes_ago(120),
    );
    feed.post(Post::new(&releases, &owner, "Drafting the v2.4 notes.").sent_minutes_ago(115));
    let after_an_older_owner_message = feed.post(
        Post::new(&releases, &grace, format!("{} sign off on v2.4?", owner.mention()))
            .mentioning(&owner)
            .sent_minutes_ago(110),
    );
    let answered_elsewhere = feed.post(
        Post::new(&incidents, &margaret, format!("{} postmortem owner?", owner.mention()))
            .mentioning(&owner)
            .sent_minutes_ago(105),
    );
    feed.post(Post::new(&general, &owner, "Reviewing it now.").sent_minutes_ago(100));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let ids = |mentions: &Mentions| -> Vec<String> {
        mentions.mentions.iter().map(|message| message.message_id.clone()).collect()
    };

    let all: Mentions = mcp
        .call_ok("mentions_list", json!({"since": feed.opened_at()}))
        .await;
    assert_eq!(
        ids(&all),
        [answered.id.as_str(), after_an_older_owner_message.id.as_str(), answered_elsewhere.id.as_str()],
        "all three mention the owner"
    );

    let awaiting: Mentions = mcp
        .call_ok("mentions_awaiting_reply", json!({"since": feed.opened_at()}))
        .await;
    assert_eq!(
        ids(&awaiting),
        [after_an_older_owner_message.id.as_str(), answered_elsewhere.id.as_str()]
    );
    assert_eq!(awaiting.next_cursor, None);
    assert_eq!(
        awaiting.mentions[0].content,
        after_an_older_owner_message
            .content
            .replace(&owner.mention(), &format!("@{}", owner.global_name)),
        "the owner's mention token reads as the owner's name"
    );
    assert_eq!(awaiting.mentions[0].sent_at, after_an_older_owner_message.sent_at);
    assert!(awaiting.mentions.iter().all(|mention| mention.mentions_owner));
    mcp.stop().await;
}
