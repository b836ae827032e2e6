//! A mention the assistant answered as the bot, with `messages_send` replying to it, no longer
//! awaits the owner's reply, and `mentions_list` says it closed as `replied`; a mention in
//! another channel stays open.

use serde_json::json;

use crate::support::fake_discord::{FakeDiscord, GENERAL, GRACE, OWNER, RELEASES};
use crate::support::live::{Daemon, caught_up_until};
use crate::support::{Mentions, Message, Store};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = Store::without_owner()
        .sending_to(&fake)
        .setting("DISCORD_MANAGER_SEND_CHANNELS", GENERAL);
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    for (name, channel) in [("question", GENERAL), ("elsewhere", RELEASES)] {
        let mut line = FakeDiscord::message_value(
            &format!("@id:{name}"),
            channel,
            GRACE,
            &format!("<@{OWNER}> who has the keys?"),
        );
        line["d"]["mentions"] = json!([FakeDiscord::user(OWNER)]);
        fake.play(&line.to_string());
    }
    caught_up_until(&store, RELEASES, "the second mention", |messages| {
        messages.len() == 1
    });
    let (question, elsewhere) = (fake.id("question"), fake.id("elsewhere"));

    let mcp = store.mcp().await;
    let since = "2000-01-01T00:00:00Z";
    let awaiting = || async {
        let mentions: Mentions = mcp
            .call_ok(
                "mentions_awaiting_reply",
                json!({"since": since, "silenceMinutes": 0}),
            )
            .await;
        mentions.mentions.into_iter().map(|m| m.message_id).collect::<Vec<_>>()
    };
    assert_eq!(awaiting().await, [question.clone(), elsewhere.clone()]);

    let reply: Message = mcp
        .call_ok(
            "messages_send",
            json!({"channelId": GENERAL, "content": "Ada has them.", "replyToMessageId": question}),
        )
        .await;
    assert_eq!(reply.author_kind, "thisBot");

    assert_eq!(awaiting().await, [elsewhere.as_str()]);
    let all: Mentions = mcp.call_ok("mentions_list", json!({"since": since})).await;
    let closed: Vec<(&str, Option<&str>)> = all
        .mentions
        .iter()
        .map(|m| (m.message_id.as_str(), m.closed.as_deref()))
        .collect();
    assert_eq!(
        closed,
        [(question.as_str(), Some("replied")), (elsewhere.as_str(), None)]
    );
    mcp.stop().await;
    assert_eq!(fake.posts().len(), 1);
    daemon.stop();
}
