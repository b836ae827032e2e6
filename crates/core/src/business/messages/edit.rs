//! `messages_edit`: changes the text of one of the bot's own messages; its input, the function
//! and its examples. The checks it shares with the other follow-up actions are in
//! `kernel::bot_actions`; its answer is the message as recorded, shown as every posted message
//! is.

use discord_manager_sender::{DiscordSender, MessageEdit};
use discord_manager_store::Store;
use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::MessageId;

use crate::business::OwnerContext;
use crate::business::kernel::approval::{ApprovalRequest, Checked, Clearance, PostKind};
use crate::business::kernel::bot_actions::{SEND_POLICY, available, check_target, finish, gave_up};
use crate::business::kernel::context::Source;
use crate::business::kernel::examples::{Examples, Sample, demo, long_text};
use crate::business::kernel::model::Message;
use crate::business::kernel::outbox::Action;
use crate::business::kernel::{approval, outbox};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// Change the text of one of the bot's own messages, and get the message as the store
/// recorded it (the earlier text stays in its history). Refused before anything is sent, with
/// the reason, under the same rules as `messages_send` (no token, read-only mode, a channel
/// outside DISCORD_MANAGER_SEND_CHANNELS; from an assistant, any channel when that list is
/// unset, and more than 5 posts and edits a minute), and when the message is not in the store,
/// was deleted, or was not written by the bot. Mentions written in the new text ping as in a
/// send. Safe to retry: an edit done twice is done once. Like a post, it may wait for the
/// owner's yes in the MCP client's form instead of being refused outside the list.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EditMessage {
    /// The bot's message to edit.
    pub message_id: MessageId,
    /// Its whole new text: 1 to 2000 characters, not only spaces (Discord's markdown applies).
    #[schemars(length(min = 1, max = 2000))]
    pub content: String,
}

/// `messages_edit`: see [`EditMessage`].
pub async fn edit_message(
    store: &Store,
    input: EditMessage,
    context: &OwnerContext,
    sender: Option<&dyn DiscordSender>,
) -> Result<Message> {
    // Checked, and an assistant's edit counted, in one transaction, as a send is; asked
    // about, as a send is, when the owner is to approve it.
    let target = approval::cleared(store, context, |writer, consent| {
        let target = check_target(
            &writer.reader(),
            context,
            &input.message_id,
            Action::Edit,
            consent,
        )?;
        outbox::check_content(&input.content)?;
        outbox::check_assistant_rate(&writer.reader(), context, Instant::now())?;
        if let Clearance::AskOwner(reason) = target.clearance {
            return Ok(Checked::Ask(ApprovalRequest {
                kind: PostKind::Edit,
                reason,
                channel_id: target.channel.channel_id,
                channel_name: target.channel.name,
                content: input.content.clone(),
                message_id: Some(target.message.message_id),
                send_at: None,
            }));
        }
        if context.source == Source::Mcp {
            writer.record_assistant_send(&target.channel.channel_id)?;
        }
        Ok(Checked::Cleared(target))
    })
    .await?;
    let sender = available(sender)?;
    let edit = MessageEdit {
        channel_id: target.channel.channel_id,
        message_id: target.message.message_id,
        content: input.content,
        suppress_embeds: !context.link_previews,
    };
    let delivered = outbox::deliver_with_retries(
        &SEND_POLICY,
        || sender.edit_message(&edit),
        |failure, attempts| gave_up(failure, attempts, Action::Edit, &target),
    )
    .await?;
    finish(store, context, delivered, "edited", &target)
}

/// What [`edit_message`] is shown with: a line, and the longest text.
pub(crate) fn edit_message_examples(sample: &Sample) -> Examples {
    Examples {
        default: Some(json!({"messageId": sample.bot_message, "content": "Deploy at 16:00."})),
        largest: vec![json!({"messageId": sample.bot_message, "content": long_text(2000)})],
        demo: vec![json!({"messageId": demo::BOTS_ANNOUNCEMENT,
                          "content": "Deploy window for v2.4.0 opens at 15:30 UTC."})],
    }
}
