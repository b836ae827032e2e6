//! The migrations: the list against the folder, their application, a newer store refused,
//! and several processes creating one store at once.

use std::process::Command;

use discord_manager_vocabulary::error::ErrorKind;

use super::*;
use crate::store::Store;

#[test]
fn every_file_in_the_migrations_folder_is_listed_in_order() {
    // The workspace keeps its migrations at the repository root, two folders up.
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations");
    let mut files: Vec<String> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".sql"))
        .collect();
    files.sort();
    let listed: Vec<&str> = MIGRATIONS.iter().map(|(name, _)| *name).collect();
    assert_eq!(files, listed);
    for (position, name) in listed.iter().enumerate() {
        assert!(
            name.starts_with(&format!("{:04}_", position + 1)),
            "{name} is out of order"
        );
    }
}

#[test]
fn the_migrations_apply_to_an_empty_database_and_then_there_is_nothing_left_to_apply() {
    let mut connection = Connection::open_in_memory().unwrap();
    migrate(&mut connection, Path::new(":memory:"), 7).unwrap();
    assert_eq!(version_and_id(&connection).unwrap(), (LATEST, 7));
    // Current and stamped: nothing to do, and an id already given is kept.
    migrate(&mut connection, Path::new(":memory:"), 8).unwrap();
    assert_eq!(version_and_id(&connection).unwrap(), (LATEST, 7));
}

/// A store a newer discord-manager wrote is refused by every open, with both versions named,
/// and left as it is.
#[test]
fn a_store_with_a_newer_schema_is_refused_naming_both_versions() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("newer.sqlite3");
    drop(Store::open(&path).unwrap());
    Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", LATEST + 3)
        .unwrap();
    let before = std::fs::read(&path).unwrap();
    for open in [Store::open, Store::open_writable] {
        let refusal = open(&path).err().expect("a newer store");
        assert_eq!(refusal.kind(), ErrorKind::Config);
        assert_eq!(
            refusal.kind(),
            discord_manager_vocabulary::error::ErrorKind::Config
        );
        assert_eq!(
            refusal.message(),
            format!(
                "The store at {} was written by a newer discord-manager (schema {}; this \
                 binary knows up to {LATEST}): upgrade discord-manager to use it",
                path.display(),
                LATEST + 3
            )
        );
    }
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

/// Not a test on its own: one of the processes of the test below, which runs this binary with
/// `MIGRATE_CHILD_STORE` set. It opens the store, creating and migrating it, and writes once.
#[test]
fn opening_child() {
    let Ok(path) = std::env::var("MIGRATE_CHILD_STORE") else {
        return;
    };
    let store = Store::open(Path::new(&path)).unwrap();
    store.write(|writer| writer.reader().is_empty()).unwrap();
}

/// Processes started together on a store that does not exist yet: one migrates, the others
/// wait for its write lock and find the store current. Thirty rounds of four, none failing
/// (before the migration took the write lock first, about one start in thirty died with
/// "table clock already exists").
#[test]
fn several_processes_creating_one_new_store_at_once_all_open_it() {
    let _forks = crate::store::no_forks_meanwhile();
    for round in 0..30 {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("new.sqlite3");
        let children: Vec<_> = (0..4)
            .map(|_| {
                Command::new(std::env::current_exe().unwrap())
                    .args([
                        "--exact",
                        "store::migrations::tests::opening_child",
                        "--test-threads=1",
                        "--quiet",
                    ])
                    .env("MIGRATE_CHILD_STORE", &path)
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let output = child.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "round {round}: {}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let connection = Connection::open(&path).unwrap();
        assert_eq!(
            version_and_id(&connection).unwrap(),
            (LATEST, super::super::ownership::STORE_APPLICATION_ID)
        );
    }
}

/// Migration 0019 counts the messages a store already holds, so a store from before it lists
/// the same unread counts after the upgrade as a store that counted as it went.
#[test]
fn a_store_from_before_the_running_totals_gets_them_counted_from_its_messages() {
    use crate::store::messages::tests::new_message;
    use crate::store::{Origin, testing::fresh_id};
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("before-0019.sqlite3");
    let channel = fresh_id();
    let store = Store::open_writable(&path).unwrap();
    store
        .write(|writer| {
            for origin in [Origin::Gateway, Origin::Import, Origin::Backfill] {
                let mut message = new_message(&channel, "7", "a message from before");
                message.origin = origin;
                writer.insert_message(&message)?;
            }
            Ok(())
        })
        .unwrap();
    drop(store);
    // Back to schema 18: the table and its triggers gone, as a store written before them.
    let connection = Connection::open(&path).unwrap();
    connection
        .execute_batch(
            "DROP TRIGGER channel_message_totals_count;
             DROP TRIGGER channel_message_totals_only_grow;
             DROP TRIGGER channel_message_totals_are_kept;
             DROP TABLE channel_message_totals;
             PRAGMA user_version = 18;",
        )
        .unwrap();
    drop(connection);
    let store = Store::open_writable(&path).unwrap();
    let unread = store
        .read(|reader| reader.channel_unread(&channel, None))
        .unwrap();
    assert_eq!(unread, 2);
    // And the trigger counts what arrives after the upgrade.
    store
        .write(|writer| writer.insert_message(&new_message(&channel, "7", "after")))
        .unwrap();
    let unread = store
        .read(|reader| reader.channel_unread(&channel, None))
        .unwrap();
    assert_eq!(unread, 3);
}
