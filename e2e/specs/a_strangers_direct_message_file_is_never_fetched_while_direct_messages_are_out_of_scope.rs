//! With direct messages out of scope (the default), a file a stranger sends the bot by DM is
//! never fetched: no CDN request, nothing in the cache, nothing recorded of it, so it cannot
//! fill the owner's cache (about 13 such files took the default 1 GiB before). The owner's
//! guild files after it are kept as ever.

use crate::support::Store;
use crate::support::cache;
use crate::support::fake_discord::{FakeDiscord, GRACE, INCIDENTS};
use crate::support::live::Daemon;

const DM_CHANNEL: &str = "1600000000000000001";

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let strangers = cache::file_bytes(7, 300 * 1024);
    let owners = cache::file_bytes(8, 200 * 1024);
    let dm_file = fake.attachment(DM_CHANNEL, "free-nitro.png", "image/png", &strangers);
    let guild_file = fake.attachment(INCIDENTS, "latency.png", "image/png", &owners);
    let (dm_file_id, guild_file_id) = (
        dm_file["id"].as_str().unwrap().to_string(),
        guild_file["id"].as_str().unwrap().to_string(),
    );
    let mut direct: serde_json::Value = serde_json::from_str(&FakeDiscord::direct_message_line(
        "@id:dm",
        DM_CHANNEL,
        GRACE,
        "look at this",
    ))
    .unwrap();
    direct["d"]["attachments"] = serde_json::json!([dm_file]);
    fake.play(&direct.to_string());
    let mut guild = FakeDiscord::message_value("@id:graph", INCIDENTS, GRACE, "the graph");
    guild["d"]["attachments"] = serde_json::json!([guild_file]);
    fake.play(&guild.to_string());

    // The fetcher takes the pending files oldest first: once the guild's file is kept, the
    // direct message's was considered and left.
    daemon.wait_for(&format!("kept attachment {guild_file_id}"));
    let asked: Vec<String> = fake
        .cdn_requests()
        .into_iter()
        .map(|request| request.path)
        .collect();
    assert_eq!(
        asked,
        [format!("/attachments/{INCIDENTS}/{guild_file_id}/latency.png")],
        "no request for the stranger's file"
    );
    assert_eq!(cache::files(&store), [cache::as_kept(&owners)]);
    assert!(
        !daemon
            .output()
            .iter()
            .any(|line| line.contains(&format!("attachment {dm_file_id}"))),
        "nothing is recorded of the stranger's file: {:?}",
        daemon.output()
    );
    daemon.stop();
}
