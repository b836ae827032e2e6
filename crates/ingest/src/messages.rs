//! Recorders for messages: created, edited (partial updates too), deleted, bulk-deleted.

use discord_manager_store::{NewEdit, NewMessage, Provenance, Store, Writer};
use discord_manager_vocabulary::error::Result;
use serenity::model::channel::Message;
use serenity::model::event::MessageUpdateEvent;
use serenity::model::id::{ChannelId, MessageId};

use crate::ids::TypedId;
use discord_manager_vocabulary::snowflake::{RoleId, UserId};

use super::discord_time::instant_of;
use super::extras::{extras_of, updated_extras};
use super::{Origin, Recorded};

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
    let reply_to_message_id = message
        .message_reference
        .as_ref()
        .filter(|_| {
            message.referenced_message.is_some()
                || message.kind == serenity::model::channel::MessageType::InlineReply
        })
        .and_then(|reference| reference.message_id)
        .map(TypedId::typed);
    let reply_to_author_id = message
        .referenced_message
        .as_ref()
        .map(|referenced| referenced.author.id.typed())
        .or(reply_author_in_store);
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

/// MESSAGE_CREATE, a message fetched by a backfill, or one the bot just sent. (A REST message
/// that arrives already edited gets its current version recorded as an edit by the backfill's
/// page recorder, `ingest::history`.)
pub fn record_message(store: &Store, message: &Message, origin: Origin) -> Result<Recorded> {
    store.write(|writer| record_message_in(writer, message, origin))
}

/// [`record_message`] inside a caller's transaction (a backfill records a page in one).
pub(crate) fn record_message_in(
    writer: &mut Writer<'_>,
    message: &Message,
    origin: Origin,
) -> Result<Recorded> {
    let reply_author = match &message.message_reference {
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
    stored |= writer.record_extras(&row.message_id, &row.channel_id, &extras_of(message))?;
    Ok(stored.into())
}

pub(super) fn record_message_update_in(
    writer: &mut Writer<'_>,
    update: &MessageUpdateEvent,
) -> Result<Recorded> {
    let edit = edit_of(update)?;
    if edit.is_none() && !touches_extras(update) {
        return Ok(Recorded::Ignored);
    }
    let mut stored = match &edit {
        Some(edit) => writer.insert_edit(edit)?,
        None => false,
    };
    // Extras of a message not stored yet wait for it: its create or a backfill's copy carries
    // them whole, and a partial update alone would pass for the message's full state.
    let id = update.id.typed();
    if touches_extras(update) && writer.reader().has_message(&id)? {
        let current = writer.reader().message_extras(&id)?;
        let next = updated_extras(&current, update);
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

/// The edit a MESSAGE_UPDATE carries, if it is one.
fn edit_of(update: &MessageUpdateEvent) -> Result<Option<NewEdit>> {
    let (Some(content), Some(edited_at)) = (&update.content, &update.edited_timestamp) else {
        return Ok(None);
    };
    Ok(Some(NewEdit {
        message_id: update.id.typed(),
        channel_id: update.channel_id.typed(),
        content: content.clone(),
        edited_at: instant_of(edited_at)?,
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
