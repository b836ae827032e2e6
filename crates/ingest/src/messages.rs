//! Recorders for messages: created, edited (partial updates too), deleted, bulk-deleted.

use discord_manager_store::{NewEdit, NewMessage, Provenance, Store, Writer};
use discord_manager_vocabulary::error::Result;
use serde_json::Value;
use serenity::model::channel::{Message, MessageReference, MessageReferenceKind, MessageType};
use serenity::model::event::MessageUpdateEvent;
use serenity::model::id::{ChannelId, MessageId};

use crate::ids::TypedId;
use discord_manager_vocabulary::snowflake::{RoleId, UserId};

use super::discord_time::instant_of;
use super::extras::{extras_of, updated_extras};
use super::kept_payload::keep_payload;
use super::payload::MessagePayload;
use super::{Origin, Recorded};

/// The reference of a message that replies to another: a reply (type 19) or a context-menu
/// command's answer (type 23) whose reference is of the default kind. Discord also sets a
/// `message_reference` on a pin notice (type 6, pointing at the pinned message), a forward
/// (reference kind 1), a thread's starter (type 21, pointing at the message the thread
/// started from), a crosspost and a channel follow: none of them answers the author it
/// points at, so none is a reply.
fn reply_reference(message: &Message) -> Option<&MessageReference> {
    let replies = matches!(
        message.kind,
        MessageType::InlineReply | MessageType::ContextMenuCommand
    );
    message
        .message_reference
        .as_ref()
        .filter(|reference| replies && reference.kind == MessageReferenceKind::Default)
}

/// The new-message row for a Discord message, whichever way it reached us.
fn new_message(
    message: &Message,
    origin: Origin,
    reply_author_in_store: Option<UserId>,
) -> Result<NewMessage> {
    let author_name = message
        .member
        .as_ref()
        .and_then(|member| member.nick.clone())
        .or_else(|| message.author.global_name.clone())
        .unwrap_or_else(|| message.author.name.clone());
    let reply = reply_reference(message);
    let reply_to_message_id = reply
        .and_then(|reference| reference.message_id)
        .map(TypedId::typed);
    let reply_to_author_id = reply.and_then(|_| {
        message
            .referenced_message
            .as_ref()
            .map(|referenced| referenced.author.id.typed())
            .or(reply_author_in_store)
    });
    Ok(NewMessage {
        message_id: message.id.typed(),
        channel_id: message.channel_id.typed(),
        guild_id: message.guild_id.map(TypedId::typed),
        author_id: message.author.id.typed(),
        author_name,
        content: message.content.clone(),
        sent_at: instant_of(&message.timestamp)?,
        reply_to_message_id,
        reply_to_author_id,
        mention_everyone: message.mention_everyone,
        mentioned_user_ids: message
            .mentions
            .iter()
            .map(|user| user.id.typed())
            .collect(),
        mentioned_role_ids: message.mention_roles.iter().map(TypedId::typed).collect(),
        origin,
        provenance: Provenance {
            author_bot: Some(message.author.bot),
            webhook_id: message.webhook_id.map(TypedId::typed),
            application_id: message.application_id.map(TypedId::typed),
        },
    })
}

/// MESSAGE_CREATE, a message fetched by a backfill, or one the bot just sent, with its JSON as
/// Discord sent it when the caller has it. (A REST message that arrives already edited gets
/// its current version recorded as an edit by the backfill's page recorder, `ingest::history`.)
pub fn record_message(
    store: &Store,
    message: &Message,
    payload: Option<&Value>,
    origin: Origin,
) -> Result<Recorded> {
    store.write(|writer| record_message_in(writer, message, payload, origin))
}

/// [`record_message`] inside a caller's transaction (a backfill records a page in one).
/// Without Discord's JSON, serenity's model serialized back stands in for it: the same
/// reading, for everything serenity keeps.
pub(crate) fn record_message_in(
    writer: &mut Writer<'_>,
    message: &Message,
    payload: Option<&Value>,
    origin: Origin,
) -> Result<Recorded> {
    let modelled;
    let (payload, as_sent) = match payload {
        Some(payload) => (payload, true),
        None => {
            modelled = serde_json::to_value(message).unwrap_or(Value::Null);
            (&modelled, false)
        }
    };
    // Only a reply makes its target's author "replied to": a pin notice, a forward, a thread's
    // starter and every other reference point at a message without answering its author.
    let reply_author = match reply_reference(message) {
        Some(reference) if message.referenced_message.is_none() => match reference.message_id {
            Some(id) => writer.reader().author_of(&id.typed())?,
            None => None,
        },
        _ => None,
    };
    let row = new_message(message, origin, reply_author)?;
    let mut stored = writer.insert_message(&row)?;
    if let (Some(guild_id), Some(member)) = (&row.guild_id, &message.member) {
        let roles: Vec<RoleId> = member.roles.iter().map(TypedId::typed).collect();
        stored |= writer.record_member_roles(guild_id, &row.author_id, &roles)?;
    }
    // A later copy (a backfill page) that shows a pin or an unfurl the gateway's update never
    // brought records it; an unchanged copy writes nothing.
    let extras = extras_of(message, &MessagePayload::new(payload));
    stored |= writer.record_extras(&row.message_id, &row.channel_id, &extras)?;
    // Kept beside what is derived from it, whether or not the message was new: a later copy
    // (a backfill's) is another payload of it. Keeping one is not news.
    if as_sent {
        keep_payload(writer, &row.message_id, payload)?;
    }
    Ok(stored.into())
}

pub(super) fn record_message_update_in(
    writer: &mut Writer<'_>,
    update: &MessageUpdateEvent,
    payload: Option<&Value>,
) -> Result<Recorded> {
    if let Some(payload) = payload {
        keep_payload(writer, &update.id.typed(), payload)?;
    }
    let payload = payload.map(MessagePayload::new);
    let edit = edit_of(writer, update)?;
    let touches_extras = touches_extras(update)
        || payload
            .as_ref()
            .is_some_and(|payload| payload.has_components() || payload.flags().is_some());
    if edit.is_none() && !touches_extras {
        return Ok(Recorded::Ignored);
    }
    let mut stored = match &edit {
        Some(edit) => writer.insert_edit(edit)?,
        None => false,
    };
    // Extras of a message not stored yet wait for it: its create or a backfill's copy carries
    // them whole, and a partial update alone would pass for the message's full state.
    let id = update.id.typed();
    if touches_extras && writer.reader().has_message(&id)? {
        let current = writer.reader().message_extras(&id)?;
        let next = updated_extras(&current, update, payload.as_ref());
        stored |= writer.record_extras(&id, &update.channel_id.typed(), &next)?;
    }
    Ok(stored.into())
}

/// Whether an update carries anything of a message's extras.
fn touches_extras(update: &MessageUpdateEvent) -> bool {
    update.embeds.is_some()
        || update.attachments.is_some()
        || update.pinned.is_some()
        || update.flags.is_some()
        || update.sticker_items.is_some()
        || update.kind.is_some()
}

/// The edit a MESSAGE_UPDATE carries, if it is one: new content with Discord's
/// `edited_timestamp`; or, without one, content that differs from what the store shows, which
/// is how a deferred command reply ("thinking…") is completed (Discord shows no "edited" on
/// it), dated at the message's own time since Discord gives no other. An unfurl or a pin
/// carries the same content and no edit timestamp: no edit.
fn edit_of(writer: &Writer<'_>, update: &MessageUpdateEvent) -> Result<Option<NewEdit>> {
    let Some(content) = &update.content else {
        return Ok(None);
    };
    let edited_at = match (&update.edited_timestamp, &update.timestamp) {
        (Some(edited_at), _) => instant_of(edited_at)?,
        (None, Some(sent_at)) => {
            let id = update.id.typed();
            let shown = writer.reader().messages(&[&id])?;
            match shown.into_iter().flatten().next() {
                Some(current) if current.current_content() != content => instant_of(sent_at)?,
                _ => return Ok(None),
            }
        }
        (None, None) => return Ok(None),
    };
    Ok(Some(NewEdit {
        message_id: update.id.typed(),
        channel_id: update.channel_id.typed(),
        content: content.clone(),
        edited_at,
        mentioned_user_ids: update
            .mentions
            .iter()
            .flatten()
            .map(|user| user.id.typed())
            .collect(),
        mentioned_role_ids: update
            .mention_roles
            .iter()
            .flatten()
            .map(TypedId::typed)
            .collect(),
        imported: false,
    }))
}

pub(super) fn record_message_deleted_in(
    writer: &mut Writer<'_>,
    channel_id: ChannelId,
    message_id: MessageId,
) -> Result<Recorded> {
    Ok(writer
        .insert_deletion(&message_id.typed(), &channel_id.typed(), false)?
        .into())
}

pub(super) fn record_messages_bulk_deleted_in(
    writer: &mut Writer<'_>,
    channel_id: ChannelId,
    message_ids: &[MessageId],
) -> Result<Recorded> {
    let mut stored = false;
    for id in message_ids {
        stored |= writer.insert_deletion(&id.typed(), &channel_id.typed(), true)?;
    }
    Ok(stored.into())
}
