//! Ingestion: Discord's own event payloads (serenity's model types, deserialized from
//! Discord's JSON) turned into store rows.
//!
//! The live gateway, a backfill, a sent message and the scripted feed of the demo seed all
//! come through these recorders, so they share one code path. Every recorder is idempotent
//! (the same event twice is recorded once) and order-tolerant (an edit, deletion or reaction
//! that arrives before its message is kept and applies once the message is there).
//! Recorders are public business functions of the daemon, exempt from the capability registry.

pub mod channels;
pub mod feed;
pub mod guilds;
pub mod messages;
mod permissions;
pub mod reactions;

use serenity::model::event::Event;

use crate::error::Result;
use crate::store::Store;

/// Where an event came from; kept on each message row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Gateway,
    Backfill,
    Sent,
    Seed,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Gateway => "gateway",
            Origin::Backfill => "backfill",
            Origin::Sent => "sent",
            Origin::Seed => "seed",
        }
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

/// Records one gateway dispatch through the recorder for its kind.
pub fn record_event(store: &Store, event: &Event, origin: Origin) -> Result<Recorded> {
    match event {
        Event::Ready(ready) => guilds::record_ready(store, &ready.ready),
        Event::GuildCreate(create) => guilds::record_guild(store, &create.guild),
        Event::GuildUpdate(update) => guilds::record_guild_update(store, &update.guild),
        Event::GuildDelete(delete) => guilds::record_guild_removed(store, &delete.guild),
        Event::GuildRoleCreate(create) => guilds::record_role(store, &create.role),
        Event::GuildRoleUpdate(update) => guilds::record_role(store, &update.role),
        Event::GuildRoleDelete(delete) => {
            guilds::record_role_deleted(store, delete.guild_id, delete.role_id)
        }
        Event::GuildMemberUpdate(update) => guilds::record_member_update(store, update),
        Event::ChannelCreate(create) => channels::record_channel(store, &create.channel),
        Event::ChannelUpdate(update) => channels::record_channel(store, &update.channel),
        Event::ChannelDelete(delete) => channels::record_channel_deleted(store, &delete.channel),
        Event::ThreadCreate(create) => channels::record_channel(store, &create.thread),
        Event::ThreadUpdate(update) => channels::record_channel(store, &update.thread),
        Event::ThreadDelete(delete) => channels::record_thread_deleted(store, &delete.thread),
        Event::ThreadListSync(sync) => channels::record_thread_list(store, &sync.threads),
        Event::MessageCreate(create) => messages::record_message(store, &create.message, origin),
        Event::MessageUpdate(update) => messages::record_message_update(store, update),
        Event::MessageDelete(delete) => {
            messages::record_message_deleted(store, delete.channel_id, delete.message_id)
        }
        Event::MessageDeleteBulk(bulk) => {
            messages::record_messages_bulk_deleted(store, bulk.channel_id, &bulk.ids)
        }
        Event::ReactionAdd(add) => reactions::record_reaction_added(store, &add.reaction),
        Event::ReactionRemove(remove) => {
            reactions::record_reaction_removed(store, &remove.reaction)
        }
        Event::ReactionRemoveAll(all) => {
            reactions::record_reactions_cleared(store, all.channel_id, all.message_id)
        }
        Event::ReactionRemoveEmoji(emoji) => {
            reactions::record_reaction_emoji_cleared(store, &emoji.reaction)
        }
        _ => Ok(Recorded::Ignored),
    }
}
