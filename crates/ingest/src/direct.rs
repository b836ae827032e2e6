//! Direct-message channels: Discord sends no CHANNEL_CREATE for them, so the daemon records
//! one the first time a message shows it.

use discord_manager_store::{ChannelKind, ChannelRecord, Store};
use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::permissions::ChannelAccess;
use serenity::model::id::ChannelId;
use serenity::model::user::User;

use super::Recorded;
use crate::ids::TypedId;

/// A direct-message channel seen in a message: recorded once, readable (the bot is in it),
/// named after the other person when the message is theirs.
pub fn record_direct_channel(
    store: &Store,
    channel_id: ChannelId,
    other: Option<&User>,
) -> Result<Recorded> {
    store.write(|writer| {
        let channel_id = channel_id.typed();
        if writer.reader().channel(&channel_id)?.is_some() {
            return Ok(Recorded::AlreadyKnown);
        }
        let name = other.map_or_else(
            || "direct message".to_string(),
            |user| format!("@{}", user.name),
        );
        let record = ChannelRecord {
            channel_id,
            guild_id: None,
            parent_id: None,
            name,
            kind: ChannelKind::Dm,
            overwrites: Vec::new(),
            access: ChannelAccess::Readable,
            removed: false,
            tags: Vec::new(),
        };
        Ok(writer.record_channel(&record)?.into())
    })
}
