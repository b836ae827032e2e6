//! Recorders for reactions: added, removed, all cleared, one emoji cleared.

use serenity::model::channel::{Reaction, ReactionType};
use serenity::model::id::{ChannelId, MessageId};

use super::Recorded;
use crate::error::Result;
use crate::store::{ReactionChange, Store};

/// A Unicode emoji as itself, a custom one as Discord writes it in a message (`<:name:id>`).
pub(crate) fn emoji_text(emoji: &ReactionType) -> String {
    match emoji {
        ReactionType::Unicode(text) => text.clone(),
        ReactionType::Custom { animated, id, name } => format!(
            "<{}:{}:{id}>",
            if *animated { "a" } else { "" },
            name.as_deref().unwrap_or("emoji")
        ),
        _ => "?".to_string(),
    }
}

fn record(store: &Store, change: ReactionChange) -> Result<Recorded> {
    store.write(|writer| Ok(writer.record_reaction(&change)?.into()))
}

/// MESSAGE_REACTION_ADD.
pub fn record_reaction_added(store: &Store, reaction: &Reaction) -> Result<Recorded> {
    let Some(user) = reaction.user_id else {
        return Ok(Recorded::Ignored);
    };
    record(
        store,
        ReactionChange::Add {
            message_id: reaction.message_id.to_string(),
            channel_id: reaction.channel_id.to_string(),
            user_id: user.to_string(),
            emoji: emoji_text(&reaction.emoji),
        },
    )
}

/// MESSAGE_REACTION_REMOVE.
pub fn record_reaction_removed(store: &Store, reaction: &Reaction) -> Result<Recorded> {
    let Some(user) = reaction.user_id else {
        return Ok(Recorded::Ignored);
    };
    record(
        store,
        ReactionChange::Remove {
            message_id: reaction.message_id.to_string(),
            channel_id: reaction.channel_id.to_string(),
            user_id: user.to_string(),
            emoji: emoji_text(&reaction.emoji),
        },
    )
}

/// MESSAGE_REACTION_REMOVE_ALL.
pub fn record_reactions_cleared(
    store: &Store,
    channel_id: ChannelId,
    message_id: MessageId,
) -> Result<Recorded> {
    record(
        store,
        ReactionChange::Clear {
            message_id: message_id.to_string(),
            channel_id: channel_id.to_string(),
        },
    )
}

/// MESSAGE_REACTION_REMOVE_EMOJI.
pub fn record_reaction_emoji_cleared(store: &Store, reaction: &Reaction) -> Result<Recorded> {
    record(
        store,
        ReactionChange::ClearEmoji {
            message_id: reaction.message_id.to_string(),
            channel_id: reaction.channel_id.to_string(),
            emoji: emoji_text(&reaction.emoji),
        },
    )
}
