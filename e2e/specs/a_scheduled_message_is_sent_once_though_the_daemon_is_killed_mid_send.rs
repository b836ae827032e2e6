//! The daemon posts a scheduled message; Discord creates it but the answer is lost (503), and
//! the daemon is killed before its retry. The next daemon retries at start-up with the same
//! nonce, Discord answers the message it already created, and the schedule is sent once. A
//! third start sends nothing more.

use crate::support::fake_discord::{FakeDiscord, GENERAL};
use crate::support::live::{store_sending_to, Daemon, EVER, PATIENCE, caught_up, schedules_until};
use crate::support::time::Stamp;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = store_sending_to(&fake);

    let send_at = Stamp::now().plus_micros(1_000_000).iso();
    let added: crate::support::Schedule = store.cli().json(&[
        "schedules",
        "add",
        "Standup in 5.",
        "--channel-id",
        GENERAL,
        "--send-at",
        &send_at,
    ]);
    assert_eq!(added.status, "pending");
    fake.lose_post_answers(503, 1);

    let mut first = Daemon::start(&fake, &store);
    fake.wait_for("the first post", PATIENCE, |view| {
        view.requests
            .iter()
            .any(|request| request.method == "POST" && request.status == 503)
    });
    first.kill9();
    assert_eq!(fake.history(GENERAL).len(), 1, "Discord created it");

    let second = Daemon::start(&fake, &store);
    let schedules = schedules_until(&store, "the schedule to be sent", |schedules| {
        schedules[0].status == "sent"
    });
    second.stop();
    let created = fake.history(GENERAL);
    assert_eq!(created.len(), 1, "still one message on Discord: {created:#?}");
    let message_id = created[0]["id"].as_str().unwrap().to_string();
    assert_eq!(schedules[0].message_id.as_deref(), Some(message_id.as_str()));
    assert_eq!(schedules[0].attempts, 2);
    let posts = fake.posts();
    assert_eq!(posts.len(), 2);
    assert_eq!(posts[0], posts[1], "the retry carries the same nonce");
    assert_eq!(posts[0]["content"], "Standup in 5.");

    let third = Daemon::start(&fake, &store);
    third.wait_for("the scheduler is running: 0 scheduled messages were due at start-up");
    third.stop();
    assert_eq!(fake.posts().len(), 2, "nothing is sent again");
    let stored = caught_up(&store, GENERAL, EVER);
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0]["messageId"].as_str(), Some(message_id.as_str()));
}
