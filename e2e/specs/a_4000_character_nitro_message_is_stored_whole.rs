//! A Nitro user's message may be 4000 characters (a bot may send only 2000): the store keeps
//! it whole, whether the gateway delivers it or a backfill fetches it.

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, LINUS};
use crate::support::live::{Daemon, caught_up_until};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let mut daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let long: String = "Ünïcödé and plain text, ".chars().cycle().take(4000).collect();
    assert_eq!(long.chars().count(), 4000);
    fake.play(&FakeDiscord::message_line("@id:live", GENERAL, GRACE, &long));
    caught_up_until(&store, GENERAL, "the delivered message", |m| m.len() == 1);
    daemon.kill9();
    let backfilled: String = long.chars().take(3999).chain(Some('!')).collect();
    fake.post_offline(&FakeDiscord::message_line("@id:late", GENERAL, LINUS, &backfilled));
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let messages = caught_up_until(&store, GENERAL, "both messages", |m| m.len() == 2);
    assert_eq!(messages[0]["content"].as_str(), Some(long.as_str()));
    assert_eq!(messages[1]["content"].as_str(), Some(backfilled.as_str()));
    daemon.stop();
}
