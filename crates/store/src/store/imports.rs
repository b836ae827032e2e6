//! The import of history from before the store began: one row per page stored, appended in
//! the page's own transaction, so a channel's newest row says exactly how far it has come
//! (see `migrations/0015_history_import.sql`).

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{ChannelId, from_stored, to_stored};
use rusqlite::{OptionalExtension, Row, named_params};

use super::{Reader, Writer};

/// One page of a channel's import, as recorded with the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewImportStep {
    pub channel_id: ChannelId,
    /// The lowest message id inside the window the page was fetched for (0: all history).
    pub window_start: u64,
    /// Every message from this id up to the channel's beginning is now stored.
    pub reached: u64,
    /// Discord has nothing older than `reached`.
    pub exhausted: bool,
    /// Messages Discord answered on the page.
    pub fetched: u64,
    /// Of those, messages the store did not have.
    pub stored: u64,
}

/// How far a channel's import has come: its newest step, and the totals of every step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportState {
    pub channel_id: ChannelId,
    pub window_start: u64,
    pub reached: u64,
    pub exhausted: bool,
    pub pages: u64,
    pub fetched: u64,
    pub stored: u64,
    /// When the newest page was stored.
    pub last_page_at: Instant,
}

impl ImportState {
    /// Whether nothing is left to import for the window it was fetched for.
    pub fn done(&self) -> bool {
        self.exhausted || self.reached <= self.window_start
    }
}

/// Every channel's import state, each from its newest step and the sums of all its steps,
/// before a `WHERE` or `ORDER BY`: a macro, so that statements can `concat!` it.
macro_rules! import_states {
    () => {
        "SELECT i.channel_id, i.window_start, i.reached, i.exhausted,
            t.pages, t.fetched, t.stored, i.created_at
     FROM channel_imports AS i
     JOIN (SELECT channel_id, max(seq) AS seq, count(*) AS pages, sum(fetched) AS fetched,
                  sum(stored) AS stored
           FROM channel_imports GROUP BY channel_id) AS t ON t.seq = i.seq"
    };
}

const CHANNEL_IMPORT_STATE: &str = concat!(import_states!(), " WHERE i.channel_id = :channel_id");

const IMPORT_STATES_BY_CHANNEL: &str = concat!(import_states!(), " ORDER BY i.channel_id");

const INSERT_IMPORT_STEP: &str = "INSERT INTO channel_imports (created_at, channel_id,
         window_start, reached, exhausted, fetched, stored)
     VALUES (:created_at, :channel_id, :window_start, :reached, :exhausted, :fetched, :stored)";

fn import_state_from_row(row: &Row<'_>) -> rusqlite::Result<ImportState> {
    let id = |index: usize| -> rusqlite::Result<u64> { Ok(from_stored(row.get(index)?)) };
    Ok(ImportState {
        channel_id: row.get(0)?,
        window_start: id(1)?,
        reached: id(2)?,
        exhausted: row.get(3)?,
        pages: id(4)?,
        fetched: id(5)?,
        stored: id(6)?,
        last_page_at: row.get(7)?,
    })
}

impl Reader<'_> {
    /// How far one channel's import has come, if a page of it was ever stored.
    pub fn import_state(&self, channel_id: &ChannelId) -> Result<Option<ImportState>> {
        Ok(self
            .connection
            .prepare_cached(CHANNEL_IMPORT_STATE)?
            .query_row(
                named_params! {":channel_id": channel_id},
                import_state_from_row,
            )
            .optional()?)
    }

    /// Every channel's import, in channel id order.
    pub fn import_states(&self) -> Result<Vec<ImportState>> {
        let mut statement = self.connection.prepare_cached(IMPORT_STATES_BY_CHANNEL)?;
        let rows = statement.query_map([], import_state_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

impl Writer<'_> {
    /// Appends one page's step of a channel's import.
    pub fn record_import_step(&mut self, step: &NewImportStep) -> Result<()> {
        let created_at = self.stamp();
        self.transaction
            .prepare_cached(INSERT_IMPORT_STEP)?
            .execute(named_params! {
                ":created_at": created_at,
                ":channel_id": step.channel_id,
                ":window_start": to_stored(step.window_start),
                ":reached": to_stored(step.reached),
                ":exhausted": step.exhausted,
                ":fetched": step.fetched as i64,
                ":stored": step.stored as i64,
            })?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::testing::{fresh_id, shared_store};

    fn step(channel: &ChannelId, reached: u64, exhausted: bool, stored: u64) -> NewImportStep {
        NewImportStep {
            channel_id: *channel,
            window_start: 1_000,
            reached,
            exhausted,
            fetched: 100,
            stored,
        }
    }

    #[test]
    fn a_channels_import_is_its_newest_step_with_the_totals_of_every_step() {
        let store = shared_store();
        let channel: ChannelId = fresh_id();
        let read = || store.read(|reader| reader.import_state(&channel)).unwrap();
        assert_eq!(read(), None);
        store
            .write(|writer| writer.record_import_step(&step(&channel, 5_000, false, 100)))
            .unwrap();
        let first = read().unwrap();
        assert_eq!((first.reached, first.pages, first.stored), (5_000, 1, 100));
        assert!(
            !first.done(),
            "above the window's start, Discord may have more"
        );
        store
            .write(|writer| writer.record_import_step(&step(&channel, 1_000, false, 60)))
            .unwrap();
        let second = read().unwrap();
        assert_eq!(
            (second.reached, second.pages, second.fetched, second.stored),
            (1_000, 2, 200, 160)
        );
        assert!(second.done(), "at the window's start");
        let listed = store.read(|reader| reader.import_states()).unwrap();
        assert_eq!(
            listed
                .into_iter()
                .filter(|state| state.channel_id == channel)
                .collect::<Vec<_>>(),
            vec![second]
        );
        // Discord having nothing older ends it above the window's start too.
        let other: ChannelId = fresh_id();
        store
            .write(|writer| writer.record_import_step(&step(&other, 4_000, true, 3)))
            .unwrap();
        assert!(
            store
                .read(|reader| reader.import_state(&other))
                .unwrap()
                .unwrap()
                .done()
        );
    }
}
