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
mod discord_time;
pub mod extras;
pub mod feed;
pub mod guilds;
pub mod history;
pub mod ids;
pub mod kept_payload;
pub mod messages;
mod payload;
pub mod reactions;
pub mod sent;

use discord_manager_store::{Store, Writer};
use discord_manager_vocabulary::error::Result;
use serde_json::Value;
use serenity::model::event::Event;

/// Where an event came from: a word of the store's, since its news readers leave imported
/// history out by it.
pub use discord_manager_store::Origin;

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
    record_dispatch_in(writer, event, None, origin)
}

/// Records one gateway dispatch with its data (`d`) as Discord sent it, which holds what
/// serenity's event drops (a Components V2 post's text, every flag bit), in a transaction of
/// its own.
pub fn record_dispatch(
    store: &Store,
    event: &Event,
    data: Option<&Value>,
    origin: Origin,
) -> Result<Recorded> {
    store.write(|writer| record_dispatch_in(writer, event, data, origin))
}

/// Several dispatches, each with its data when known, in one transaction, in order: what
/// [`record_events`] does, with Discord's JSON beside serenity's events.
pub fn record_dispatches(
    store: &Store,
    dispatches: &[(Event, Option<Value>)],
    origin: Origin,
) -> Result<Vec<Recorded>> {
    store.write(|writer| {
        dispatches
            .iter()
            .map(|(event, data)| record_dispatch_in(writer, event, data.as_ref(), origin))
            .collect()
    })
}

/// [`record_dispatch`] inside a write transaction the caller holds.
pub fn record_dispatch_in(
    writer: &mut Writer<'_>,
    event: &Event,
    data: Option<&Value>,
    origin: Origin,
) -> Result<Recorded> {
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
            messages::record_message_in(writer, &create.message, data, origin)
        }
        Event::MessageUpdate(update) => messages::record_message_update_in(writer, update, data),
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
