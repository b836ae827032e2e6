//! The vectors search by meaning reads (`migrations/0022_message_meanings.sql`, keyed by the
//! message since `0034_meanings_keyed_by_message.sql`): one current
//! row per message, the model that made it (its full identity stored once), the fingerprint
//! of the text it was made from, and the vector's bytes. What is embedded and how a vector
//! is made and compared is decided above the store; the store keeps the bytes and says which
//! messages have none yet, or whose text changed since.

use discord_manager_vocabulary::snowflake::{ChannelId, UserId};
use rusqlite::{OptionalExtension, named_params};

use super::messages::{message_columns, message_from_row_at};
use super::search::SearchFilter;
use super::{MessageRecord, Reader, Writer};
use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;

/// A message's text as search indexes it now, to embed, with what the store holds of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextToEmbed {
    /// The message's integer key.
    pub key: i64,
    /// The content as it is now.
    pub content: String,
    /// The words of its embeds, attachments, stickers, poll and forwards.
    pub extras: String,
    /// The text of each kept text file, in the order kept.
    pub files: Vec<String>,
    /// The model and fingerprint of the vector stored now, if any.
    pub stored: Option<(i64, i64)>,
}

/// A stored vector with what the scan's filters read of its message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredMeaning {
    /// The row's position: read on after the last seen.
    pub seq: i64,
    pub key: i64,
    pub channel_id: ChannelId,
    pub author_id: UserId,
    /// Arrival, in microseconds.
    pub arrived: i64,
    /// Discord's timestamp, in microseconds.
    pub sent: i64,
    /// Empty for a message with no text.
    pub vector: Vec<u8>,
}

/// Where a pass over changed texts has read to, in each table that can change a message's
/// text: its edits, its extras and its kept text files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextChanges {
    pub edits: i64,
    pub extras: i64,
    pub files: i64,
}

/// How far the vectors are: messages with a vector of the model, of all messages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MeaningProgress {
    pub embedded: u64,
    pub messages: u64,
}

impl Writer<'_> {
    /// The number the store knows `identity` by, recorded the first time it is seen.
    pub fn meaning_model(&mut self, identity: &str) -> Result<i64> {
        if let Some(id) = self.reader().meaning_model_id(identity)? {
            return Ok(id);
        }
        const INSERT_MODEL: &str =
            "INSERT INTO meaning_models (created_at, identity) VALUES (:created_at, :identity)";
        let stamp = self.stamp();
        self.transaction
            .prepare_cached(INSERT_MODEL)?
            .execute(named_params! {":created_at": stamp, ":identity": identity})?;
        Ok(self.transaction.last_insert_rowid())
    }

    /// Makes `vector` (empty for no text) the message's one current vector, replacing any,
    /// and moves the message's count to `model` (`meaning_totals`).
    pub fn put_meaning(
        &mut self,
        key: i64,
        model: i64,
        fingerprint: i64,
        vector: &[u8],
    ) -> Result<()> {
        const REPLACED_MODEL: &str = "SELECT model FROM message_meanings WHERE message_key = :key";
        // One more than the highest `seq`, read before a replaced row goes: a reader reads on
        // after the last it saw (migrations/0034_meanings_keyed_by_message.sql).
        const PUT_MEANING: &str = "INSERT OR REPLACE INTO message_meanings
                 (message_key, seq, model, fingerprint, vector)
             VALUES (:key, (SELECT coalesce(max(seq), 0) + 1 FROM message_meanings),
                     :model, :fingerprint, :vector)";
        const COUNT_ONE_MORE: &str = "INSERT INTO meaning_totals (model, vectors)
             VALUES (:model, 1)
             ON CONFLICT (model) DO UPDATE SET vectors = vectors + 1";
        const COUNT_ONE_LESS: &str =
            "UPDATE meaning_totals SET vectors = vectors - 1 WHERE model = :model";
        let replaced: Option<i64> = self
            .transaction
            .prepare_cached(REPLACED_MODEL)?
            .query_row(named_params! {":key": key}, |row| row.get(0))
            .optional()?;
        self.transaction
            .prepare_cached(PUT_MEANING)?
            .execute(named_params! {
                ":key": key,
                ":model": model,
                ":fingerprint": fingerprint,
                ":vector": vector,
            })?;
        if replaced != Some(model) {
            if let Some(previous) = replaced {
                self.transaction
                    .prepare_cached(COUNT_ONE_LESS)?
                    .execute(named_params! {":model": previous})?;
            }
            self.transaction
                .prepare_cached(COUNT_ONE_MORE)?
                .execute(named_params! {":model": model})?;
        }
        Ok(())
    }
}

impl Reader<'_> {
    /// The number the store knows `identity` by, if it has seen it.
    pub fn meaning_model_id(&self, identity: &str) -> Result<Option<i64>> {
        const MODEL_ID: &str = "SELECT id FROM meaning_models WHERE identity = :identity";
        Ok(self
            .connection
            .prepare_cached(MODEL_ID)?
            .query_row(named_params! {":identity": identity}, |row| row.get(0))
            .optional()?)
    }

    /// The identities of other models that made vectors the store holds, newest first.
    pub fn meaning_models_other_than(&self, identity: &str) -> Result<Vec<String>> {
        const OTHER_MODELS: &str = "SELECT identity FROM meaning_models AS models
             WHERE identity <> :identity
               AND EXISTS (SELECT 1 FROM message_meanings AS v WHERE v.model = models.id)
             ORDER BY id DESC";
        let mut statement = self.connection.prepare_cached(OTHER_MODELS)?;
        let identities = statement
            .query_map(named_params! {":identity": identity}, |row| row.get(0))?
            .collect::<rusqlite::Result<Vec<String>>>()?;
        Ok(identities)
    }

    /// Up to `limit` message keys after `after` and through `through`, in order, with no
    /// vector of `model` (none at all, or another model's). The statement probes the vectors'
    /// index once per key of the range, so callers walk a large store in spans: the whole of
    /// a fully embedded 1M store in one read took 1.1 s warm and 16 s from a cold cache.
    pub fn unembedded_messages(
        &self,
        model: i64,
        after: i64,
        through: i64,
        limit: usize,
    ) -> Result<Vec<i64>> {
        const UNEMBEDDED: &str = "SELECT m.seq FROM messages AS m
             WHERE m.seq > :after AND m.seq <= :through
               AND NOT EXISTS (SELECT 1 FROM message_meanings AS v
                               WHERE v.message_key = m.seq AND v.model = :model)
             ORDER BY m.seq LIMIT :limit";
        let mut statement = self.connection.prepare_cached(UNEMBEDDED)?;
        let keys = statement
            .query_map(
                named_params! {
                    ":after": after,
                    ":through": through,
                    ":model": model,
                    ":limit": limit as i64,
                },
                |row| row.get(0),
            )?
            .collect::<rusqlite::Result<Vec<i64>>>()?;
        Ok(keys)
    }

    /// The keys of messages whose text may have changed after `since` (an edit, new extras, a
    /// kept text file), up to `limit` rows of each table, and where that leaves the reading.
    pub fn changed_texts(
        &self,
        since: TextChanges,
        limit: usize,
    ) -> Result<(Vec<i64>, TextChanges)> {
        const EDITS: &str = "SELECT c.seq, m.seq FROM message_edits AS c
             JOIN messages AS m USING (message_id) WHERE c.seq > :after ORDER BY c.seq LIMIT :limit";
        const EXTRAS: &str = "SELECT c.seq, m.seq FROM message_extras AS c
             JOIN messages AS m USING (message_id) WHERE c.seq > :after ORDER BY c.seq LIMIT :limit";
        const FILES: &str = "SELECT c.seq, m.seq FROM attachment_text AS c
             JOIN messages AS m USING (message_id) WHERE c.seq > :after ORDER BY c.seq LIMIT :limit";
        let mut keys = Vec::new();
        let mut read = |sql: &str, after: i64| -> Result<i64> {
            let mut statement = self.connection.prepare_cached(sql)?;
            let rows = statement
                .query_map(
                    named_params! {":after": after, ":limit": limit as i64},
                    |row| Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?)),
                )?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let last = rows.last().map_or(after, |(seq, _)| *seq);
            keys.extend(rows.into_iter().map(|(_, key)| key));
            Ok(last)
        };
        let read_to = TextChanges {
            edits: read(EDITS, since.edits)?,
            extras: read(EXTRAS, since.extras)?,
            files: read(FILES, since.files)?,
        };
        keys.sort_unstable();
        keys.dedup();
        Ok((keys, read_to))
    }

    /// The text to embed of each message of `keys` that exists, in key order, with the
    /// vector's model and fingerprint stored now.
    pub fn texts_to_embed(&self, keys: &[i64]) -> Result<Vec<TextToEmbed>> {
        let messages = self.messages_by_keys(keys)?;
        const FILES: &str = "SELECT mt.content FROM attachment_text AS t
             JOIN file_text AS mt ON mt.rowid = t.text_rowid
             WHERE t.message_id = :message_id ORDER BY t.seq";
        const STORED: &str =
            "SELECT model, fingerprint FROM message_meanings WHERE message_key = :key";
        let mut texts = Vec::with_capacity(messages.len());
        for (key, message) in messages {
            let files = self
                .connection
                .prepare_cached(FILES)?
                .query_map(named_params! {":message_id": message.message_id}, |row| {
                    row.get(0)
                })?
                .collect::<rusqlite::Result<Vec<String>>>()?;
            let stored = self
                .connection
                .prepare_cached(STORED)?
                .query_row(named_params! {":key": key}, |row| {
                    Ok((row.get(0)?, row.get(1)?))
                })
                .optional()?;
            texts.push(TextToEmbed {
                key,
                content: message.current_content().to_string(),
                extras: message.extras.searchable_text(),
                files,
                stored,
            });
        }
        Ok(texts)
    }

    /// The messages of `keys` that exist, whole (edits, extras, reactions), in the order of
    /// `keys`, each with its key.
    pub fn messages_by_keys(&self, keys: &[i64]) -> Result<Vec<(i64, MessageRecord)>> {
        const MESSAGES_BY_KEYS: &str = concat!(
            "SELECT m.seq, ",
            message_columns!("m."),
            " FROM json_each(:keys) AS k JOIN messages AS m ON m.seq = k.value ORDER BY k.key"
        );
        let json = serde_json::to_string(keys).unwrap_or_else(|_| "[]".into());
        let mut statement = self.connection.prepare_cached(MESSAGES_BY_KEYS)?;
        let rows = statement
            .query_map(named_params! {":keys": json}, |row| {
                Ok((row.get::<_, i64>(0)?, message_from_row_at(row, 1)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let (keys, records): (Vec<i64>, Vec<MessageRecord>) = rows.into_iter().unzip();
        Ok(keys.into_iter().zip(self.hydrate(records)?).collect())
    }

    /// Up to `limit` vectors of `model` written after `after`, in the order written, with
    /// what the scan's filters read of each message.
    pub fn meanings_after(
        &self,
        model: i64,
        after: i64,
        limit: usize,
    ) -> Result<Vec<StoredMeaning>> {
        const MEANINGS_AFTER: &str = "SELECT v.seq, v.message_key, m.channel_id, m.author_id,
                 m.created_at, m.sent_at, v.vector
             FROM message_meanings AS v JOIN messages AS m ON m.seq = v.message_key
             WHERE v.seq > :after AND v.model = :model
             ORDER BY v.seq LIMIT :limit";
        let mut statement = self.connection.prepare_cached(MEANINGS_AFTER)?;
        let rows = statement
            .query_map(
                named_params! {":after": after, ":model": model, ":limit": limit as i64},
                stored_meaning,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// The stored vectors of `model` of the messages `keys` that have one (an empty vector
    /// for a message left with no text), each with its key, in the order of `keys`: what
    /// search by meaning rescores its candidates from. One lookup by key each.
    pub fn meaning_vectors(&self, model: i64, keys: &[i64]) -> Result<Vec<(i64, Vec<u8>)>> {
        const VECTORS_OF_KEYS: &str = "SELECT v.message_key, v.vector
             FROM json_each(:keys) AS k
             JOIN message_meanings AS v ON v.message_key = k.value
             WHERE v.model = :model
             ORDER BY k.key";
        let json = serde_json::to_string(keys).unwrap_or_else(|_| "[]".into());
        let mut statement = self.connection.prepare_cached(VECTORS_OF_KEYS)?;
        let rows = statement
            .query_map(named_params! {":keys": json, ":model": model}, |row| {
                Ok((row.get(0)?, row.get(1)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// How many messages have a vector of `model` (None: no model has embedded anything), of
    /// all the messages stored: two single-row reads, whatever the store's size (the running
    /// count of `meaning_totals`, and the messages' last key, as `message_count` reads it).
    pub fn meaning_progress(&self, model: Option<i64>) -> Result<MeaningProgress> {
        const VECTORS_OF_MODEL: &str = "SELECT vectors FROM meaning_totals WHERE model = :model";
        let embedded: i64 = match model {
            None => 0,
            Some(model) => self
                .connection
                .prepare_cached(VECTORS_OF_MODEL)?
                .query_row(named_params! {":model": model}, |row| row.get(0))
                .optional()?
                .unwrap_or(0),
        };
        let embedded = u64::try_from(embedded).unwrap_or(0);
        Ok(MeaningProgress {
            embedded,
            messages: self.message_count()?,
        })
    }

    /// Which of `keys` the filter admits, in the order of `keys`: the conditions words search
    /// applies, over candidates search by meaning found.
    pub fn admitted_keys(&self, keys: &[i64], filter: &SearchFilter) -> Result<Vec<i64>> {
        let conditions = filter.conditions();
        const UP_TO_CONDITIONS: &str = "SELECT m.seq,
                 (SELECT x.extras FROM message_extras AS x
                  WHERE x.message_id = m.message_id ORDER BY x.seq DESC LIMIT 1) AS extras
             FROM json_each(:keys) AS k JOIN messages AS m ON m.seq = k.value
             WHERE ";
        const AFTER_CONDITIONS: &str = " ORDER BY k.key";
        let sql = [UP_TO_CONDITIONS, conditions.sql(), AFTER_CONDITIONS].concat();
        let json = serde_json::to_string(keys).unwrap_or_else(|_| "[]".into());
        let mut values = conditions.values();
        values.push((":keys", &json as &dyn rusqlite::ToSql));
        let mut statement = self.connection.prepare_cached(&sql)?;
        let admitted = statement
            .query_map(values.as_slice(), |row| row.get(0))?
            .collect::<rusqlite::Result<Vec<i64>>>()?;
        Ok(admitted)
    }
}

/// A row of `seq, message_key, channel_id, author_id, created_at, sent_at, vector`.
fn stored_meaning(row: &rusqlite::Row<'_>) -> rusqlite::Result<StoredMeaning> {
    Ok(StoredMeaning {
        seq: row.get(0)?,
        key: row.get(1)?,
        channel_id: row.get(2)?,
        author_id: row.get(3)?,
        arrived: row.get::<_, Instant>(4)?.as_micros(),
        sent: row.get::<_, Instant>(5)?.as_micros(),
        vector: row.get(6)?,
    })
}

mod centres;
pub use centres::StoredCentre;
mod walks_and_blocks;
pub use walks_and_blocks::MeaningWalk;

#[cfg(test)]
mod tests;
