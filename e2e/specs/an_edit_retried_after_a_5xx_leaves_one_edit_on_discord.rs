//! An edit Discord answers with a 503 is retried after the send policy's backoff, with the same
//! request, and Discord ends up with one edit; the result is the edited message.

use serde_json::json;

use crate::support::fake_discord::{FakeDiscord, GENERAL};
use crate::support::live::Daemon;
use crate::support::{Message, Store};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner().sending_to(&fake);
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    let sent: Message = store
        .cli()
        .json(&["send", "Release notes: draft", "--channel-id", GENERAL]);
    let path = format!("/channels/{GENERAL}/messages/{}", sent.message_id);
    fake.fail_requests("PATCH", &path, 503, 1, 0.0);

    let edited: Message = store.cli().json(&[
        "edit",
        &sent.message_id,
        "--content",
        "Release notes: final",
    ]);

    let patches: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|request| request.method == "PATCH")
        .collect();
    assert_eq!(
        patches.iter().map(|request| request.status).collect::<Vec<_>>(),
        [503, 200]
    );
    assert_eq!(patches[0].body, patches[1].body, "the same request again");
    assert_eq!(edited.content, "Release notes: final");
    let history = fake.history(GENERAL);
    assert_eq!(history.len(), 1, "one message on Discord");
    assert_eq!(history[0]["content"], json!("Release notes: final"));
    daemon.stop();
}
