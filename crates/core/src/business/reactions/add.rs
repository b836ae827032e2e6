//! `reactions_add`: the bot reacts to a stored message; its input, the function and its
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

/// React to a message as the bot (to acknowledge it without a reply), and get the message with
/// its reactions as the store recorded them. Refused before anything is sent, with the
/// reason, under the same rules as `messages_send` (no token, read-only mode, a channel outside
/// DISCORD_MANAGER_SEND_CHANNELS; from an assistant, any channel when that list is unset), and
/// when the message is not in the store, was deleted, or already has the bot's reaction with
/// that emoji.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AddReaction {
    /// The message to react to.
    pub message_id: MessageId,
    /// One emoji (👍), or a custom emoji of the guild as name:id or <:name:id> (<a:name:id>
    /// for an animated one).
    pub emoji: String,
}

/// `reactions_add`: see [`AddReaction`].
pub async fn add_reaction(
    store: &Store,
    input: AddReaction,
    context: &OwnerContext,
    sender: Option<&dyn DiscordSender>,
) -> Result<Message> {
    react(
        store,
        &input.message_id,
        &input.emoji,
        true,
        context,
        sender,
    )
    .await
}

/// What [`add_reaction`] is shown with: it has no bounds.
pub(crate) fn add_reaction_examples(sample: &Sample) -> Examples {
    Examples {
        default: Some(json!({"messageId": sample.message, "emoji": "👍"})),
        largest: Vec::new(),
        demo: vec![json!({"messageId": demo::CI_BUILD, "emoji": "🚀"})],
    }
}
