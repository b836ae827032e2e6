//! The bot's own reactions: `reactions_add` and `reactions_remove`, checked and sent like the
//! bot's other follow-up actions (`business::actions`).

use super::OwnerContext;
use super::actions::{self, AddReaction, RemoveReaction};
use super::model::Message;
use super::outbox::DiscordSender;
use crate::error::Result;
use crate::store::Store;

/// `reactions_add`: see [`AddReaction`].
pub async fn add_reaction(
    store: &Store,
    input: AddReaction,
    context: &OwnerContext,
    sender: Option<&dyn DiscordSender>,
) -> Result<Message> {
    actions::add_reaction(store, input, context, sender).await
}

/// `reactions_remove`: see [`RemoveReaction`].
pub async fn remove_reaction(
    store: &Store,
    input: RemoveReaction,
    context: &OwnerContext,
    sender: Option<&dyn DiscordSender>,
) -> Result<Message> {
    actions::remove_reaction(store, input, context, sender).await
}
