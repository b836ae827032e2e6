//! Migration 0035: a store whose instants are fixed-width text gets them as INTEGER
//! microseconds, every row, index and trigger kept, each instant read back as the same instant;
//! a text that is not an instant stops the migration and changes nothing.

use discord_manager_vocabulary::instant::{EARLIEST, Instant, LATEST as LATEST_INSTANT};
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId};

use super::*;
use crate::store::Store;

/// The migration that makes instants numbers.
const BEFORE: usize = 34;

/// Each instant the store at schema 34 holds, as that schema's code wrote it. Before 1970, the
/// earliest and the latest instants accepted, and two a microsecond apart.
const ARRIVED: [&str; 4] = [
    "1969-12-31T23:59:59.500000Z",
    "0000-01-01T00:00:00.000000Z",
    "2026-12-01T10:00:00.000001Z",
    "2026-12-01T10:00:00.000002Z",
];
const SENT: [&str; 4] = [
    "1969-12-31T23:59:58.000000Z",
    "9999-12-31T23:59:59.999999Z",
    "2026-12-01T09:59:59.999999Z",
    "2026-12-01T09:59:59.999998Z",
];

fn micros(text: &str) -> i64 {
    Instant::parse(text).unwrap().as_micros()
}

/// A store at schema 34 holding `ARRIVED`/`SENT` as four messages in channel 9, a coverage gap,
/// a failed attachment with no retry time and one with, and a read marker.
fn store_before_numbers(path: &Path, arrival_of_the_first: &str) -> Connection {
    let connection = Connection::open(path).unwrap();
    crate::store::cjk::register_grams(&connection).unwrap();
    for (_, sql) in &MIGRATIONS[..BEFORE] {
        connection.execute_batch(sql).unwrap();
    }
    connection
        .execute_batch(&format!("PRAGMA user_version = {BEFORE};"))
        .unwrap();
    for (n, (arrived, sent)) in ARRIVED.iter().zip(SENT).enumerate() {
        let arrived = if n == 0 {
            arrival_of_the_first
        } else {
            arrived
        };
        connection
            .execute(
                "INSERT INTO messages (created_at, message_id, channel_id, guild_id, author_id,
                     author_name, content, sent_at, mention_everyone, origin)
                 VALUES (?1, ?2, 9, 1300000000000000001, 1000000000000000007, 'ana', 'hello',
                     ?3, 0, 'gateway')",
                rusqlite::params![arrived, 1_400_000_000_000_000_001i64 + n as i64, sent],
            )
            .unwrap();
    }
    connection
        .execute_batch(
            "INSERT INTO coverage_gaps (created_at, kind, channel_id, from_at, until_at, detail)
                 VALUES ('2026-12-01T10:00:03.000000Z', 'downtime', 9,
                         '2026-11-30T22:00:00.000000Z', '2026-12-01T06:30:00.250000Z', 'off');
             INSERT INTO attachment_outcomes (created_at, attachment_id, outcome, reason,
                     attempts, retry_at)
                 VALUES ('2026-12-01T10:00:04.000000Z', 21, 'failed', 'timed out', 1,
                         '2026-12-01T10:05:04.000000Z'),
                        ('2026-12-01T10:00:05.000000Z', 22, 'failed', 'gone', 3, NULL);
             INSERT INTO read_markers (created_at, channel_id, read_through, source)
                 VALUES ('2026-12-01T10:00:06.000000Z', 9, '2026-12-01T10:00:00.000001Z',
                         'cli');",
        )
        .unwrap();
    connection
}

/// Every index's and trigger's name and text: what the rebuild must make again as it was.
fn indexes_and_triggers(connection: &Connection) -> Vec<(String, String)> {
    connection
        .prepare(
            "SELECT name, sql FROM sqlite_master WHERE type IN ('index', 'trigger')
             AND sql IS NOT NULL ORDER BY name",
        )
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Every value of `column` in `table`, by rowid, with SQLite's name for its type.
fn stored(connection: &Connection, table: &str, column: &str) -> Vec<(Option<i64>, String)> {
    connection
        .prepare(&format!(
            "SELECT {column}, typeof({column}) FROM {table} ORDER BY rowid"
        ))
        .unwrap()
        .query_map([], |row| Ok((row.get(0).ok(), row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn integers(values: &[i64]) -> Vec<(Option<i64>, String)> {
    values
        .iter()
        .map(|value| (Some(*value), "integer".to_string()))
        .collect()
}

#[test]
fn every_instant_becomes_its_microseconds_and_reads_back_as_the_same_instant() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.sqlite3");
    let connection = store_before_numbers(&path, ARRIVED[0]);
    let shape = indexes_and_triggers(&connection);
    drop(connection);

    let store = Store::open_writable(&path).unwrap();
    {
        let connection = store.lock();
        assert_eq!(version_and_id(&connection).unwrap().0, LATEST);
        // Every index and trigger as it was (the later migrations add their own).
        let now = indexes_and_triggers(&connection);
        let lost: Vec<_> = shape.iter().filter(|made| !now.contains(made)).collect();
        assert!(lost.is_empty(), "{lost:?}");
        assert_eq!(
            stored(&connection, "messages", "created_at"),
            integers(&[
                -500_000,
                EARLIEST.as_micros(),
                1_796_119_200_000_001,
                1_796_119_200_000_002
            ])
        );
        assert_eq!(
            stored(&connection, "messages", "sent_at"),
            integers(&[
                -2_000_000,
                LATEST_INSTANT.as_micros(),
                micros(SENT[2]),
                micros(SENT[3])
            ])
        );
        assert_eq!(
            stored(&connection, "coverage_gaps", "until_at"),
            integers(&[micros("2026-12-01T06:30:00.25Z")])
        );
        assert_eq!(
            stored(&connection, "attachment_outcomes", "retry_at"),
            [
                (Some(micros("2026-12-01T10:05:04Z")), "integer".to_string()),
                (None, "null".to_string())
            ]
        );
        assert_eq!(
            stored(&connection, "read_markers", "read_through"),
            integers(&[micros(ARRIVED[2])])
        );
        // The append-only rule came back with its trigger.
        let update = connection
            .execute("UPDATE messages SET created_at = 0", [])
            .unwrap_err();
        assert!(update.to_string().contains("append-only"), "{update}");
    }
    // The readers see the instants they saw: instants order as numbers now, the marker reads
    // through the third message, and a message reads back with both its instants.
    let channel = ChannelId::parse("9").unwrap();
    let markers = store.read(|reader| reader.read_markers()).unwrap();
    assert_eq!(markers[&channel], Instant::parse(ARRIVED[2]).unwrap());
    let message = store
        .read(|reader| reader.message(&MessageId::parse("1400000000000000002").unwrap()))
        .unwrap()
        .unwrap();
    assert_eq!(message.created_at, EARLIEST);
    assert_eq!(message.sent_at, LATEST_INSTANT);
}

#[test]
fn a_text_that_is_not_an_instant_stops_the_migration_and_changes_nothing() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.sqlite3");
    drop(store_before_numbers(&path, "yesterday"));

    let Err(refused) = Store::open_writable(&path) else {
        panic!("a store holding a text that is not an instant was brought up to date");
    };
    assert_eq!(refused.kind(), ErrorKind::Internal);
    assert!(
        refused.message().contains("0035_instants_as_numbers.sql"),
        "{}",
        refused.message()
    );
    let source = std::error::Error::source(&refused).unwrap().to_string();
    assert!(
        source.contains("the store holds \"yesterday\" where an instant belongs"),
        "{source}"
    );
    // Still schema 34, every instant still its text.
    let connection = Connection::open(&path).unwrap();
    assert_eq!(version_and_id(&connection).unwrap().0, BEFORE as i64);
    let arrived: Vec<String> = connection
        .prepare("SELECT created_at FROM messages ORDER BY seq")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(arrived, ["yesterday", ARRIVED[1], ARRIVED[2], ARRIVED[3]]);
}

#[test]
fn every_instant_column_of_the_current_schema_is_declared_integer() {
    let store_folder = tempfile::tempdir().unwrap();
    let store = Store::open_writable(&store_folder.path().join("store.sqlite3")).unwrap();
    let connection = store.lock();
    let declared: Vec<(String, String, String)> = connection
        .prepare(
            "SELECT m.name, c.name, c.type FROM sqlite_master AS m, pragma_table_info(m.name) AS c
             WHERE m.type = 'table' AND m.sql NOT LIKE 'CREATE VIRTUAL%'
               AND (c.name LIKE '%\\_at' ESCAPE '\\' OR c.name IN ('through', 'read_through'))
             ORDER BY m.name, c.name",
        )
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(declared.len() >= 44, "{declared:?}");
    let not_integer: Vec<_> = declared
        .iter()
        .filter(|(_, _, declared)| declared != "INTEGER")
        .collect();
    assert!(not_integer.is_empty(), "{not_integer:?}");
}
