//! `kill -9` between the recorder's commit and the push: the MCP server is frozen (SIGSTOP),
//! a mention is stored while it cannot write, and the server is killed (SIGKILL) without ever
//! pushing it. The next session replays it, once; the one after that does not replay it again.
//!
//! The server is frozen only once it has recorded its own start (it logs so at debug): frozen
//! inside that write, it would hold the store's write lock, and nothing could be stored.

use serde_json::json;

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GRACE, INCIDENTS, OWNER};
use crate::support::live::{Daemon, caught_up_until};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner().setting("RUST_LOG", "warn,discord_manager=debug");
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    let frozen = store.mcp().await;
    frozen.ping().await;
    frozen
        .wait_for_log("replayed what no session was given; pushing what arrives")
        .await;
    frozen.signal("STOP");

    let mut mention =
        FakeDiscord::message_value("@id:ask", INCIDENTS, GRACE, &format!("<@{OWNER}> still there?"));
    mention["d"]["mentions"] = json!([FakeDiscord::user(OWNER)]);
    fake.play(&mention.to_string());
    caught_up_until(&store, INCIDENTS, "the mention", |m| m.len() == 1);
    frozen.signal("KILL");
    assert!(frozen.pushed().is_empty(), "the frozen server never pushed it");
    drop(frozen);

    let next = store.mcp().await;
    let pushed = next.wait_for_pushed(1).await;
    next.ping().await;
    assert_eq!(next.pushed().len(), 1, "{pushed:#?}");
    assert_eq!(pushed[0]["meta"]["message_id"], fake.id("ask"));
    next.stop().await;

    // The one after: the mention was given, so a new one is the first thing it pushes.
    let after = store.mcp().await;
    let mut later =
        FakeDiscord::message_value("@id:later", INCIDENTS, GRACE, &format!("<@{OWNER}> later"));
    later["d"]["mentions"] = json!([FakeDiscord::user(OWNER)]);
    fake.play(&later.to_string());
    let pushed = after.wait_for_pushed(1).await;
    assert_eq!(pushed[0]["meta"]["message_id"], fake.id("later"), "{pushed:#?}");
    after.stop().await;
    daemon.stop();
}
