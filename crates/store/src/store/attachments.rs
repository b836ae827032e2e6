//! The files of messages and what became of each (`migrations/0020_attachments.sql`): which
//! attachments exist, as last seen, and an append-only log of each one's outcome, fetched,
//! skipped or failed. The recorders add an attachment whenever a message version carrying it
//! is recorded ([`Writer::record_extras`] calls [`Writer::record_attachments`]); the daemon's
//! fetcher reads what is pending and records what became of it. The bytes themselves are in
//! the attachment cache beside the store, named by the hash recorded here.

use discord_manager_vocabulary::snowflake::{AttachmentId, ChannelId, MessageId, sql_id_array};
use rusqlite::{Row, named_params};

use super::{Reader, Writer};
use crate::store::Attachment;
use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::words::TOTAL_CAP_REACHED;

/// An attachment as last seen, with its state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttachmentRecord {
    /// The position of the sighting this is (its newest): a cursor through the pending ones.
    pub seq: i64,
    pub attachment_id: AttachmentId,
    pub message_id: MessageId,
    pub channel_id: ChannelId,
    pub filename: String,
    pub content_type: Option<String>,
    /// Bytes, as Discord announced them.
    pub size: u64,
    /// The URL as last seen (Discord's signed CDN URL, which expires).
    pub url: String,
    /// Attempts that failed so far (0 when none failed).
    pub failed_attempts: u32,
}

/// What became of one attachment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttachmentOutcome {
    /// Kept in the cache under `hash` (the SHA-256 of its bytes, in hex).
    Fetched { hash: String, bytes: u64 },
    /// Not fetched, and never will be: `reason` says why, in the owner's words.
    Skipped { reason: String },
    /// This attempt failed: `reason` in the owner's words, the attempts that failed so far,
    /// and when to try again (None: never, as for a message deleted before it was fetched).
    Failed {
        reason: String,
        attempts: u32,
        retry_at: Option<Instant>,
    },
}

/// What the cache holds and what is left, as the record tells.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheTotals {
    /// Distinct files kept.
    pub files: u64,
    /// Their bytes (a file kept for two attachments counts once).
    pub bytes: u64,
    /// Attachments never attempted yet.
    pub pending: u64,
    /// Attachments whose latest attempt failed (retried when their time comes, unless never).
    pub failed: u64,
    /// Attachments skipped, each with its reason.
    pub skipped: u64,
}

/// An attachment's sighting, unless this URL was seen for it already.
const INSERT_ATTACHMENT: &str = "INSERT INTO attachments
         (created_at, attachment_id, message_id, channel_id, filename, content_type, size, url)
     VALUES (:created_at, :attachment_id, :message_id, :channel_id, :filename, :content_type,
             :size, :url)
     ON CONFLICT (attachment_id, url) DO NOTHING";

/// One attempt's end.
const INSERT_OUTCOME: &str = "INSERT INTO attachment_outcomes
         (created_at, attachment_id, outcome, hash, bytes, reason, attempts, retry_at)
     VALUES (:created_at, :attachment_id, :outcome, :hash, :bytes, :reason, :attempts,
             :retry_at)";

/// Up to `:limit` attachments after the sighting `:after`, oldest first, each at its newest
/// sighting, that are to be fetched: never attempted, or failed with a retry due by `:now`.
const PENDING: &str = "SELECT a.seq, a.attachment_id, a.message_id, a.channel_id, a.filename,
            a.content_type, a.size, a.url, coalesce(o.attempts, 0)
     FROM attachments AS a
     LEFT JOIN attachment_outcomes AS o
       ON o.seq = (SELECT max(l.seq) FROM attachment_outcomes AS l
                   WHERE l.attachment_id = a.attachment_id)
     WHERE a.seq > :after
       AND a.seq = (SELECT max(n.seq) FROM attachments AS n
                    WHERE n.attachment_id = a.attachment_id)
       AND (o.seq IS NULL
            OR (o.outcome = 'failed' AND o.retry_at IS NOT NULL AND o.retry_at <= :now)
            OR (o.outcome = 'skipped' AND o.reason LIKE :no_room
                AND :room IS NOT NULL AND a.size <= :room))
     ORDER BY a.seq
     LIMIT :limit";

/// An attachment as last seen.
const LAST_SEEN: &str = "SELECT a.seq, a.attachment_id, a.message_id, a.channel_id, a.filename,
            a.content_type, a.size, a.url,
            coalesce((SELECT o.attempts FROM attachment_outcomes AS o
                      WHERE o.attachment_id = a.attachment_id ORDER BY o.seq DESC LIMIT 1), 0)
     FROM attachments AS a
     WHERE a.attachment_id = :attachment_id
     ORDER BY a.seq DESC LIMIT 1";

/// An attachment's newest outcome.
const LATEST_OUTCOME: &str = "SELECT outcome, hash, bytes, reason, attempts, retry_at
     FROM attachment_outcomes WHERE attachment_id = :attachment_id
     ORDER BY seq DESC LIMIT 1";

/// The files kept (each hash once) and their bytes.
const KEPT: &str = "SELECT count(*), coalesce(sum(bytes), 0)
     FROM (SELECT hash, max(bytes) AS bytes FROM attachment_outcomes
           WHERE outcome = 'fetched' GROUP BY hash)";

/// Each attachment by its newest outcome: none (pending), failed, skipped.
const BY_STATE: &str = "SELECT
         coalesce(sum(o.outcome IS NULL), 0),
         coalesce(sum(o.outcome = 'failed'), 0),
         coalesce(sum(o.outcome = 'skipped'), 0)
     FROM (SELECT DISTINCT attachment_id FROM attachments) AS a
     LEFT JOIN attachment_outcomes AS o
       ON o.seq = (SELECT max(l.seq) FROM attachment_outcomes AS l
                   WHERE l.attachment_id = a.attachment_id)";

/// Which of the attachments `:attachment_ids` (a JSON array) are kept: fetched once (an
/// attachment fetched is never attempted again).
const KEPT_AMONG: &str = "SELECT DISTINCT o.attachment_id
     FROM json_each(:attachment_ids) AS j
     JOIN attachment_outcomes AS o ON o.attachment_id = j.value
     WHERE o.outcome = :fetched";

pub(super) fn record_from_row(row: &Row<'_>) -> rusqlite::Result<AttachmentRecord> {
    Ok(AttachmentRecord {
        seq: row.get(0)?,
        attachment_id: row.get(1)?,
        message_id: row.get(2)?,
        channel_id: row.get(3)?,
        filename: row.get(4)?,
        content_type: row.get(5)?,
        size: u64::try_from(row.get::<_, i64>(6)?).unwrap_or(0),
        url: row.get(7)?,
        failed_attempts: u32::try_from(row.get::<_, i64>(8)?).unwrap_or(0),
    })
}

fn count(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

impl Writer<'_> {
    /// Records the attachments of a message version: each one new, or seen with a new URL,
    /// gets a row; one already seen with this URL (a replay) none. Returns how many rows were
    /// written.
    pub fn record_attachments(
        &mut self,
        message_id: &MessageId,
        channel_id: &ChannelId,
        attachments: &[Attachment],
    ) -> Result<usize> {
        let mut written = 0;
        for attachment in attachments {
            let stamp = self.stamp();
            let inserted = self
                .transaction
                .prepare_cached(INSERT_ATTACHMENT)?
                .execute(named_params! {
                    ":created_at": stamp,
                    ":attachment_id": attachment.id,
                    ":message_id": message_id,
                    ":channel_id": channel_id,
                    ":filename": attachment.filename,
                    ":content_type": attachment.content_type,
                    ":size": i64::try_from(attachment.size).unwrap_or(i64::MAX),
                    ":url": attachment.url,
                })?;
            if inserted == 0 {
                self.unstamp(stamp);
            }
            written += inserted;
        }
        Ok(written)
    }

    /// Records what became of an attachment.
    pub fn record_attachment_outcome(
        &mut self,
        attachment_id: &AttachmentId,
        outcome: &AttachmentOutcome,
    ) -> Result<()> {
        let stamp = self.stamp();
        let (word, hash, bytes, reason, attempts, retry_at) = match outcome {
            AttachmentOutcome::Fetched { hash, bytes } => (
                "fetched",
                Some(hash.as_str()),
                Some(i64::try_from(*bytes).unwrap_or(i64::MAX)),
                None,
                0,
                None,
            ),
            AttachmentOutcome::Skipped { reason } => {
                ("skipped", None, None, Some(reason.as_str()), 0, None)
            }
            AttachmentOutcome::Failed {
                reason,
                attempts,
                retry_at,
            } => (
                "failed",
                None,
                None,
                Some(reason.as_str()),
                *attempts,
                *retry_at,
            ),
        };
        self.transaction
            .prepare_cached(INSERT_OUTCOME)?
            .execute(named_params! {
                ":created_at": stamp,
                ":attachment_id": attachment_id,
                ":outcome": word,
                ":hash": hash,
                ":bytes": bytes,
                ":reason": reason,
                ":attempts": attempts,
                ":retry_at": retry_at,
            })?;
        Ok(())
    }
}

impl Reader<'_> {
    /// Up to `limit` attachments to fetch after the sighting `after` (0: from the start),
    /// oldest first: those never attempted, those that failed whose retry is due by `now`, and,
    /// when the cache has `room` (bytes left under its total cap; None: not asked), those
    /// skipped at the total cap ([`TOTAL_CAP_REACHED`]) whose announced size fits in it. Each
    /// comes as last seen; the next batch is after the last one's `seq`.
    pub fn pending_attachments(
        &self,
        after: i64,
        now: Instant,
        room: Option<u64>,
        limit: usize,
    ) -> Result<Vec<AttachmentRecord>> {
        let mut statement = self.connection.prepare_cached(PENDING)?;
        let rows = statement.query_map(
            named_params! {
                ":after": after,
                ":now": now,
                ":no_room": format!("{TOTAL_CAP_REACHED}%"),
                ":room": room.map(|room| i64::try_from(room).unwrap_or(i64::MAX)),
                ":limit": i64::try_from(limit).unwrap_or(i64::MAX),
            },
            record_from_row,
        )?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// An attachment as last seen, if the store has seen it.
    pub fn attachment(&self, attachment_id: &AttachmentId) -> Result<Option<AttachmentRecord>> {
        use rusqlite::OptionalExtension;
        Ok(self
            .connection
            .prepare_cached(LAST_SEEN)?
            .query_row(
                named_params! {":attachment_id": attachment_id},
                record_from_row,
            )
            .optional()?)
    }

    /// What became of an attachment last; None while it was never attempted.
    pub fn attachment_outcome(
        &self,
        attachment_id: &AttachmentId,
    ) -> Result<Option<AttachmentOutcome>> {
        use rusqlite::OptionalExtension;
        let row = self
            .connection
            .prepare_cached(LATEST_OUTCOME)?
            .query_row(named_params! {":attachment_id": attachment_id}, |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, Option<String>>(1)?,
                    row.get::<_, Option<i64>>(2)?,
                    row.get::<_, Option<String>>(3)?,
                    row.get::<_, i64>(4)?,
                    row.get::<_, Option<Instant>>(5)?,
                ))
            })
            .optional()?;
        Ok(row.map(|(word, hash, bytes, reason, attempts, retry_at)| {
            let reason = reason.unwrap_or_default();
            match word.as_str() {
                "fetched" => AttachmentOutcome::Fetched {
                    hash: hash.unwrap_or_default(),
                    bytes: count(bytes.unwrap_or(0)),
                },
                "skipped" => AttachmentOutcome::Skipped { reason },
                _ => AttachmentOutcome::Failed {
                    reason,
                    attempts: u32::try_from(attempts).unwrap_or(0),
                    retry_at,
                },
            }
        }))
    }

    /// Which of `attachment_ids` are kept in the cache, in one statement: a page of messages
    /// asks once, not once per attachment.
    pub fn kept_attachments(
        &self,
        attachment_ids: &[&AttachmentId],
    ) -> Result<std::collections::HashSet<AttachmentId>> {
        if attachment_ids.is_empty() {
            return Ok(std::collections::HashSet::new());
        }
        let ids = sql_id_array(attachment_ids.iter().copied());
        let mut statement = self.connection.prepare_cached(KEPT_AMONG)?;
        let rows = statement.query_map(
            named_params! {":attachment_ids": ids, ":fetched": "fetched"},
            |row| row.get::<_, AttachmentId>(0),
        )?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The bytes of the files kept, each counted once: what the total cap is held against.
    pub fn kept_bytes(&self) -> Result<u64> {
        let bytes: i64 = self
            .connection
            .prepare_cached(KEPT)?
            .query_row([], |row| row.get(1))?;
        Ok(count(bytes))
    }

    /// The files kept and the attachments by state.
    pub fn cache_totals(&self) -> Result<CacheTotals> {
        let (files, bytes): (i64, i64) = self
            .connection
            .prepare_cached(KEPT)?
            .query_row([], |row| Ok((row.get(0)?, row.get(1)?)))?;
        let (pending, failed, skipped): (i64, i64, i64) = self
            .connection
            .prepare_cached(BY_STATE)?
            .query_row([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
        Ok(CacheTotals {
            files: count(files),
            bytes: count(bytes),
            pending: count(pending),
            failed: count(failed),
            skipped: count(skipped),
        })
    }
}

#[cfg(test)]
mod tests;
