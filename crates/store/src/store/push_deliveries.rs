//! What the MCP server pushed into assistants' sessions (`migrations/0026_push_deliveries.sql`):
//! each item given to a session, and how far along the arrival clock a session had pushed
//! everything. A starting server replays the items no session was given, from the newest
//! coverage on.

use std::collections::HashSet;

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{MessageId, sql_id_array};
use rusqlite::named_params;

use super::{Reader, Writer};

impl Writer<'_> {
    /// Records that `session` gave its client the item `message_id` (`kind` says why it needed
    /// the owner).
    pub fn record_push_delivery(
        &mut self,
        session: &str,
        message_id: &MessageId,
        kind: &str,
    ) -> Result<()> {
        const RECORD: &str = "INSERT INTO push_deliveries (created_at, session, message_id, kind)
             VALUES (:created_at, :session, :message_id, :kind)";
        let created_at = self.stamp();
        self.transaction
            .prepare_cached(RECORD)?
            .execute(named_params! {
                ":created_at": created_at,
                ":session": session,
                ":message_id": message_id,
                ":kind": kind,
            })?;
        Ok(())
    }

    /// Records that `session` had pushed every item that arrived through `through`.
    pub fn record_push_coverage(&mut self, session: &str, through: Instant) -> Result<()> {
        const RECORD: &str = "INSERT INTO push_coverage (created_at, session, through)
             VALUES (:created_at, :session, :through)";
        let created_at = self.stamp();
        self.transaction
            .prepare_cached(RECORD)?
            .execute(named_params! {
                ":created_at": created_at,
                ":session": session,
                ":through": through,
            })?;
        Ok(())
    }
}

impl Reader<'_> {
    /// Which of `message_ids` any session was given (or counted).
    pub fn pushed_among(&self, message_ids: &[&MessageId]) -> Result<HashSet<MessageId>> {
        const PUSHED_AMONG: &str = "SELECT DISTINCT message_id FROM push_deliveries
             WHERE message_id IN (SELECT value FROM json_each(:message_ids))";
        if message_ids.is_empty() {
            return Ok(HashSet::new());
        }
        let ids = sql_id_array(message_ids.iter().copied());
        let mut statement = self.connection.prepare_cached(PUSHED_AMONG)?;
        let rows = statement.query_map(named_params! {":message_ids": ids}, |row| {
            row.get::<_, MessageId>(0)
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The furthest any session had pushed everything; None before any session.
    pub fn push_coverage(&self) -> Result<Option<Instant>> {
        const NEWEST: &str = "SELECT max(through) FROM push_coverage";
        Ok(self
            .connection
            .prepare_cached(NEWEST)?
            .query_row([], |row| row.get(0))?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[test]
    fn a_delivery_is_known_to_every_later_reader_and_the_newest_coverage_bounds_the_replay() {
        let folder = tempfile::tempdir().unwrap();
        let store = Store::open_writable(&folder.path().join("store.sqlite3")).unwrap();
        let (one, two): (MessageId, MessageId) = ("11".parse().unwrap(), "12".parse().unwrap());
        assert_eq!(store.read(|reader| reader.push_coverage()).unwrap(), None);
        let (early, late) = (
            Instant::parse("2026-12-05T10:00:00Z").unwrap(),
            Instant::parse("2026-12-05T11:00:00Z").unwrap(),
        );
        store
            .write(|writer| {
                writer.record_push_delivery("a", &one, "mention")?;
                writer.record_push_coverage("a", late)?;
                writer.record_push_coverage("b", early)
            })
            .unwrap();
        let pushed = store
            .read(|reader| reader.pushed_among(&[&one, &two]))
            .unwrap();
        assert_eq!(pushed, HashSet::from([one]));
        assert_eq!(
            store.read(|reader| reader.push_coverage()).unwrap(),
            Some(late)
        );
        assert!(
            store
                .read(|reader| reader.pushed_among(&[]))
                .unwrap()
                .is_empty()
        );
    }
}
