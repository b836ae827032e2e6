//! `mentions_dismiss` closes a mention: it leaves `mentions_awaiting_reply`, `mentions_list`
//! shows it closed as `dismissed`, the answer is the dismissal as the store recorded it, and a
//! second dismissal, or one of a message that does not mention the owner, is refused.

use serde_json::json;

use crate::support::{DismissedMention, Feed, Guild, Mentions, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let linus = guild.member("linus", &[]);
    let rollout = guild.text_channel("rollout");
    let mut feed = Feed::joining(&guild);
    let fyi = feed.post(
        Post::new(&rollout, &linus, format!("{} fyi the dashboard moved", owner.mention()))
            .mentioning(&owner)
            .sent_minutes_ago(90),
    );
    let plain = feed.post(Post::new(&rollout, &linus, "lunch?").sent_minutes_ago(85));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let awaiting = || async {
        let mentions: Mentions = mcp
            .call_ok(
                "mentions_awaiting_reply",
                json!({"since": feed.opened_at(), "silenceMinutes": 0}),
            )
            .await;
        mentions.mentions.into_iter().map(|m| m.message_id).collect::<Vec<_>>()
    };
    assert_eq!(awaiting().await, [fyi.id.as_str()]);

    let dismissed: DismissedMention = mcp
        .call_ok("mentions_dismiss", json!({"messageId": fyi.id, "note": "seen it"}))
        .await;
    assert_eq!(dismissed.mention.message_id, fyi.id);
    assert_eq!(dismissed.mention.closed.as_deref(), Some("dismissed"));
    assert_eq!(dismissed.note.as_deref(), Some("seen it"));
    assert_eq!(dismissed.source, "mcp");

    assert_eq!(awaiting().await, Vec::<String>::new());
    let all: Mentions = mcp
        .call_ok("mentions_list", json!({"since": feed.opened_at()}))
        .await;
    assert_eq!(all.mentions.len(), 1);
    assert_eq!(all.mentions[0].message_id, fyi.id);
    assert_eq!(all.mentions[0].closed.as_deref(), Some("dismissed"));

    assert_eq!(
        mcp.call_err("mentions_dismiss", json!({"messageId": fyi.id})).await,
        "That mention is already dismissed"
    );
    assert_eq!(
        mcp.call_err("mentions_dismiss", json!({"messageId": plain.id})).await,
        format!(
            "Message {} does not mention the owner: only a mention or a direct message can be dismissed",
            plain.id
        )
    );
    mcp.stop().await;
}
