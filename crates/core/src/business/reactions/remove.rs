//! `reactions_remove`: the bot takes its reaction back; its input, the function and its
//! examples.

use discord_manager_sender::DiscordSender;
use discord_manager_store::Store;
use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::snowflake::MessageId;

use crate::business::OwnerContext;
use crate::business::kernel::examples::{Examples, Sample, demo};
use crate::business::kernel::model::Message;
use crate::business::reactions::react;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// Take back the bot's own reaction on a message, and get the message with its reactions as
/// the store recorded them. Refused before anything is sent, with the reason, under the same
/// rules as `messages_send`, and when the message is not in the store, was deleted, or has no
/// reaction of the bot with that emoji. Other people's reactions are never touched.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RemoveReaction {
    /// The message the bot reacted to.
    pub message_id: MessageId,
    /// The emoji of the bot's reaction, written as when it was added.
    pub emoji: String,
}

/// `reactions_remove`: see [`RemoveReaction`].
pub async fn remove_reaction(
    store: &Store,
    input: RemoveReaction,
    context: &OwnerContext,
    sender: Option<&dyn DiscordSender>,
) -> Result<Message> {
    react(
        store,
        &input.message_id,
        &input.emoji,
        false,
        context,
        sender,
    )
    .await
}

/// What [`remove_reaction`] is shown with: the demo takes back the bot's ✅ that the seed
/// added.
pub(crate) fn remove_reaction_examples(sample: &Sample) -> Examples {
    Examples {
        default: Some(json!({"messageId": sample.message, "emoji": "👍"})),
        largest: Vec::new(),
        demo: vec![json!({"messageId": demo::CI_BUILD, "emoji": "✅"})],
    }
}
