//! Recorders for channels and threads: created, updated, deleted, and thread list syncs.

use discord_manager_store::{ChannelKind, ChannelRecord, Store, Tag, Writer};
use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::permissions::channel_access;
use discord_manager_vocabulary::permissions::{ChannelAccess, Overwrite, OverwriteKind};
use discord_manager_vocabulary::snowflake;
use serenity::model::channel::{
    ChannelType, GuildChannel, PartialGuildChannel, PermissionOverwriteType,
};

use super::Recorded;
use crate::ids::{TypedId, overwrite_target};

/// Discord's channel type as the store names it.
pub fn kind_of(kind: ChannelType) -> ChannelKind {
    match kind {
        ChannelType::Text => ChannelKind::Text,
        ChannelType::Private => ChannelKind::Dm,
        ChannelType::Voice => ChannelKind::Voice,
        ChannelType::GroupDm => ChannelKind::GroupDm,
        ChannelType::Category => ChannelKind::Category,
        ChannelType::News => ChannelKind::News,
        ChannelType::NewsThread => ChannelKind::NewsThread,
        ChannelType::PublicThread => ChannelKind::PublicThread,
        ChannelType::PrivateThread => ChannelKind::PrivateThread,
        ChannelType::Stage => ChannelKind::Stage,
        ChannelType::Directory => ChannelKind::Directory,
        ChannelType::Forum => ChannelKind::Forum,
        _ => ChannelKind::Other,
    }
}

/// Computes a channel's access from what the store knows now: the guild's roles, the bot's
/// roles and the channel's overwrites; a thread reads as its parent does.
fn access_of(writer: &Writer<'_>, record: &ChannelRecord, thread: bool) -> Result<ChannelAccess> {
    let reader = writer.reader();
    if thread
        && let Some(parent) = record
            .parent_id
            .as_ref()
            .map(|id| reader.channel(id))
            .transpose()?
            .flatten()
    {
        return Ok(parent.access);
    }
    let guild = record
        .guild_id
        .as_ref()
        .map(|id| reader.guild(id))
        .transpose()?
        .flatten();
    let bot = reader.identity()?.bot_user_id;
    Ok(channel_access(
        guild.as_ref(),
        &record.overwrites,
        bot.as_ref(),
    ))
}

/// A channel's permission overwrites as the store keeps them (and the permission logic reads).
pub fn overwrites_of(channel: &GuildChannel) -> Vec<Overwrite> {
    channel
        .permission_overwrites
        .iter()
        .filter_map(|overwrite| {
            let (kind, id) = match overwrite.kind {
                PermissionOverwriteType::Member(user) => {
                    (OverwriteKind::Member, overwrite_target(user))
                }
                PermissionOverwriteType::Role(role) => {
                    (OverwriteKind::Role, overwrite_target(role))
                }
                // A kind serenity does not know applies to no one (it has none today).
                _ => return None,
            };
            Some(Overwrite {
                id,
                kind,
                allow: overwrite.allow.bits(),
                deny: overwrite.deny.bits(),
            })
        })
        .collect()
}

/// Records a channel or thread as seen, with its access computed; used by every recorder
/// that carries channels.
pub(crate) fn record_channel_in(writer: &mut Writer<'_>, channel: &GuildChannel) -> Result<bool> {
    let mut record = ChannelRecord {
        channel_id: channel.id.typed(),
        guild_id: Some(channel.guild_id.typed()),
        parent_id: channel.parent_id.map(TypedId::typed),
        name: channel.name.clone(),
        kind: kind_of(channel.kind),
        overwrites: overwrites_of(channel),
        access: ChannelAccess::Readable,
        removed: false,
        tags: tags_of(writer, channel)?,
    };
    record.access = access_of(writer, &record, record.kind.is_thread())?;
    writer.record_channel(&record)
}

/// A forum's (or media channel's) tags, or a post's applied tags named from its forum's (a tag
/// the store does not know the forum to have keeps its id as its name).
fn tags_of(writer: &Writer<'_>, channel: &GuildChannel) -> Result<Vec<Tag>> {
    if !channel.available_tags.is_empty() {
        return Ok(channel
            .available_tags
            .iter()
            .map(|tag| Tag {
                id: tag.id.typed(),
                name: tag.name.clone(),
            })
            .collect());
    }
    if channel.applied_tags.is_empty() {
        return Ok(Vec::new());
    }
    let forum_tags = match channel.parent_id {
        Some(parent) => writer
            .reader()
            .channel(&parent.typed())?
            .map(|forum| forum.tags)
            .unwrap_or_default(),
        None => Vec::new(),
    };
    Ok(channel
        .applied_tags
        .iter()
        .map(|id| {
            let id = id.typed();
            let name = forum_tags
                .iter()
                .find(|tag| tag.id == id)
                .map_or_else(|| id.to_string(), |tag| tag.name.clone());
            Tag { id, name }
        })
        .collect())
}

/// Recomputes the access of every channel of a guild (after its roles or the bot's roles
/// changed), parents before their threads.
pub(crate) fn refresh_guild_channels(
    writer: &mut Writer<'_>,
    guild_id: &snowflake::GuildId,
) -> Result<bool> {
    let channels: Vec<ChannelRecord> = writer
        .reader()
        .channels()?
        .into_iter()
        .filter(|channel| channel.guild_id.as_ref() == Some(guild_id) && !channel.removed)
        .collect();
    let (threads, parents): (Vec<_>, Vec<_>) = channels
        .into_iter()
        .partition(|channel| channel.kind.is_thread());
    let mut changed = false;
    for (mut channel, thread) in parents
        .into_iter()
        .map(|c| (c, false))
        .chain(threads.into_iter().map(|c| (c, true)))
    {
        channel.access = access_of(writer, &channel, thread)?;
        changed |= writer.record_channel(&channel)?;
    }
    Ok(changed)
}

fn record_removed(writer: &mut Writer<'_>, channel_id: &snowflake::ChannelId) -> Result<bool> {
    match writer.reader().channel(channel_id)? {
        Some(mut known) if !known.removed => {
            known.removed = true;
            writer.record_channel(&known)
        }
        _ => Ok(false),
    }
}

/// CHANNEL_CREATE, CHANNEL_UPDATE, THREAD_CREATE, THREAD_UPDATE.
pub fn record_channel(store: &Store, channel: &GuildChannel) -> Result<Recorded> {
    store.write(|writer| record_channel_event_in(writer, channel))
}

pub(super) fn record_channel_event_in(
    writer: &mut Writer<'_>,
    channel: &GuildChannel,
) -> Result<Recorded> {
    let mut changed = record_channel_in(writer, channel)?;
    // A channel's new overwrites change what its threads can read.
    if !kind_of(channel.kind).is_thread() {
        changed |= refresh_guild_channels(writer, &channel.guild_id.typed())?;
    }
    Ok(changed.into())
}

pub(super) fn record_channel_deleted_in(
    writer: &mut Writer<'_>,
    channel: &GuildChannel,
) -> Result<Recorded> {
    Ok(record_removed(writer, &channel.id.typed())?.into())
}

pub(super) fn record_thread_deleted_in(
    writer: &mut Writer<'_>,
    thread: &PartialGuildChannel,
) -> Result<Recorded> {
    Ok(record_removed(writer, &thread.id.typed())?.into())
}

pub(super) fn record_thread_list_in(
    writer: &mut Writer<'_>,
    threads: &[GuildChannel],
) -> Result<Recorded> {
    let mut changed = false;
    for thread in threads {
        changed |= record_channel_in(writer, thread)?;
    }
    Ok(changed.into())
}
