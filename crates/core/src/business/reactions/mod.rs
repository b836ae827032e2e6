//! The reactions toolset: the bot's reaction on a stored message, added (`reactions_add`, in
//! [`add`]) or removed (`reactions_remove`, in [`remove`]), and the request both make.

pub mod add;
pub mod remove;

use discord_manager_sender::emoji::Emoji;
use discord_manager_sender::{BotReaction, DiscordSender};
use discord_manager_store::{MessageRecord, Store};
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::MessageId;

use crate::business::OwnerContext;
use crate::business::kernel::approval::Consent;
use crate::business::kernel::bot_actions::{SEND_POLICY, available, check_target, finish, gave_up};
use crate::business::kernel::context::Source;
use crate::business::kernel::model::Message;
use crate::business::kernel::outbox;
use crate::business::kernel::outbox::Action;

/// Adds (`add`) or removes the bot's reaction with `emoji` on a message.
async fn react(
    store: &Store,
    message_id: &MessageId,
    emoji: &str,
    add: bool,
    context: &OwnerContext,
    sender: Option<&dyn DiscordSender>,
) -> Result<Message> {
    // Checked, and an assistant's reaction counted, in one transaction.
    let (target, reaction) = store.write(|writer| {
        let checked = {
            let reader = &writer.reader();
            let target = check_target(
                reader,
                context,
                message_id,
                Action::React,
                Consent::NotAsked,
            )?;
            let emoji = as_stored(Emoji::parse(emoji)?, &target.message);
            // A bot the store never learned has reacted to nothing.
            let reacted = match reader.identity()?.bot_user_id {
                Some(bot) => reader
                    .emojis_reacted_by(message_id, &bot)?
                    .contains(&emoji.text()),
                None => false,
            };
            let text = emoji.text();
            match (add, reacted) {
                (true, true) => Err(Error::conflict(format!(
                    "The bot already reacted to message {message_id} with {text}"
                ))),
                (false, false) => Err(Error::conflict(format!(
                    "The bot has no {text} reaction on message {message_id}"
                ))),
                _ => {
                    outbox::check_assistant_reaction_rate(reader, context, Instant::now())?;
                    Ok((
                        target.clone(),
                        BotReaction {
                            channel_id: target.channel.channel_id,
                            message_id: *message_id,
                            emoji,
                        },
                    ))
                }
            }
        }?;
        if context.source == Source::Mcp {
            writer.record_assistant_reaction(&checked.1.channel_id, &checked.1.message_id)?;
        }
        Ok(checked)
    })?;
    let sender = available(sender)?;
    let delivered = outbox::deliver_with_retries(
        &SEND_POLICY,
        || sender.react(&reaction, add),
        |failure, attempts| gave_up(failure, attempts, Action::React, &target),
    )
    .await?;
    let done = if add {
        "added the reaction"
    } else {
        "removed the reaction"
    };
    finish(store, context, delivered, done, &target)
}

/// A custom emoji as the message's reactions already write it: Discord says whether it is
/// animated, and the owner may have left that out, so the bot's reaction and the gateway's
/// echo of it are one reaction, not two.
fn as_stored(emoji: Emoji, message: &MessageRecord) -> Emoji {
    let Emoji::Custom { name, id, animated } = emoji else {
        return emoji;
    };
    let animated = animated
        || message.reactions.iter().any(|reaction| {
            reaction.emoji.starts_with("<a:") && reaction.emoji.ends_with(&format!(":{id}>"))
        });
    Emoji::Custom { name, id, animated }
}
