//! The attachment cache: every file kept from a message, content-addressed, in a folder
//! beside the store (`<store>.attachments/`).
//!
//! - A file's name is the SHA-256 of its bytes, in hex: the same file in two messages (or
//!   fetched twice) is kept once, and a name says exactly what it holds.
//! - A file is written under a temporary name in the same folder (`.partial-…`, made by
//!   `tempfile`), synced, then renamed to its name: a name never shows a partial file,
//!   whatever kills the process meanwhile. What a crash leaves behind is a temporary file,
//!   which the writer deletes as it starts ([`Cache::clear_interrupted_writes`]).
//! - Files are private to the owner (0600, in a 0700 folder) on Unix: an attachment from a
//!   private channel is as private as the store.
//! - [`Cache::keep`] stops reading at the per-file cap it is given, leaving nothing behind, so
//!   a file larger than announced never fills the disk.
//!
//! What is fetched, and what the store records about each file, is decided above this crate;
//! this crate knows files and bytes only.

use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Where a temporary file's name starts: nothing else in the folder does.
const PARTIAL: &str = ".partial-";

/// A file's name in the cache: the SHA-256 of its bytes, 64 hex digits.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ContentHash(String);

impl ContentHash {
    /// The hash a name spells, if it is 64 lowercase hex digits.
    pub fn parse(text: &str) -> Option<ContentHash> {
        (text.len() == 64
            && text
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
        .then(|| ContentHash(text.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ContentHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A file now in the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    pub hash: ContentHash,
    pub bytes: u64,
}

/// Why a file was not kept.
#[derive(Debug)]
pub enum NotKept {
    /// It is larger than the cap it was kept under: nothing of it was kept.
    TooLarge { cap: u64 },
    /// Reading it or writing it failed.
    Io(io::Error),
}

impl From<io::Error> for NotKept {
    fn from(error: io::Error) -> NotKept {
        NotKept::Io(error)
    }
}

/// The cache folder of one store.
#[derive(Debug, Clone)]
pub struct Cache {
    folder: PathBuf,
}

/// What the cache holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub files: u64,
    pub bytes: u64,
}

impl Cache {
    /// The cache folder of the store at `store`: `<store>.attachments`.
    pub fn folder_of(store: &Path) -> PathBuf {
        let mut folder = store.as_os_str().to_owned();
        folder.push(".attachments");
        PathBuf::from(folder)
    }

    /// Opens the cache of the store at `store`, making its folder (0700) if needed.
    pub fn open(store: &Path) -> io::Result<Cache> {
        let folder = Cache::folder_of(store);
        let mut builder = fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(&folder)?;
        Ok(Cache { folder })
    }

    /// The cache of the store at `store`, to read from: nothing is made (the cache of a store
    /// whose daemon never kept a file has no folder, and holds nothing).
    pub fn for_reading(store: &Path) -> Cache {
        Cache {
            folder: Cache::folder_of(store),
        }
    }

    /// Deletes what interrupted writes left (temporary files), returning how many. Only the
    /// cache's one writer calls it, as it starts (the daemon, which holds the store's ingest
    /// claim): a reader must not delete a write in progress.
    pub fn clear_interrupted_writes(&self) -> io::Result<usize> {
        let mut cleared = 0;
        for entry in fs::read_dir(&self.folder)? {
            let entry = entry?;
            if entry.file_name().to_string_lossy().starts_with(PARTIAL) {
                fs::remove_file(entry.path())?;
                cleared += 1;
            }
        }
        Ok(cleared)
    }

    /// Where the file of `hash` is (whether or not it is there).
    pub fn path(&self, hash: &ContentHash) -> PathBuf {
        self.folder.join(hash.as_str())
    }

    /// Whether the file of `hash` is kept.
    pub fn contains(&self, hash: &ContentHash) -> bool {
        self.path(hash).is_file()
    }

    /// Reads the file of `hash`, if it is kept.
    pub fn open_file(&self, hash: &ContentHash) -> io::Result<Option<File>> {
        match File::open(self.path(hash)) {
            Ok(file) => Ok(Some(file)),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Keeps the bytes `source` yields, up to `cap` bytes: written whole under a temporary
    /// name, then renamed to their hash. More than `cap` bytes keeps nothing. Bytes already
    /// kept are not written twice.
    pub fn keep(&self, mut source: impl Read, cap: u64) -> Result<Kept, NotKept> {
        let mut partial = tempfile::Builder::new()
            .prefix(PARTIAL)
            .tempfile_in(&self.folder)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            partial
                .as_file()
                .set_permissions(fs::Permissions::from_mode(0o600))?;
        }
        let mut hasher = Sha256::new();
        let mut buffer = vec![0u8; 64 * 1024];
        let mut bytes = 0u64;
        loop {
            let read = match source.read(&mut buffer) {
                Ok(0) => break,
                Ok(read) => read,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error.into()),
            };
            bytes += read as u64;
            if bytes > cap {
                // Dropping the temporary file deletes it.
                return Err(NotKept::TooLarge { cap });
            }
            hasher.update(&buffer[..read]);
            partial.write_all(&buffer[..read])?;
        }
        partial.as_file().sync_all()?;
        let mut hex = String::with_capacity(64);
        for byte in hasher.finalize().iter() {
            let _ = write!(hex, "{byte:02x}");
        }
        let hash = ContentHash(hex);
        let path = self.path(&hash);
        if path.is_file() {
            return Ok(Kept { hash, bytes });
        }
        partial.persist(&path).map_err(|error| error.error)?;
        Ok(Kept { hash, bytes })
    }

    /// The files kept and their bytes (temporary files are not counted).
    pub fn usage(&self) -> io::Result<Usage> {
        let mut usage = Usage::default();
        for entry in fs::read_dir(&self.folder)? {
            let entry = entry?;
            let name = entry.file_name();
            if ContentHash::parse(&name.to_string_lossy()).is_some() {
                usage.files += 1;
                usage.bytes += entry.metadata()?.len();
            }
        }
        Ok(usage)
    }
}

#[cfg(test)]
mod tests;
