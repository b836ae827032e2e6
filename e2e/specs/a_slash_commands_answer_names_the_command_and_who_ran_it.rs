//! Through the gateway: a bot's answer to a slash command (type 20) names the command and
//! who ran it, so the bot does not seem to speak unprompted: "[replying to /deploy by grace]".

use serde_json::json;

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, LINUS, shapes};
use crate::support::live::{Daemon, EVER, caught_up_until};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let mut answer = FakeDiscord::message_value(
        "@id:answer",
        GENERAL,
        LINUS,
        "Deploying 2.4 to production",
    );
    answer["d"]["author"]["bot"] = json!(true);
    shapes::slash_command_answer(&mut answer["d"], "deploy", &FakeDiscord::user(GRACE));
    fake.play(&answer.to_string());
    let messages = caught_up_until(&store, GENERAL, "the answer", |m| m.len() == 1);
    assert_eq!(
        messages[0]["command"],
        json!({"name": "/deploy", "userId": GRACE, "userName": "grace"})
    );

    let page = store.cli().run(&["catch-up", "--since", EVER]).success();
    let page = String::from_utf8_lossy(&page.get_output().stdout).into_owned();
    assert!(
        page.contains("[replying to /deploy by grace] Deploying 2.4 to production"),
        "{page}"
    );
    daemon.stop();
}
