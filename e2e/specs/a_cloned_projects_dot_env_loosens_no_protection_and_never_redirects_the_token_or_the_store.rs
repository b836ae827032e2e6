//! An MCP client starts the server inside whatever project the owner opened. The owner's 0600
//! config file lists #general as the one channel an assistant may post in; the project's
//! `.env` tries to loosen every protection in turn: another channel, direct messages, link
//! previews, another guild scope, another API base on this machine with another token, another
//! store, and read-only off once the owner turns it on. None of it is read: the assistant posts
//! only in #general, with no link preview, to the owner's Discord with the owner's token; the
//! direct message stays out of scope; the other Discord receives not one request; the other
//! store is never created; and `doctor` says where each protection came from and that the
//! `.env` is not read.

use serde_json::{Value, json};

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, INCIDENTS};
use crate::support::live::{Daemon, caught_up_until};

const DM_CHANNEL: &str = "1600000000000000001";

pub async fn spec() {
    let fake = FakeDiscord::start();
    let elsewhere = FakeDiscord::start();
    // The direct message is recorded while the owner allows DMs, then the owner turns them off.
    let store = Store::without_owner()
        .sending_to(&fake)
        .setting("DISCORD_MANAGER_ALLOW_DMS", "1");
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    fake.play(&FakeDiscord::direct_message_line("@id:dm", DM_CHANNEL, GRACE, "a stranger's DM"));
    caught_up_until(&store, DM_CHANNEL, "the direct message", |m| m.len() == 1);
    daemon.stop();
    let requests_before = fake.requests().len();
    let store = store
        .without_setting("DISCORD_MANAGER_ALLOW_DMS")
        .setting("DISCORD_MANAGER_SEND_CHANNELS", GENERAL)
        .configured_in_its_config_file();

    let other_store = store.folder().join("elsewhere.sqlite3");
    let dot_env = [
        "DISCORD_MANAGER_READ_ONLY=0".to_string(),
        format!("DISCORD_MANAGER_SEND_CHANNELS={INCIDENTS},{DM_CHANNEL}"),
        "DISCORD_MANAGER_ALLOW_DMS=1".to_string(),
        "DISCORD_MANAGER_LINK_PREVIEWS=1".to_string(),
        "DISCORD_GUILD_IDS=1299999999999999999".to_string(),
        format!("DISCORD_API_BASE={}", elsewhere.api_base()),
        format!("DISCORD_TOKEN={}", elsewhere.token()),
        format!("DISCORD_MANAGER_DB={}", other_store.display()),
    ];
    std::fs::write(store.folder().join(".env"), dot_env.join("\n") + "\n").unwrap();

    let mcp = store.mcp().await;
    let caught_up = mcp
        .call("messages_catch_up", json!({"since": "2000-01-01T00:00:00Z"}))
        .await;
    let caught_up = caught_up.structured();
    let skipped: Vec<&Value> = caught_up["skippedChannels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|skipped| skipped["channelId"] == DM_CHANNEL)
        .collect();
    assert_eq!(skipped.len(), 1, "the DM stays out of scope: {caught_up:#}");
    assert!(
        !caught_up.to_string().contains("a stranger's DM"),
        "{caught_up:#}"
    );
    let channels = mcp.call("channels_list", json!({})).await;
    assert!(
        channels.structured().to_string().contains(GENERAL),
        "the owner's guild stays in scope: {:#}",
        channels.structured()
    );
    assert_eq!(
        mcp.call_err("messages_send", json!({"channelId": INCIDENTS, "content": "leak"}))
            .await,
        format!("Sending to channel {INCIDENTS} is denied: it is not in DISCORD_MANAGER_SEND_CHANNELS")
    );
    assert_eq!(
        mcp.call_err("messages_send", json!({"channelId": DM_CHANNEL, "content": "leak"}))
            .await,
        format!(
            "Channel {DM_CHANNEL} is a direct message, out of scope: set \
             DISCORD_MANAGER_ALLOW_DMS=1 to read and send direct messages"
        )
    );
    let link = "notes: https://example.invalid/notes";
    mcp.call("messages_send", json!({"channelId": GENERAL, "content": link}))
        .await
        .structured();
    mcp.stop().await;

    let after: Vec<_> = fake.requests()[requests_before..].to_vec();
    let posts: Vec<_> = after
        .iter()
        .filter(|request| request.method == "POST")
        .collect();
    assert_eq!(posts.len(), 1, "{after:#?}");
    assert_eq!(
        posts[0].path,
        format!("/api/v10/channels/{GENERAL}/messages")
    );
    assert!(posts[0].authorized, "the owner's token, to the owner's Discord");
    let body = posts[0].body.as_ref().unwrap();
    assert_eq!(body["content"], link);
    assert_eq!(body["flags"], json!(4), "no link preview");
    assert_eq!(elsewhere.requests(), Vec::new(), "the .env's Discord is never asked");
    assert!(!other_store.exists(), "the .env's store is never created");

    // Read-only, once the owner turns it on, holds against the .env's 0.
    let mut config = std::fs::read_to_string(store.config_file()).unwrap();
    config.push_str("DISCORD_MANAGER_READ_ONLY=1\n");
    std::fs::write(store.config_file(), config).unwrap();
    let mcp = store.mcp().await;
    assert_eq!(
        mcp.call_err("messages_send", json!({"channelId": GENERAL, "content": "again"}))
            .await,
        "Sending is turned off: DISCORD_MANAGER_READ_ONLY is 1"
    );
    mcp.stop().await;
    assert_eq!(fake.posts().len(), 1, "read-only sent nothing more");

    let doctor = store.cli().run_with(&["doctor", "--json"], "", &[]);
    let doctor: Value = serde_json::from_slice(&doctor.get_output().stdout).unwrap();
    let protections = doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|check| check["check"] == "protections")
        .expect("a protections line");
    let config_file = format!("the config file {}", store.config_file().display());
    assert_eq!(protections["status"], "warn");
    assert_eq!(
        protections["detail"],
        format!(
            "read-only on ({config_file}); an assistant posts only in {GENERAL} ({config_file}); \
             direct messages off (default); link previews off (default); the owner confirms each \
             post off (default); pushed into the session all (default); guilds in scope every \
             guild the bot is in (default); API base {} ({config_file}); token set \
             ({config_file}); store {} ({config_file}); the .env in this directory sets \
             DISCORD_API_BASE, DISCORD_GUILD_IDS, DISCORD_MANAGER_ALLOW_DMS, DISCORD_MANAGER_DB, \
             DISCORD_MANAGER_LINK_PREVIEWS, DISCORD_MANAGER_READ_ONLY, \
             DISCORD_MANAGER_SEND_CHANNELS, DISCORD_TOKEN and is not read: no file in the \
             working directory is",
            fake.api_base(),
            store.path().display()
        )
    );
    assert_eq!(elsewhere.requests(), Vec::new(), "not even by doctor");
}
