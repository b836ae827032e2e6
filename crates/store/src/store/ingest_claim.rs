//! One `ingest` per store. Two daemons recording into one store would each hold a gateway
//! session (twice the IDENTIFY budget, every event recorded by both) and each run the
//! scheduler, so a due message could be posted by both. The daemon therefore claims the store
//! first: an exclusive lock on `<store>.ingest-lock` beside the database, held for as long as
//! the process lives. The operating system releases it when the process ends, however it ends
//! (a `kill -9` leaves no stale claim), and the file holds the holder's pid for the refusal.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use discord_manager_vocabulary::error::{Error, Result};

use super::Store;

/// The running daemon's claim on a store; dropping it releases the store.
#[derive(Debug)]
pub struct IngestClaim {
    _file: File,
}

impl Store {
    /// The lock file beside the database, named after its canonical path: a store reached
    /// through a symlink (or `..`) is the same store, with the same lock.
    fn ingest_lock_path(&self) -> PathBuf {
        let canonical =
            std::fs::canonicalize(&self.shared.path).unwrap_or_else(|_| self.shared.path.clone());
        let mut path = canonical.into_os_string();
        path.push(".ingest-lock");
        PathBuf::from(path)
    }

    /// Claims the store for this process's `ingest`; refused (Conflict) while another process
    /// holds it, naming that process.
    pub fn claim_ingest(&self) -> Result<IngestClaim> {
        let path = self.ingest_lock_path();
        let cannot = |error: std::io::Error| {
            Error::config(format!(
                "Cannot open the ingest lock {}: {error}",
                path.display()
            ))
        };
        let mut options = OpenOptions::new();
        options.create(true).truncate(false).read(true).write(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&path).map_err(cannot)?;
        match file.try_lock() {
            Ok(()) => {
                let pid = std::process::id().to_string();
                file.set_len(0)
                    .and_then(|()| file.seek(SeekFrom::Start(0)))
                    .and_then(|_| file.write_all(pid.as_bytes()))
                    .map_err(cannot)?;
                Ok(IngestClaim { _file: file })
            }
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = match holder.trim() {
                    "" => String::new(),
                    pid => format!(" (pid {pid})"),
                };
                Err(Error::conflict(format!(
                    "Another `discord-manager ingest`{holder} is already recording into {}: \
                     stop it first (two would record every event twice and could send a \
                     scheduled message twice)",
                    self.shared.path.display()
                )))
            }
            Err(TryLockError::Error(error)) => Err(cannot(error)),
        }
    }
}

/// Whether an `ingest` holds a store, as [`Store::ingest_holder`] finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IngestHolder {
    /// No daemon records into the store.
    Nobody,
    /// A daemon does; its pid when its lock file names one.
    Running { pid: Option<String> },
}

impl Store {
    /// Whether a daemon holds the store's claim now, without claiming it: the lock is tried
    /// shared and let go at once (so a daemon starting at that very instant could be refused
    /// once, and a supervisor restarts it). No lock file means no daemon ever ran here.
    pub fn ingest_holder(&self) -> Result<IngestHolder> {
        let path = self.ingest_lock_path();
        let mut file = match File::open(&path) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(IngestHolder::Nobody);
            }
            Err(error) => {
                return Err(Error::config(format!(
                    "Cannot open the ingest lock {}: {error}",
                    path.display()
                )));
            }
        };
        match file.try_lock_shared() {
            Ok(()) => {
                let _ = file.unlock();
                Ok(IngestHolder::Nobody)
            }
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let pid = Some(holder.trim().to_string()).filter(|pid| !pid.is_empty());
                Ok(IngestHolder::Running { pid })
            }
            Err(TryLockError::Error(error)) => Err(Error::config(format!(
                "Cannot read the ingest lock {}: {error}",
                path.display()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use discord_manager_vocabulary::error::ErrorKind;

    use crate::store::Store;

    #[test]
    fn a_second_claim_is_refused_naming_the_holder_until_the_first_is_released() {
        let _forks = crate::store::no_forks_meanwhile();
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("store.sqlite3");
        let store = Store::open(&path).unwrap();
        let claim = store.claim_ingest().unwrap();
        // Another open file description, as another process would have.
        let refusal = Store::open(&path).unwrap().claim_ingest().unwrap_err();
        assert_eq!(refusal.kind(), ErrorKind::Conflict);
        assert_eq!(
            refusal.message(),
            format!(
                "Another `discord-manager ingest` (pid {}) is already recording into {}: stop \
                 it first (two would record every event twice and could send a scheduled \
                 message twice)",
                std::process::id(),
                path.display()
            )
        );
        drop(claim);
        let again = store.claim_ingest();
        assert!(again.is_ok(), "released with its holder: {again:?}");
    }

    #[test]
    fn the_holder_is_seen_without_taking_the_claim() {
        let _forks = crate::store::no_forks_meanwhile();
        use super::IngestHolder;
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("store.sqlite3");
        let store = Store::open(&path).unwrap();
        assert_eq!(store.ingest_holder().unwrap(), IngestHolder::Nobody);
        let claim = store.claim_ingest().unwrap();
        let other = Store::open(&path).unwrap();
        assert_eq!(
            other.ingest_holder().unwrap(),
            IngestHolder::Running {
                pid: Some(std::process::id().to_string())
            }
        );
        // Looking did not take it: the daemon still holds it, and once gone, nobody does.
        assert!(other.claim_ingest().is_err());
        drop(claim);
        assert_eq!(other.ingest_holder().unwrap(), IngestHolder::Nobody);
        assert!(other.claim_ingest().is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn a_store_reached_through_a_symlink_has_the_same_lock() {
        let _forks = crate::store::no_forks_meanwhile();
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("store.sqlite3");
        let store = Store::open(&path).unwrap();
        let _claim = store.claim_ingest().unwrap();
        let link = folder.path().join("link.sqlite3");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        let refusal = Store::open(&link).unwrap().claim_ingest().unwrap_err();
        assert_eq!(refusal.kind(), ErrorKind::Conflict);
        assert!(
            refusal
                .message()
                .starts_with("Another `discord-manager ingest`"),
            "{}",
            refusal.message()
        );
    }
}
