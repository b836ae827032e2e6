//! With `DISCORD_MANAGER_READ_ONLY=1` (and a token), scheduling is refused before anything is
//! written, with the same words on MCP and the CLI (exit 5), and nothing is scheduled.

use serde_json::json;

use crate::support::time::Stamp;
use crate::support::{Feed, Guild, Schedule, Schedules, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let general = guild.text_channel("general");
    let feed = Feed::joining(&guild);
    let store = Store::for_owner(&owner).with_token().read_only();
    store.play(&feed).await;
    let in_an_hour = Stamp::parse(&feed.opened_at()).plus_minutes(60).iso();
    let mcp = store.mcp().await;

    let refusal = mcp
        .call_err(
            "schedules_add",
            json!({"channelId": general.id, "content": "Not today.", "sendAt": in_an_hour}),
        )
        .await;
    assert_eq!(
        refusal,
        "Sending is turned off: DISCORD_MANAGER_READ_ONLY is 1"
    );
    store
        .cli()
        .run(&[
            "schedules",
            "add",
            "Not today.",
            "--channel-id",
            &general.id,
            "--send-at",
            &in_an_hour,
        ])
        .failure()
        .code(5)
        .stderr(format!("error: {refusal}\n"));

    let listed: Schedules = mcp.call_ok("schedules_list", json!({})).await;
    assert_eq!(listed.schedules, Vec::<Schedule>::new());
    mcp.stop().await;
}
