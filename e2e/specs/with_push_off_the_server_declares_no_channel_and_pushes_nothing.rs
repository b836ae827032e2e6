//! `DISCORD_MANAGER_PUSH=off`: the server declares no channel capability and pushes nothing,
//! while a server started with the default beside it, on the same store, pushes the same
//! mention (both poll the same clock, so the first would have pushed in the same round).

use serde_json::json;

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GRACE, INCIDENTS, OWNER};
use crate::support::live::Daemon;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    let witness = store.mcp().await;
    let store = store.setting("DISCORD_MANAGER_PUSH", "off");
    let off = store.mcp().await;
    assert!(witness.declares_channels());
    assert!(!off.declares_channels());

    let mut mention =
        FakeDiscord::message_value("@id:ask", INCIDENTS, GRACE, &format!("<@{OWNER}> ping"));
    mention["d"]["mentions"] = json!([FakeDiscord::user(OWNER)]);
    fake.play(&mention.to_string());
    let pushed = witness.wait_for_pushed(1).await;
    assert_eq!(pushed[0]["meta"]["message_id"], fake.id("ask"));
    off.ping().await;
    assert_eq!(off.pushed(), Vec::<serde_json::Value>::new());
    witness.stop().await;
    off.stop().await;
    daemon.stop();
}
