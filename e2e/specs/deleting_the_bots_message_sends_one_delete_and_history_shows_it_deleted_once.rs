//! `messages_delete` sends exactly one `DELETE /channels/{c}/messages/{m}`, answers the
//! message as deleted, and the gateway's echo of the deletion records nothing more; deleting
//! it again is refused with no request.

use serde_json::json;

use crate::support::fake_discord::{FakeDiscord, GENERAL};
use crate::support::live::{Daemon, PATIENCE};
use crate::support::{Message, Store};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner()
        .sending_to(&fake)
        .setting("DISCORD_MANAGER_SEND_CHANNELS", GENERAL);
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    let sent: Message = store
        .cli()
        .json(&["send", "Wrong channel, sorry.", "--channel-id", GENERAL]);

    let mcp = store.mcp().await;
    let deleted: Message = mcp
        .call_ok("messages_delete", json!({"messageId": sent.message_id}))
        .await;
    assert!(deleted.deleted);
    assert_eq!(deleted.content, "Wrong channel, sorry.");
    fake.wait_for("the echo of the deletion", PATIENCE, |view| {
        view.count_out("MESSAGE_DELETE") == 1
    });
    let again = mcp
        .call_err("messages_delete", json!({"messageId": sent.message_id}))
        .await;
    mcp.stop().await;
    assert_eq!(again, format!("Message {} is already deleted", sent.message_id));
    let deletes: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|request| request.method == "DELETE")
        .collect();
    assert_eq!(deletes.len(), 1, "{deletes:#?}");
    assert_eq!(
        deletes[0].path,
        format!("/api/v10/channels/{GENERAL}/messages/{}", sent.message_id)
    );
    assert_eq!(deletes[0].status, 204);
    assert_eq!(fake.history(GENERAL).len(), 0, "gone from Discord");
    daemon.stop();
}
