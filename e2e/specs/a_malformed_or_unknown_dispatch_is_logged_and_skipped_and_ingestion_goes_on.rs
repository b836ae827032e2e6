use serde_json::json;

use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, GUILD, LINUS};
use crate::support::Store;
use crate::support::live::{Daemon, caught_up_until, ids};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    fake.play(&FakeDiscord::message_line(
        "@id:before",
        GENERAL,
        GRACE,
        "before",
    ));
    // A MESSAGE_CREATE whose content is a number, an event type this version does not know,
    // and a frame that is not JSON at all.
    fake.dispatch(
        json!({"t": "MESSAGE_CREATE", "d": {"id": "1", "channel_id": GENERAL,
        "guild_id": GUILD, "content": 42}}),
    );
    fake.dispatch(json!({"t": "SOMETHING_DISCORD_ADDED_LATER", "d": {"channel_id": GENERAL}}));
    fake.send_raw("this is not JSON");
    fake.play(&FakeDiscord::message_line(
        "@id:after",
        GENERAL,
        LINUS,
        "after",
    ));

    let messages = caught_up_until(&store, GENERAL, "the message after the bad ones", |m| {
        m.len() == 2
    });
    assert_eq!(ids(&messages), vec![fake.id("before"), fake.id("after")]);
    let skipped = daemon.wait_for("skipped a MESSAGE_CREATE dispatch that does not parse");
    assert!(
        skipped.contains("its channel will be repaired by backfill"),
        "{skipped}"
    );
    daemon.wait_for("ignored a SOMETHING_DISCORD_ADDED_LATER dispatch this version does not know");
    // The repair it promised ran.
    daemon.wait_for("backfill done (repair) for a dispatch that did not parse");
    daemon.stop();
}
