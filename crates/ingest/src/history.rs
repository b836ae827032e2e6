//! Recorders for what the daemon learns over REST rather than the gateway: a page of a
//! channel's history fetched by a backfill, or by the import of what came before the store.

use discord_manager_store::{NewEdit, NewImportStep, Store, Writer};
use discord_manager_vocabulary::error::Result;
use serde_json::Value;
use serenity::model::channel::Message;
use serenity::model::id::GuildId;

use super::Origin;
use super::discord_time::instant_of;
use super::messages::record_message_in;
use crate::ids::TypedId;

/// A message of a page of REST history: serenity's model of it, and the message object as
/// Discord sent it, which holds what that model drops (a Components V2 post's text, every flag
/// bit).
#[derive(Debug, Clone)]
pub struct FetchedMessage {
    pub message: Message,
    pub payload: Value,
}

impl FetchedMessage {
    /// Reads one message object of Discord's answer.
    pub fn from_payload(payload: Value) -> serde_json::Result<FetchedMessage> {
        let message = serde_json::from_value(payload.clone())?;
        Ok(FetchedMessage { message, payload })
    }
}

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
    messages: &[FetchedMessage],
) -> Result<PageRecorded> {
    store.write(|writer| record_page_in(writer, guild_id, messages, |_| Origin::Backfill))
}

/// A page of the history from before the store began covering a channel, and the import's
/// progress it makes, in one transaction: a daemon killed after it resumes below this page,
/// and one killed before it fetches the page again, so no page is fetched twice once stored.
/// A message with an id at or above `news_start` (sent within the last day before the store
/// began) is recorded as [`Origin::ImportRecent`], news like a backfill; an older one as
/// [`Origin::Import`], history only.
pub fn record_import_page(
    store: &Store,
    guild_id: Option<GuildId>,
    messages: &[FetchedMessage],
    news_start: u64,
    step: &NewImportStep,
) -> Result<PageRecorded> {
    store.write(|writer| {
        let recorded = record_page_in(writer, guild_id, messages, |id| {
            if id >= news_start {
                Origin::ImportRecent
            } else {
                Origin::Import
            }
        })?;
        writer.record_import_step(&NewImportStep {
            stored: recorded.new_messages,
            ..step.clone()
        })?;
        Ok(recorded)
    })
}

fn record_page_in(
    writer: &mut Writer<'_>,
    guild_id: Option<GuildId>,
    messages: &[FetchedMessage],
    origin_of: impl Fn(u64) -> Origin,
) -> Result<PageRecorded> {
    let mut recorded = PageRecorded::default();
    for fetched in messages {
        let mut message = fetched.message.clone();
        message.guild_id = guild_id;
        let origin = origin_of(message.id.get());
        let payload = Some(&fetched.payload);
        if record_message_in(writer, &message, payload, origin)? == super::Recorded::Stored {
            recorded.new_messages += 1;
        }
        if let Some(edited_at) = &message.edited_timestamp {
            let edit = NewEdit {
                message_id: message.id.typed(),
                channel_id: message.channel_id.typed(),
                content: message.content.clone(),
                edited_at: instant_of(edited_at)?,
                mentioned_user_ids: message.mentions.iter().map(|u| u.id.typed()).collect(),
                mentioned_role_ids: message.mention_roles.iter().map(TypedId::typed).collect(),
                imported: origin == Origin::Import,
            };
            if writer.insert_edit(&edit)? {
                recorded.new_edits += 1;
            }
        }
    }
    Ok(recorded)
}
