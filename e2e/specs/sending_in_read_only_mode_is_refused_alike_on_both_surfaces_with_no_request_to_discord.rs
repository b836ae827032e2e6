//! With `DISCORD_MANAGER_READ_ONLY=1`, a send is refused with the same words on the CLI (exit
//! 5) and over MCP, and Discord receives no request at all.

use serde_json::json;

use crate::support::fake_discord::FakeDiscord;
use crate::support::{Feed, Guild, Store};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let general = guild.text_channel("general");
    let feed = Feed::joining(&guild);
    let store = Store::for_owner(&owner).sending_to(&fake).read_only();
    store.play(&feed).await;

    let refusal = "Sending is turned off: DISCORD_MANAGER_READ_ONLY is 1";
    store
        .cli()
        .run(&["send", "Hello.", "--channel-id", &general.id])
        .failure()
        .code(5)
        .stdout("")
        .stderr(format!("error: {refusal}\n"));
    let mcp = store.mcp().await;
    let refused = mcp
        .call_err(
            "messages_send",
            json!({"channelId": general.id, "content": "Hello."}),
        )
        .await;
    mcp.stop().await;
    assert_eq!(refused, refusal);
    assert_eq!(fake.requests(), Vec::new(), "no request reached Discord");
}
