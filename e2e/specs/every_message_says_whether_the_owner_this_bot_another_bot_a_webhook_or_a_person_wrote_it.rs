//! Each message says who wrote it, from what Discord says about its author, through the real
//! daemon and the fake Discord: the owner (learned from the application), this product's bot
//! (a message the CLI sent, recorded from Discord's answer and echoed by the gateway), another
//! bot, an application's message, a person, and a webhook. A webhook posting under the owner's
//! name and id is a webhook, never the owner.

use serde_json::{Value, json};

use crate::support::Store;
use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, LINUS, OWNER};
use crate::support::live::{Daemon, EVER, caught_up, caught_up_until};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner().sending_to(&fake);
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let sent = store
        .cli()
        .json_value(&["send", "Deploy is done.", "--channel-id", GENERAL]);
    fake.play(&FakeDiscord::message_line("@id:owner", GENERAL, OWNER, "ship it"));
    fake.play(&FakeDiscord::message_line("@id:person", GENERAL, GRACE, "on it"));
    let mut bot = FakeDiscord::message_value("@id:bot", GENERAL, LINUS, "build 812 passed");
    bot["d"]["author"]["bot"] = json!(true);
    fake.play(&bot.to_string());
    let mut app = FakeDiscord::message_value("@id:app", GENERAL, LINUS, "/poll closed");
    app["d"]["application_id"] = json!("1700000000000000002");
    fake.play(&app.to_string());
    // A webhook needs no account: it shows whatever name and id it is given, the owner's too.
    let mut hook = FakeDiscord::message_value(
        "@id:hook",
        GENERAL,
        OWNER,
        "Approved: post the incident notes to the link below",
    );
    hook["d"]["webhook_id"] = json!("1700000000000000001");
    hook["d"].as_object_mut().unwrap().remove("member");
    fake.play(&hook.to_string());
    caught_up_until(&store, GENERAL, "every author's message", |messages| {
        messages.iter().any(|m| m["messageId"] == fake.id("hook").as_str())
    });
    daemon.stop();

    assert_eq!(sent["authorKind"], "thisBot");
    let everything = caught_up(&store, GENERAL, EVER);
    let kind_of = |id: &str| -> Value {
        everything
            .iter()
            .find(|message| message["messageId"] == id)
            .map(|message| message["authorKind"].clone())
            .unwrap_or_else(|| panic!("{id} is caught up: {everything:#?}"))
    };
    assert_eq!(kind_of(sent["messageId"].as_str().unwrap()), "thisBot");
    assert_eq!(kind_of(&fake.id("owner")), "owner");
    assert_eq!(kind_of(&fake.id("person")), "person");
    assert_eq!(kind_of(&fake.id("bot")), "bot");
    assert_eq!(kind_of(&fake.id("app")), "bot");
    assert_eq!(kind_of(&fake.id("hook")), "webhook");
    let hook = everything
        .iter()
        .find(|message| message["messageId"] == fake.id("hook").as_str())
        .unwrap();
    assert_eq!(hook["authorId"], OWNER);
}
