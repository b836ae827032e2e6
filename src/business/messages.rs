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
/// Use `mentions_list` instead for only what mentions the owner.
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::test_fixtures::{VIEW, World};

    fn catch_up_from(world: &World, since: Instant, limit: Option<u32>) -> CaughtUp {
        let input = CatchUp {
            since: Some(since),
            channel_id: None,
            limit,
        };
        catch_up(&world.store, input, &world.context()).unwrap()
    }

    fn ids(channel: &ChannelMessages) -> Vec<&str> {
        channel
            .messages
            .iter()
            .map(|message| message.message_id.as_str())
            .collect()
    }

    #[test]
    fn includes_a_message_that_arrived_exactly_at_since_and_not_one_a_microsecond_earlier() {
        let world = World::new();
        let channel = world.channel("general");
        let first = world.post(&channel, "7", "first", json!({}));
        let second = world.post(&channel, "7", "second", json!({}));
        let everything = catch_up_from(&world, Instant::from_micros(0), None);
        assert_eq!(
            ids(&everything.channels[0]),
            vec![first.as_str(), second.as_str()]
        );
        let second_arrived = everything.channels[0].messages[1].created_at;

        let at_boundary = catch_up_from(&world, second_arrived, None);
        assert_eq!(ids(&at_boundary.channels[0]), vec![second.as_str()]);

        let just_after = catch_up_from(&world, second_arrived.plus_micros(1), None);
        assert_eq!(just_after.channels.len(), 0);
        assert_eq!(just_after.watermark, second_arrived.plus_micros(1));
    }

    #[test]
    fn the_watermark_is_the_oldest_message_left_out_when_a_channel_is_cut_short() {
        let world = World::new();
        let busy = world.channel("busy");
        let quiet = world.channel("quiet");
        let kept = [
            world.post(&busy, "7", "one", json!({})),
            world.post(&busy, "7", "two", json!({})),
        ];
        let left_out = world.post(&busy, "7", "three", json!({}));
        let later = world.post(&quiet, "7", "later", json!({}));
        let result = catch_up_from(&world, Instant::from_micros(0), Some(2));
        let busy_result = result
            .channels
            .iter()
            .find(|c| c.channel_id == busy)
            .unwrap();
        assert_eq!(ids(busy_result), vec![kept[0].as_str(), kept[1].as_str()]);
        assert!(busy_result.more);
        let quiet_result = result
            .channels
            .iter()
            .find(|c| c.channel_id == quiet)
            .unwrap();
        assert_eq!(ids(quiet_result), vec![later.as_str()]);
        assert!(!quiet_result.more);

        let next = catch_up_from(&world, result.watermark, Some(2));
        let busy_next = next.channels.iter().find(|c| c.channel_id == busy).unwrap();
        assert_eq!(ids(busy_next), vec![left_out.as_str()]);
        let quiet_next = next
            .channels
            .iter()
            .find(|c| c.channel_id == quiet)
            .unwrap();
        assert_eq!(
            ids(quiet_next),
            vec![later.as_str()],
            "re-read, never skipped"
        );
    }

    #[test]
    fn the_watermark_is_the_newest_message_returned_when_nothing_was_cut_short() {
        let world = World::new();
        let channel = world.channel("general");
        world.post(&channel, "7", "one", json!({}));
        world.post(&channel, "7", "two", json!({}));
        let result = catch_up_from(&world, Instant::from_micros(0), None);
        assert_eq!(result.watermark, result.channels[0].messages[1].created_at);
    }

    #[test]
    fn skips_channels_the_bot_cannot_read_and_says_why() {
        let world = World::new();
        let hidden = world.channel_with(
            "hidden",
            json!([{"id": world.guild_id, "type": 0, "allow": "0", "deny": VIEW.to_string()}]),
        );
        world.post(&hidden, "7", "not for the bot", json!({}));
        let result = catch_up_from(&world, Instant::from_micros(0), None);
        assert_eq!(result.channels.len(), 0);
        assert_eq!(
            result.skipped_channels,
            vec![SkippedChannel {
                channel_id: hidden,
                channel_name: "hidden".to_string(),
                reason: "the bot cannot view this channel (View Channel is denied)".to_string(),
            }]
        );
    }

    #[test]
    fn shows_the_current_content_with_edits_deletions_reactions_and_reply_target() {
        let world = World::new();
        let channel = world.channel("general");
        let original = world.post(&channel, "7", "v1", json!({}));
        let reply = world.post(
            &channel,
            "8",
            "a reply",
            json!({"type": 19, "message_reference": {"message_id": original, "channel_id": channel}}),
        );
        world.edit(&channel, &original, "v2", "2026-11-29T11:00:00Z");
        world.react("MESSAGE_REACTION_ADD", &channel, &original, "8", "🎉");
        world.react("MESSAGE_REACTION_ADD", &channel, &original, "9", "🎉");
        world.delete(&channel, &reply);
        let result = catch_up_from(&world, Instant::from_micros(0), None);
        let messages = &result.channels[0].messages;
        assert_eq!(messages[0].content, "v2");
        assert_eq!(
            messages[0].edited_at,
            Instant::parse("2026-11-29T11:00:00Z")
        );
        assert_eq!(
            messages[0].reactions,
            vec![crate::business::model::Reaction {
                emoji: "🎉".into(),
                count: 2
            }]
        );
        assert!(!messages[0].deleted);
        assert!(messages[1].deleted);
        assert_eq!(
            messages[1].reply_to_message_id.as_deref(),
            Some(original.as_str())
        );
    }

    #[test]
    fn a_channel_that_is_not_stored_is_not_found_and_one_out_of_scope_is_denied() {
        let world = World::new();
        let elsewhere = World::new();
        let foreign = elsewhere.channel("theirs");
        let missing = crate::test_fixtures::new_id();
        let ask = |id: &str| {
            let input = CatchUp {
                channel_id: DiscordId::parse(id),
                ..CatchUp::default()
            };
            catch_up(&world.store, input, &world.context()).unwrap_err()
        };
        let error = ask(&missing);
        assert_eq!(
            error.message(),
            format!("No channel with id {missing} is in the store")
        );
        assert_eq!(error.kind(), crate::ErrorKind::NotFound);
        let error = ask(&foreign);
        assert_eq!(
            error.message(),
            format!("Channel {foreign} is outside the guilds in scope (DISCORD_GUILD_IDS)")
        );
        assert_eq!(error.kind(), crate::ErrorKind::Denied);
    }
}
