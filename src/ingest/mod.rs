//! Ingestion: Discord's own event payloads (serenity's model types, deserialized from
//! Discord's JSON) turned into store rows.
//!
//! The live gateway, a backfill, a sent message and the scripted feed of the demo seed all
//! come through these recorders, so they share one code path. Every recorder is idempotent
//! (the same event twice is recorded once) and order-tolerant (an edit, deletion or reaction
//! that arrives before its message is kept and applies once the message is there).
//! Recorders are public business functions of the daemon, exempt from the capability registry.

pub mod channels;
pub mod direct;
pub mod extras;
pub mod feed;
pub mod guilds;
pub mod history;
pub mod messages;
pub mod reactions;
pub mod sent;

use serenity::model::event::Event;

use crate::error::Result;
use crate::store::{Store, Writer};
use crate::vocabulary::word_enum;

word_enum! {
    /// Where an event came from; kept on each message row.
    pub enum Origin {
        Gateway = "gateway",
        Backfill = "backfill",
        Sent = "sent",
        Seed = "seed",
        /// History from before the store began covering the channel, imported by the daemon
        /// and sent more than a day before that point: history, never news (the store's news
        /// readers and arrival indexes leave out `origin = 'import'`).
        Import = "import",
        /// Imported history from the last day before the store began covering the channel:
        /// like a backfill, it counts as new when it arrives.
        ImportRecent = "import-recent",
    }
}

/// Whether an event changed the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    /// New rows were written.
    Stored,
    /// Everything in it was already known (a replay, or a second sighting).
    AlreadyKnown,
    /// Not an event the store keeps (typing, presence, …).
    Ignored,
}

impl From<bool> for Recorded {
    fn from(stored: bool) -> Recorded {
        if stored {
            Recorded::Stored
        } else {
            Recorded::AlreadyKnown
        }
    }
}

/// Records one gateway dispatch through the recorder for its kind, in a transaction of its own.
pub fn record_event(store: &Store, event: &Event, origin: Origin) -> Result<Recorded> {
    store.write(|writer| record_event_in(writer, event, origin))
}

/// Records several gateway dispatches in one transaction, in order: what a daemon does with
/// the events that queued up while the previous commit was being written, so a burst costs
/// one commit instead of one per event. All or nothing: if one event fails, none is kept
/// (record them one by one to find the one that fails).
pub fn record_events(store: &Store, events: &[Event], origin: Origin) -> Result<Vec<Recorded>> {
    store.write(|writer| {
        events
            .iter()
            .map(|event| record_event_in(writer, event, origin))
            .collect()
    })
}

/// Records one gateway dispatch inside a write transaction the caller holds: the single path
/// of [`record_event`], [`record_events`] and the synthetic store generator, so batching
/// callers record exactly what one-by-one callers do.
pub fn record_event_in(writer: &mut Writer<'_>, event: &Event, origin: Origin) -> Result<Recorded> {
    match event {
        Event::Ready(ready) => guilds::record_ready_in(writer, &ready.ready),
        Event::GuildCreate(create) => guilds::record_guild_in(writer, &create.guild),
        Event::GuildUpdate(update) => guilds::record_guild_update_in(writer, &update.guild),
        Event::GuildDelete(delete) => guilds::record_guild_removed_in(writer, &delete.guild),
        Event::GuildRoleCreate(create) => guilds::record_role_in(writer, &create.role),
        Event::GuildRoleUpdate(update) => guilds::record_role_in(writer, &update.role),
        Event::GuildRoleDelete(delete) => {
            guilds::record_role_deleted_in(writer, delete.guild_id, delete.role_id)
        }
        Event::GuildMemberUpdate(update) => guilds::record_member_update_in(writer, update),
        Event::ChannelCreate(create) => channels::record_channel_event_in(writer, &create.channel),
        Event::ChannelUpdate(update) => channels::record_channel_event_in(writer, &update.channel),
        Event::ChannelDelete(delete) => {
            channels::record_channel_deleted_in(writer, &delete.channel)
        }
        Event::ThreadCreate(create) => channels::record_channel_event_in(writer, &create.thread),
        Event::ThreadUpdate(update) => channels::record_channel_event_in(writer, &update.thread),
        Event::ThreadDelete(delete) => channels::record_thread_deleted_in(writer, &delete.thread),
        Event::ThreadListSync(sync) => channels::record_thread_list_in(writer, &sync.threads),
        Event::MessageCreate(create) => {
            messages::record_message_in(writer, &create.message, origin)
        }
        Event::MessageUpdate(update) => messages::record_message_update_in(writer, update),
        Event::MessageDelete(delete) => {
            messages::record_message_deleted_in(writer, delete.channel_id, delete.message_id)
        }
        Event::MessageDeleteBulk(bulk) => {
            messages::record_messages_bulk_deleted_in(writer, bulk.channel_id, &bulk.ids)
        }
        Event::ReactionAdd(add) => reactions::record_reaction_added_in(writer, &add.reaction),
        Event::ReactionRemove(remove) => {
            reactions::record_reaction_removed_in(writer, &remove.reaction)
        }
        Event::ReactionRemoveAll(all) => {
            reactions::record_reactions_cleared_in(writer, all.channel_id, all.message_id)
        }
        Event::ReactionRemoveEmoji(emoji) => {
            reactions::record_reaction_emoji_cleared_in(writer, &emoji.reaction)
        }
        Event::MessagePollVoteAdd(vote) => extras::record_poll_vote_in(
            writer,
            vote.message_id,
            vote.channel_id,
            vote.user_id,
            vote.answer_id,
            true,
        ),
        Event::MessagePollVoteRemove(vote) => extras::record_poll_vote_in(
            writer,
            vote.message_id,
            vote.channel_id,
            vote.user_id,
            vote.answer_id,
            false,
        ),
        _ => Ok(Recorded::Ignored),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Recorded;
    use crate::business::messages::{CatchUp, catch_up};
    use crate::instant::Instant;
    use crate::store::ChannelAccess;
    use crate::test_fixtures::{BOT_ID, VIEW, World, dispatch, new_id};

    fn messages_of(world: &World, channel: &str) -> Vec<crate::business::model::MessageBody> {
        let input = CatchUp {
            since: Some(Instant::from_micros(0)),
            channel_id: crate::business::model::DiscordId::parse(channel),
            limit: Some(500),
            cursor: None,
            from_read_markers: None,
        };
        let result = catch_up(&world.store, input, &world.context()).unwrap();
        result
            .channels
            .into_iter()
            .flat_map(|channel| channel.messages)
            .collect()
    }

    fn access(world: &World, channel: &str) -> ChannelAccess {
        world
            .store
            .read(|reader| reader.channel(channel))
            .unwrap()
            .unwrap()
            .access
    }

    #[test]
    fn a_replayed_message_is_recorded_once() {
        let world = World::new();
        let channel = world.channel("general");
        let id = new_id();
        let payload = world.message_payload(&id, &channel, "7", "once", json!({}));
        assert_eq!(
            dispatch(&world.store, "MESSAGE_CREATE", payload.clone()),
            Recorded::Stored
        );
        assert_eq!(
            dispatch(&world.store, "MESSAGE_CREATE", payload),
            Recorded::AlreadyKnown
        );
        assert_eq!(messages_of(&world, &channel).len(), 1);
    }

    #[test]
    fn replayed_edits_deletions_and_reactions_are_recorded_once() {
        let world = World::new();
        let channel = world.channel("general");
        let id = world.post(&channel, "7", "v1", json!({}));
        assert_eq!(
            world.edit(&channel, &id, "v2", "2026-11-29T12:00:00Z"),
            Recorded::Stored
        );
        assert_eq!(
            world.edit(&channel, &id, "v2", "2026-11-29T12:00:00Z"),
            Recorded::AlreadyKnown
        );
        assert_eq!(
            world.react("MESSAGE_REACTION_ADD", &channel, &id, "8", "👍"),
            Recorded::Stored
        );
        assert_eq!(
            world.react("MESSAGE_REACTION_ADD", &channel, &id, "8", "👍"),
            Recorded::AlreadyKnown
        );
        assert_eq!(
            world.react("MESSAGE_REACTION_REMOVE", &channel, &id, "9", "👍"),
            Recorded::AlreadyKnown
        );
        assert_eq!(world.delete(&channel, &id), Recorded::Stored);
        assert_eq!(world.delete(&channel, &id), Recorded::AlreadyKnown);
        let message = &messages_of(&world, &channel)[0];
        assert_eq!(message.content, "v2");
        assert_eq!(message.reactions[0].count, 1);
        assert!(message.deleted);
    }

    #[test]
    fn an_edit_and_a_reaction_that_arrive_before_their_message_are_applied() {
        let world = World::new();
        let channel = world.channel("general");
        let id = new_id();
        assert_eq!(
            world.edit(&channel, &id, "the edited text", "2026-11-29T12:00:00Z"),
            Recorded::Stored
        );
        assert_eq!(
            world.react("MESSAGE_REACTION_ADD", &channel, &id, "8", "🎉"),
            Recorded::Stored
        );
        dispatch(
            &world.store,
            "MESSAGE_CREATE",
            world.message_payload(&id, &channel, "7", "the first text", json!({})),
        );
        let message = &messages_of(&world, &channel)[0];
        assert_eq!(message.content, "the edited text");
        assert_eq!(message.edited_at, Instant::parse("2026-11-29T12:00:00Z"));
        assert_eq!(message.reactions[0].emoji, "🎉");
    }

    #[test]
    fn edits_apply_in_discords_order_whatever_order_they_arrive_in() {
        let world = World::new();
        let channel = world.channel("general");
        let id = world.post(&channel, "7", "v1", json!({}));
        world.edit(&channel, &id, "v3", "2026-11-29T13:00:00Z");
        world.edit(&channel, &id, "v2", "2026-11-29T12:00:00Z");
        assert_eq!(messages_of(&world, &channel)[0].content, "v3");
    }

    #[test]
    fn an_update_without_an_edit_timestamp_is_not_an_edit() {
        let world = World::new();
        let channel = world.channel("general");
        let id = world.post(&channel, "7", "v1", json!({}));
        let recorded = dispatch(
            &world.store,
            "MESSAGE_UPDATE",
            json!({"id": id, "channel_id": channel, "guild_id": world.guild_id, "embeds": []}),
        );
        // Its (empty) embeds are what the message already had: nothing to write.
        assert_eq!(recorded, Recorded::AlreadyKnown);
        assert_eq!(messages_of(&world, &channel)[0].edited_at, None);
    }

    #[test]
    fn a_bulk_deletion_deletes_every_message_named() {
        let world = World::new();
        let channel = world.channel("general");
        let first = world.post(&channel, "7", "a", json!({}));
        let second = world.post(&channel, "7", "b", json!({}));
        let kept = world.post(&channel, "7", "c", json!({}));
        dispatch(
            &world.store,
            "MESSAGE_DELETE_BULK",
            json!({"ids": [first, second], "channel_id": channel, "guild_id": world.guild_id}),
        );
        let deleted: Vec<bool> = messages_of(&world, &channel)
            .iter()
            .map(|m| m.deleted)
            .collect();
        assert_eq!(deleted, vec![true, true, false]);
        assert!(
            !messages_of(&world, &channel)
                .iter()
                .any(|m| m.message_id == kept && m.deleted)
        );
    }

    #[test]
    fn clearing_reactions_removes_them_all_or_one_emoji() {
        let world = World::new();
        let channel = world.channel("general");
        let id = world.post(&channel, "7", "react", json!({}));
        world.react("MESSAGE_REACTION_ADD", &channel, &id, "8", "👍");
        world.react("MESSAGE_REACTION_ADD", &channel, &id, "8", "🎉");
        // Exactly as Discord sends it: without the `burst` and `type` serenity 0.12.5 requires.
        dispatch(
            &world.store,
            "MESSAGE_REACTION_REMOVE_EMOJI",
            json!({"channel_id": channel, "message_id": id, "guild_id": world.guild_id, "emoji": {"id": null, "name": "👍"}}),
        );
        let reactions = &messages_of(&world, &channel)[0].reactions;
        assert_eq!(
            reactions
                .iter()
                .map(|r| r.emoji.as_str())
                .collect::<Vec<_>>(),
            vec!["🎉"]
        );
        dispatch(
            &world.store,
            "MESSAGE_REACTION_REMOVE_ALL",
            json!({"channel_id": channel, "message_id": id, "guild_id": world.guild_id}),
        );
        assert_eq!(messages_of(&world, &channel)[0].reactions.len(), 0);
    }

    #[test]
    fn readability_follows_role_changes_and_threads_follow_their_parent() {
        let world = World::new();
        let channel = world.channel("general");
        let thread = new_id();
        dispatch(
            &world.store,
            "THREAD_CREATE",
            world.channel_payload(&thread, "t", 11, Some(&channel), json!([])),
        );
        assert_eq!(access(&world, &channel), ChannelAccess::Readable);
        // @everyone loses View Channel: the channel and its thread become unreadable.
        dispatch(
            &world.store,
            "GUILD_ROLE_UPDATE",
            json!({"guild_id": world.guild_id, "role": {"id": world.guild_id, "name": "@everyone", "color": 0,
                "colors": {"primary_color": 0, "secondary_color": null, "tertiary_color": null},
                "hoist": false, "managed": false, "mentionable": false, "permissions": "65536", "position": 0, "flags": 0}}),
        );
        assert_eq!(access(&world, &channel), ChannelAccess::NoView);
        assert_eq!(access(&world, &thread), ChannelAccess::NoView);
        // The bot is given a role that may view: readable again.
        let role = new_id();
        dispatch(
            &world.store,
            "GUILD_ROLE_CREATE",
            json!({"guild_id": world.guild_id, "role": {"id": role, "name": "bots", "color": 0,
                "colors": {"primary_color": 0, "secondary_color": null, "tertiary_color": null},
                "hoist": false, "managed": false, "mentionable": false, "permissions": VIEW.to_string(), "position": 1, "flags": 0}}),
        );
        dispatch(
            &world.store,
            "GUILD_MEMBER_UPDATE",
            json!({"guild_id": world.guild_id, "roles": [role], "user": {"id": BOT_ID, "username": "keeper", "discriminator": "0", "avatar": null, "bot": true},
                   "joined_at": "2026-01-01T00:00:00Z", "deaf": false, "mute": false, "pending": false, "flags": 0}),
        );
        assert_eq!(access(&world, &channel), ChannelAccess::Readable);
        assert_eq!(access(&world, &thread), ChannelAccess::Readable);
    }

    #[test]
    fn a_guild_outage_is_not_a_removal() {
        let world = World::new();
        let recorded = dispatch(
            &world.store,
            "GUILD_DELETE",
            json!({"id": world.guild_id, "unavailable": true}),
        );
        assert_eq!(recorded, Recorded::Ignored);
        let recorded = dispatch(&world.store, "GUILD_DELETE", json!({"id": world.guild_id}));
        assert_eq!(recorded, Recorded::Stored);
        assert!(
            world
                .store
                .read(|reader| reader.guild(&world.guild_id))
                .unwrap()
                .unwrap()
                .removed
        );
    }
}
