//! Recorders for what the daemon learns over REST rather than the gateway: a page of a
//! channel's history fetched by a backfill.

use serenity::model::channel::Message;
use serenity::model::id::GuildId;

use super::Origin;
use super::messages::{instant_of, record_message_in};
use crate::error::Result;
use crate::store::{NewEdit, Store};

/// What recording a page of history changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PageRecorded {
    /// Messages the store did not have (they arrive now, so they count as new).
    pub new_messages: u64,
    /// Edits the store did not have (the current version of a message edited while the daemon
    /// was not listening; the versions in between are lost, which a downtime gap says).
    pub new_edits: u64,
}

/// A page of a channel's history, in one transaction. REST messages carry no guild id, so the
/// channel's own is given and set on each. A message whose `edited_timestamp` is set also
/// records its current content as an edit, once per edit timestamp.
pub fn record_history_page(
    store: &Store,
    guild_id: Option<GuildId>,
    messages: &[Message],
) -> Result<PageRecorded> {
    store.write(|writer| {
        let mut recorded = PageRecorded::default();
        for message in messages {
            let mut message = message.clone();
            message.guild_id = guild_id;
            if record_message_in(writer, &message, Origin::Backfill)? == super::Recorded::Stored {
                recorded.new_messages += 1;
            }
            if let Some(edited_at) = &message.edited_timestamp {
                let edit = NewEdit {
                    message_id: message.id.to_string(),
                    channel_id: message.channel_id.to_string(),
                    content: message.content.clone(),
                    edited_at: instant_of(edited_at)?,
                    mentioned_user_ids: message.mentions.iter().map(|u| u.id.to_string()).collect(),
                    mentioned_role_ids: message
                        .mention_roles
                        .iter()
                        .map(ToString::to_string)
                        .collect(),
                };
                if writer.insert_edit(&edit)? {
                    recorded.new_edits += 1;
                }
            }
        }
        Ok(recorded)
    })
}
