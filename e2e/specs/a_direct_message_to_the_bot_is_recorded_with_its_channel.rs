//! Discord sends no CHANNEL_CREATE for a direct message: the daemon records the channel from
//! the first message, named after the person, and catch-up shows it once the owner allows
//! direct messages (`DISCORD_MANAGER_ALLOW_DMS=1`).

use serde_json::Value;

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GRACE};
use crate::support::live::{Daemon, EVER, caught_up_until, ids};

const DM_CHANNEL: &str = "1600000000000000001";

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner().setting("DISCORD_MANAGER_ALLOW_DMS", "1");
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    fake.play(&FakeDiscord::direct_message_line("@id:dm", DM_CHANNEL, GRACE, "psst, a question"));

    let messages = caught_up_until(&store, DM_CHANNEL, "the direct message", |m| m.len() == 1);
    assert_eq!(ids(&messages), vec![fake.id("dm")]);
    assert_eq!(messages[0]["guildId"], Value::Null);
    let everything = store.cli().json_value(&["catch-up", "--since", EVER]);
    let channel = everything["channels"]
        .as_array()
        .unwrap()
        .iter()
        .find(|channel| channel["channelId"] == DM_CHANNEL)
        .expect("the direct-message channel is caught up");
    assert_eq!(channel["channelName"], "@grace");
    daemon.stop();
}
