//! The bot edits and deletes only its own messages: asked to edit or delete the owner's
//! message, it refuses with the author's name, over MCP and on the CLI (exit 5), and Discord
//! receives no request at all.

use serde_json::json;

use crate::support::fake_discord::FakeDiscord;
use crate::support::{Feed, Guild, Post, Store};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let theirs = feed.post(Post::new(&general, &owner, "My own words."));
    let store = Store::for_owner(&owner)
        .sending_to(&fake)
        .setting("DISCORD_MANAGER_SEND_CHANNELS", &general.id);
    store.play(&feed).await;

    let written_by = |verb: &str| {
        format!(
            "Message {} was written by user {}, not the bot: the bot may {verb} only its own \
             messages",
            theirs.id, owner.id
        )
    };
    let mcp = store.mcp().await;
    let edit = mcp
        .call_err(
            "messages_edit",
            json!({"messageId": theirs.id, "content": "Someone else's words."}),
        )
        .await;
    let delete = mcp
        .call_err("messages_delete", json!({"messageId": theirs.id}))
        .await;
    mcp.stop().await;
    assert_eq!(edit, written_by("edit"));
    assert_eq!(delete, written_by("delete"));
    store
        .cli()
        .run(&["edit", &theirs.id, "--content", "Someone else's words."])
        .failure()
        .code(5)
        .stdout("")
        .stderr(format!("error: {}\n", written_by("edit")));
    assert_eq!(fake.requests(), Vec::new(), "no request reached Discord");
}
