//! Through the gateway: Discord's notice that a member joined (type 7, no content) reads as
//! "joined the server" under their name, in catch-up's JSON and on the command line, never as a
//! blank line from a person.

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, LINUS, shapes};
use crate::support::live::{Daemon, EVER, caught_up_until};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let mut joined = FakeDiscord::message_value("@id:joined", GENERAL, LINUS, "");
    shapes::member_joined(&mut joined["d"]);
    fake.play(&joined.to_string());
    let messages = caught_up_until(&store, GENERAL, "the join", |m| m.len() == 1);
    assert_eq!(messages[0]["event"], "joined the server");
    assert_eq!(messages[0]["authorName"], "linus");

    let page = store.cli().run(&["catch-up", "--since", EVER]).success();
    let page = String::from_utf8_lossy(&page.get_output().stdout).into_owned();
    let row = page
        .lines()
        .find(|line| line.contains(&fake.id("joined")))
        .unwrap_or_else(|| panic!("the join's row: {page}"));
    assert!(row.contains("linus") && row.contains("joined the server"), "{row}");
    assert!(!page.contains("[no text]"), "{page}");
    daemon.stop();
}
