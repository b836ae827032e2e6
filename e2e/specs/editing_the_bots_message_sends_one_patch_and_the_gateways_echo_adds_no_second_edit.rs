//! `messages_edit` sends exactly one `PATCH /channels/{c}/messages/{m}` with the new content
//! (mentions limited as in a send), answers the message as the store recorded it from
//! Discord's answer, and the gateway's echo of the edit records nothing more: the history
//! shows the original and one edit.

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
        .json(&["send", "Deploy at 5.", "--channel-id", GENERAL]);

    let mcp = store.mcp().await;
    let edited: Message = mcp
        .call_ok(
            "messages_edit",
            json!({"messageId": sent.message_id, "content": "Deploy at 6."}),
        )
        .await;
    let path = format!("/api/v10/channels/{GENERAL}/messages/{}", sent.message_id);
    let patches: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|request| request.method == "PATCH")
        .collect();
    assert_eq!(patches.len(), 1, "{patches:#?}");
    assert_eq!(patches[0].path, path);
    assert_eq!(patches[0].status, 200);
    assert_eq!(
        patches[0].body,
        Some(json!({
            "content": "Deploy at 6.",
            "allowed_mentions": {"parse": ["users", "roles"], "replied_user": false},
            "flags": 4,
        }))
    );
    assert_eq!(edited.message_id, sent.message_id);
    assert_eq!(edited.content, "Deploy at 6.");
    let discord = &fake.history(GENERAL)[0];
    assert_eq!(discord["content"], json!("Deploy at 6."));
    assert!(edited.edited_at.is_some());

    fake.wait_for("the echo of the edit", PATIENCE, |view| {
        view.count_out("MESSAGE_UPDATE") == 1
    });
    // The daemon records in order: a message after the echo proves it got past it.
    fake.play(&FakeDiscord::message_line(
        "@id:after",
        GENERAL,
        crate::support::fake_discord::GRACE,
        "thanks!",
    ));
    crate::support::live::caught_up_until(&store, GENERAL, "the message after the echo", |m| {
        m.len() >= 2
    });
    let history: serde_json::Value = mcp
        .call_ok(
            "messages_history",
            json!({"channelId": GENERAL, "around": sent.message_id}),
        )
        .await;
    mcp.stop().await;
    let shown = history["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|message| message["messageId"] == json!(sent.message_id))
        .expect("the edited message")
        .clone();
    assert_eq!(shown["content"], json!("Deploy at 6."));
    let edits = shown["edits"].as_array().expect("its edits");
    assert_eq!(edits.len(), 1, "one edit though the gateway echoed it: {edits:#?}");
    assert_eq!(edits[0]["content"], json!("Deploy at 6."));
    daemon.stop();
}
