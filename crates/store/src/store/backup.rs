//! `discord-manager backup`: a consistent copy of the store while `ingest` writes it, with
//! SQLite's online backup.
//!
//! The copy is read from one snapshot: a read transaction is opened on the source first and
//! held through every step of the backup, so the steps all see the same committed state (the
//! backup is never restarted by a commit of another process, and the WAL lets `ingest` go on
//! writing meanwhile). The copy is written to a temporary file beside the destination, created
//! exclusively (private from its first byte, never through a planted path), switched to a
//! self-contained rollback journal, checked with `PRAGMA integrity_check`, flushed to disk and
//! only then linked into place, refusing a path that exists: a failed backup leaves nothing at
//! the destination. Each backup is then recorded in the store's `backups` table, whose newest
//! row `doctor` reports.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use rusqlite::backup::{Backup, StepResult};
use rusqlite::{Connection, OpenFlags, named_params};

use super::{Reader, Store, Writer};

/// Pages copied between two progress reports: 4 MiB of the store's 4 KiB pages.
const PAGES_PER_STEP: i32 = 1_024;

/// How far a backup has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackupProgress {
    pub copied_pages: u64,
    pub total_pages: u64,
}

/// A finished, verified copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupSummary {
    /// Where the copy is, made absolute.
    pub path: PathBuf,
    /// The messages it holds.
    pub messages: u64,
    /// Its size.
    pub bytes: u64,
}

/// A backup as the store recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupRecord {
    pub created_at: Instant,
    pub path: String,
    pub messages: u64,
    pub bytes: u64,
}

/// Removes the temporary copy (and any journal SQLite left beside it) unless it was kept.
struct Temporary {
    path: PathBuf,
    kept: bool,
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if self.kept {
            return;
        }
        for suffix in ["", "-journal", "-wal", "-shm"] {
            let mut name = self.path.as_os_str().to_owned();
            name.push(suffix);
            let _ = std::fs::remove_file(&name);
        }
    }
}

impl Store {
    /// Copies the store to `destination`, a path that must not exist yet; `progress` is told
    /// after each step. See the module's documentation.
    pub fn backup_to(
        &self,
        destination: &Path,
        progress: impl FnMut(BackupProgress),
    ) -> Result<BackupSummary> {
        self.backup_in_steps(destination, PAGES_PER_STEP, progress)
    }

    fn backup_in_steps(
        &self,
        destination: &Path,
        pages_per_step: i32,
        mut progress: impl FnMut(BackupProgress),
    ) -> Result<BackupSummary> {
        let shown = destination.display();
        let exists = || {
            Error::conflict(format!(
                "{shown} already exists: a backup never overwrites a file, so give a path that \
                 does not exist yet"
            ))
        };
        if destination.symlink_metadata().is_ok() {
            return Err(exists());
        }
        let absolute = std::path::absolute(destination).map_err(|error| {
            Error::input(format!("The backup's path {shown} cannot be used")).with_source(error)
        })?;
        let (Some(folder), Some(name)) = (absolute.parent(), absolute.file_name()) else {
            return Err(Error::input(format!(
                "The backup's path {shown} names no file: give the path of the copy to write"
            )));
        };
        let cannot_write = |error: &dyn std::fmt::Display| {
            Error::config(format!(
                "Cannot write the backup at {shown}: {error}. Check that its folder exists and \
                 that this user may write there"
            ))
        };
        let mut temporary_name = std::ffi::OsString::from(".");
        temporary_name.push(name);
        temporary_name.push(format!(".partial-{}", std::process::id()));
        let temporary = Temporary {
            path: folder.join(temporary_name),
            kept: false,
        };
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options
            .open(&temporary.path)
            .map_err(|error| cannot_write(&error))?;

        let source = self.snapshot_connection()?;
        let mut copy = Connection::open_with_flags(
            &temporary.path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|error| cannot_write(&error))?;
        copy_pages(&source, &mut copy, pages_per_step, &mut progress)?;
        source.execute_batch(END_SNAPSHOT)?;
        drop(source);
        // One file that stands on its own: no -wal to carry along with it.
        copy.pragma_update(None, "journal_mode", "DELETE")
            .map_err(|error| cannot_write(&error))?;
        let problems: Vec<String> = copy
            .prepare(INTEGRITY_CHECK)?
            .query_map([], |row| row.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        if problems != ["ok"] {
            return Err(Error::internal(format!(
                "The copy failed SQLite's integrity check and was deleted ({}): the store itself \
                 may be damaged",
                problems.join("; ")
            ))
            .with_hint("Run `discord-manager doctor`"));
        }
        let messages: i64 = copy.query_row(COUNT_MESSAGES, [], |row| row.get(0))?;
        drop(copy);
        file.sync_all().map_err(|error| cannot_write(&error))?;
        let bytes = file.metadata().map_or(0, |metadata| metadata.len());
        drop(file);
        // A link fails on a path that exists, where a rename would overwrite it.
        match std::fs::hard_link(&temporary.path, &absolute) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(exists());
            }
            // A filesystem without links: rename, after looking once more.
            Err(_) if absolute.symlink_metadata().is_err() => {
                std::fs::rename(&temporary.path, &absolute)
                    .map_err(|error| cannot_write(&error))?;
            }
            Err(error) => return Err(cannot_write(&error)),
        }
        drop(temporary);
        Ok(BackupSummary {
            path: absolute,
            messages: u64::try_from(messages).unwrap_or(0),
            bytes,
        })
    }

    /// A read-only connection to the store holding a read transaction: the snapshot a backup
    /// copies.
    fn snapshot_connection(&self) -> Result<Connection> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        // Read through the store's VFS, so compressed pages are copied as the pages they hold:
        // the copy is a plain SQLite file.
        let reading = super::vfs(super::PageCompression::Off)?;
        let connection = if self.shared.immutable {
            Connection::open_with_flags_and_vfs(
                super::immutable_uri(&self.shared.path),
                flags | OpenFlags::SQLITE_OPEN_URI,
                reading,
            )
        } else {
            Connection::open_with_flags_and_vfs(&self.shared.path, flags, reading)
        }
        .map_err(|error| super::unusable_store(&self.shared.path, error))?;
        connection
            .busy_timeout(super::BUSY_TIMEOUT)
            .map_err(|error| super::unusable_store(&self.shared.path, error))?;
        connection.execute_batch(BEGIN_SNAPSHOT)?;
        connection.query_row(READ_SCHEMA, [], |row| row.get::<_, i64>(0))?;
        Ok(connection)
    }

    /// Records a finished backup, for `doctor`.
    pub fn record_backup(&self, summary: &BackupSummary) -> Result<Instant> {
        self.write(|writer| writer.record_backup(summary))
    }
}

/// Every page of `source`'s snapshot into `copy`, `pages_per_step` at a time.
fn copy_pages(
    source: &Connection,
    copy: &mut Connection,
    pages_per_step: i32,
    progress: &mut impl FnMut(BackupProgress),
) -> Result<()> {
    let backup = Backup::new(source, copy)?;
    loop {
        let step = backup.step(pages_per_step)?;
        let done = backup.progress();
        let total = u64::try_from(done.pagecount).unwrap_or(0);
        let remaining = u64::try_from(done.remaining).unwrap_or(0);
        progress(BackupProgress {
            copied_pages: total.saturating_sub(remaining),
            total_pages: total,
        });
        match step {
            StepResult::Done => return Ok(()),
            StepResult::More => {}
            // The source is read within its own transaction and the copy is this process's
            // alone: neither is ever locked by another.
            _ => {
                return Err(Error::internal(
                    "The backup was interrupted by a lock on the store: try again",
                ));
            }
        }
    }
}

/// The read transaction a backup copies from: it begins, reads the schema (which takes its
/// snapshot), and ends once the pages are copied.
const BEGIN_SNAPSHOT: &str = "BEGIN";
const READ_SCHEMA: &str = "SELECT count(*) FROM sqlite_master";
const END_SNAPSHOT: &str = "COMMIT";

const INTEGRITY_CHECK: &str = "PRAGMA integrity_check";
const COUNT_MESSAGES: &str = "SELECT count(*) FROM messages";

const INSERT_BACKUP: &str = "INSERT INTO backups (created_at, path, messages, bytes)
     VALUES (:created_at, :path, :messages, :bytes)";

const LATEST_BACKUP: &str =
    "SELECT created_at, path, messages, bytes FROM backups ORDER BY seq DESC LIMIT 1";

impl Writer<'_> {
    fn record_backup(&mut self, summary: &BackupSummary) -> Result<Instant> {
        let created_at = self.stamp();
        self.transaction.execute(
            INSERT_BACKUP,
            named_params! {
                ":created_at": created_at,
                ":path": summary.path.to_string_lossy(),
                ":messages": i64::try_from(summary.messages).unwrap_or(i64::MAX),
                ":bytes": i64::try_from(summary.bytes).unwrap_or(i64::MAX),
            },
        )?;
        Ok(created_at)
    }
}

/// Every file the attachments' record says is kept, each hash once, in order.
const KEPT_HASHES: &str = "SELECT DISTINCT hash FROM attachment_outcomes
     WHERE outcome = 'fetched' ORDER BY hash";

impl Reader<'_> {
    /// The hashes of the attachment files recorded kept: what a backup copies beside itself.
    pub fn kept_hashes(&self) -> Result<Vec<String>> {
        let mut statement = self.connection.prepare_cached(KEPT_HASHES)?;
        let rows = statement.query_map([], |row| row.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The newest backup recorded, if any was.
    pub fn latest_backup(&self) -> Result<Option<BackupRecord>> {
        let mut statement = self.connection.prepare_cached(LATEST_BACKUP)?;
        let mut rows = statement.query([])?;
        let Some(row) = rows.next()? else {
            return Ok(None);
        };
        Ok(Some(BackupRecord {
            created_at: row.get(0)?,
            path: row.get(1)?,
            messages: u64::try_from(row.get::<_, i64>(2)?).unwrap_or(0),
            bytes: u64::try_from(row.get::<_, i64>(3)?).unwrap_or(0),
        }))
    }
}

#[cfg(test)]
mod tests;
