//! Two MCP sessions open on the same store at once (two assistants, or two windows): a new
//! mention is pushed to each, once.

use serde_json::json;

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GRACE, INCIDENTS, OWNER};
use crate::support::live::Daemon;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    let first = store.mcp().await;
    let second = store.mcp().await;

    let mut mention =
        FakeDiscord::message_value("@id:ask", INCIDENTS, GRACE, &format!("<@{OWNER}> both of you"));
    mention["d"]["mentions"] = json!([FakeDiscord::user(OWNER)]);
    fake.play(&mention.to_string());
    for session in [&first, &second] {
        session.wait_for_pushed(1).await;
        session.ping().await;
        let pushed = session.pushed();
        assert_eq!(pushed.len(), 1, "{pushed:#?}");
        assert_eq!(pushed[0]["meta"]["message_id"], fake.id("ask"));
    }
    first.stop().await;
    second.stop().await;
    daemon.stop();
}
