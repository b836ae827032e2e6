//! The owner's bookmarks: added and resolved events, keyed by message.

use rusqlite::{OptionalExtension, Row, params};

use super::words::word;
use super::{Reader, Writer};
use crate::error::Result;
use crate::instant::Instant;
use crate::vocabulary::word_enum;

word_enum! {
    /// What a bookmark event did.
    pub enum BookmarkKind {
        Added = "added",
        Resolved = "resolved",
    }
}

/// One bookmark event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookmarkEvent {
    pub message_id: String,
    pub kind: BookmarkKind,
    pub note: Option<String>,
    pub content_when_bookmarked: Option<String>,
    pub source: String,
    pub created_at: Instant,
}

fn bookmark_from_row(row: &Row<'_>) -> rusqlite::Result<BookmarkEvent> {
    let created_at: String = row.get(5)?;
    Ok(BookmarkEvent {
        message_id: row.get(0)?,
        kind: word(row, 1)?,
        note: row.get(2)?,
        content_when_bookmarked: row.get(3)?,
        source: row.get(4)?,
        created_at: Instant::parse(&created_at).ok_or_else(|| {
            rusqlite::Error::InvalidColumnType(5, created_at, rusqlite::types::Type::Text)
        })?,
    })
}

const BOOKMARK_COLUMNS: &str =
    "message_id, kind, note, content_when_bookmarked, source, created_at";

impl Reader<'_> {
    /// The newest bookmark event of a message, if it was ever bookmarked.
    pub fn latest_bookmark_event(&self, message_id: &str) -> Result<Option<BookmarkEvent>> {
        Ok(self
            .connection
            .prepare_cached(&format!(
                "SELECT {BOOKMARK_COLUMNS} FROM bookmark_events WHERE message_id = ?1
                 ORDER BY seq DESC LIMIT 1"
            ))?
            .query_row([message_id], bookmark_from_row)
            .optional()?)
    }

    /// Open bookmarks (whose newest event is an addition), oldest first.
    pub fn open_bookmarks(&self) -> Result<Vec<BookmarkEvent>> {
        let mut statement = self.connection.prepare_cached(&format!(
            "SELECT {BOOKMARK_COLUMNS} FROM bookmark_events
             WHERE seq IN (SELECT max(seq) FROM bookmark_events GROUP BY message_id)
               AND kind = '{added}'
             ORDER BY seq",
            added = BookmarkKind::Added,
        ))?;
        let rows = statement.query_map([], bookmark_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

impl Reader<'_> {
    /// Every message's newest due-time event: (due at, when it was set).
    pub fn bookmark_due_times(
        &self,
    ) -> Result<std::collections::HashMap<String, (Instant, Instant)>> {
        let mut statement = self.connection.prepare_cached(
            "SELECT message_id, due_at, created_at FROM bookmark_due_events
             WHERE seq IN (SELECT max(seq) FROM bookmark_due_events GROUP BY message_id)",
        )?;
        let mut dues = std::collections::HashMap::new();
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            let (due, set): (String, String) = (row.get(1)?, row.get(2)?);
            if let (Some(due), Some(set)) = (Instant::parse(&due), Instant::parse(&set)) {
                dues.insert(row.get(0)?, (due, set));
            }
        }
        Ok(dues)
    }
}

impl Writer<'_> {
    /// Appends a bookmark's due time (set or changed); answers when it was recorded.
    pub fn append_bookmark_due(
        &mut self,
        message_id: &str,
        due_at: Instant,
        source: &str,
    ) -> Result<Instant> {
        let created_at = self.stamp();
        self.transaction.execute(
            "INSERT INTO bookmark_due_events (created_at, message_id, due_at, source)
             VALUES (?1, ?2, ?3, ?4)",
            params![created_at.to_iso(), message_id, due_at.to_iso(), source],
        )?;
        Ok(created_at)
    }

    /// Appends a bookmark event; the caller has checked that it makes sense.
    pub fn append_bookmark_event(
        &mut self,
        message_id: &str,
        kind: BookmarkKind,
        note: Option<&str>,
        content_when_bookmarked: Option<&str>,
        source: &str,
    ) -> Result<BookmarkEvent> {
        let created_at = self.stamp();
        self.transaction.execute(
            "INSERT INTO bookmark_events (created_at, message_id, kind, note, content_when_bookmarked, source)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![created_at.to_iso(), message_id, kind.as_str(), note, content_when_bookmarked, source],
        )?;
        Ok(BookmarkEvent {
            message_id: message_id.to_string(),
            kind,
            note: note.map(str::to_string),
            content_when_bookmarked: content_when_bookmarked.map(str::to_string),
            source: source.to_string(),
            created_at,
        })
    }
}
