use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, LINUS};
use crate::support::Store;
use crate::support::live::{Daemon, caught_up_until, status, ids};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    fake.play(
        &[
            FakeDiscord::message_line("@id:a", GENERAL, GRACE, "one"),
            FakeDiscord::message_line("@id:b", GENERAL, LINUS, "two"),
            FakeDiscord::message_line("@id:c", GENERAL, GRACE, "three"),
        ]
        .join("\n"),
    );
    caught_up_until(&store, GENERAL, "the first three messages", |m| {
        m.len() == 3
    });

    // Discord drops the connection; on RESUME it replays the whole session, so every message
    // arrives a second time.
    fake.replay_whole_session_on_resume(true);
    fake.close(4000);
    fake.wait_for(
        "a RESUME and its replay",
        crate::support::live::PATIENCE,
        |fake| fake.count_in(6) == 1 && fake.count_out("RESUMED") == 1,
    );
    fake.play(&FakeDiscord::message_line("@id:d", GENERAL, LINUS, "four"));

    let messages = caught_up_until(&store, GENERAL, "the message after the resume", |m| {
        m.iter().any(|message| message["content"] == "four")
    });
    assert_eq!(
        ids(&messages),
        vec![fake.id("a"), fake.id("b"), fake.id("c"), fake.id("d")]
    );
    // The replay really did deliver every message twice.
    let creates = fake
        .frames()
        .into_iter()
        .filter(|frame| frame.t.as_deref() == Some("MESSAGE_CREATE"))
        .count();
    assert_eq!(creates, 7);
    assert_eq!(
        fake.frames_in(2).len(),
        1,
        "serenity resumed, it did not identify again"
    );
    // Nothing failed to store along the way, and a resumed session is no downtime.
    let status = status(&store);
    assert_eq!(status["gaps"], serde_json::json!([]));
    daemon.stop();
}
