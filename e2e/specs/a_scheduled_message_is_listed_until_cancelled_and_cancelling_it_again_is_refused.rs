//! A scheduled message is listed as pending, with what, where and when; once cancelled it is
//! listed as cancelled (no longer pending), and cancelling it again is refused with the same
//! words on MCP and the CLI ("Scheduled message N is already cancelled", exit 4).

use serde_json::json;

use crate::support::time::Stamp;
use crate::support::{Feed, Guild, Schedule, Schedules, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let general = guild.text_channel("general");
    let feed = Feed::joining(&guild);
    let store = Store::for_owner(&owner)
        .with_token()
        .setting("DISCORD_MANAGER_SEND_CHANNELS", &general.id);
    store.play(&feed).await;
    let in_an_hour = Stamp::parse(&feed.opened_at()).plus_minutes(60).iso();
    let mcp = store.mcp().await;

    let added: Schedule = mcp
        .call_ok(
            "schedules_add",
            json!({"channelId": general.id, "content": "Standup moves to 10:30.", "sendAt": in_an_hour}),
        )
        .await;
    assert_eq!(added.status, "pending");
    assert_eq!(added.channel_id, general.id);
    assert_eq!(added.channel_name, general.name);
    assert_eq!(added.content, "Standup moves to 10:30.");
    assert_eq!(added.send_at, in_an_hour);
    assert_eq!(added.source, "mcp");
    assert_eq!(added.attempts, 0);
    assert_eq!(added.finished_at, None);
    let pending: Schedules = mcp
        .call_ok("schedules_list", json!({"status": "pending"}))
        .await;
    assert_eq!(pending.of(added.schedule_id), vec![&added]);

    let cancelled: Schedule = mcp
        .call_ok("schedules_cancel", json!({"scheduleId": added.schedule_id}))
        .await;
    assert_eq!(cancelled.status, "cancelled");
    assert!(cancelled.finished_at.is_some());
    let pending: Schedules = mcp
        .call_ok("schedules_list", json!({"status": "pending"}))
        .await;
    assert_eq!(pending.of(added.schedule_id), Vec::<&Schedule>::new());
    let listed: Schedules = mcp.call_ok("schedules_list", json!({})).await;
    assert_eq!(listed.of(added.schedule_id), vec![&cancelled]);

    let again = mcp
        .call_err("schedules_cancel", json!({"scheduleId": added.schedule_id}))
        .await;
    assert_eq!(
        again,
        format!("Scheduled message {} is already cancelled", added.schedule_id)
    );
    let id = added.schedule_id.to_string();
    store
        .cli()
        .run(&["schedules", "cancel", &id])
        .failure()
        .code(4)
        .stderr(format!("error: {again}\n"));
    mcp.stop().await;
}
