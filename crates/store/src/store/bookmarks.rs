//! The owner's bookmarks: added and resolved events, keyed by message.

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::MessageId;
use discord_manager_vocabulary::words::word_enum;
use rusqlite::{OptionalExtension, Row, named_params};

use super::words::word;
use super::{Reader, Writer};

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
    pub message_id: MessageId,
    pub kind: BookmarkKind,
    pub note: Option<String>,
    pub content_when_bookmarked: Option<String>,
    pub source: String,
    pub created_at: Instant,
}

fn bookmark_from_row(row: &Row<'_>) -> rusqlite::Result<BookmarkEvent> {
    Ok(BookmarkEvent {
        message_id: row.get(0)?,
        kind: word(row, 1)?,
        note: row.get(2)?,
        content_when_bookmarked: row.get(3)?,
        source: row.get(4)?,
        created_at: row.get(5)?,
    })
}

/// The columns [`bookmark_from_row`] reads, in its order: a macro, so that statements can
/// `concat!` it.
macro_rules! bookmark_columns {
    () => {
        "message_id, kind, note, content_when_bookmarked, source, created_at"
    };
}

const LATEST_BOOKMARK_EVENT: &str = concat!(
    "SELECT ",
    bookmark_columns!(),
    " FROM bookmark_events WHERE message_id = :message_id ORDER BY seq DESC LIMIT 1"
);

const OPEN_BOOKMARKS: &str = concat!(
    "SELECT ",
    bookmark_columns!(),
    " FROM bookmark_events
     WHERE seq IN (SELECT max(seq) FROM bookmark_events GROUP BY message_id)
       AND kind = :added
     ORDER BY seq"
);

const NEWEST_DUE_TIMES: &str = "SELECT message_id, due_at, created_at FROM bookmark_due_events
     WHERE seq IN (SELECT max(seq) FROM bookmark_due_events GROUP BY message_id)";

const INSERT_BOOKMARK_DUE_EVENT: &str = "INSERT INTO bookmark_due_events (created_at, message_id,
         due_at, source)
     VALUES (:created_at, :message_id, :due_at, :source)";

const INSERT_BOOKMARK_EVENT: &str = "INSERT INTO bookmark_events (created_at, message_id, kind,
         note, content_when_bookmarked, source)
     VALUES (:created_at, :message_id, :kind, :note, :content_when_bookmarked, :source)";

impl Reader<'_> {
    /// The newest bookmark event of a message, if it was ever bookmarked.
    pub fn latest_bookmark_event(&self, message_id: &MessageId) -> Result<Option<BookmarkEvent>> {
        Ok(self
            .connection
            .prepare_cached(LATEST_BOOKMARK_EVENT)?
            .query_row(named_params! {":message_id": message_id}, bookmark_from_row)
            .optional()?)
    }

    /// Open bookmarks (whose newest event is an addition), oldest first.
    pub fn open_bookmarks(&self) -> Result<Vec<BookmarkEvent>> {
        let mut statement = self.connection.prepare_cached(OPEN_BOOKMARKS)?;
        let rows = statement.query_map(
            named_params! {":added": BookmarkKind::Added.as_str()},
            bookmark_from_row,
        )?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

impl Reader<'_> {
    /// Every message's newest due-time event: (due at, when it was set).
    pub fn bookmark_due_times(
        &self,
    ) -> Result<std::collections::HashMap<MessageId, (Instant, Instant)>> {
        let mut statement = self.connection.prepare_cached(NEWEST_DUE_TIMES)?;
        let mut dues = std::collections::HashMap::new();
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            dues.insert(row.get(0)?, (row.get(1)?, row.get(2)?));
        }
        Ok(dues)
    }
}

impl Writer<'_> {
    /// Appends a bookmark's due time (set or changed); answers when it was recorded.
    pub fn append_bookmark_due(
        &mut self,
        message_id: &MessageId,
        due_at: Instant,
        source: &str,
    ) -> Result<Instant> {
        let created_at = self.stamp();
        self.transaction.execute(
            INSERT_BOOKMARK_DUE_EVENT,
            named_params! {
                ":created_at": created_at,
                ":message_id": message_id,
                ":due_at": due_at,
                ":source": source,
            },
        )?;
        Ok(created_at)
    }

    /// Appends a bookmark event; the caller has checked that it makes sense.
    pub fn append_bookmark_event(
        &mut self,
        message_id: &MessageId,
        kind: BookmarkKind,
        note: Option<&str>,
        content_when_bookmarked: Option<&str>,
        source: &str,
    ) -> Result<BookmarkEvent> {
        let created_at = self.stamp();
        self.transaction.execute(
            INSERT_BOOKMARK_EVENT,
            named_params! {
                ":created_at": created_at,
                ":message_id": message_id,
                ":kind": kind.as_str(),
                ":note": note,
                ":content_when_bookmarked": content_when_bookmarked,
                ":source": source,
            },
        )?;
        Ok(BookmarkEvent {
            message_id: *message_id,
            kind,
            note: note.map(str::to_string),
            content_when_bookmarked: content_when_bookmarked.map(str::to_string),
            source: source.to_string(),
            created_at,
        })
    }
}
