//! With no DISCORD_OWNER_ID configured, the owner is whoever owns the bot's application, as
//! ingest learns it from Discord: their mentions are listed.

use serde_json::json;

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, OWNER};
use crate::support::live::{Daemon, EVER, caught_up_until};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let mut mention =
        FakeDiscord::message_value("@id:ping", GENERAL, GRACE, "<@1000000000000000001> review?");
    mention["d"]["mentions"] = json!([FakeDiscord::user(OWNER)]);
    fake.play(&mention.to_string());
    caught_up_until(&store, GENERAL, "the mention", |m| m.len() == 1);

    let mentions = store.cli().json_value(&["mentions", "list", "--since", EVER]);
    let listed: Vec<&str> = mentions["mentions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["messageId"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [fake.id("ping")]);
    assert_eq!(mentions["mentions"][0]["mentionsOwner"], true);
    daemon.stop();
}
