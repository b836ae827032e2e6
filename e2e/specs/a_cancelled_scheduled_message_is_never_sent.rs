//! Of two scheduled messages, the owner cancels one over MCP. The daemon sends the other when
//! it falls due and never the cancelled one, which stays cancelled with no attempt.

use serde_json::json;

use crate::support::fake_discord::{FakeDiscord, GENERAL};
use crate::support::live::{store_sending_to, Daemon, schedules_until};
use crate::support::time::Stamp;
use crate::support::Schedule;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = store_sending_to(&fake).setting("DISCORD_MANAGER_SEND_CHANNELS", GENERAL);

    let mcp = store.mcp().await;
    let now = Stamp::now();
    let cancelled: Schedule = mcp
        .call_ok(
            "schedules_add",
            json!({"channelId": GENERAL, "content": "Lunch at noon?",
                   "sendAt": now.plus_micros(1_000_000).iso()}),
        )
        .await;
    let kept: Schedule = mcp
        .call_ok(
            "schedules_add",
            json!({"channelId": GENERAL, "content": "Lunch at one, then.",
                   "sendAt": now.plus_micros(2_000_000).iso()}),
        )
        .await;
    let _: Schedule = mcp
        .call_ok(
            "schedules_cancel",
            json!({"scheduleId": cancelled.schedule_id}),
        )
        .await;
    mcp.stop().await;

    let daemon = Daemon::start(&fake, &store);
    let schedules = schedules_until(&store, "the kept message to be sent", |schedules| {
        schedules
            .iter()
            .any(|schedule| schedule.schedule_id == kept.schedule_id && schedule.status == "sent")
    });
    daemon.stop();
    let contents: Vec<_> = fake
        .posts()
        .iter()
        .map(|post| post["content"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(contents, ["Lunch at one, then."]);
    let cancelled = schedules
        .iter()
        .find(|schedule| schedule.schedule_id == cancelled.schedule_id)
        .unwrap();
    assert_eq!(cancelled.status, "cancelled");
    assert_eq!(cancelled.attempts, 0);
    assert_eq!(cancelled.message_id, None);
}
