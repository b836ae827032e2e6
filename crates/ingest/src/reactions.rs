//! Recorders for reactions: added, removed, all cleared, one emoji cleared.

use discord_manager_store::{ReactionChange, Writer};
use discord_manager_vocabulary::error::Result;
use serenity::model::channel::{Reaction, ReactionType};
use serenity::model::id::{ChannelId, MessageId};

use super::Recorded;
use crate::ids::TypedId;

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

fn record_in(writer: &mut Writer<'_>, change: Option<ReactionChange>) -> Result<Recorded> {
    match change {
        Some(change) => Ok(writer.record_reaction(&change)?.into()),
        None => Ok(Recorded::Ignored),
    }
}

fn added(reaction: &Reaction) -> Option<ReactionChange> {
    Some(ReactionChange::Add {
        message_id: reaction.message_id.typed(),
        channel_id: reaction.channel_id.typed(),
        user_id: reaction.user_id?.typed(),
        emoji: emoji_text(&reaction.emoji),
    })
}

fn removed(reaction: &Reaction) -> Option<ReactionChange> {
    Some(ReactionChange::Remove {
        message_id: reaction.message_id.typed(),
        channel_id: reaction.channel_id.typed(),
        user_id: reaction.user_id?.typed(),
        emoji: emoji_text(&reaction.emoji),
    })
}

fn cleared(channel_id: ChannelId, message_id: MessageId) -> Option<ReactionChange> {
    Some(ReactionChange::Clear {
        message_id: message_id.typed(),
        channel_id: channel_id.typed(),
    })
}

fn emoji_cleared(reaction: &Reaction) -> Option<ReactionChange> {
    Some(ReactionChange::ClearEmoji {
        message_id: reaction.message_id.typed(),
        channel_id: reaction.channel_id.typed(),
        emoji: emoji_text(&reaction.emoji),
    })
}

pub(super) fn record_reaction_added_in(
    writer: &mut Writer<'_>,
    reaction: &Reaction,
) -> Result<Recorded> {
    record_in(writer, added(reaction))
}

pub(super) fn record_reaction_removed_in(
    writer: &mut Writer<'_>,
    reaction: &Reaction,
) -> Result<Recorded> {
    record_in(writer, removed(reaction))
}

pub(super) fn record_reactions_cleared_in(
    writer: &mut Writer<'_>,
    channel_id: ChannelId,
    message_id: MessageId,
) -> Result<Recorded> {
    record_in(writer, cleared(channel_id, message_id))
}

pub(super) fn record_reaction_emoji_cleared_in(
    writer: &mut Writer<'_>,
    reaction: &Reaction,
) -> Result<Recorded> {
    record_in(writer, emoji_cleared(reaction))
}
