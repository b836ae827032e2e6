//! The text of kept text-like attachments in full-text search
//! (`migrations/0021_attachment_text_in_search.sql`, `0027_file_text.sql`): a file's text is a
//! row of the files' own FTS5 index, `file_text`, under its message's id, and
//! `attachment_text` says which row is whose, so a search hit on it is reported as a match in
//! that attachment ([`super::SearchHit`]). Which
//! files are text, and how much of one is read, is decided above the store; the daemon hands
//! the text in as it keeps the file, and indexes the text files kept before this existed.

use rusqlite::{OptionalExtension, named_params};

use super::attachments::record_from_row;
use super::{AttachmentRecord, Reader, Writer};
use discord_manager_vocabulary::error::Result;

/// A kept file whose text is not in the index yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnindexedFile {
    /// The position of its `fetched` outcome: a cursor through these.
    pub outcome_seq: i64,
    /// The attachment as last seen.
    pub attachment: AttachmentRecord,
    /// The SHA-256 the cache keeps it under.
    pub hash: String,
}

/// One row of the files' full-text index: the text, under its message's id.
const INDEX_TEXT: &str =
    "INSERT INTO file_text (content, message_id) VALUES (:content, :message_id)";

/// Which index row holds an attachment's text.
const INSERT_ATTACHMENT_TEXT: &str = "INSERT INTO attachment_text
         (created_at, attachment_id, message_id, filename, text_rowid, indexed_bytes)
     VALUES (:created_at, :attachment_id, :message_id, :filename, :text_rowid, :indexed_bytes)";

/// Whether an attachment's text is indexed.
const IS_INDEXED: &str = "SELECT 1 FROM attachment_text WHERE attachment_id = :attachment_id";

/// Up to `:limit` attachments recorded `fetched` after the outcome `:after`, oldest first,
/// whose text is not indexed, each as last seen with the hash it is kept under.
const UNINDEXED: &str = "SELECT a.seq, a.attachment_id, a.message_id, a.channel_id, a.filename,
            a.content_type, a.size, a.url, 0, o.seq, o.hash
     FROM attachment_outcomes AS o
     JOIN attachments AS a
       ON a.seq = (SELECT max(n.seq) FROM attachments AS n
                   WHERE n.attachment_id = o.attachment_id)
     WHERE o.outcome = 'fetched' AND o.seq > :after
       AND NOT EXISTS (SELECT 1 FROM attachment_text AS t
                       WHERE t.attachment_id = o.attachment_id)
     ORDER BY o.seq
     LIMIT :limit";

impl Writer<'_> {
    /// Indexes `text`, the first `indexed_bytes` of `attachment`'s kept file as text, under
    /// its message, once: an attachment indexed already writes nothing (false).
    pub fn index_attachment_text(
        &mut self,
        attachment: &AttachmentRecord,
        text: &str,
        indexed_bytes: u64,
    ) -> Result<bool> {
        let indexed = self
            .transaction
            .prepare_cached(IS_INDEXED)?
            .query_row(
                named_params! {":attachment_id": attachment.attachment_id},
                |_| Ok(()),
            )
            .optional()?
            .is_some();
        if indexed {
            return Ok(false);
        }
        self.transaction
            .prepare_cached(INDEX_TEXT)?
            .execute(named_params! {":content": text, ":message_id": attachment.message_id})?;
        let text_rowid = self.transaction.last_insert_rowid();
        let stamp = self.stamp();
        self.transaction
            .prepare_cached(INSERT_ATTACHMENT_TEXT)?
            .execute(named_params! {
                ":created_at": stamp,
                ":attachment_id": attachment.attachment_id,
                ":message_id": attachment.message_id,
                ":filename": attachment.filename,
                ":text_rowid": text_rowid,
                ":indexed_bytes": i64::try_from(indexed_bytes).unwrap_or(i64::MAX),
            })?;
        Ok(true)
    }
}

impl Reader<'_> {
    /// Up to `limit` kept files whose text is not indexed, after the outcome `after` (0: from
    /// the start), oldest first: what the daemon's pass over files kept before search read
    /// them goes through (it indexes those of a text kind, and the next batch is after the
    /// last one's `outcome_seq`).
    pub fn unindexed_kept_files(&self, after: i64, limit: usize) -> Result<Vec<UnindexedFile>> {
        let mut statement = self.connection.prepare_cached(UNINDEXED)?;
        let rows = statement.query_map(
            named_params! {
                ":after": after,
                ":limit": i64::try_from(limit).unwrap_or(i64::MAX),
            },
            |row| {
                Ok(UnindexedFile {
                    attachment: record_from_row(row)?,
                    outcome_seq: row.get(9)?,
                    hash: row.get(10)?,
                })
            },
        )?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

#[cfg(test)]
mod tests;
