//! `mentions_awaiting_reply` lists an unanswered mention only once it has been silent for
//! longer than `silenceMinutes` (default 60), measured from Discord's time of the mention.
//!
//! The mentions here were sent 90 and 30 minutes before the spec ran, clearly either side of
//! each window it asks for, so the spec cannot depend on how long it runs; the boundary to the
//! microsecond is pinned by the unit test
//! `mentions::tests::awaiting_reply_keeps_unanswered_mentions_silent_for_longer_than_the_window`.

use serde_json::json;

use crate::support::{Feed, Guild, Mentions, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let linus = guild.member("linus", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let long_silent = feed.post(
        Post::new(&general, &grace, format!("{} is the release still on?", owner.mention()))
            .mentioning(&owner)
            .sent_minutes_ago(90),
    );
    let recent = feed.post(
        Post::new(&general, &linus, format!("{} quick question about the WAL.", owner.mention()))
            .mentioning(&owner)
            .sent_minutes_ago(30),
    );
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let awaiting = async |arguments: serde_json::Value| -> Vec<String> {
        let mentions: Mentions = mcp.call_ok("mentions_awaiting_reply", arguments).await;
        mentions.mentions.iter().map(|message| message.message_id.clone()).collect()
    };
    let since = feed.opened_at();

    assert_eq!(
        awaiting(json!({"since": since, "silenceMinutes": 60})).await,
        [long_silent.id.as_str()],
        "silent 90 minutes is longer than 60; 30 minutes is not"
    );
    assert_eq!(
        awaiting(json!({"since": since})).await,
        [long_silent.id.as_str()],
        "the window is 60 minutes by default"
    );
    assert_eq!(
        awaiting(json!({"since": since, "silenceMinutes": 20})).await,
        [long_silent.id.as_str(), recent.id.as_str()]
    );
    assert_eq!(
        awaiting(json!({"since": since, "silenceMinutes": 120})).await,
        Vec::<String>::new()
    );
    mcp.stop().await;
}
