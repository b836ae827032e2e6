//! `messages_delete`: deletes one of the bot's own messages on Discord (the store keeps it);
//! its input, the function and its examples. The checks it shares with the other follow-up
//! actions are in `kernel::bot_actions`.

use discord_manager_sender::{DiscordSender, MessageToDelete};
use discord_manager_store::Store;
use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::snowflake::MessageId;

use crate::business::OwnerContext;
use crate::business::kernel::approval::Consent;
use crate::business::kernel::bot_actions::{SEND_POLICY, available, check_target, finish, gave_up};
use crate::business::kernel::examples::{Examples, Sample, demo};
use crate::business::kernel::model::Message;
use crate::business::kernel::outbox;
use crate::business::kernel::outbox::Action;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// Delete one of the bot's own messages from Discord. Destructive: the message is gone for
/// everyone in the channel and cannot be brought back (the store keeps it, shown as deleted).
/// Refused before anything is sent, with the reason, under the same rules as `messages_send`
/// (no token, read-only mode, a channel outside DISCORD_MANAGER_SEND_CHANNELS; from an
/// assistant, any channel when that list is unset), and when the message is not in the store,
/// is already deleted, or was not written by the bot. Get back the message as the store now
/// shows it, deleted.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DeleteMessage {
    /// The bot's message to delete.
    pub message_id: MessageId,
}

/// `messages_delete`: see [`DeleteMessage`].
pub async fn delete_message(
    store: &Store,
    input: DeleteMessage,
    context: &OwnerContext,
    sender: Option<&dyn DiscordSender>,
) -> Result<Message> {
    let target = store.read(|reader| {
        check_target(
            reader,
            context,
            &input.message_id,
            Action::Delete,
            Consent::NotAsked,
        )
    })?;
    let sender = available(sender)?;
    let doomed = MessageToDelete {
        channel_id: target.channel.channel_id,
        message_id: target.message.message_id,
    };
    let delivered = outbox::deliver_with_retries(
        &SEND_POLICY,
        || sender.delete_message(&doomed),
        |failure, attempts| gave_up(failure, attempts, Action::Delete, &target),
    )
    .await?;
    finish(store, context, delivered, "deleted", &target)
}

/// What [`delete_message`] is shown with: it has no bounds.
pub(crate) fn delete_message_examples(sample: &Sample) -> Examples {
    Examples {
        default: Some(json!({"messageId": sample.bot_message})),
        largest: Vec::new(),
        demo: vec![json!({"messageId": demo::BOTS_ANNOUNCEMENT})],
    }
}
