//! Migrations 0030 to 0033: a store whose ids are TEXT digits gets them as INTEGER numbers,
//! every row, index, trigger and full-text entry kept, and a stop midway is taken up where it
//! stopped.

use discord_manager_vocabulary::snowflake::{ChannelId, MessageId};

use super::*;
use crate::store::Store;
use crate::store::messages::tests::new_message;

/// The first migration that makes ids numbers.
const FIRST: usize = 29;

/// A store at schema 29, ids written as its code wrote them then: TEXT digits. Channels 9 and
/// 10 tell a text order ("10" < "9") from a number order.
fn store_before_numbers(path: &Path) {
    let connection = Connection::open(path).unwrap();
    crate::store::cjk::register_grams(&connection).unwrap();
    for (_, sql) in &MIGRATIONS[..FIRST] {
        connection.execute_batch(sql).unwrap();
    }
    connection
        .execute_batch(&format!(
            "PRAGMA user_version = {FIRST};
             INSERT INTO identity_events (created_at, bot_user_id, bot_name, owner_user_id, origin)
                 VALUES ('2026-12-01T10:00:00.000000Z', '1000000000000000001', 'helper',
                         '1000000000000000009', 'gateway');
             INSERT INTO messages (created_at, message_id, channel_id, guild_id, author_id,
                     author_name, content, sent_at, reply_to_message_id, reply_to_author_id,
                     mention_everyone, origin)
                 VALUES ('2026-12-01T10:00:01.000000Z', '1400000000000000001', '9',
                         '1300000000000000001', '1000000000000000009', 'owner',
                         'the cache eviction plan', '2026-12-01T10:00:00.000000Z', NULL, NULL, 0,
                         'gateway'),
                        ('2026-12-01T10:00:02.000000Z', '1400000000000000002', '10',
                         '1300000000000000001', '1000000000000000007', 'ana',
                         '缓存淘汰 agreed', '2026-12-01T10:00:01.000000Z',
                         '1400000000000000001', '1000000000000000009', 0, 'gateway');
             INSERT INTO message_text (content, message_id)
                 VALUES ('the cache eviction plan', '1400000000000000001'),
                        ('缓存淘汰 agreed', '1400000000000000002');
             INSERT INTO cjk_text (rowid, content, message_id)
                 VALUES (2, '缓存 存淘 淘汰', '1400000000000000002');
             INSERT INTO message_payloads (message_id, digest, version, dictionary, payload)
                 VALUES ('1400000000000000001', 11, 0, 1, x'00');
             INSERT INTO reaction_events (created_at, message_id, channel_id, kind, user_id, emoji)
                 VALUES ('2026-12-01T10:00:03.000000Z', '1400000000000000001', '9', 'add',
                         '1000000000000000007', '👍');"
        ))
        .unwrap();
}

/// The declared type and the stored types of every id column of every table.
fn id_columns(connection: &Connection) -> Vec<(String, String, String, Vec<String>)> {
    let tables: Vec<String> = connection
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'
             AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut columns = Vec::new();
    for table in tables {
        let info: Vec<(String, String)> = connection
            .prepare(&format!(
                "SELECT name, type FROM pragma_table_info('{table}')"
            ))
            .unwrap()
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for (name, declared) in info {
            if !name.ends_with("_id") || name == "session_id" {
                continue;
            }
            let stored: Vec<String> = connection
                .prepare(&format!(
                    "SELECT DISTINCT typeof({name}) FROM {table} WHERE {name} IS NOT NULL"
                ))
                .unwrap()
                .query_map([], |row| row.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            columns.push((table.clone(), name, declared, stored));
        }
    }
    columns
}

#[test]
fn a_store_with_text_ids_gets_numbers_everywhere_and_a_stop_midway_is_taken_up_where_it_stopped() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("before-0030.sqlite3");
    store_before_numbers(&path);

    // A stop during 0032: a table of that name is in the way, so 0032 fails. 0030 and 0031
    // were committed each on its own and stay; 0032 left nothing behind.
    Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE reaction_events_numbered (x)")
        .unwrap();
    let stopped = Store::open_writable(&path).err().expect("0032 cannot run");
    assert_eq!(
        stopped.message(),
        format!(
            "Cannot bring the store at {} up to date (0032_event_ids_as_numbers.sql)",
            path.display()
        )
    );
    let connection = Connection::open(&path).unwrap();
    assert_eq!(version_and_id(&connection).unwrap().0, 31);
    let typed = |sql: &str| -> String { connection.query_row(sql, [], |row| row.get(0)).unwrap() };
    assert_eq!(
        typed("SELECT DISTINCT typeof(channel_id) FROM messages"),
        "integer"
    );
    assert_eq!(
        typed("SELECT DISTINCT typeof(message_id) FROM message_payloads"),
        "integer"
    );
    assert_eq!(
        typed("SELECT DISTINCT typeof(message_id) FROM reaction_events"),
        "text"
    );
    connection
        .execute_batch("DROP TABLE reaction_events_numbered")
        .unwrap();
    drop(connection);

    // The next open goes on from 0032.
    let store = Store::open_writable(&path).unwrap();
    let connection = Connection::open(&path).unwrap();
    assert_eq!(version_and_id(&connection).unwrap().0, LATEST);
    for (table, column, declared, stored) in id_columns(&connection) {
        assert_eq!(
            declared, "INTEGER",
            "{table}.{column} is declared {declared}"
        );
        assert!(
            stored.iter().all(|kind| kind == "integer"),
            "{table}.{column} holds {stored:?}"
        );
    }
    for index in ["message_text", "cjk_text"] {
        assert_eq!(
            typed_in(
                &connection,
                &format!("SELECT DISTINCT typeof(message_id) FROM {index}")
            ),
            "integer"
        );
        connection
            .execute(
                &format!("INSERT INTO {index} ({index}) VALUES ('integrity-check')"),
                [],
            )
            .unwrap();
    }
    assert_eq!(typed_in(&connection, "PRAGMA integrity_check"), "ok");
    // Ids order as numbers: channel 9 before channel 10.
    let channels: Vec<i64> = connection
        .prepare("SELECT channel_id FROM channel_message_totals ORDER BY channel_id")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(channels, [9, 10]);

    // What was stored reads back the same through the store.
    let first: MessageId = "1400000000000000001".parse().unwrap();
    let second: MessageId = "1400000000000000002".parse().unwrap();
    let read = store
        .read(|reader| reader.message(&second))
        .unwrap()
        .unwrap();
    assert_eq!(read.channel_id, "10");
    assert_eq!(read.reply_to_message_id, Some(first));
    assert_eq!(read.reply_to_author_id.unwrap(), "1000000000000000009");
    let owner = store
        .read(|reader| reader.identity())
        .unwrap()
        .owner_user_id;
    assert_eq!(owner.unwrap(), "1000000000000000009");
    // The full-text index still finds each message, in words and in Chinese.
    for (term, found) in [("eviction", first), ("淘汰", second)] {
        let hits: Vec<MessageId> = connection
            .prepare(
                "SELECT message_id FROM message_text WHERE message_text MATCH ?1
                 UNION SELECT message_id FROM cjk_text WHERE cjk_text MATCH ?1",
            )
            .unwrap()
            .query_map([format!("\"{term}\"")], |row| row.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(hits.contains(&found), "{term}: {hits:?}");
    }
    // The triggers were made again: a message's row is still append-only, and a new message
    // is counted in its channel.
    let refused = connection
        .execute("UPDATE messages SET content = 'x'", [])
        .unwrap_err();
    assert!(
        refused.to_string().contains("messages is append-only"),
        "{refused}"
    );
    let nine: ChannelId = "9".parse().unwrap();
    store
        .write(|writer| writer.insert_message(&new_message(nine, "7", "after the upgrade")))
        .unwrap();
    let counted: i64 = connection
        .query_row(
            "SELECT news FROM channel_message_totals WHERE channel_id = 9",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(counted, 2);
}

fn typed_in(connection: &Connection, sql: &str) -> String {
    connection.query_row(sql, [], |row| row.get(0)).unwrap()
}
