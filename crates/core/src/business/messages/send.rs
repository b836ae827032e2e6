//! `messages_send`: posts a message as the bot, after every gate of the outbox; its input, the
//! function and its examples. Its answer is the message as the store recorded it, shown as
//! every posted message is (`kernel::presentation`).

use discord_manager_sender::{DiscordSender, OutgoingMessage};
use discord_manager_store::Store;
use discord_manager_vocabulary::error::{Error, ErrorKind, Result};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId};

use crate::business::OwnerContext;
use crate::business::kernel::approval::{ApprovalRequest, Checked, Clearance, PostKind};
use crate::business::kernel::bot_actions::{SEND_POLICY, recorded_message};
use crate::business::kernel::context::Source;
use crate::business::kernel::examples::{Examples, Sample, demo, long_text};
use crate::business::kernel::model::Message;
use crate::business::kernel::names::named;
use crate::business::kernel::{approval, outbox};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// Post a message as the owner's bot, optionally as a reply, and get the message as the store
/// recorded it. Refused before anything is sent, with the reason, when sending is not allowed
/// (no token, read-only mode, a channel outside DISCORD_MANAGER_SEND_CHANNELS; from an
/// assistant, any channel when that list is unset, and more than 5 posts a minute), when the
/// channel is a direct message (unless DISCORD_MANAGER_ALLOW_DMS=1), unknown, or one the bot may
/// not send in, or when the message replied to is not in that channel. Links get no preview
/// unless the owner set DISCORD_MANAGER_LINK_PREVIEWS=1. A rate-limited send is retried a few times; it is never posted twice. Mentions
/// written in the content ping those people and roles; `@everyone` and `@here` never ping, and
/// a reply does not ping its author. Use `schedules_add` to send it later instead. When the
/// MCP client can show the owner a form, a post outside DISCORD_MANAGER_SEND_CHANNELS (every
/// post, with DISCORD_MANAGER_CONFIRM_POSTS=1) waits for the owner's yes instead of being
/// refused; only the owner can answer it, and a no is a refusal.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SendMessage {
    /// The channel or thread to post in.
    pub channel_id: ChannelId,
    /// What to say: 1 to 2000 characters, not only spaces (Discord's markdown applies).
    #[schemars(length(min = 1, max = 2000))]
    pub content: String,
    /// Post it as a reply to this message of the same channel. Default: not a reply.
    pub reply_to_message_id: Option<MessageId>,
}

pub async fn send_message(
    store: &Store,
    input: SendMessage,
    context: &OwnerContext,
    sender: Option<&dyn DiscordSender>,
) -> Result<Message> {
    // Checked, and an assistant's send counted, in one transaction: two MCP servers sharing
    // the store cannot both slip under the cap. A post the owner is to approve is asked about
    // after every other check, and checked again once approved.
    let channel = approval::cleared(store, context, |writer, consent| {
        let (channel, clearance) = outbox::check_sendable(
            &writer.reader(),
            context,
            &input.channel_id,
            &input.content,
            input.reply_to_message_id.as_ref(),
            consent,
        )?;
        outbox::check_assistant_rate(&writer.reader(), context, Instant::now())?;
        if let Clearance::AskOwner(reason) = clearance {
            let reply_to = input.reply_to_message_id.as_ref();
            return Ok(Checked::Ask(ApprovalRequest {
                kind: if reply_to.is_some() {
                    PostKind::Reply
                } else {
                    PostKind::Post
                },
                reason,
                channel_id: channel.channel_id,
                channel_name: channel.name,
                content: input.content.clone(),
                message_id: reply_to.cloned(),
                send_at: None,
            }));
        }
        if context.source == Source::Mcp {
            writer.record_assistant_send(&channel.channel_id)?;
        }
        Ok(Checked::Cleared(channel))
    })
    .await?;
    let sender = sender.ok_or_else(|| {
        Error::internal("Sending is not available: no Discord client was set up for it")
    })?;
    let outgoing = OutgoingMessage {
        channel_id: channel.channel_id,
        content: input.content,
        reply_to_message_id: input.reply_to_message_id,
        nonce: outbox::new_nonce(),
        suppress_embeds: !context.link_previews,
    };
    let delivered =
        outbox::post_with_retries(sender, &outgoing, &SEND_POLICY, &named(&channel)).await?;
    if let Some(why) = delivered.unrecorded {
        return Err(Error::new(
            ErrorKind::Discord,
            format!(
                "Discord posted the message in {}, but the store could not record it ({why}); \
                 ingest records it when the gateway delivers it: do not send it again",
                named(&channel)
            ),
        ));
    }
    recorded_message(store, context, &delivered.message_id)
}

/// What [`send_message`] is shown with: a line, and the longest reply.
pub(crate) fn send_message_examples(sample: &Sample) -> Examples {
    Examples {
        default: Some(json!({"channelId": sample.channel, "content": "The deploy is done."})),
        largest: vec![
            json!({"channelId": sample.channel, "content": long_text(2000),
                             "replyToMessageId": sample.message}),
        ],
        demo: vec![
            json!({"channelId": demo::GENERAL, "content": "Thanks Margaret, looking now.",
                          "replyToMessageId": demo::MARGARETS_QUESTION}),
        ],
    }
}
