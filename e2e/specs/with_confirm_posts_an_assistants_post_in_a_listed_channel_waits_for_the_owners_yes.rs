//! With DISCORD_MANAGER_CONFIRM_POSTS=1, an assistant's post in #general, a listed channel,
//! asks the owner too: declined, nothing is sent; accepted, it goes out once. A client that
//! cannot show a form is refused, with the reason, and makes no request. A read-only store
//! refuses first: the owner is never shown a form for a post that could not go out anyway.

use rmcp::model::ElicitationAction::{Accept, Decline};
use serde_json::json;

use crate::support::fake_discord::{FakeDiscord, GENERAL};
use crate::support::live::store_sending_to;
use crate::support::mcp::Owner;

pub async fn spec() {
    let fake = FakeDiscord::start();
    let store = store_sending_to(&fake)
        .setting("DISCORD_MANAGER_SEND_CHANNELS", GENERAL)
        .setting("DISCORD_MANAGER_CONFIRM_POSTS", "1");
    let before = fake.requests().len();
    let send = json!({"channelId": GENERAL, "content": "Standup moved to 10."});

    let mcp = store.mcp().await;
    assert_eq!(
        mcp.call_err("messages_send", send.clone()).await,
        format!(
            "Sending to channel {GENERAL} needs the owner's yes (DISCORD_MANAGER_CONFIRM_POSTS \
             is 1), and this MCP client cannot ask them: it shows no forms (MCP elicitation); \
             nothing was sent"
        )
    );
    mcp.stop().await;
    assert_eq!(fake.requests().len(), before, "{:#?}", fake.requests());

    let owner = Owner::at_the_form([Decline, Accept]);
    let mcp = store.mcp_with(&owner).await;
    assert_eq!(
        mcp.call_err("messages_send", send.clone()).await,
        format!("The owner declined the message for channel {GENERAL}; nothing was sent")
    );
    assert_eq!(fake.requests().len(), before, "{:#?}", fake.requests());
    let _: crate::support::Message = mcp.call_ok("messages_send", send.clone()).await;
    mcp.stop().await;
    let posts = fake.posts();
    assert_eq!(posts.len(), 1, "{posts:#?}");
    assert_eq!(posts[0]["content"], "Standup moved to 10.");
    let asked = format!(
        "An assistant asks to post this message in #general (channel {GENERAL}), as the \
         bot. You are asked because DISCORD_MANAGER_CONFIRM_POSTS is 1. Accept to let it go \
         out once; decline and nothing is sent.\n\nThe text is 20 characters on 1 line, every \
         line below marked │, and nothing after them:\n│ Standup moved to 10.\n└ end of the \
         text"
    );
    assert_eq!(owner.asked(), vec![asked.clone(), asked]);

    // Read-only refuses before any form.
    let read_only = store.setting("DISCORD_MANAGER_READ_ONLY", "1");
    let owner = Owner::at_the_form(std::iter::empty());
    let mcp = read_only.mcp_with(&owner).await;
    assert_eq!(
        mcp.call_err("messages_send", send).await,
        "Sending is turned off: DISCORD_MANAGER_READ_ONLY is 1"
    );
    mcp.stop().await;
    assert_eq!(owner.asked(), Vec::<String>::new());
    assert_eq!(fake.posts().len(), 1);
}
