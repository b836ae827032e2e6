//! Each message as Discord sent it, kept compressed (`migrations/0024_message_payloads.sql`):
//! one row per distinct payload of a message, in arrival order. The store keeps the bytes and
//! knows nothing of their format; the recorders deflate and read them.

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::snowflake::{MessageId, stored_bits};
use rusqlite::named_params;

use super::{Reader, Writer};

/// A message's payload as the recorders hand it over: its digest (what tells one payload of
/// the message from another), the dictionary it was deflated against, and the bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPayload<'a> {
    pub message_id: &'a MessageId,
    pub digest: i64,
    pub dictionary: u32,
    pub payload: &'a [u8],
}

/// A kept payload, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptPayload {
    pub message_id: MessageId,
    /// 0 for the message's first payload, then one more for each later one.
    pub version: u32,
    pub dictionary: u32,
    pub payload: Vec<u8>,
}

impl Writer<'_> {
    /// Keeps a payload of a message; false (nothing written) when the message already has
    /// this one (a replay, or the same copy seen twice).
    pub fn keep_payload(&mut self, new: &NewPayload<'_>) -> Result<bool> {
        const KEEP_PAYLOAD: &str = "INSERT INTO message_payloads
                 (message_id, digest, version, dictionary, payload)
             VALUES (:message_id, :digest,
                     (SELECT count(*) FROM message_payloads WHERE message_id = :message_id),
                     :dictionary, :payload)
             ON CONFLICT (message_id, digest) DO NOTHING";
        let written = self
            .transaction
            .prepare_cached(KEEP_PAYLOAD)?
            .execute(named_params! {
                ":message_id": new.message_id,
                ":digest": new.digest,
                ":dictionary": new.dictionary,
                ":payload": new.payload,
            })?;
        Ok(written > 0)
    }
}

impl Writer<'_> {
    /// Records that every kept payload was read again with reading rules `rules`.
    pub fn record_payload_reading(&mut self, rules: u32) -> Result<()> {
        const RECORD_READING: &str =
            "INSERT INTO payload_readings (created_at, rules) VALUES (:created_at, :rules)";
        let created_at = self.stamp();
        self.transaction
            .prepare_cached(RECORD_READING)?
            .execute(named_params! {":created_at": created_at, ":rules": rules})?;
        Ok(())
    }
}

impl Reader<'_> {
    /// The newest reading rules every kept payload was read with; None before any pass.
    pub fn payload_reading_rules(&self) -> Result<Option<u32>> {
        const NEWEST_RULES: &str = "SELECT max(rules) FROM payload_readings";
        Ok(self
            .connection
            .prepare_cached(NEWEST_RULES)?
            .query_row([], |row| row.get(0))?)
    }

    /// Every payload kept of a message, in the order they arrived.
    pub fn payloads_of(&self, message_id: &MessageId) -> Result<Vec<KeptPayload>> {
        const PAYLOADS_OF_MESSAGE: &str =
            "SELECT message_id, version, dictionary, payload FROM message_payloads
             WHERE message_id = :message_id ORDER BY version";
        let mut statement = self.connection.prepare_cached(PAYLOADS_OF_MESSAGE)?;
        let rows = statement
            .query_map(named_params! {":message_id": message_id}, kept_payload)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// The first payload of each message after `after` (by id as stored; None: from the
    /// start), at most `limit` of them: what a pass that derives again from every kept
    /// payload walks in pages.
    pub fn first_payloads_after(
        &self,
        after: Option<&MessageId>,
        limit: usize,
    ) -> Result<Vec<KeptPayload>> {
        const FIRST_PAYLOADS_AFTER: &str =
            "SELECT message_id, version, dictionary, payload FROM message_payloads
             WHERE version = 0 AND message_id > :after
             ORDER BY message_id LIMIT :limit";
        let after = after.map_or(0, stored_bits);
        let mut statement = self.connection.prepare_cached(FIRST_PAYLOADS_AFTER)?;
        let rows = statement
            .query_map(
                named_params! {":after": after, ":limit": limit as i64},
                kept_payload,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }
}

fn kept_payload(row: &rusqlite::Row<'_>) -> rusqlite::Result<KeptPayload> {
    Ok(KeptPayload {
        message_id: row.get(0)?,
        version: row.get(1)?,
        dictionary: row.get(2)?,
        payload: row.get(3)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use crate::store::testing::{fresh_id, shared_store};

    #[test]
    fn a_payload_is_kept_once_and_a_messages_payloads_read_back_in_arrival_order() {
        let store = shared_store();
        let message: MessageId = fresh_id();
        let keep = |digest: i64, bytes: &[u8]| {
            store
                .write(|writer| {
                    writer.keep_payload(&NewPayload {
                        message_id: &message,
                        digest,
                        dictionary: 1,
                        payload: bytes,
                    })
                })
                .unwrap()
        };
        assert!(keep(-7, b"created"));
        assert!(!keep(-7, b"created"), "a replay writes nothing");
        assert!(keep(3, b"updated"));
        let kept = store.read(|reader| reader.payloads_of(&message)).unwrap();
        let read: Vec<(u32, &[u8])> = kept
            .iter()
            .map(|payload| (payload.version, payload.payload.as_slice()))
            .collect();
        assert_eq!(read, [(0, &b"created"[..]), (1, &b"updated"[..])]);
        let firsts = store
            .read(|reader| reader.first_payloads_after(None, 1_000_000))
            .unwrap();
        let mine: Vec<&KeptPayload> = firsts
            .iter()
            .filter(|payload| payload.message_id == message)
            .collect();
        assert_eq!(mine.len(), 1);
        assert_eq!(mine[0].payload, b"created");
    }

    #[test]
    fn the_newest_reading_rules_are_the_highest_recorded() {
        let folder = tempfile::tempdir().unwrap();
        let store = Store::open_writable(&folder.path().join("readings.sqlite3")).unwrap();
        let rules = |store: &Store| store.read(|reader| reader.payload_reading_rules()).unwrap();
        assert_eq!(rules(&store), None);
        store
            .write(|writer| writer.record_payload_reading(2))
            .unwrap();
        store
            .write(|writer| writer.record_payload_reading(1))
            .unwrap();
        assert_eq!(rules(&store), Some(2));
    }
}
