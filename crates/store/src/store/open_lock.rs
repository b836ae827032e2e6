//! Who has the store open. Every process that opens a store (`ingest`, an `mcp` server, a
//! command reading it) holds a shared OS lock on `<store>.open-lock` beside the database for as
//! long as its [`Store`] lives; `seed --replace` takes it exclusively before it deletes a demo
//! store, so it is refused while anyone has the file open (their later writes would go to the
//! deleted file and be lost). The operating system releases a lock when its process ends,
//! however it ends, so a crash leaves no stale claim.
//!
//! An opener waits while the lock is held exclusively: it then opens the store `seed` just
//! replaced, never the deleted one. Where the lock file cannot be made (a read-only folder),
//! the store is opened without it: nothing could replace the store there either.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use discord_manager_vocabulary::error::{Error, Result};

use super::Store;

/// This process's hold on a store's open lock.
#[derive(Debug)]
pub(super) struct OpenLock {
    file: Option<File>,
}

/// The store's lock held exclusively: no other process has it open, and none can open it until
/// this is given to [`Store::open_replacement`] or dropped.
#[derive(Debug)]
pub struct ReplaceLock {
    file: File,
}

/// The lock file beside the database, named after its canonical path: a store reached through a
/// symlink (or `..`) is the same store, with the same lock. A store not made yet is named by its
/// canonical folder.
fn lock_path(path: &Path) -> PathBuf {
    let canonical = std::fs::canonicalize(path)
        .ok()
        .or_else(|| {
            let folder = path
                .parent()
                .filter(|folder| !folder.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            Some(std::fs::canonicalize(folder).ok()?.join(path.file_name()?))
        })
        .unwrap_or_else(|| path.to_path_buf());
    let mut name = canonical.into_os_string();
    name.push(".open-lock");
    PathBuf::from(name)
}

/// Opens (creating it private if needed) the lock file of the store at `path`.
fn open_lock_file(path: &Path) -> std::io::Result<File> {
    let lock = lock_path(path);
    let mut options = OpenOptions::new();
    options.create(true).truncate(false).read(true).write(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(&lock).or_else(|_| File::open(&lock))
}

impl OpenLock {
    /// Runs `work` while no other store handle, in this process or another, has the store
    /// open (the lock taken exclusively for that time, then shared again); None, with nothing
    /// run, when one has or the lock could not be made.
    pub(super) fn while_alone<T>(&self, work: impl FnOnce() -> T) -> Option<T> {
        let file = self.file.as_ref()?;
        file.try_lock().ok()?;
        let done = work();
        if let Err(error) = file.lock_shared() {
            tracing::debug!("the store's open lock could not be shared again: {error}");
        }
        Some(done)
    }

    /// Holds the store at `path` open, shared with every other opener; waits while `seed
    /// --replace` holds it.
    pub(super) fn shared(path: &Path) -> OpenLock {
        let file = match open_lock_file(path) {
            Ok(file) => file,
            Err(error) => {
                tracing::debug!(
                    "{} is opened without its open lock: {error}",
                    path.display()
                );
                return OpenLock { file: None };
            }
        };
        match file.lock_shared() {
            Ok(()) => OpenLock { file: Some(file) },
            Err(error) => {
                tracing::debug!(
                    "{} is opened without its open lock: {error}",
                    path.display()
                );
                OpenLock { file: None }
            }
        }
    }
}

impl Store {
    /// Closes this store and takes its open lock exclusively, for `seed --replace`: refused
    /// (Conflict) while any other process, or another [`Store`] in this one, has it open.
    pub fn close_for_replacing(self) -> Result<ReplaceLock> {
        let path = self.shared.path.clone();
        let Ok(super::Shared {
            connection,
            spare_readers,
            open_lock,
            ..
        }) = Arc::try_unwrap(self.shared)
        else {
            return Err(Error::conflict(format!(
                "The store at {} is still open in this process: close it before replacing it",
                path.display()
            )));
        };
        drop(spare_readers);
        drop(connection);
        let Some(file) = open_lock.file else {
            return Err(Error::config(format!(
                "Cannot tell whether another process has the store at {} open (its lock file \
                 {} cannot be made): delete the store yourself once nothing uses it",
                path.display(),
                lock_path(&path).display()
            )));
        };
        file.unlock().map_err(|error| cannot_lock(&path, error))?;
        match file.try_lock() {
            Ok(()) => Ok(ReplaceLock { file }),
            Err(TryLockError::WouldBlock) => Err(Error::conflict(format!(
                "The store at {} is open in another discord-manager process (an `mcp` server, \
                 `ingest`, or a command reading it): stop it before replacing the store, or \
                 what it writes later would be lost with the deleted file",
                path.display()
            ))),
            Err(TryLockError::Error(error)) => Err(cannot_lock(&path, error)),
        }
    }

    /// Opens (creating) the store that replaces the one [`close_for_replacing`] closed, keeping
    /// the exclusive lock for as long as it lives: nobody opens it half made.
    ///
    /// [`close_for_replacing`]: Store::close_for_replacing
    pub fn open_replacement(path: &Path, lock: ReplaceLock) -> Result<Store> {
        Store::open_writable_with(
            path,
            OpenLock {
                file: Some(lock.file),
            },
            super::PageCompression::Off,
        )
    }
}

fn cannot_lock(path: &Path, error: std::io::Error) -> Error {
    Error::config(format!(
        "Cannot lock the store at {} to replace it ({}): {error}",
        path.display(),
        lock_path(path).display()
    ))
}

#[cfg(test)]
mod tests {
    use discord_manager_vocabulary::error::ErrorKind;

    use crate::store::Store;

    /// Another open file description, as another process would have, holds the store open:
    /// replacing is refused until it is closed; then the replacement is a new, empty store.
    #[test]
    fn a_store_open_elsewhere_cannot_be_replaced_until_it_is_closed() {
        let _forks = crate::store::no_forks_meanwhile();
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("demo.sqlite3");
        let reader = Store::open(&path).unwrap();
        let refusal = Store::open_writable(&path)
            .unwrap()
            .close_for_replacing()
            .unwrap_err();
        assert_eq!(refusal.kind(), ErrorKind::Conflict);
        assert_eq!(
            refusal.message(),
            format!(
                "The store at {} is open in another discord-manager process (an `mcp` server, \
                 `ingest`, or a command reading it): stop it before replacing the store, or \
                 what it writes later would be lost with the deleted file",
                path.display()
            )
        );
        drop(reader);
        let lock = Store::open_writable(&path)
            .unwrap()
            .close_for_replacing()
            .unwrap();
        std::fs::remove_file(&path).unwrap();
        let replacement = Store::open_replacement(&path, lock).unwrap();
        assert!(replacement.read(|reader| reader.is_empty()).unwrap());
        drop(replacement);
        let again = Store::open_writable(&path).unwrap().close_for_replacing();
        assert!(again.is_ok(), "{again:?}");
    }
}
