//! What closes a mention: the owner's dismissals (appended here), and the questions the
//! mentions inbox asks of the history: did the owner or our bot reply to it, react to it, or
//! write in its channel after it.

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId, UserId, sql_id_array};
use rusqlite::{OptionalExtension, Row, named_params};

use super::reactions::reaction_added;
use super::{Reader, Writer};

/// The owner's dismissal of a mention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MentionDismissal {
    pub message_id: MessageId,
    pub note: Option<String>,
    pub source: String,
    pub created_at: Instant,
}

fn dismissal_from_row(row: &Row<'_>) -> rusqlite::Result<MentionDismissal> {
    Ok(MentionDismissal {
        message_id: row.get(0)?,
        note: row.get(1)?,
        source: row.get(2)?,
        created_at: row.get(3)?,
    })
}

/// The ids as one JSON array, which the statements below read with `json_each`, so one
/// prepared statement serves any number of people.
fn id_list(ids: &[&UserId]) -> String {
    sql_id_array(ids.iter().copied())
}

const MENTION_DISMISSAL: &str = "SELECT message_id, note, source, created_at
     FROM mention_dismissals WHERE message_id = :message_id";

const REPLIED_TO_BY: &str = "SELECT EXISTS (SELECT 1 FROM messages
     WHERE reply_to_message_id = :message_id
       AND author_id IN (SELECT value FROM json_each(:authors)))";

/// The kind is in the query's text, not bound: the index by message and user is partial on it
/// (`migrations/0012_mention_dismissals.sql`).
const REACTED_TO_BY: &str = concat!(
    "SELECT EXISTS (SELECT 1 FROM reaction_events
     WHERE message_id = :message_id AND kind = '",
    reaction_added!(),
    "' AND user_id IN (SELECT value FROM json_each(:users)))"
);

const WROTE_AFTER: &str = "SELECT EXISTS (SELECT 1 FROM messages
     WHERE channel_id = :channel_id AND sent_at > :sent_at
       AND author_id IN (SELECT value FROM json_each(:authors)))";

const INSERT_MENTION_DISMISSAL: &str = "INSERT INTO mention_dismissals (created_at, message_id,
         note, source)
     VALUES (:created_at, :message_id, :note, :source)";

impl Reader<'_> {
    /// The dismissal of the mention `message_id`, if the owner dismissed it.
    pub fn mention_dismissal(&self, message_id: &MessageId) -> Result<Option<MentionDismissal>> {
        Ok(self
            .connection
            .prepare_cached(MENTION_DISMISSAL)?
            .query_row(
                named_params! {":message_id": message_id},
                dismissal_from_row,
            )
            .optional()?)
    }

    /// Whether one of `authors` replied to `message_id` (a Discord reply naming it).
    pub fn replied_to_by(&self, message_id: &MessageId, authors: &[&UserId]) -> Result<bool> {
        Ok(self.connection.prepare_cached(REPLIED_TO_BY)?.query_row(
            named_params! {":message_id": message_id, ":authors": id_list(authors)},
            |row| row.get(0),
        )?)
    }

    /// Whether one of `users` ever added a reaction to `message_id`. An acknowledgement stays
    /// one: taking the reaction back later does not reopen what it answered.
    pub fn reacted_to_by(&self, message_id: &MessageId, users: &[&UserId]) -> Result<bool> {
        Ok(self.connection.prepare_cached(REACTED_TO_BY)?.query_row(
            named_params! {":message_id": message_id, ":users": id_list(users)},
            |row| row.get(0),
        )?)
    }

    /// Whether one of `authors` wrote in `channel_id` after Discord's time `sent_at`.
    pub fn wrote_after(
        &self,
        channel_id: &ChannelId,
        authors: &[&UserId],
        sent_at: Instant,
    ) -> Result<bool> {
        Ok(self.connection.prepare_cached(WROTE_AFTER)?.query_row(
            named_params! {
                ":channel_id": channel_id,
                ":authors": id_list(authors),
                ":sent_at": sent_at,
            },
            |row| row.get(0),
        )?)
    }
}

impl Writer<'_> {
    /// Appends the owner's dismissal of a mention; the caller has checked it is not dismissed.
    pub fn append_mention_dismissal(
        &mut self,
        message_id: &MessageId,
        note: Option<&str>,
        source: &str,
    ) -> Result<MentionDismissal> {
        let created_at = self.stamp();
        self.transaction.execute(
            INSERT_MENTION_DISMISSAL,
            named_params! {
                ":created_at": created_at,
                ":message_id": message_id,
                ":note": note,
                ":source": source,
            },
        )?;
        Ok(MentionDismissal {
            message_id: *message_id,
            note: note.map(str::to_string),
            source: source.to_string(),
            created_at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::testing::{connection, shared_store};

    #[test]
    fn whether_someone_reacted_is_read_from_the_partial_index_by_message_and_user() {
        let store = shared_store();
        let connection = connection(&store);
        let mut plan = connection
            .prepare(&format!("EXPLAIN QUERY PLAN {REACTED_TO_BY}"))
            .unwrap();
        let details: Vec<String> = plan
            .query_map(
                named_params! {":message_id": "1", ":users": "[\"2\"]"},
                |row| row.get(3),
            )
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert!(
            details
                .iter()
                .any(|detail| detail.contains("INDEX reaction_events_by_message_user")),
            "{details:#?}"
        );
    }
}
