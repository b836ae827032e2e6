//! `messages_history` keeps a deleted message in its place, with the content it had, marked
//! deleted, and `deletedAt`: the instant the store recorded the deletion, on the arrival clock
//! (the cursor tool counts that deletion strictly after one microsecond before it, and not
//! after it).

use serde_json::json;

use crate::support::{Activity, Feed, Guild, History, Post, Store, micro_before};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let linus = guild.member("linus", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let before = feed.post(Post::new(&general, &linus, "Reviewing now."));
    let oops = feed.post(Post::new(&general, &linus, "the staging password is hunter2"));
    let after = feed.post(Post::new(&general, &linus, "Sorry, wrong window."));
    feed.delete(&oops);
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let history: History = mcp
        .call_ok("messages_history", json!({"channelId": general.id}))
        .await;

    assert_eq!(history.ids(), [&before.id, &oops.id, &after.id], "kept in its place");
    let deleted = history.message(&oops.id);
    assert!(deleted.deleted);
    assert_eq!(deleted.content, oops.content);
    assert_eq!(deleted.original_content, None, "never edited: `content` is the original");
    assert_eq!(deleted.edits, []);
    let deleted_at = deleted
        .deleted_at
        .clone()
        .unwrap_or_else(|| panic!("a deleted message says when: {deleted:#?}"));
    let newest_message = &history.message(&after.id).created_at;
    assert!(
        &deleted_at > newest_message,
        "the deletion was recorded after every message it follows in the feed"
    );
    for kept in [&before.id, &after.id] {
        let message = history.message(kept);
        assert!(!message.deleted);
        assert_eq!(message.deleted_at, None);
    }

    let just_before: Activity = mcp
        .call_ok(
            "activity_wait",
            json!({"after": micro_before(&deleted_at), "channelId": general.id}),
        )
        .await;
    assert_eq!(just_before.total, 1);
    assert_eq!(just_before.channel(&general.id).deletions, 1);
    let at: Activity = mcp
        .call_ok("activity_wait", json!({"after": deleted_at, "channelId": general.id}))
        .await;
    assert_eq!(at.total, 0);
    mcp.stop().await;
}
