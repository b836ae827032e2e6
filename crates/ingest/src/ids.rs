//! Serenity's ids as the vocabulary's: each kind of serenity id turns into the vocabulary's id
//! of the same kind (`message.channel_id.typed()` is a
//! [`discord_manager_vocabulary::snowflake::ChannelId`]), so a recorder never writes an id
//! as text and never mistakes one kind for another.
//!
//! A trait of this crate's, since the orphan rule forbids `From` between two foreign types.
//! Serenity holds every id as a non-zero number, so the conversion cannot fail.

use std::num::NonZeroU64;

use discord_manager_vocabulary::snowflake;
use serenity::model::id;

/// A serenity id that is one of the vocabulary's kinds.
pub trait TypedId {
    /// The vocabulary's id of the same kind.
    type Id;
    /// This id as the vocabulary's.
    fn typed(self) -> Self::Id;
}

macro_rules! typed_id {
    ($($serenity:ident => $vocabulary:ident),* $(,)?) => {
        $(
            impl TypedId for id::$serenity {
                type Id = snowflake::$vocabulary;
                fn typed(self) -> snowflake::$vocabulary {
                    snowflake::$vocabulary::from_nonzero(NonZeroU64::from(self))
                }
            }

            impl TypedId for &id::$serenity {
                type Id = snowflake::$vocabulary;
                fn typed(self) -> snowflake::$vocabulary {
                    (*self).typed()
                }
            }
        )*
    };
}

typed_id! {
    ChannelId => ChannelId,
    MessageId => MessageId,
    GuildId => GuildId,
    UserId => UserId,
    RoleId => RoleId,
    AttachmentId => AttachmentId,
    ApplicationId => ApplicationId,
    WebhookId => WebhookId,
    EmojiId => EmojiId,
    StickerId => StickerId,
    ForumTagId => TagId,
}

/// A permission overwrite's target, whose kind the overwrite says: the vocabulary's
/// kind-free id.
pub(crate) fn overwrite_target(target: impl Into<NonZeroU64>) -> snowflake::DiscordId {
    snowflake::DiscordId::from_nonzero(target.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_serenity_id_becomes_the_vocabularys_of_its_kind_with_the_same_digits() {
        let channel: snowflake::ChannelId = id::ChannelId::new(1_189_078_123_456_789_012).typed();
        assert_eq!(channel.to_string(), "1189078123456789012");
        let role: snowflake::RoleId = id::RoleId::new(7).typed();
        assert_eq!(role.to_string(), "7");
        assert_eq!(overwrite_target(id::UserId::new(9)).to_string(), "9");
    }
}
