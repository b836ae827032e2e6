//! The bot's follow-up actions on a message the store holds: reacting to it, and editing or
//! deleting one of the bot's own. The capabilities are `messages_edit` ([`edit_message`]),
//! `messages_delete` ([`delete_message`]), `reactions_add` ([`add_reaction`]) and
//! `reactions_remove` ([`remove_reaction`]), here with what they share: their inputs, the
//! checks before any request, the request and its retries.
//!
//! Each passes the gates of a post (`outbox`: a token, read-only mode off, an assistant only in
//! DISCORD_MANAGER_SEND_CHANNELS, direct messages only when allowed) and the checks of its
//! target (stored, not deleted, the bot's own for an edit or a delete, a channel the bot can
//! view), all before any request; a refusal makes no request at all. Each request is retried
//! by the policy sends use: an edit and a delete are idempotent, and Discord keeps one
//! reaction per user and emoji, so a retry after a lost answer never does anything twice.
//!
//! An assistant's edits count toward its cap on posts (`ASSISTANT_POSTS_PER_MINUTE`): an edit
//! puts text of its choosing before people, as a post does, and could otherwise carry history
//! out one edit at a time. Reactions and deletions do not: a reaction is one checked emoji, a
//! deletion removes only the bot's own message (the store keeps its every version), neither
//! carries text, and repeating either does nothing more; capping them would stall an
//! assistant acknowledging a morning's mentions for no safety gained.

use super::examples::{Examples, Sample, demo, long_text};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::OwnerContext;
use super::approval::{self, ApprovalRequest, Checked, Clearance, Consent, PostKind};
use super::context::Source;
use super::emoji::Emoji;
use super::messages::{SEND_POLICY, recorded_message};
use super::model::{DiscordId, Message};
use super::names::named;
use super::outbox::{
    self, Action, BotReaction, Delivered, DiscordSender, MessageEdit, MessageToDelete, SendFailure,
};
use crate::error::{Error, ErrorKind, Result};
use crate::instant::Instant;
use crate::store::{ChannelRecord, MessageRecord, Reader, Store};

/// Change the text of one of the bot's own messages, and get the message as the store
/// recorded it (the earlier text stays in its history). Refused before anything is sent, with
/// the reason, under the same rules as `messages_send` (no token, read-only mode, a channel
/// outside DISCORD_MANAGER_SEND_CHANNELS; from an assistant, any channel when that list is
/// unset, and more than 5 posts and edits a minute), and when the message is not in the store,
/// was deleted, or was not written by the bot. Mentions written in the new text ping as in a
/// send. Safe to retry: an edit done twice is done once. Like a post, it may wait for the
/// owner's yes in the MCP client's form instead of being refused outside the list.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EditMessage {
    /// The bot's message to edit.
    pub message_id: DiscordId,
    /// Its whole new text: 1 to 2000 characters, not only spaces (Discord's markdown applies).
    #[schemars(length(min = 1, max = 2000))]
    pub content: String,
}

/// Delete one of the bot's own messages from Discord. Destructive: the message is gone for
/// everyone in the channel and cannot be brought back (the store keeps it, shown as deleted).
/// Refused before anything is sent, with the reason, under the same rules as `messages_send`
/// (no token, read-only mode, a channel outside DISCORD_MANAGER_SEND_CHANNELS; from an
/// assistant, any channel when that list is unset), and when the message is not in the store,
/// is already deleted, or was not written by the bot. Get back the message as the store now
/// shows it, deleted.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DeleteMessage {
    /// The bot's message to delete.
    pub message_id: DiscordId,
}

/// React to a message as the bot (to acknowledge it without a reply), and get the message with
/// its reactions as the store recorded them. Refused before anything is sent, with the
/// reason, under the same rules as `messages_send` (no token, read-only mode, a channel outside
/// DISCORD_MANAGER_SEND_CHANNELS; from an assistant, any channel when that list is unset), and
/// when the message is not in the store, was deleted, or already has the bot's reaction with
/// that emoji.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AddReaction {
    /// The message to react to.
    pub message_id: DiscordId,
    /// One emoji (👍), or a custom emoji of the guild as name:id or <:name:id> (<a:name:id>
    /// for an animated one).
    pub emoji: String,
}

/// Take back the bot's own reaction on a message, and get the message with its reactions as
/// the store recorded them. Refused before anything is sent, with the reason, under the same
/// rules as `messages_send`, and when the message is not in the store, was deleted, or has no
/// reaction of the bot with that emoji. Other people's reactions are never touched.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RemoveReaction {
    /// The message the bot reacted to.
    pub message_id: DiscordId,
    /// The emoji of the bot's reaction, written as when it was added.
    pub emoji: String,
}

/// `messages_edit`: see [`EditMessage`].
pub async fn edit_message(
    store: &Store,
    input: EditMessage,
    context: &OwnerContext,
    sender: Option<&dyn DiscordSender>,
) -> Result<Message> {
    // Checked, and an assistant's edit counted, in one transaction, as a send is; asked
    // about, as a send is, when the owner is to approve it.
    let target = approval::cleared(store, context, |writer, consent| {
        let target = check_target(
            &writer.reader(),
            context,
            &input.message_id,
            Action::Edit,
            consent,
        )?;
        outbox::check_content(&input.content)?;
        outbox::check_assistant_rate(&writer.reader(), context, Instant::now())?;
        if let Clearance::AskOwner(reason) = target.clearance {
            return Ok(Checked::Ask(ApprovalRequest {
                kind: PostKind::Edit,
                reason,
                channel_id: target.channel.channel_id,
                channel_name: target.channel.name,
                content: input.content.clone(),
                message_id: Some(target.message.message_id),
                send_at: None,
            }));
        }
        if context.source == Source::Mcp {
            writer.record_assistant_send(&target.channel.channel_id)?;
        }
        Ok(Checked::Cleared(target))
    })
    .await?;
    let sender = available(sender)?;
    let edit = MessageEdit {
        channel_id: target.channel.channel_id.clone(),
        message_id: target.message.message_id.clone(),
        content: input.content,
        suppress_embeds: !context.link_previews,
    };
    let delivered = outbox::deliver_with_retries(
        &SEND_POLICY,
        || sender.edit_message(store, &edit),
        |failure, attempts| gave_up(failure, attempts, Action::Edit, &target),
    )
    .await?;
    finish(store, context, delivered, "edited", &target)
}

/// `messages_delete`: see [`DeleteMessage`].
pub async fn delete_message(
    store: &Store,
    input: DeleteMessage,
    context: &OwnerContext,
    sender: Option<&dyn DiscordSender>,
) -> Result<Message> {
    let target = store.read(|reader| {
        check_target(
            reader,
            context,
            &input.message_id,
            Action::Delete,
            Consent::NotAsked,
        )
    })?;
    let sender = available(sender)?;
    let doomed = MessageToDelete {
        channel_id: target.channel.channel_id.clone(),
        message_id: target.message.message_id.clone(),
    };
    let delivered = outbox::deliver_with_retries(
        &SEND_POLICY,
        || sender.delete_message(store, &doomed),
        |failure, attempts| gave_up(failure, attempts, Action::Delete, &target),
    )
    .await?;
    finish(store, context, delivered, "deleted", &target)
}

/// `reactions_add`: see [`AddReaction`].
pub async fn add_reaction(
    store: &Store,
    input: AddReaction,
    context: &OwnerContext,
    sender: Option<&dyn DiscordSender>,
) -> Result<Message> {
    react(
        store,
        &input.message_id,
        &input.emoji,
        true,
        context,
        sender,
    )
    .await
}

/// `reactions_remove`: see [`RemoveReaction`].
pub async fn remove_reaction(
    store: &Store,
    input: RemoveReaction,
    context: &OwnerContext,
    sender: Option<&dyn DiscordSender>,
) -> Result<Message> {
    react(
        store,
        &input.message_id,
        &input.emoji,
        false,
        context,
        sender,
    )
    .await
}

/// Adds (`add`) or removes the bot's reaction with `emoji` on a message.
async fn react(
    store: &Store,
    message_id: &DiscordId,
    emoji: &str,
    add: bool,
    context: &OwnerContext,
    sender: Option<&dyn DiscordSender>,
) -> Result<Message> {
    // Checked, and an assistant's reaction counted, in one transaction.
    let (target, reaction) = store.write(|writer| {
        let checked = {
            let reader = &writer.reader();
            let target = check_target(
                reader,
                context,
                message_id,
                Action::React,
                Consent::NotAsked,
            )?;
            let emoji = as_stored(Emoji::parse(emoji)?, &target.message);
            let bot = reader.identity()?.bot_user_id.unwrap_or_default();
            let reacted = reader
                .emojis_reacted_by(message_id.as_str(), &bot)?
                .contains(&emoji.text());
            let text = emoji.text();
            match (add, reacted) {
                (true, true) => Err(Error::conflict(format!(
                    "The bot already reacted to message {message_id} with {text}"
                ))),
                (false, false) => Err(Error::conflict(format!(
                    "The bot has no {text} reaction on message {message_id}"
                ))),
                _ => {
                    outbox::check_assistant_reaction_rate(reader, context, Instant::now())?;
                    Ok((
                        target.clone(),
                        BotReaction {
                            channel_id: target.channel.channel_id.clone(),
                            message_id: message_id.as_str().to_string(),
                            emoji,
                        },
                    ))
                }
            }
        }?;
        if context.source == Source::Mcp {
            writer.record_assistant_reaction(&checked.1.channel_id, &checked.1.message_id)?;
        }
        Ok(checked)
    })?;
    let sender = available(sender)?;
    let delivered = outbox::deliver_with_retries(
        &SEND_POLICY,
        || sender.react(store, &reaction, add),
        |failure, attempts| gave_up(failure, attempts, Action::React, &target),
    )
    .await?;
    let done = if add {
        "added the reaction"
    } else {
        "removed the reaction"
    };
    finish(store, context, delivered, done, &target)
}

/// A custom emoji as the message's reactions already write it: Discord says whether it is
/// animated, and the owner may have left that out, so the bot's reaction and the gateway's
/// echo of it are one reaction, not two.
fn as_stored(emoji: Emoji, message: &MessageRecord) -> Emoji {
    let Emoji::Custom { name, id, animated } = emoji else {
        return emoji;
    };
    let animated = animated
        || message.reactions.iter().any(|reaction| {
            reaction.emoji.starts_with("<a:") && reaction.emoji.ends_with(&format!(":{id}>"))
        });
    Emoji::Custom { name, id, animated }
}

/// The message an action is about, its channel, and whether the owner is to approve it.
#[derive(Debug, Clone)]
struct Target {
    channel: ChannelRecord,
    message: MessageRecord,
    clearance: Clearance,
}

/// Every check before an action's request, in the order the owner can act on them: the
/// capability gate, the message (stored, not deleted, the bot's own for an edit or a
/// delete), its channel (in scope, allowed by DISCORD_MANAGER_SEND_CHANNELS, one the bot can
/// view, in a guild it is still in).
fn check_target(
    reader: &Reader<'_>,
    context: &OwnerContext,
    message_id: &DiscordId,
    action: Action,
    consent: Consent,
) -> Result<Target> {
    outbox::check_may_act(context, action, consent)?;
    let Some(message) = reader.message(message_id.as_str())? else {
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
        if bot.as_deref() != Some(message.author_id.as_str()) {
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

fn available(sender: Option<&dyn DiscordSender>) -> Result<&dyn DiscordSender> {
    sender.ok_or_else(|| {
        Error::internal("Acting on Discord is not available: no Discord client was set up for it")
    })
}

/// The message as the store recorded it after Discord `did` what was asked.
fn finish(
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
fn gave_up(failure: &SendFailure, attempts: u32, action: Action, target: &Target) -> String {
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

/// What [`edit_message`] is shown with: a line, and the longest text.
pub(crate) fn edit_message_examples(sample: &Sample) -> Examples {
    Examples {
        default: Some(json!({"messageId": sample.bot_message, "content": "Deploy at 16:00."})),
        largest: vec![json!({"messageId": sample.bot_message, "content": long_text(2000)})],
        demo: vec![json!({"messageId": demo::BOTS_ANNOUNCEMENT,
                          "content": "Deploy window for v2.4.0 opens at 15:30 UTC."})],
    }
}

/// What [`delete_message`] is shown with: it has no bounds.
pub(crate) fn delete_message_examples(sample: &Sample) -> Examples {
    Examples {
        default: Some(json!({"messageId": sample.bot_message})),
        largest: Vec::new(),
        demo: vec![json!({"messageId": demo::BOTS_ANNOUNCEMENT})],
    }
}

/// What [`add_reaction`] is shown with: it has no bounds.
pub(crate) fn add_reaction_examples(sample: &Sample) -> Examples {
    Examples {
        default: Some(json!({"messageId": sample.message, "emoji": "👍"})),
        largest: Vec::new(),
        demo: vec![json!({"messageId": demo::CI_BUILD, "emoji": "🚀"})],
    }
}

/// What [`remove_reaction`] is shown with: the demo takes back the bot's ✅ that the seed
/// added.
pub(crate) fn remove_reaction_examples(sample: &Sample) -> Examples {
    Examples {
        default: Some(json!({"messageId": sample.message, "emoji": "👍"})),
        largest: Vec::new(),
        demo: vec![json!({"messageId": demo::CI_BUILD, "emoji": "✅"})],
    }
}

#[cfg(test)]
mod tests;
