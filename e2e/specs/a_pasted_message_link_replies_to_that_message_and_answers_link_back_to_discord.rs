//! The owner pastes Discord's "Copy Message Link" where a message is wanted and a channel's
//! link where a channel is: `messages_send` replies to that very message in that channel, and
//! the sent message's answer carries the link that opens it in Discord. A link to a server the
//! store does not hold is refused naming the field, and nothing is posted.

use serde_json::json;

use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, GUILD};
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
    let pasted = format!("https://discord.com/channels/{GUILD}/{GENERAL}/{question}");

    let mcp = store.mcp().await;
    let elsewhere = mcp
        .call_err(
            "messages_send",
            json!({
                "channelId": GENERAL,
                "content": "I do.",
                "replyToMessageId": format!("https://discord.com/channels/1299999999999999999/{GENERAL}/{question}"),
            }),
        )
        .await;
    assert_eq!(
        elsewhere,
        "`replyToMessageId`: that link is to server 1299999999999999999, which this store does \
         not hold; only links to the servers the bot is in (see `channels list`) are taken"
    );
    assert!(fake.posts().is_empty(), "{:#?}", fake.posts());

    let reply: Message = mcp
        .call_ok(
            "messages_send",
            json!({
                "channelId": format!("https://canary.discord.com/channels/{GUILD}/{GENERAL}"),
                "content": "I do.",
                "replyToMessageId": pasted,
            }),
        )
        .await;
    mcp.stop().await;

    let posts = fake.posts();
    assert_eq!(posts.len(), 1, "{posts:#?}");
    assert_eq!(
        posts[0]["message_reference"],
        json!({"message_id": question, "fail_if_not_exists": true})
    );
    assert_eq!(reply.channel_id, GENERAL);
    assert_eq!(reply.reply_to_message_id.as_deref(), Some(question.as_str()));
    assert_eq!(
        reply.link,
        format!(
            "https://discord.com/channels/{GUILD}/{GENERAL}/{}",
            reply.message_id
        )
    );
    daemon.stop();
}
