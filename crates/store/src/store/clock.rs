//! The arrival clock: `created_at` of every history row.
//!
//! Each write transaction starts from `max(wall clock, last handed out + 1 µs)` and hands out
//! one microsecond more per row. Because the transaction already holds SQLite's write lock when
//! it reads the high-water mark, no two processes can interleave: a later commit always gets a
//! later instant, even within one millisecond and even if the wall clock steps back.

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use rusqlite::{Transaction, named_params};

pub(super) const LAST_HANDED_OUT: &str = "SELECT last_micros FROM clock WHERE id = 1";

const RECORD_LAST_HANDED_OUT: &str = "UPDATE clock SET last_micros = :last_micros WHERE id = 1";

pub(super) struct Clock {
    next: i64,
    /// Instants handed out and kept: nothing to record when none was.
    handed_out: u64,
}

impl Clock {
    pub(super) fn start(transaction: &Transaction<'_>, now: Instant) -> Result<Clock> {
        let last: i64 = transaction
            .prepare_cached(LAST_HANDED_OUT)?
            .query_row([], |row| row.get(0))?;
        Ok(Clock {
            next: now.as_micros().max(last + 1),
            handed_out: 0,
        })
    }

    /// Moves the next instant forward to `at` if `at` is later; never backward, so every
    /// instant still comes after every instant handed out before.
    pub(super) fn advance_to(&mut self, at: Instant) {
        self.next = self.next.max(at.as_micros());
    }

    pub(super) fn tick(&mut self) -> Instant {
        let instant = Instant::from_micros(self.next);
        self.next += 1;
        self.handed_out += 1;
        instant
    }

    /// Takes back `instant` if it is the last one handed out, so it is handed out again: for
    /// a row that turned out to be known already and was not written.
    pub(super) fn take_back(&mut self, instant: Instant) {
        if self.handed_out > 0 && instant.as_micros() == self.next - 1 {
            self.next -= 1;
            self.handed_out -= 1;
        }
    }

    /// Records the high-water mark, if anything was stamped, in the same transaction.
    pub(super) fn finish(self, transaction: &Transaction<'_>) -> Result<()> {
        if self.handed_out > 0 {
            transaction
                .prepare_cached(RECORD_LAST_HANDED_OUT)?
                .execute(named_params! {":last_micros": self.next - 1})?;
        }
        Ok(())
    }
}
