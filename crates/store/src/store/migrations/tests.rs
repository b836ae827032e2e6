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
                let mut message = new_message(channel, "7", "a message from before");
                message.origin = origin;
                writer.insert_message(&message)?;
            }
            Ok(())
        })
        .unwrap();
    drop(store);
    // Back to schema 18: the table and its triggers gone (and 0020's to 0023's tables), as a store
    // written before them.
    let connection = Connection::open(&path).unwrap();
    connection
        .execute_batch(crate::store::testing::BEFORE_0036)
        .unwrap();
    connection
        .execute_batch(
            "DROP TRIGGER channel_message_totals_count;
             DROP TRIGGER channel_message_totals_only_grow;
             DROP TRIGGER channel_message_totals_are_kept;
             DROP TABLE channel_message_totals;
             DROP TABLE attachments;
             DROP TABLE attachment_outcomes;
             DROP TABLE attachment_text;
             DROP TABLE meaning_models;
             DROP TABLE message_meanings;
             DROP TABLE meaning_totals;
             DROP TABLE message_payloads;
             DROP TABLE payload_readings;
             DROP TABLE push_deliveries;
             DROP TABLE push_coverage;
             DROP TABLE file_text;
             DROP TABLE cjk_text; DROP TABLE IF EXISTS cjk_text_content; DROP TABLE meaning_walks; DROP TABLE meaning_blocks;
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
        .write(|writer| writer.insert_message(&new_message(channel, "7", "after")))
        .unwrap();
    let unread = store
        .read(|reader| reader.channel_unread(&channel, None))
        .unwrap();
    assert_eq!(unread, 3);
}

/// Migration 0020 records the attachments of the messages a store already holds, every URL
/// each was seen with, so their files are fetched like those that arrive after the upgrade.
#[test]
fn a_store_from_before_the_attachments_record_gets_its_messages_files_listed() {
    use crate::store::{Attachment, MessageExtras};
    use discord_manager_vocabulary::instant::Instant;
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("before-0020.sqlite3");
    let store = Store::open_writable(&path).unwrap();
    let shot = |url: &str| Attachment {
        id: "1600000000000000001".parse().unwrap(),
        filename: "eu-west-2-latency.png".into(),
        size: 48_213,
        content_type: Some("image/png".into()),
        url: url.into(),
        width: Some(1280),
        height: Some(720),
        description: None,
        duration_ms: None,
    };
    let log = Attachment {
        id: "1600000000000000002".parse().unwrap(),
        filename: "deploy.log".into(),
        size: 912,
        content_type: None,
        url: "https://cdn.discordapp.com/attachments/3/2/deploy.log".into(),
        width: None,
        height: None,
        description: None,
        duration_ms: None,
    };
    store
        .write(|writer| {
            for attachments in [
                vec![shot("https://cdn.discordapp.com/a?ex=1")],
                vec![shot("https://cdn.discordapp.com/a?ex=2"), log.clone()],
            ] {
                let extras = MessageExtras {
                    attachments,
                    ..MessageExtras::default()
                };
                writer.record_extras(
                    &"1500000000000000001".parse().unwrap(),
                    &"1400000000000000003".parse().unwrap(),
                    &extras,
                )?;
            }
            // A message with no attachment has nothing to list.
            let pinned = MessageExtras {
                pinned: true,
                ..MessageExtras::default()
            };
            writer.record_extras(
                &"1500000000000000002".parse().unwrap(),
                &"1400000000000000003".parse().unwrap(),
                &pinned,
            )?;
            Ok(())
        })
        .unwrap();
    drop(store);
    // Back to schema 19: the tables gone (0021's to 0023's too), as a store written before them.
    let connection = Connection::open(&path).unwrap();
    connection
        .execute_batch(crate::store::testing::BEFORE_0036)
        .unwrap();
    connection
        .execute_batch(
            "DROP TABLE attachments;
             DROP TABLE attachment_outcomes;
             DROP TABLE attachment_text;
             DROP TABLE meaning_models;
             DROP TABLE message_meanings;
             DROP TABLE meaning_totals;
             DROP TABLE message_payloads;
             DROP TABLE payload_readings;
             DROP TABLE push_deliveries;
             DROP TABLE push_coverage;
             DROP TABLE file_text;
             DROP TABLE cjk_text; DROP TABLE IF EXISTS cjk_text_content; DROP TABLE meaning_walks; DROP TABLE meaning_blocks;
             PRAGMA user_version = 19;",
        )
        .unwrap();
    drop(connection);
    let store = Store::open_writable(&path).unwrap();
    let pending = store
        .read(|reader| reader.pending_attachments(0, Instant::now(), None, 10))
        .unwrap();
    let listed: Vec<(u64, &str, Option<&str>, u64, &str)> = pending
        .iter()
        .map(|record| {
            (
                record.attachment_id.get(),
                record.filename.as_str(),
                record.content_type.as_deref(),
                record.size,
                record.url.as_str(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            (
                1_600_000_000_000_000_001,
                "eu-west-2-latency.png",
                Some("image/png"),
                48_213,
                "https://cdn.discordapp.com/a?ex=2"
            ),
            (
                1_600_000_000_000_000_002,
                "deploy.log",
                None,
                912,
                "https://cdn.discordapp.com/attachments/3/2/deploy.log"
            ),
        ]
    );
    assert!(
        pending
            .iter()
            .all(|record| record.message_id == "1500000000000000001"
                && record.channel_id == "1400000000000000003")
    );
    // Every URL the screenshot was seen with: its two sightings.
    let sightings: i64 = store
        .lock()
        .query_row(
            "SELECT count(*) FROM attachments WHERE attachment_id = '1600000000000000001'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(sightings, 2);
}

#[test]
fn the_meaning_totals_start_from_the_vectors_a_store_already_holds() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.sqlite3");
    let store = Store::open_writable(&path).unwrap();
    store
        .write(|writer| {
            let (old, new) = (writer.meaning_model("old")?, writer.meaning_model("new")?);
            writer.put_meaning(1, old, 0, &[1; 384])?;
            writer.put_meaning(2, new, 0, &[1; 384])?;
            writer.put_meaning(3, new, 0, &[])
        })
        .unwrap();
    drop(store);
    // Back to schema 22: vectors written before their totals were kept.
    let connection = Connection::open(&path).unwrap();
    connection
        .execute_batch(crate::store::testing::BEFORE_0036)
        .unwrap();
    connection
        .execute_batch(
            "DROP TABLE meaning_totals; DROP TABLE message_payloads; DROP TABLE payload_readings; \
             DROP TABLE push_deliveries; DROP TABLE push_coverage; \
             DROP INDEX attachment_text_by_time; DROP TABLE file_text; DROP TABLE cjk_text; DROP TABLE IF EXISTS cjk_text_content; DROP TABLE meaning_walks; DROP TABLE meaning_blocks; \
             PRAGMA user_version = 22;",
        )
        .unwrap();
    drop(connection);
    let store = Store::open_writable(&path).unwrap();
    let totals: Vec<(i64, i64)> = {
        let connection = store.lock();
        let mut statement = connection
            .prepare("SELECT model, vectors FROM meaning_totals ORDER BY model")
            .unwrap();
        statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(totals, [(1, 1), (2, 2)]);
}

mod instants_as_numbers;
mod meanings_by_key;
mod numeric_ids;
mod text_index_without_its_copy;
