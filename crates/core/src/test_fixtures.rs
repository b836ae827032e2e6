//! What the unit-test world needs of the core's own types: the owner context scoped to a
//! world's guild. The world itself (a guild per test in the shared unit-test store, the
//! scripted Discord, the ids helpers) is the playback crate's, which knows no core type; a
//! test brings [`WorldContext`] into scope and reads `world.context()`.

use discord_manager_playback::world::World;

use crate::business::{OwnerContext, Source};
use crate::config::GuildScope;

/// A world's owner contexts.
pub trait WorldContext {
    /// The owner's context, scoped to this world's guild.
    fn context(&self) -> OwnerContext;

    /// The owner's context in a deployment that may send: a token is configured.
    fn sending_context(&self) -> OwnerContext;
}

impl WorldContext for World {
    fn context(&self) -> OwnerContext {
        OwnerContext::with_unset_settings(
            Some(self.owner_id),
            GuildScope::only(vec![self.guild_id]),
            Source::Cli,
        )
    }

    fn sending_context(&self) -> OwnerContext {
        OwnerContext {
            token_configured: true,
            ..self.context()
        }
    }
}
