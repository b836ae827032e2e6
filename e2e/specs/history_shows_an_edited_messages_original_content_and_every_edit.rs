//! `messages_history` answers "what did it say before it was edited": an edited message comes
//! with the content it was first sent with and every edit in order, each with Discord's edit
//! time and the instant the store recorded it; a message never edited has no edits.

use serde_json::json;

use crate::support::{Feed, Guild, History, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let plan = feed.post(Post::new(&general, &grace, "Deploy at 5pm."));
    let steady = feed.post(Post::new(&general, &grace, "Staging looks fine."));
    let first_edit = feed.edit(&plan, "Deploy at 6pm.", 4);
    let second_edit = feed.edit(&plan, "Deploy at 6pm, after the freeze lifts.", 9);
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let history: History = mcp
        .call_ok("messages_history", json!({"channelId": general.id}))
        .await;

    assert_eq!(history.channel_id, general.id);
    assert_eq!(history.channel_name, general.name);
    assert_eq!(history.ids(), [&plan.id, &steady.id]);
    let edited = history.message(&plan.id);
    assert_eq!(edited.original_content.as_deref(), Some(plan.content.as_str()));
    assert_eq!(edited.author_kind, "person");
    assert_eq!(edited.content, second_edit.content);
    assert_eq!(edited.edited_at.as_deref(), Some(second_edit.edited_at.as_str()));
    let versions: Vec<(&str, &str)> = edited
        .edits
        .iter()
        .map(|edit| (edit.content.as_str(), edit.edited_at.as_str()))
        .collect();
    assert_eq!(
        versions,
        [
            (first_edit.content.as_str(), first_edit.edited_at.as_str()),
            (second_edit.content.as_str(), second_edit.edited_at.as_str()),
        ]
    );
    assert!(
        edited.created_at < edited.edits[0].created_at
            && edited.edits[0].created_at < edited.edits[1].created_at,
        "each edit was recorded after what it edits, on the arrival clock: {edited:#?}"
    );
    assert!(!edited.deleted);
    assert_eq!(edited.deleted_at, None);

    let untouched = history.message(&steady.id);
    assert_eq!(untouched.original_content, None, "never edited: `content` is the original");
    assert_eq!(untouched.content, steady.content);
    assert_eq!(untouched.edits, []);
    assert_eq!(untouched.edited_at, None);
    mcp.stop().await;
}
