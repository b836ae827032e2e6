//! `status` says whether ingest is running or stopped, when each channel was backfilled and how
//! far it is complete, when the newest gateway event arrived, and, after a restart, the span
//! the daemon was not listening as a gap.

use serde_json::json;

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, INCIDENTS, RELEASES, ROLLOUT_THREAD};
use crate::support::live::{Daemon, caught_up_until, status};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let running = status(&store);
    assert_eq!(running["ingest"]["state"], "running");
    assert_eq!(running["neverBackfilled"], json!([]));
    assert_eq!(running["gaps"], json!([]));
    assert_eq!(running["messageCount"], 0);
    assert_eq!(running["newestGatewayEvent"], json!(null));
    let channels: Vec<&str> = running["channels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|channel| channel["channelId"].as_str().unwrap())
        .collect();
    assert_eq!(channels, [GENERAL, RELEASES, INCIDENTS, ROLLOUT_THREAD]);
    for channel in running["channels"].as_array().unwrap() {
        assert!(channel["lastBackfillAt"].is_string(), "{channel}");
        assert!(channel["completeThroughMessageId"].is_string(), "{channel}");
    }

    fake.play(&FakeDiscord::message_line("@id:hello", GENERAL, GRACE, "hello"));
    let messages = caught_up_until(&store, GENERAL, "the message", |m| m.len() == 1);
    let fresh = status(&store);
    assert_eq!(fresh["newestGatewayEvent"], messages[0]["createdAt"]);
    assert_eq!(fresh["messageCount"], 1);

    daemon.stop();
    let stopped = status(&store);
    assert_eq!(stopped["ingest"]["state"], "stopped");
    assert_eq!(stopped["ingest"]["lastSeenDoing"], "stop");

    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    let restarted = status(&store);
    let gaps = restarted["gaps"].as_array().unwrap();
    assert_eq!(gaps.len(), 1, "{gaps:#?}");
    assert_eq!(gaps[0]["kind"], "downtime");
    assert_eq!(gaps[0]["channelId"], json!(null));
    assert_eq!(gaps[0]["from"], stopped["ingest"]["lastSeenAt"]);
    assert!(gaps[0]["until"].as_str() > stopped["ingest"]["lastSeenAt"].as_str());
    // Gaps that ended before an instant are left out when asked.
    let later = store
        .cli()
        .json_value(&["status", "--since", gaps[0]["until"].as_str().unwrap()]);
    assert_eq!(later["gaps"].as_array().unwrap().len(), 1, "inclusive");
    daemon.stop();
}
