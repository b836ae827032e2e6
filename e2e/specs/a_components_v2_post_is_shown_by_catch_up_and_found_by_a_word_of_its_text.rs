//! Through the gateway: a deploy bot's Components V2 alert (no content, its text in
//! TextDisplays inside a Container, a link button) reads as its text in catch-up's JSON and on
//! the command line, never `[no text]`, and a word of its text finds it by search.

use serde_json::json;

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, LINUS, shapes};
use crate::support::live::{Daemon, EVER, caught_up_until};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner();
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let mut alert = FakeDiscord::message_value("@id:alert", GENERAL, LINUS, "");
    alert["d"]["author"]["bot"] = json!(true);
    shapes::components_v2_alert(
        &mut alert["d"],
        "Deploy of checkout-api failed",
        "Rolled back to 2.3.1 on eu-west-2",
    );
    fake.play(&alert.to_string());
    let messages = caught_up_until(&store, GENERAL, "the alert", |m| m.len() == 1);

    let parts: Vec<(&str, &str)> = messages[0]["components"]
        .as_array()
        .unwrap()
        .iter()
        .map(|part| (part["type"].as_str().unwrap(), part["text"].as_str().unwrap()))
        .collect();
    assert_eq!(
        parts,
        [
            ("text", "Deploy of checkout-api failed"),
            ("text", "Rolled back to 2.3.1 on eu-west-2"),
            ("link", "Logs"),
        ]
    );
    assert_eq!(messages[0]["content"], "");

    let page = store.cli().run(&["catch-up", "--since", EVER]).success();
    let page = String::from_utf8_lossy(&page.get_output().stdout).into_owned();
    assert!(page.contains("Deploy of checkout-api failed Rolled back"), "{page}");
    assert!(!page.contains("[no text]"), "{page}");

    let found = store.cli().json_value(&["search", "rolled"]);
    let hits: Vec<&str> = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|hit| hit["message"]["messageId"].as_str().unwrap())
        .collect();
    assert_eq!(hits, [fake.id("alert")]);
    daemon.stop();
}
