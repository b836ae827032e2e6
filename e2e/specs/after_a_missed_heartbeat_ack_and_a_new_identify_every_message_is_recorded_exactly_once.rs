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
        ]
        .join("\n"),
    );
    caught_up_until(&store, GENERAL, "the first two messages", |m| {
        m.len() == 2
    });

    // The connection goes silent: heartbeats are no longer acknowledged, and a message posted
    // now is never delivered on it. serenity gives up on the session and identifies again
    // (after its own ~5 s pause between identifies).
    fake.stop_acking_current_connection();
    fake.post_offline(&FakeDiscord::message_line(
        "@id:lost",
        GENERAL,
        GRACE,
        "while silent",
    ));
    fake.wait_for("a second IDENTIFY", crate::support::live::PATIENCE, |fake| {
        fake.count_in(2) == 2
    });
    // The new session delivers the first two again, and a new one.
    fake.play(
        &[
            FakeDiscord::message_line("@id:a", GENERAL, GRACE, "one"),
            FakeDiscord::message_line("@id:b", GENERAL, LINUS, "two"),
            FakeDiscord::message_line("@id:c", GENERAL, LINUS, "three"),
        ]
        .join("\n"),
    );
    daemon.wait_until_caught_up(2);

    let messages = caught_up_until(&store, GENERAL, "every message once", |m| m.len() >= 4);
    let arrived = ids(&messages);
    // The first two arrived before the silence; the lost one (backfilled) and the new one
    // (delivered) arrive in either order after it.
    assert_eq!(arrived[..2], [fake.id("a"), fake.id("b")]);
    let mut after = arrived[2..].to_vec();
    after.sort();
    let mut expected = vec![fake.id("lost"), fake.id("c")];
    expected.sort();
    assert_eq!(after, expected);
    // The silent span is a recorded downtime gap; nothing failed to store.
    let status = status(&store);
    let gaps = status["gaps"].as_array().unwrap();
    assert_eq!(gaps.len(), 1, "{gaps:#?}");
    assert_eq!(gaps[0]["kind"], "downtime");
    daemon.stop();
}
