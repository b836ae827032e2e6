//! Test support: one real SQLite file per test process, shared by every unit test.
//!
//! Following the append-only test doctrine, tests never clean up: each inserts rows under
//! fresh ids and scopes every assertion to them, which is what lets them run in parallel
//! against one store.

use std::path::PathBuf;
use std::sync::LazyLock;
use std::sync::atomic::{AtomicU64, Ordering};

use super::Store;

static SHARED: LazyLock<(tempfile::TempDir, PathBuf)> = LazyLock::new(|| {
    let folder = tempfile::tempdir().expect("a temporary folder for the unit-test store");
    let path = folder.path().join("unit.sqlite3");
    // Migrate once, before any test opens its own connection.
    Store::open(&path).expect("the unit-test store opens and migrates");
    (folder, path)
});

/// A new connection to this process's shared unit-test store.
pub(crate) fn shared_store() -> Store {
    Store::open(&SHARED.1).expect("the unit-test store opens")
}

/// A fresh snowflake-shaped id, unique within this process and unlikely to repeat across runs.
pub(crate) fn fresh_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    static BASE: LazyLock<u64> = LazyLock::new(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|elapsed| elapsed.as_nanos() as u64)
            .unwrap_or(0);
        // Snowflakes are 17 to 20 digits; keep ours in that range.
        100_000_000_000_000_000
            + (nanos ^ (u64::from(std::process::id()) << 32)) % 10_000_000_000_000_000
    });
    (*BASE + NEXT.fetch_add(1, Ordering::Relaxed) * 7919).to_string()
}

impl Store {
    /// Makes this store's connection refuse to record the message with this id, as a failing
    /// disk or constraint would: a temporary trigger, which no other connection sees.
    pub(crate) fn refuse_message(&self, message_id: &str) {
        let digits: String = message_id.chars().filter(char::is_ascii_digit).collect();
        self.connection
            .lock()
            .unwrap()
            .execute_batch(&format!(
                "CREATE TEMP TRIGGER refuse_{digits} BEFORE INSERT ON main.messages
                 WHEN NEW.message_id = '{digits}'
                 BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;"
            ))
            .expect("the refusing trigger is created");
    }
}
