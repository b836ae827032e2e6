//! `send` posts one request to Discord (content, a nonce Discord enforces, mentions limited to
//! those written, no link preview), answers the message Discord created, and records it from that answer; the
//! gateway's echo of the same message then records nothing, so catch-up shows it once.

use serde_json::json;

use crate::support::Message;
use crate::support::Store;
use crate::support::fake_discord::{BOT, FakeDiscord, GENERAL, GRACE, GUILD};
use crate::support::live::{Daemon, EVER, PATIENCE, caught_up, caught_up_until, ids};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner().sending_to(&fake);
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);

    let sent: Message = store
        .cli()
        .json(&["send", "Deploy is done.", "--channel-id", GENERAL]);

    let posts: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|request| request.method == "POST")
        .collect();
    assert_eq!(posts.len(), 1, "{posts:#?}");
    assert_eq!(posts[0].path, format!("/api/v10/channels/{GENERAL}/messages"));
    assert!(posts[0].authorized);
    assert_eq!(posts[0].status, 200);
    let body = posts[0].body.clone().expect("a JSON body");
    let nonce = body["nonce"].as_str().expect("a nonce").to_string();
    assert!(
        (1..=25).contains(&nonce.len()),
        "Discord takes nonces of up to 25 characters: {nonce:?}"
    );
    assert_eq!(
        body,
        json!({
            "content": "Deploy is done.",
            "nonce": nonce,
            "enforce_nonce": true,
            "allowed_mentions": {"parse": ["users", "roles"], "replied_user": false},
            "flags": 4,
        })
    );

    let created = fake.history(GENERAL);
    assert_eq!(created.len(), 1);
    assert_eq!(sent.message_id, created[0]["id"].as_str().unwrap());
    assert_eq!(sent.author_id, BOT);
    assert_eq!(sent.author_name, "Keeper");
    assert_eq!(sent.author_kind, "thisBot");
    assert_eq!(sent.content, "Deploy is done.");
    assert_eq!(sent.channel_id, GENERAL);
    assert_eq!(sent.guild_id.as_deref(), Some(GUILD));
    assert_eq!(sent.reply_to_message_id, None);
    assert!(!sent.deleted);

    // The echo went out; a message after it proves the daemon's writer got past it.
    fake.wait_for("the echo of the sent message", PATIENCE, |view| {
        view.count_out("MESSAGE_CREATE") == 1
    });
    fake.play(&FakeDiscord::message_line(
        "@id:after",
        GENERAL,
        GRACE,
        "thanks!",
    ));
    caught_up_until(&store, GENERAL, "the message after the echo", |messages| {
        messages.len() >= 2
    });
    let everything = caught_up(&store, GENERAL, EVER);
    assert_eq!(ids(&everything), [sent.message_id.clone(), fake.id("after")]);
    daemon.stop();
}
