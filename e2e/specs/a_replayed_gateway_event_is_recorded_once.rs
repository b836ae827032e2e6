//! Events the gateway replays after a reconnect (a message, an edit, a reaction) are recorded
//! once: the message is not shown twice, does not count as new again, and its reactions are
//! not double-counted.

use serde_json::json;

use crate::support::{CaughtUp, Emoji, Feed, Guild, Post, Reaction, Store, micro_after};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let linus = guild.member("linus", &[]);
    let general = guild.text_channel("general");
    let thumbs = Emoji::unicode("👍");
    let mut feed = Feed::joining(&guild);
    let message = feed.post(Post::new(&general, &grace, "Cache node replaced."));
    feed.replay_last();
    let edit = feed.edit(&message, "Cache node replaced in eu-west-2.", 5);
    feed.replay_last();
    feed.react(&message, &linus, &thumbs);
    feed.replay_last();
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let first: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at()}))
        .await;

    // The session resumes and Discord replays the same events once more.
    store.play(&feed).await;
    let again: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at()}))
        .await;

    assert_eq!(again.ids_in(&general.id), [&message.id]);
    assert_eq!(again, first, "the replay changed nothing");
    let shown = again.messages_in(&general.id)[0];
    assert_eq!(shown.content, edit.content);
    assert_eq!(
        shown.reactions,
        [Reaction {
            emoji: thumbs.in_message_syntax(),
            count: 1,
        }]
    );
    let newer: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": micro_after(&first.watermark)}))
        .await;
    assert_eq!(newer.channels, [], "nothing counts as new after the replay");
    mcp.stop().await;
}
