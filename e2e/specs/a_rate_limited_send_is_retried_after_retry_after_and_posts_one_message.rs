//! Discord answers the first post 429 with `retry_after`: the send waits and tries again with
//! the same nonce, succeeds, and exactly one message exists on Discord and in the store.

use crate::support::fake_discord::{FakeDiscord, GENERAL};
use crate::support::live::{store_sending_to, EVER, caught_up};
use crate::support::Message;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = store_sending_to(&fake);
    let before = fake.requests().len();

    fake.fail_posts(429, 1, 0.25);
    let sent: Message = store
        .cli()
        .json(&["send", "Retro at 4.", "--channel-id", GENERAL]);

    let requests = fake.requests()[before..].to_vec();
    let statuses: Vec<(String, u16)> = requests
        .iter()
        .map(|request| (request.method.clone(), request.status))
        .collect();
    assert_eq!(
        statuses,
        [("POST".to_string(), 429), ("POST".to_string(), 200)]
    );
    assert_eq!(
        requests[0].body, requests[1].body,
        "the retry is the same request, with the same nonce"
    );
    let created = fake.history(GENERAL);
    assert_eq!(created.len(), 1, "one message on Discord: {created:#?}");
    assert_eq!(created[0]["id"].as_str(), Some(sent.message_id.as_str()));
    let stored = caught_up(&store, GENERAL, EVER);
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0]["messageId"].as_str(), Some(sent.message_id.as_str()));
    assert_eq!(stored[0]["content"], "Retro at 4.");
}
