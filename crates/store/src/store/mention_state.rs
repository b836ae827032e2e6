//! What closes a mention: the owner's dismissals (appended here), and the questions the
//! mentions inbox asks of the history: did the owner or our bot reply to it, react to it, or
//! write in its channel after it.

use rusqlite::{OptionalExtension, Row, params};

use super::reactions::ReactionEventKind;
use super::{Reader, Writer};
use crate::error::Result;
use crate::instant::Instant;

/// The owner's dismissal of a mention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MentionDismissal {
    pub message_id: String,
    pub note: Option<String>,
    pub source: String,
    pub created_at: Instant,
}

fn dismissal_from_row(row: &Row<'_>) -> rusqlite::Result<MentionDismissal> {
    let created_at: String = row.get(3)?;
    Ok(MentionDismissal {
        message_id: row.get(0)?,
        note: row.get(1)?,
        source: row.get(2)?,
        created_at: Instant::parse(&created_at).ok_or_else(|| {
            rusqlite::Error::InvalidColumnType(3, created_at, rusqlite::types::Type::Text)
        })?,
    })
}

/// The ids as one JSON array, which the statements below read with `json_each`, so one
/// prepared statement serves any number of people.
fn id_list(ids: &[&str]) -> String {
    serde_json::to_string(ids).unwrap_or_else(|_| "[]".into())
}

impl Reader<'_> {
    /// The dismissal of the mention `message_id`, if the owner dismissed it.
    pub fn mention_dismissal(&self, message_id: &str) -> Result<Option<MentionDismissal>> {
        Ok(self
            .connection
            .prepare_cached(
                "SELECT message_id, note, source, created_at FROM mention_dismissals
                 WHERE message_id = ?1",
            )?
            .query_row([message_id], dismissal_from_row)
            .optional()?)
    }

    /// Whether one of `authors` replied to `message_id` (a Discord reply naming it).
    pub fn replied_to_by(&self, message_id: &str, authors: &[&str]) -> Result<bool> {
        Ok(self
            .connection
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM messages
                                WHERE reply_to_message_id = ?1
                                  AND author_id IN (SELECT value FROM json_each(?2)))",
            )?
            .query_row(params![message_id, id_list(authors)], |row| row.get(0))?)
    }

    /// Whether one of `users` ever added a reaction to `message_id`. An acknowledgement stays
    /// one: taking the reaction back later does not reopen what it answered.
    pub fn reacted_to_by(&self, message_id: &str, users: &[&str]) -> Result<bool> {
        Ok(self
            .connection
            // The kind is in the query's text, not bound: the index by message and user is
            // partial on it.
            .prepare_cached(&format!(
                "SELECT EXISTS (SELECT 1 FROM reaction_events
                                WHERE message_id = ?1 AND kind = '{add}'
                                  AND user_id IN (SELECT value FROM json_each(?2)))",
                add = ReactionEventKind::Add,
            ))?
            .query_row(params![message_id, id_list(users)], |row| row.get(0))?)
    }

    /// Whether one of `authors` wrote in `channel_id` after Discord's time `sent_at`.
    pub fn wrote_after(
        &self,
        channel_id: &str,
        authors: &[&str],
        sent_at: Instant,
    ) -> Result<bool> {
        Ok(self
            .connection
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM messages
                                WHERE channel_id = ?1 AND sent_at > ?3
                                  AND author_id IN (SELECT value FROM json_each(?2)))",
            )?
            .query_row(
                params![channel_id, id_list(authors), sent_at.to_iso()],
                |row| row.get(0),
            )?)
    }
}

impl Writer<'_> {
    /// Appends the owner's dismissal of a mention; the caller has checked it is not dismissed.
    pub fn append_mention_dismissal(
        &mut self,
        message_id: &str,
        note: Option<&str>,
        source: &str,
    ) -> Result<MentionDismissal> {
        let created_at = self.stamp();
        self.transaction.execute(
            "INSERT INTO mention_dismissals (created_at, message_id, note, source)
             VALUES (?1, ?2, ?3, ?4)",
            params![created_at.to_iso(), message_id, note, source],
        )?;
        Ok(MentionDismissal {
            message_id: message_id.to_string(),
            note: note.map(str::to_string),
            source: source.to_string(),
            created_at,
        })
    }
}
