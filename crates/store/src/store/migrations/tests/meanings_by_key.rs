//! Migration 0034: the vectors keyed by their message keep every row and its `seq`, and a
//! vector written after it still reads on after the last, a replaced last row included.

use super::*;
use crate::store::Store;

/// The migration that keys the vectors by message.
const BEFORE: usize = 33;

/// Every row of the vectors' table: key, seq, model, fingerprint, vector.
fn rows(connection: &Connection) -> Vec<(i64, i64, i64, i64, Vec<u8>)> {
    connection
        .prepare(
            "SELECT message_key, seq, model, fingerprint, vector FROM message_meanings
             ORDER BY message_key",
        )
        .unwrap()
        .query_map([], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn the_vectors_keyed_by_message_keep_their_seq_and_a_later_write_reads_on_after_them() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.sqlite3");
    let connection = Connection::open(&path).unwrap();
    crate::store::cjk::register_grams(&connection).unwrap();
    for (_, sql) in &MIGRATIONS[..BEFORE] {
        connection.execute_batch(sql).unwrap();
    }
    // Written as schema 33 wrote them: key 30 first, then 10, then 30 again (its seq moves on
    // to 3), then 20 with no text.
    connection
        .execute_batch(&format!(
            "PRAGMA user_version = {BEFORE};
             INSERT INTO meaning_models (created_at, identity)
                 VALUES ('2026-12-01T10:00:00.000000Z', 'e5');
             INSERT INTO message_meanings (message_key, model, fingerprint, vector)
                 VALUES (30, 1, 7, x'0102');
             INSERT INTO message_meanings (message_key, model, fingerprint, vector)
                 VALUES (10, 1, 8, x'0304');
             INSERT OR REPLACE INTO message_meanings (message_key, model, fingerprint, vector)
                 VALUES (30, 1, 9, x'0506');
             INSERT INTO message_meanings (message_key, model, fingerprint, vector)
                 VALUES (20, 1, 5, x'');"
        ))
        .unwrap();
    let before = rows(&connection);
    assert_eq!(
        before,
        [
            (10, 2, 1, 8, vec![3, 4]),
            (20, 4, 1, 5, vec![]),
            (30, 3, 1, 9, vec![5, 6]),
        ]
    );
    drop(connection);

    let store = Store::open_writable(&path).unwrap();
    {
        let connection = store.lock();
        assert_eq!(version_and_id(&connection).unwrap().0, LATEST);
        assert_eq!(rows(&connection), before);
        // The message's key is the table's own key: one descent finds a vector.
        let key: String = connection
            .query_row(
                "SELECT name FROM pragma_table_info('message_meanings') WHERE pk = 1",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(key, "message_key");
    }
    assert_eq!(store.read(|reader| reader.last_meaning_seq()).unwrap(), 4);
    assert_eq!(
        store
            .read(|reader| reader.meaning_vectors(1, &[30, 10, 20, 40]))
            .unwrap(),
        [(30, vec![5, 6]), (10, vec![3, 4]), (20, vec![])]
    );

    // The last row replaced gets a higher seq, never its own; a new message the next.
    store
        .write(|writer| {
            writer.put_meaning(20, 1, 6, &[7, 8])?;
            writer.put_meaning(10, 1, 8, &[9, 9])?;
            writer.put_meaning(40, 1, 1, &[1, 1])
        })
        .unwrap();
    let connection = store.lock();
    assert_eq!(
        rows(&connection),
        [
            (10, 6, 1, 8, vec![9, 9]),
            (20, 5, 1, 6, vec![7, 8]),
            (30, 3, 1, 9, vec![5, 6]),
            (40, 7, 1, 1, vec![1, 1]),
        ]
    );
}
