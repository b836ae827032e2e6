//! The channels toolset: `channels_list` ([`list`]) and `channels_mark_read` ([`mark_read`]),
//! and what other capabilities take from it: which channels are in the owner's scope and
//! readable, and why one is not.

pub mod list;
pub mod mark_read;

use discord_manager_store::ChannelRecord;
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::permissions::ChannelAccess;
use discord_manager_vocabulary::snowflake::ChannelId;

use crate::business::OwnerContext;
use crate::business::kernel::names::{named, shown};

/// Why the bot cannot read a channel, in the owner's words; None when it can.
pub fn unreadable_reason(access: ChannelAccess) -> Option<&'static str> {
    match access {
        ChannelAccess::Readable => None,
        ChannelAccess::NoView => Some("the bot cannot view this channel (View Channel is denied)"),
        ChannelAccess::NoHistory => {
            Some("the bot cannot read this channel's history (Read Message History is denied)")
        }
    }
}

/// Channels in the owner's scope that still exist, as last seen.
pub(crate) fn channels_in_scope(
    reader: &discord_manager_store::Reader<'_>,
    context: &OwnerContext,
) -> Result<Vec<ChannelRecord>> {
    Ok(reader
        .channels()?
        .into_iter()
        .filter(|channel| !channel.removed && context.in_scope(channel.guild_id.as_ref()))
        .map(shown)
        .collect())
}

/// Direct-message channels left out because the owner has not allowed direct messages, that
/// received something at or after `since`: a catch-up names them as skipped, with the reason,
/// so the owner knows they exist and what brings them in, without reading a word of them.
pub(crate) fn direct_messages_left_out(
    reader: &discord_manager_store::Reader<'_>,
    context: &OwnerContext,
    since: Instant,
) -> Result<Vec<(ChannelRecord, &'static str)>> {
    if context.allow_dms {
        return Ok(Vec::new());
    }
    let mut left_out = Vec::new();
    for channel in reader.channels()? {
        if channel.removed || channel.guild_id.is_some() {
            continue;
        }
        if reader.channel_news_since(&channel.channel_id, since)? > 0 {
            left_out.push((shown(channel), DIRECT_MESSAGES_OFF));
        }
    }
    Ok(left_out)
}

/// Why a direct-message channel is skipped.
pub(crate) const DIRECT_MESSAGES_OFF: &str =
    "a direct message: out of scope unless DISCORD_MANAGER_ALLOW_DMS=1";

/// The channels a call is about: the one named (which must be stored and in scope), or every
/// channel in scope.
pub(crate) fn chosen_channels(
    reader: &discord_manager_store::Reader<'_>,
    context: &OwnerContext,
    channel_id: Option<&ChannelId>,
) -> Result<Vec<ChannelRecord>> {
    let mut channels = channels_in_scope(reader, context)?;
    if let Some(wanted) = channel_id {
        channels.retain(|channel| channel.channel_id == *wanted);
        if channels.is_empty() {
            return Err(match reader.channel(wanted)? {
                Some(channel) if channel.removed && context.in_scope(channel.guild_id.as_ref()) => {
                    Error::not_found(format!("`channelId`: channel {wanted} was deleted"))
                }
                Some(channel) => {
                    Error::denied(context.out_of_scope_reason(channel.guild_id.as_ref(), wanted))
                }
                None => Error::not_found(format!(
                    "`channelId`: no channel with id {wanted} is in the store"
                )),
            });
        }
    }
    Ok(channels)
}

/// Like [`chosen_channels`], but a channel named explicitly must also be readable: asking for
/// one the bot cannot read is refused with the reason, never answered with silence.
pub(crate) fn chosen_readable_channels(
    reader: &discord_manager_store::Reader<'_>,
    context: &OwnerContext,
    channel_id: Option<&ChannelId>,
) -> Result<Vec<ChannelRecord>> {
    let channels = chosen_channels(reader, context, channel_id)?;
    if channel_id.is_some()
        && let Some(reason) = unreadable_reason(channels[0].access)
    {
        return Err(Error::denied(format!(
            "`channelId`: {} cannot be read: {reason}",
            named(&channels[0])
        )));
    }
    Ok(channels
        .into_iter()
        .filter(|channel| channel.access == ChannelAccess::Readable)
        .collect())
}

#[cfg(test)]
mod tests;
