//! `messages_send` with `replyToMessageId` posts a reply that fails rather than lose its
//! reference (`fail_if_not_exists`) and does not ping the person answered; the result says
//! which message it answers.

use serde_json::json;

use crate::support::fake_discord::{BOT, FakeDiscord, GENERAL, GRACE};
use crate::support::live::{Daemon, caught_up_until};
use crate::support::{Message, Store};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner()
        .sending_to(&fake)
        .setting("DISCORD_MANAGER_SEND_CHANNELS", GENERAL);
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    fake.play(&FakeDiscord::message_line(
        "@id:question",
        GENERAL,
        GRACE,
        "who has the keys?",
    ));
    caught_up_until(&store, GENERAL, "the question", |messages| {
        messages.len() == 1
    });
    let question = fake.id("question");

    let mcp = store.mcp().await;
    let reply: Message = mcp
        .call_ok(
            "messages_send",
            json!({"channelId": GENERAL, "content": "I do.", "replyToMessageId": question}),
        )
        .await;
    mcp.stop().await;

    let posts = fake.posts();
    assert_eq!(posts.len(), 1, "{posts:#?}");
    let nonce = posts[0]["nonce"].clone();
    assert_eq!(
        posts[0],
        json!({
            "content": "I do.",
            "nonce": nonce,
            "enforce_nonce": true,
            "allowed_mentions": {"parse": ["users", "roles"], "replied_user": false},
            "flags": 4,
            "message_reference": {"message_id": question, "fail_if_not_exists": true},
        })
    );
    assert_eq!(reply.reply_to_message_id.as_deref(), Some(question.as_str()));
    assert_eq!(reply.author_id, BOT);
    assert_eq!(reply.content, "I do.");
    let history = fake.history(GENERAL);
    assert_eq!(history.len(), 2);
    assert_eq!(history[1]["id"].as_str(), Some(reply.message_id.as_str()));
    assert_eq!(history[1]["message_reference"]["message_id"], json!(question));
    daemon.stop();
}
