//! Counting what arrived: the cursor tool's counts, the digest's window, the owner's replies.

use rusqlite::params;

use super::messages::{MESSAGE_COLUMNS, message_from_row};
use super::{MessageRecord, Reader};
use crate::error::Result;
use crate::instant::Instant;

/// What arrived in one channel after an instant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChannelActivity {
    pub messages: u64,
    pub edits: u64,
    pub deletions: u64,
    pub reactions: u64,
}

impl ChannelActivity {
    pub fn total(&self) -> u64 {
        self.messages + self.edits + self.deletions + self.reactions
    }
}

/// An author's number of messages in a window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorCount {
    pub author_id: String,
    pub author_name: String,
    pub messages: u64,
}

impl Reader<'_> {
    /// The newest instant the store has handed out: every later commit is stamped after it.
    pub fn clock_now(&self) -> Result<Instant> {
        let last: i64 = self
            .connection
            .prepare_cached("SELECT last_micros FROM clock WHERE id = 1")?
            .query_row([], |row| row.get(0))?;
        Ok(Instant::from_micros(last))
    }

    /// Messages, edits, deletions and reaction events of a channel stamped strictly after `after`.
    pub fn channel_activity_after(
        &self,
        channel_id: &str,
        after: Instant,
    ) -> Result<ChannelActivity> {
        let after = after.to_iso();
        let count = |table: &str| -> Result<u64> {
            let count: i64 = self
                .connection
                .prepare_cached(&format!(
                    "SELECT count(*) FROM {table} WHERE channel_id = ?1 AND created_at > ?2"
                ))?
                .query_row(params![channel_id, after], |row| row.get(0))?;
            Ok(count as u64)
        };
        Ok(ChannelActivity {
            messages: count("messages")?,
            edits: count("message_edits")?,
            deletions: count("message_deletions")?,
            reactions: count("reaction_events")?,
        })
    }

    /// Whether `user_id` wrote in the channel after Discord's instant `sent_at`.
    pub fn spoke_after(&self, channel_id: &str, user_id: &str, sent_at: Instant) -> Result<bool> {
        Ok(self
            .connection
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM messages
                                WHERE channel_id = ?1 AND author_id = ?2 AND sent_at > ?3)",
            )?
            .query_row(params![channel_id, user_id, sent_at.to_iso()], |row| {
                row.get(0)
            })?)
    }

    /// How many messages of a channel arrived in `[since, until)`.
    pub fn window_count(&self, channel_id: &str, since: Instant, until: Instant) -> Result<u64> {
        let count: i64 = self
            .connection
            .prepare_cached(
                "SELECT count(*) FROM messages
                 WHERE channel_id = ?1 AND created_at >= ?2 AND created_at < ?3",
            )?
            .query_row(params![channel_id, since.to_iso(), until.to_iso()], |row| {
                row.get(0)
            })?;
        Ok(count as u64)
    }

    /// The most active authors of a channel in `[since, until)`, most messages first.
    pub fn window_authors(
        &self,
        channel_id: &str,
        since: Instant,
        until: Instant,
        limit: usize,
    ) -> Result<Vec<AuthorCount>> {
        let mut statement = self.connection.prepare_cached(
            "SELECT author_id, max(author_name), count(*) AS sent FROM messages
             WHERE channel_id = ?1 AND created_at >= ?2 AND created_at < ?3
             GROUP BY author_id ORDER BY sent DESC, author_id LIMIT ?4",
        )?;
        let rows = statement.query_map(
            params![channel_id, since.to_iso(), until.to_iso(), limit as i64],
            |row| {
                Ok(AuthorCount {
                    author_id: row.get(0)?,
                    author_name: row.get(1)?,
                    messages: row.get::<_, i64>(2)? as u64,
                })
            },
        )?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Messages of a channel that arrived in `[since, until)` and were ever reacted to, hydrated.
    pub fn window_reacted_messages(
        &self,
        channel_id: &str,
        since: Instant,
        until: Instant,
    ) -> Result<Vec<MessageRecord>> {
        let mut statement = self.connection.prepare_cached(&format!(
            "SELECT {MESSAGE_COLUMNS} FROM messages
             WHERE channel_id = ?1 AND created_at >= ?2 AND created_at < ?3
               AND message_id IN (SELECT message_id FROM reaction_events WHERE channel_id = ?1)
             ORDER BY created_at"
        ))?;
        let rows = statement
            .query_map(
                params![channel_id, since.to_iso(), until.to_iso()],
                message_from_row,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        self.hydrate(rows)
    }
}
