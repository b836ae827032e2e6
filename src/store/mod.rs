//! The store: one SQLite file, append-only history, and every SQL statement of the product.
//!
//! Nothing outside this module writes SQL. Reading goes through [`Store::read`] (one short
//! transaction per call, never held between calls, so an idle reader cannot make the WAL grow
//! while `ingest` writes); writing goes through [`Store::write`], which takes SQLite's write
//! lock first and then stamps every row from the arrival clock inside that same transaction,
//! so commit order and clock order agree across processes.

mod bookmarks;
mod channels;
mod clock;
mod identity;
mod messages;
mod migrations;
mod paths;
mod reactions;
#[cfg(test)]
pub(crate) mod testing;

use std::fs::OpenOptions;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, Transaction, TransactionBehavior};

use crate::error::{Error, Result};
use crate::instant::Instant;

pub use bookmarks::{BookmarkEvent, BookmarkKind};
pub use channels::{ChannelAccess, ChannelRecord, GuildRecord, Overwrite, RolePermissions};
pub use identity::Identity;
pub use messages::{EditRecord, MessageRecord, NewEdit, NewMessage};
pub use paths::default_path;
pub use reactions::{ReactionChange, ReactionCount};

/// How long a writer waits for another process's write lock before giving up.
/// Readers never wait: WAL lets them read the last committed state.
const BUSY_TIMEOUT: Duration = Duration::from_secs(15);

/// An open store. Cheap to share behind an `Arc`; calls are serialised on one connection.
pub struct Store {
    connection: Mutex<Connection>,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if needed, with mode 0600) and migrates the store at `path`.
    pub fn open(path: &Path) -> Result<Store> {
        if let Some(parent) = path
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty())
        {
            std::fs::create_dir_all(parent).map_err(|error| {
                Error::config(format!(
                    "Cannot create the store's folder {}: {error}",
                    parent.display()
                ))
            })?;
        }
        // Create the file ourselves so it is private from its first byte; SQLite gives the
        // -wal and -shm files the same mode as the database file.
        OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(path)
            .map_err(|error| {
                Error::config(format!(
                    "Cannot open the store at {}: {error}",
                    path.display()
                ))
            })?;
        let mut connection = Connection::open(path).map_err(|error| {
            Error::config(format!(
                "Cannot open the store at {}: {error}",
                path.display()
            ))
        })?;
        connection.busy_timeout(BUSY_TIMEOUT)?;
        connection.pragma_update(None, "journal_mode", "WAL")?;
        connection.pragma_update(None, "synchronous", "NORMAL")?;
        connection.pragma_update(None, "foreign_keys", "ON")?;
        migrations::migrate(&mut connection, path)?;
        Ok(Store {
            connection: Mutex::new(connection),
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `read` inside one short read transaction: a consistent snapshot for the call,
    /// released as soon as it returns.
    pub fn read<T>(&self, read: impl FnOnce(&Reader<'_>) -> Result<T>) -> Result<T> {
        let mut connection = self.lock();
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Deferred)?;
        let result = read(&Reader {
            connection: &transaction,
        })?;
        transaction.finish()?;
        Ok(result)
    }

    /// Runs `write` inside one IMMEDIATE transaction: it commits entirely or not at all.
    pub fn write<T>(&self, write: impl FnOnce(&mut Writer<'_>) -> Result<T>) -> Result<T> {
        let mut connection = self.lock();
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let clock = clock::Clock::start(&transaction, Instant::now())?;
        let mut writer = Writer { transaction, clock };
        let result = write(&mut writer)?;
        let Writer { transaction, clock } = writer;
        clock.finish(&transaction)?;
        transaction.commit()?;
        Ok(result)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave a transaction open (rusqlite rolls
        // back on drop), so the connection is still sound.
        self.connection
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Read access inside one transaction.
pub struct Reader<'a> {
    connection: &'a Connection,
}

impl Reader<'_> {
    /// Whether nothing was ever recorded: the arrival clock has never moved.
    pub fn is_empty(&self) -> Result<bool> {
        let last: i64 =
            self.connection
                .query_row("SELECT last_micros FROM clock WHERE id = 1", [], |row| {
                    row.get(0)
                })?;
        Ok(last == 0)
    }
}

/// Write access inside one IMMEDIATE transaction, with the arrival clock.
pub struct Writer<'a> {
    transaction: Transaction<'a>,
    clock: clock::Clock,
}

impl Writer<'_> {
    /// The next arrival instant: strictly after every instant the store has handed out.
    pub fn stamp(&mut self) -> Instant {
        self.clock.tick()
    }

    /// Reads within the write transaction, seeing this transaction's own rows.
    pub fn reader(&self) -> Reader<'_> {
        Reader {
            connection: &self.transaction,
        }
    }
}
