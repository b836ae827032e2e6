//! Test support: one real SQLite file per test process, shared by every unit test.
//!
//! Following the append-only test doctrine, tests never clean up: each inserts rows under
//! fresh ids and scopes every assertion to them, which is what lets them run in parallel
//! against one store.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::LazyLock;
use std::sync::atomic::{AtomicU64, Ordering};

use std::sync::MutexGuard;

use rusqlite::Connection;

use super::Store;

static SHARED: LazyLock<(tempfile::TempDir, PathBuf)> = LazyLock::new(|| {
    let folder = tempfile::tempdir().expect("a temporary folder for the unit-test store");
    let path = folder.path().join("unit.sqlite3");
    // Migrate once, before any test opens its own connection.
    Store::open(&path).expect("the unit-test store opens and migrates");
    (folder, path)
});

/// A new connection to this process's shared unit-test store.
pub fn shared_store() -> Store {
    Store::open(&SHARED.1).expect("the unit-test store opens")
}

/// The store's own connection, for a test that runs raw SQL past the store's statements (as
/// the append-only triggers are proven against updates and deletions).
pub fn connection(store: &Store) -> MutexGuard<'_, Connection> {
    store.lock()
}

/// A fresh snowflake-shaped id of the kind the caller wants (`ChannelId`, `MessageId`, … or
/// its digits as a `String`), unique within this process and unlikely to repeat across runs.
pub fn fresh_id<Id: FromStr<Err: fmt::Debug>>() -> Id {
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
    (*BASE + NEXT.fetch_add(1, Ordering::Relaxed) * 7919)
        .to_string()
        .parse()
        .expect("a fresh id is 18 digits, not zero")
}

impl Store {
    /// Makes this store's connection refuse to record the message with this id, as a failing
    /// disk or constraint would: a temporary trigger, which no other connection sees.
    pub fn refuse_message(&self, message_id: &str) {
        let digits: String = message_id.chars().filter(char::is_ascii_digit).collect();
        self.shared
            .connection
            .lock()
            .unwrap()
            .execute_batch(&format!(
                "CREATE TEMP TRIGGER refuse_{digits} BEFORE INSERT ON main.messages
                 WHEN NEW.message_id = {digits}
                 BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;"
            ))
            .expect("the refusing trigger is created");
    }
}

/// Every history table: append-only, each guarded by triggers that refuse an update or a
/// deletion.
pub const HISTORY_TABLES: &[&str] = &[
    "identity_events",
    "guild_events",
    "member_role_events",
    "channel_events",
    "messages",
    "message_mentions",
    "message_edits",
    "message_deletions",
    "reaction_events",
    "bookmark_events",
    "gateway_events",
    "channel_coverage",
    "coverage_gaps",
    "schedules",
    "schedule_events",
    "assistant_sends",
    "channel_anchors",
    "discord_clock_readings",
    "message_extras",
    "poll_vote_events",
    "mention_dismissals",
    "read_markers",
    "bookmark_due_events",
    "channel_imports",
    "backups",
    "assistant_reactions",
    "attachments",
    "attachment_outcomes",
    "attachment_text",
    "meaning_models",
    "message_payloads",
    "payload_readings",
    "push_deliveries",
    "push_coverage",
    "version_texts",
];

/// Takes a current store back to before migration 0036, for a test that takes a store back to
/// an older schema to migrate it again: 0037's centres are gone, the index of the messages'
/// words keeps its own copy of every text again, under the same numbers, and the table and view
/// 0036 adds are gone.
pub const BEFORE_0036: &str = "
    DROP TABLE meaning_centres;
    CREATE TEMP TABLE texts_before_0036 AS
        SELECT text_rowid, content, message_id FROM message_text_versions;
    DROP VIEW message_text_versions;
    DROP TABLE message_text;
    DROP TABLE version_texts;
    CREATE VIRTUAL TABLE message_text USING fts5(
        content,
        message_id UNINDEXED,
        tokenize = 'unicode61 remove_diacritics 2'
    );
    INSERT INTO message_text (rowid, content, message_id)
        SELECT text_rowid, content, message_id FROM texts_before_0036;
    DROP TABLE temp.texts_before_0036;";
/// FTS5's own tables behind `message_text`, `file_text` and `cjk_text` (a virtual table
/// cannot carry triggers; the store only ever inserts into them).
pub const SEARCH_TABLES: &[&str] = &[
    "message_text",
    "message_text_config",
    "message_text_data",
    "message_text_docsize",
    "message_text_idx",
    "file_text",
    "file_text_config",
    "file_text_content",
    "file_text_data",
    "file_text_docsize",
    "file_text_idx",
    "cjk_text",
    "cjk_text_config",
    "cjk_text_content",
    "cjk_text_data",
    "cjk_text_docsize",
    "cjk_text_idx",
];

/// The hits of a search by words for `query` in `channels`, at most ten, as a test reads them.
pub fn search_hits(store: &Store, query: &str, channels: &[&str]) -> Vec<super::SearchHit> {
    let filter = super::SearchFilter {
        channel_ids: channels
            .iter()
            .map(|channel| channel.parse().expect("a channel id"))
            .collect(),
        ..super::SearchFilter::default()
    };
    store
        .read(|reader| reader.search(query, &filter, 10))
        .expect("a search")
        .expect("a query FTS5 reads")
        .hits
}
