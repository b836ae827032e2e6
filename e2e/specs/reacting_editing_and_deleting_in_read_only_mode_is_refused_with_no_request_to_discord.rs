//! With `DISCORD_MANAGER_READ_ONLY=1`, adding or removing the bot's reaction, editing and
//! deleting its message are each refused with the reason, over MCP and on the CLI (exit 5),
//! and Discord receives no request at all; the message stays as it was.

use serde_json::json;

use crate::support::fake_discord::FakeDiscord;
use crate::support::{Feed, Guild, Post, Store};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let mine = feed.post(Post::new(&general, &guild.bot, "Deploy at 5."));
    let store = Store::for_owner(&owner).sending_to(&fake).read_only();
    store.play(&feed).await;

    let mcp = store.mcp().await;
    for (tool, arguments, doing) in [
        ("reactions_add", json!({"messageId": mine.id, "emoji": "👍"}), "Reacting"),
        ("reactions_remove", json!({"messageId": mine.id, "emoji": "👍"}), "Reacting"),
        ("messages_edit", json!({"messageId": mine.id, "content": "Deploy at 6."}), "Editing"),
        ("messages_delete", json!({"messageId": mine.id}), "Deleting"),
    ] {
        assert_eq!(
            mcp.call_err(tool, arguments).await,
            format!("{doing} is turned off: DISCORD_MANAGER_READ_ONLY is 1"),
            "{tool}"
        );
    }
    store
        .cli()
        .run(&["delete", &mine.id])
        .failure()
        .code(5)
        .stdout("")
        .stderr("error: Deleting is turned off: DISCORD_MANAGER_READ_ONLY is 1\n");
    let history: serde_json::Value = mcp
        .call_ok(
            "messages_history",
            json!({"channelId": general.id, "around": mine.id}),
        )
        .await;
    mcp.stop().await;
    assert_eq!(fake.requests(), Vec::new(), "no request reached Discord");
    let unchanged = history["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|message| message["messageId"] == json!(mine.id))
        .expect("the bot's message")
        .clone();
    assert_eq!(unchanged["content"], json!("Deploy at 5."));
    assert_eq!(unchanged["editedAt"], json!(null), "never edited");
    assert_eq!(unchanged["deleted"], json!(null), "not deleted");
    assert_eq!(unchanged["reactions"], json!(null), "no reaction");
}
