//! With DISCORD_MANAGER_SEND_CHANNELS listing #general only, an assistant whose MCP client can
//! show the owner a form (elicitation) asks before posting, replying, editing or scheduling in
//! #incidents: the form names the channel by id and name and quotes the exact text. Accepted,
//! the post goes out once (one POST, one PATCH, a schedule the daemon sends); declined or
//! cancelled, it is refused in the owner's words and nothing reaches Discord. A post in the
//! listed #general asks nothing. A client without elicitation is refused as before, with no
//! form and no request.

use rmcp::model::ElicitationAction::{Accept, Cancel, Decline};
use serde_json::json;

use crate::support::fake_discord::{FakeDiscord, GENERAL, INCIDENTS};
use crate::support::live::{Daemon, schedules_until, store_sending_to};
use crate::support::mcp::Owner;
use crate::support::time::Stamp;
use crate::support::{Message, Schedule};

fn patches(fake: &FakeDiscord) -> usize {
    fake.requests()
        .iter()
        .filter(|request| request.method == "PATCH")
        .count()
}

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = store_sending_to(&fake).setting("DISCORD_MANAGER_SEND_CHANNELS", GENERAL);
    let before = fake.requests().len();

    // A client without elicitation: today's refusal, no request.
    let mcp = store.mcp().await;
    let refused = mcp
        .call_err(
            "messages_send",
            json!({"channelId": INCIDENTS, "content": "Status: all clear."}),
        )
        .await;
    assert_eq!(
        refused,
        format!("Sending to channel {INCIDENTS} is denied: it is not in DISCORD_MANAGER_SEND_CHANNELS")
    );
    mcp.stop().await;
    assert_eq!(fake.requests().len(), before, "{:#?}", fake.requests());

    let owner = Owner::at_the_form([Decline, Cancel, Accept, Accept, Accept]);
    let mcp = store.mcp_with(&owner).await;
    // Declined, then cancelled: refused, nothing sent.
    let declined = mcp
        .call_err(
            "messages_send",
            json!({"channelId": INCIDENTS, "content": "Status: all clear."}),
        )
        .await;
    assert_eq!(
        declined,
        format!("The owner declined the message for channel {INCIDENTS}; nothing was sent")
    );
    let cancelled = mcp
        .call_err(
            "messages_send",
            json!({"channelId": INCIDENTS, "content": "Status: all clear."}),
        )
        .await;
    assert_eq!(
        cancelled,
        format!(
            "The owner closed the form without approving the message for channel {INCIDENTS}; \
             nothing was sent"
        )
    );
    assert_eq!(fake.posts(), Vec::<serde_json::Value>::new());
    assert_eq!(fake.requests().len(), before, "{:#?}", fake.requests());

    // Accepted: exactly one POST, with exactly the text the owner saw.
    let posted: Message = mcp
        .call_ok(
            "messages_send",
            json!({"channelId": INCIDENTS, "content": "Status: all clear."}),
        )
        .await;
    let posts = fake.posts();
    assert_eq!(posts.len(), 1, "{posts:#?}");
    assert_eq!(posts[0]["content"], "Status: all clear.");
    assert_eq!(posted.channel_id, INCIDENTS);

    // An edit of that message asks too; accepted, one PATCH.
    let edited: Message = mcp
        .call_ok(
            "messages_edit",
            json!({"messageId": posted.message_id, "content": "Status: resolved."}),
        )
        .await;
    assert_eq!(edited.content, "Status: resolved.");
    assert_eq!(patches(&fake), 1);

    // A schedule asks; accepted, the daemon sends it though the channel is not listed.
    let send_at = Stamp::now().plus_micros(1_000_000).iso();
    let scheduled: Schedule = mcp
        .call_ok(
            "schedules_add",
            json!({"channelId": INCIDENTS, "content": "Postmortem at 3.", "sendAt": send_at}),
        )
        .await;

    // The listed channel asks nothing.
    let _: Message = mcp
        .call_ok(
            "messages_send",
            json!({"channelId": GENERAL, "content": "Back to normal."}),
        )
        .await;
    mcp.stop().await;
    assert_eq!(fake.posts().len(), 2);

    let unlisted = format!(
        "You are asked because #incidents (channel {INCIDENTS}) is not in \
         DISCORD_MANAGER_SEND_CHANNELS: accepting allows this one message only. Accept to let \
         it go out once; decline and nothing is sent."
    );
    let text = |content: &str| {
        format!(
            "The text is {} characters on 1 line, every line below marked │, and nothing after \
             them:\n│ {content}\n└ end of the text",
            content.chars().count()
        )
    };
    let posting = format!(
        "An assistant asks to post this message in #incidents (channel {INCIDENTS}), as the \
         bot. {unlisted}\n\n{}",
        text("Status: all clear.")
    );
    assert_eq!(
        owner.asked(),
        vec![
            posting.clone(),
            posting.clone(),
            posting,
            format!(
                "An assistant asks to change the text of the bot's message {} in #incidents \
                 (channel {INCIDENTS}) to, as the bot. {unlisted}\n\n{}",
                posted.message_id,
                text("Status: resolved.")
            ),
            format!(
                "An assistant asks to schedule this message for #incidents (channel \
                 {INCIDENTS}), to be sent at {}, as the bot. {unlisted}\n\n{}",
                scheduled.send_at,
                text("Postmortem at 3.")
            ),
        ]
    );

    let daemon = Daemon::start(&fake, &store);
    let schedules = schedules_until(&store, "the approved schedule to be sent", |schedules| {
        schedules.iter().any(|schedule| {
            schedule.schedule_id == scheduled.schedule_id && schedule.status != "pending"
        })
    });
    daemon.stop();
    let sent = schedules
        .iter()
        .find(|schedule| schedule.schedule_id == scheduled.schedule_id)
        .unwrap();
    assert_eq!(sent.status, "sent", "{sent:#?}");
    let posts = fake.posts();
    assert_eq!(posts.len(), 3, "{posts:#?}");
    assert_eq!(posts[2]["content"], "Postmortem at 3.");
}
