//! Reading messages: catching up on what arrived since an instant.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::channels::{channels_in_scope, unreadable_reason};
use super::model::{DiscordId, Message};
use super::{OwnerContext, since_or_default};
use crate::error::{Error, Result};
use crate::instant::Instant;
use crate::store::{ChannelAccess, Store};

/// Catch up: the messages that arrived at or after `since`, grouped by channel, oldest first,
/// each with its current content, edited/deleted flags, reactions and reply target. Channels
/// the bot cannot read are skipped and listed with the reason. Pass the returned `watermark`
/// as `since` next time and nothing is ever skipped (the boundary message may be shown again).
/// Use `activity_wait` instead to poll for counts of new activity.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CatchUp {
    /// Messages that arrived at or after this instant (inclusive, on the store's arrival clock).
    /// Default: 24 hours ago.
    pub since: Option<Instant>,
    /// Only this channel or thread. Default: every readable channel in scope.
    pub channel_id: Option<DiscordId>,
    /// At most this many messages per channel; a channel with more says `more: true`.
    /// Default 50, from 1 to 500.
    #[schemars(range(min = 1, max = 500))]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CaughtUp {
    /// Channels with something new, each with its new messages, oldest first.
    pub channels: Vec<ChannelMessages>,
    /// Channels in scope the bot cannot read, with the reason.
    pub skipped_channels: Vec<SkippedChannel>,
    /// Pass this as `since` next time: the newest `createdAt` returned when no channel was cut
    /// short by `limit`, otherwise the `createdAt` of the oldest message left out; `since`
    /// itself when nothing was new.
    pub watermark: Instant,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChannelMessages {
    pub channel_id: String,
    pub channel_name: String,
    pub messages: Vec<Message>,
    /// More new messages wait in this channel beyond `limit`.
    pub more: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkippedChannel {
    pub channel_id: String,
    pub channel_name: String,
    pub reason: String,
}

pub(crate) const DEFAULT_LIMIT: u32 = 50;

pub fn catch_up(store: &Store, input: CatchUp, context: &OwnerContext) -> Result<CaughtUp> {
    let since = since_or_default(input.since);
    let limit = input.limit.unwrap_or(DEFAULT_LIMIT) as usize;
    store.read(|reader| {
        let mut channels = channels_in_scope(reader, context)?;
        if let Some(wanted) = &input.channel_id {
            channels.retain(|channel| channel.channel_id == wanted.as_str());
            if channels.is_empty() {
                return Err(match reader.channel(wanted.as_str())? {
                    Some(_) => Error::denied(format!(
                        "Channel {wanted} is outside the guilds in scope (DISCORD_GUILD_IDS)"
                    )),
                    None => {
                        Error::not_found(format!("No channel with id {wanted} is in the store"))
                    }
                });
            }
        }
        let owner = context.owner_view(reader)?;
        let mut result = CaughtUp {
            channels: Vec::new(),
            skipped_channels: Vec::new(),
            watermark: since,
        };
        let mut newest_returned: Option<Instant> = None;
        let mut oldest_left_out: Option<Instant> = None;
        for channel in channels {
            if let Some(reason) = unreadable_reason(channel.access) {
                result.skipped_channels.push(SkippedChannel {
                    channel_id: channel.channel_id,
                    channel_name: channel.name,
                    reason: reason.to_string(),
                });
                continue;
            }
            debug_assert_eq!(channel.access, ChannelAccess::Readable);
            let mut records =
                reader.channel_messages_since(&channel.channel_id, since, limit + 1)?;
            if records.is_empty() {
                continue;
            }
            let more = records.len() > limit;
            if more {
                let first_left_out = records[limit].created_at;
                oldest_left_out =
                    Some(oldest_left_out.map_or(first_left_out, |at| at.min(first_left_out)));
                records.truncate(limit);
            }
            if let Some(last) = records.last() {
                newest_returned =
                    Some(newest_returned.map_or(last.created_at, |at| at.max(last.created_at)));
            }
            result.channels.push(ChannelMessages {
                channel_id: channel.channel_id,
                channel_name: channel.name,
                messages: records
                    .iter()
                    .map(|record| Message::from_record(record, &owner))
                    .collect(),
                more,
            });
        }
        result.watermark = oldest_left_out.or(newest_returned).unwrap_or(since);
        Ok(result)
    })
}
