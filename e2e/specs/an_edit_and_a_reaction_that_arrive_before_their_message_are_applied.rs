//! Events can reach the store out of order: an edit and a reaction recorded before their
//! message are kept, show nothing on their own, and apply once the message arrives.

use serde_json::json;

use crate::support::{CaughtUp, Emoji, Feed, Guild, Post, Reaction, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let linus = guild.member("linus", &[]);
    let general = guild.text_channel("general");
    let mut late = Feed::new();
    let message = late.post(Post::new(&general, &grace, "Rollout at 10%."));
    let mut early = Feed::joining(&guild);
    let edit = early.edit(&message, "Rollout at 10%, error rates flat.", 4);
    let eyes = Emoji::unicode("👀");
    early.react(&message, &linus, &eyes);
    let store = Store::for_owner(&owner);
    store.play(&early).await;
    let mcp = store.mcp().await;
    let before: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": early.opened_at()}))
        .await;

    store.play(&late).await;
    let after: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": early.opened_at()}))
        .await;

    assert_eq!(before.channels, [], "an edit or reaction alone is not a message");
    assert_eq!(after.ids_in(&general.id), [&message.id]);
    let shown = after.messages_in(&general.id)[0];
    assert_eq!(shown.content, edit.content);
    assert_eq!(shown.edited_at.as_deref(), Some(edit.edited_at.as_str()));
    assert_eq!(
        shown.reactions,
        [Reaction {
            emoji: eyes.in_message_syntax(),
            count: 1,
        }]
    );
    mcp.stop().await;
}
