//! Which files are discord-manager stores. Every store this program creates carries its own
//! SQLite `application_id` in the file's header: [`STORE_APPLICATION_ID`] for a store `ingest`
//! and the commands make, [`SEED_APPLICATION_ID`] for a demo store `seed` made (the only kind
//! `seed --replace` deletes). A store an earlier version made has no id yet (0) but has this
//! program's schema (a schema version and the arrival clock): it is recognised by that, and
//! stamped on its first writable open.
//!
//! [`inspect`] decides before anything else touches the file: a non-empty file that is not a
//! store (another program's SQLite database, or not SQLite at all) is refused in the owner's
//! words, and left byte for byte as it was: no mode change, no WAL, no tables. It reads the
//! header's bytes itself, and asks SQLite about the schema only for a file without an id,
//! read-only (as an immutable file when it is in WAL mode with no write-ahead log beside it,
//! so not even a shared-memory file is made).

use std::fs::File;
use std::io::Read;
use std::path::Path;

use discord_manager_vocabulary::error::{Error, Result};
use rusqlite::{Connection, OpenFlags};

/// The `application_id` of a store discord-manager made: "dmST" (discord-manager store).
pub(super) const STORE_APPLICATION_ID: i64 = 0x646d_5354;

/// The `application_id` of a store `seed` created: "dmDS" (discord-manager demo store).
pub(super) const SEED_APPLICATION_ID: i64 = 0x646d_4453;

/// What [`inspect`] found at a store's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Found {
    /// Nothing to keep: no file, an empty one, or an SQLite database with nothing in it yet
    /// (a store another process is creating at this moment).
    Nothing,
    /// A discord-manager store (stamped, or made by an earlier version).
    Store,
}

/// The refusal of a file that is not a store, naming the path.
fn not_a_store(path: &Path, what: &str) -> Error {
    Error::config(format!(
        "{} is not a discord-manager store ({what}): check --db or DISCORD_MANAGER_DB",
        path.display()
    ))
}

/// The header fields [`inspect`] reads: see <https://www.sqlite.org/fileformat.html>.
const MAGIC: &[u8; 16] = b"SQLite format 3\0";
const HEADER_BYTES: usize = 100;
const WAL_VERSION_AT: usize = 18;
const APPLICATION_ID_AT: usize = 68;

/// Whether `path` may serve as the store, without changing it.
pub(super) fn inspect(path: &Path) -> Result<Found> {
    let cannot = |error: std::io::Error| {
        Error::config(format!(
            "Cannot open the store at {}: {error}",
            path.display()
        ))
    };
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Nothing),
        Err(error) => return Err(cannot(error)),
    };
    let mut header = [0u8; HEADER_BYTES];
    let mut read = 0;
    while read < HEADER_BYTES {
        match file.read(&mut header[read..]).map_err(cannot)? {
            0 => break,
            more => read += more,
        }
    }
    if read == 0 {
        return Ok(Found::Nothing);
    }
    if read < HEADER_BYTES || &header[..MAGIC.len()] != MAGIC {
        return Err(not_a_store(path, "it is not an SQLite database"));
    }
    let id_bytes: [u8; 4] = header[APPLICATION_ID_AT..APPLICATION_ID_AT + 4]
        .try_into()
        .expect("four bytes");
    match i64::from(u32::from_be_bytes(id_bytes)) {
        STORE_APPLICATION_ID | SEED_APPLICATION_ID => Ok(Found::Store),
        0 => look_inside(path, header[WAL_VERSION_AT] == 2),
        _ => Err(another_programs(path)),
    }
}

fn another_programs(path: &Path) -> Error {
    not_a_store(
        path,
        "it is another program's SQLite database, and is left as it is",
    )
}

/// A database whose header carries no id: the schema says whose it is. Its header may also be
/// stale (a stamp still in the write-ahead log), so the id is asked again through SQLite.
fn look_inside(path: &Path, wal_mode: bool) -> Result<Found> {
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    // The store's VFS: a store whose pages are compressed reads as one.
    let reading = super::vfs(super::PageCompression::Off)?;
    let connection = if wal_mode && !Path::new(&wal).exists() {
        Connection::open_with_flags_and_vfs(
            super::immutable_uri(path),
            flags | OpenFlags::SQLITE_OPEN_URI,
            reading,
        )
    } else {
        Connection::open_with_flags_and_vfs(path, flags & !OpenFlags::SQLITE_OPEN_URI, reading)
    };
    let unreadable = |_: rusqlite::Error| {
        Error::config(format!(
            "{} cannot be read as an SQLite database (another program may hold it locked, or \
             it is damaged): check --db or DISCORD_MANAGER_DB",
            path.display()
        ))
    };
    /// The file's stamp, schema version, how many objects it holds, and whether three tables
    /// only this program makes are among them.
    const WHOSE_FILE: &str = "SELECT (SELECT application_id FROM pragma_application_id),
            (SELECT user_version FROM pragma_user_version),
            (SELECT count(*) FROM sqlite_master),
            (SELECT count(*) FROM sqlite_master WHERE type = 'table'
               AND name IN ('clock', 'identity_events', 'messages')) = 3";
    let connection = connection.map_err(unreadable)?;
    let (id, version, objects, ours): (i64, i64, i64, bool) = connection
        .query_row(WHOSE_FILE, [], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })
        .map_err(unreadable)?;
    match id {
        STORE_APPLICATION_ID | SEED_APPLICATION_ID => Ok(Found::Store),
        0 if objects == 0 && version == 0 => Ok(Found::Nothing),
        0 if version > 0 && ours => Ok(Found::Store),
        _ => Err(another_programs(path)),
    }
}

#[cfg(test)]
mod tests;
