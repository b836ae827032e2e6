//! What the bot's posts and its follow-up actions on a message share: the retry policy of a
//! request the owner waits for, the message as the store recorded it after, and, for the
//! follow-up actions (`messages_edit`, `messages_delete`, `reactions_add`, `reactions_remove`),
//! the checks before any request and the words when Discord gives up.
//!
//! Each follow-up action passes the gates of a post (`outbox`: a token, read-only mode off, an
//! assistant only in DISCORD_MANAGER_SEND_CHANNELS, direct messages only when allowed) and the
//! checks of its target (stored, not deleted, the bot's own for an edit or a delete, a channel
//! the bot can view), all before any request; a refusal makes no request at all. Each request
//! is retried by the policy sends use: an edit and a delete are idempotent, and Discord keeps
//! one reaction per user and emoji, so a retry after a lost answer never does anything twice.
//!
//! An assistant's edits count toward its cap on posts (`ASSISTANT_POSTS_PER_MINUTE`): an edit
//! puts text of its choosing before people, as a post does, and could otherwise carry history
//! out one edit at a time. Reactions and deletions do not: a reaction is one checked emoji, a
//! deletion removes only the bot's own message (the store keeps its every version), neither
//! carries text, and repeating either does nothing more; capping them would stall an
//! assistant acknowledging a morning's mentions for no safety gained.

use discord_manager_sender::{Delivered, DiscordSender, SendFailure};
use discord_manager_store::{ChannelRecord, MessageRecord, Reader, Store};
use discord_manager_vocabulary::error::{Error, ErrorKind, Result};
use discord_manager_vocabulary::snowflake::MessageId;

use crate::business::OwnerContext;
use crate::business::kernel::approval::{Clearance, Consent};
use crate::business::kernel::model::{Message, Shaper};
use crate::business::kernel::names::named;
use crate::business::kernel::outbox;
use crate::business::kernel::outbox::{Action, RetryPolicy};

/// How `messages_send` retries: three attempts, never waiting more than 10 seconds at a time,
/// so the owner gets an answer promptly.
pub(crate) const SEND_POLICY: RetryPolicy = RetryPolicy {
    attempts: 3,
    first_backoff: std::time::Duration::from_secs(1),
    max_wait: std::time::Duration::from_secs(10),
};

/// A message the store just recorded, as results show it.
pub(crate) fn recorded_message(
    store: &Store,
    context: &OwnerContext,
    message_id: &MessageId,
) -> Result<Message> {
    store.read(|reader| {
        let record = reader.message(message_id)?.ok_or_else(|| {
            Error::internal(format!(
                "Message {message_id} was recorded but cannot be read"
            ))
        })?;
        Ok(Shaper::new(reader, context, [&record])?.message(&record))
    })
}

/// The message an action is about, its channel, and whether the owner is to approve it.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    pub(crate) channel: ChannelRecord,
    pub(crate) message: MessageRecord,
    pub(crate) clearance: Clearance,
}

/// Every check before an action's request, in the order the owner can act on them: the
/// capability gate, the message (stored, not deleted, the bot's own for an edit or a
/// delete), its channel (in scope, allowed by DISCORD_MANAGER_SEND_CHANNELS, one the bot can
/// view, in a guild it is still in).
pub(crate) fn check_target(
    reader: &Reader<'_>,
    context: &OwnerContext,
    message_id: &MessageId,
    action: Action,
    consent: Consent,
) -> Result<Target> {
    outbox::check_may_act(context, action, consent)?;
    let Some(message) = reader.message(message_id)? else {
        return Err(Error::not_found(format!(
            "`messageId`: no message with id {message_id} is in the store"
        )));
    };
    let (channel, clearance) = outbox::check_channel(
        reader,
        context,
        &message.channel_id,
        "messageId",
        action,
        consent,
    )?;
    if message.deleted {
        return Err(Error::conflict(match action {
            Action::Delete => format!("Message {message_id} is already deleted"),
            _ => format!("Message {message_id} was deleted: there is nothing left to change"),
        }));
    }
    if matches!(action, Action::Edit | Action::Delete) {
        let bot = reader.identity()?.bot_user_id;
        if bot.as_ref() != Some(&message.author_id) {
            let verb = if action == Action::Edit {
                "edit"
            } else {
                "delete"
            };
            return Err(Error::denied(format!(
                "Message {message_id} was written by user {}, not the bot: the bot may {verb} \
                 only its own messages",
                message.author_id
            )));
        }
    }
    if !outbox::bot_can_view(reader, &channel, action)? {
        return Err(Error::denied(format!(
            "The bot cannot act in {}: it cannot view the channel (View Channel is denied)",
            named(&channel)
        )));
    }
    Ok(Target {
        channel,
        message,
        clearance,
    })
}

pub(crate) fn available(sender: Option<&dyn DiscordSender>) -> Result<&dyn DiscordSender> {
    sender.ok_or_else(|| {
        Error::internal("Acting on Discord is not available: no Discord client was set up for it")
    })
}

/// The message as the store recorded it after Discord `did` what was asked.
pub(crate) fn finish(
    store: &Store,
    context: &OwnerContext,
    delivered: Delivered,
    did: &str,
    target: &Target,
) -> Result<Message> {
    if let Some(why) = delivered.unrecorded {
        return Err(Error::new(
            ErrorKind::Discord,
            format!(
                "Discord {did} message {} in {}, but the store could not record it ({why}); \
                 ingest records it when the gateway delivers it",
                target.message.message_id,
                named(&target.channel)
            ),
        ));
    }
    recorded_message(store, context, &delivered.message_id)
}

/// Why an action was given up after `attempts` attempts ended with `failure`, in the owner's
/// words. Unlike a post, trying again is always safe, and the words say so.
pub(crate) fn gave_up(
    failure: &SendFailure,
    attempts: u32,
    action: Action,
    target: &Target,
) -> String {
    let message = &target.message.message_id;
    let channel = &named(&target.channel);
    let unchanged = "nothing was changed";
    match failure {
        SendFailure::RateLimited { retry_after } if *retry_after > SEND_POLICY.max_wait => {
            format!(
                "Discord is rate limiting the bot and asked to wait {}, more than the {} s an \
                 action may wait; {unchanged}: try again later",
                outbox::asked_wait(*retry_after),
                SEND_POLICY.max_wait.as_secs()
            )
        }
        SendFailure::RateLimited { .. } => format!(
            "Discord rate limited the bot on all {attempts} attempts; {unchanged}: try again \
             later"
        ),
        SendFailure::Refused { status: 401, .. } => {
            format!("Discord rejected the bot token (401): check DISCORD_TOKEN; {unchanged}")
        }
        SendFailure::Refused {
            status,
            code,
            message: why,
        } => {
            let code_text = code
                .map(|code| format!(", code {code}"))
                .unwrap_or_default();
            // Discord's codes: 10008 Unknown Message, 10014 Unknown Emoji.
            let what = match (status, code) {
                (403, _) => format!("Discord refused to let the bot do that in {channel}"),
                (404, Some(10008)) => format!("Discord does not know message {message}"),
                (_, Some(10014)) => "Discord does not know that emoji".to_string(),
                _ => "Discord refused it".to_string(),
            };
            format!("{what}: {why} ({status}{code_text}); {unchanged}")
        }
        SendFailure::Unavailable { reason } => format!(
            "Discord did not confirm it after {attempts} attempts ({reason}): asking again is \
             safe, since {} done twice is done once",
            match action {
                Action::Edit => "an edit",
                Action::Delete => "a deletion",
                _ => "a reaction",
            }
        ),
    }
}

#[cfg(test)]
mod tests;
