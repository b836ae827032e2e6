//! Which files are stores: another program's database is refused and left byte for byte as
//! it was; a new store, a demo store and an earlier version's store are each recognised.

use std::path::Path;

use discord_manager_vocabulary::error::ErrorKind;
use rusqlite::Connection;

use super::{SEED_APPLICATION_ID, STORE_APPLICATION_ID};
use crate::store::Store;

/// Everything about a file a program could notice changed: its bytes, its mode, and the
/// files beside it.
fn snapshot(path: &Path) -> (Vec<u8>, u32, Vec<String>) {
    #[cfg(unix)]
    let mode = {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).unwrap().permissions().mode()
    };
    #[cfg(not(unix))]
    let mode = 0;
    let mut beside: Vec<String> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    beside.sort();
    (std::fs::read(path).unwrap(), mode, beside)
}

fn application_id(path: &Path) -> i64 {
    Connection::open(path)
        .unwrap()
        .query_row("PRAGMA application_id", [], |row| row.get(0))
        .unwrap()
}

/// Another program's database: a table of its own, and its own id or none.
fn foreign_database(path: &Path, id: i64) {
    let connection = Connection::open(path).unwrap();
    connection
        .execute_batch(&format!(
            "PRAGMA application_id = {id};
             CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);
             INSERT INTO notes (text) VALUES ('the other program''s data');"
        ))
        .unwrap();
}

#[test]
fn another_programs_database_is_refused_by_every_open_and_left_exactly_as_it_was() {
    for (id, journal) in [(0, "DELETE"), (0x0f0f_0f0f, "DELETE"), (0, "WAL")] {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("other.db");
        foreign_database(&path, id);
        Connection::open(&path)
            .unwrap()
            .pragma_update(None, "journal_mode", journal)
            .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        }
        let before = snapshot(&path);
        for open in [Store::open, Store::open_writable] {
            let refusal = open(&path).err().expect("another program's database");
            assert_eq!(refusal.kind(), ErrorKind::Config, "{id} {journal}");
            assert_eq!(
                refusal.message(),
                format!(
                    "{} is not a discord-manager store (it is another program's SQLite \
                     database, and is left as it is): check --db or DISCORD_MANAGER_DB",
                    path.display()
                ),
                "{id} {journal}"
            );
            assert_eq!(snapshot(&path), before, "{id} {journal}: the file changed");
        }
    }
}

#[test]
fn a_new_store_is_stamped_as_a_store_and_a_demo_store_keeps_its_own_id() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.sqlite3");
    drop(Store::open(&path).unwrap());
    assert_eq!(application_id(&path), STORE_APPLICATION_ID);
    let store = Store::open(&path).unwrap();
    assert!(!store.created_by_seed().unwrap());
    store.mark_created_by_seed().unwrap();
    drop(store);
    let store = Store::open_writable(&path).unwrap();
    assert!(store.created_by_seed().unwrap());
    assert_eq!(application_id(&path), SEED_APPLICATION_ID);
}

/// An earlier version's store has no id but this program's schema: it is opened, and stamped
/// on its first writable open. An empty file, or an SQLite database with nothing in it, is a
/// store not made yet.
#[test]
fn an_earlier_versions_store_and_an_empty_file_are_taken_as_stores() {
    let folder = tempfile::tempdir().unwrap();
    let earlier = folder.path().join("earlier.sqlite3");
    drop(Store::open(&earlier).unwrap());
    Connection::open(&earlier)
        .unwrap()
        .pragma_update(None, "application_id", 0)
        .unwrap();
    assert_eq!(application_id(&earlier), 0);
    assert!(
        Store::open(&earlier)
            .unwrap()
            .read(|r| r.is_empty())
            .unwrap()
    );
    assert_eq!(application_id(&earlier), STORE_APPLICATION_ID);

    let empty = folder.path().join("empty.sqlite3");
    std::fs::write(&empty, b"").unwrap();
    drop(Store::open(&empty).unwrap());
    assert_eq!(application_id(&empty), STORE_APPLICATION_ID);

    let blank = folder.path().join("blank.sqlite3");
    Connection::open(&blank)
        .unwrap()
        .execute_batch("PRAGMA page_size = 4096; VACUUM;")
        .unwrap();
    assert!(std::fs::metadata(&blank).unwrap().len() > 0);
    drop(Store::open(&blank).unwrap());
    assert_eq!(application_id(&blank), STORE_APPLICATION_ID);
}
