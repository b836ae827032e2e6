//! Migration 0036: the index of the messages' words keeps no copy of their text. A store from
//! before it finds every text it found (a message's own, an edit's, the words of its extras,
//! its words in Chinese), with the same snippets; its later texts are kept apart in the order
//! written; and a text written after it is found too.

use discord_manager_vocabulary::snowflake::MessageId;

use super::*;
use crate::store::{NewEdit, Store};

/// The migration that drops the index's copy.
const BEFORE: usize = 35;

/// Messages 1 to 4 in channel 9: 1's own text and then an edit; 2 in Chinese; 3 with no text
/// of its own, only its extras' words; 4 whose edit arrived before it (the edit's text is the
/// first the index holds for it).
fn store_before(path: &Path) {
    let connection = Connection::open(path).unwrap();
    crate::store::cjk::register_grams(&connection).unwrap();
    register_instant_micros(&connection).unwrap();
    for (_, sql) in &MIGRATIONS[..BEFORE] {
        connection.execute_batch(sql).unwrap();
    }
    connection
        .execute_batch(&format!(
            "PRAGMA user_version = {BEFORE};
             INSERT INTO messages (created_at, message_id, channel_id, author_id, author_name,
                     content, sent_at, mention_everyone, origin)
                 VALUES (1, 1, 9, 7, 'ana', 'the cache eviction plan', 1, 0, 'gateway'),
                        (2, 2, 9, 7, 'ana', '最后我们决定使用LRU缓存策略', 2, 0, 'gateway'),
                        (4, 3, 9, 7, 'ana', '', 4, 0, 'gateway'),
                        (6, 4, 9, 7, 'ana', 'rollout starts monday', 5, 0, 'gateway');
             INSERT INTO message_edits (created_at, message_id, channel_id, content, edited_at)
                 VALUES (3, 1, 9, 'the cache eviction plan, agreed by everyone', 3),
                        (5, 4, 9, 'rollout starts tuesday', 6);
             INSERT INTO message_text (content, message_id)
                 VALUES ('the cache eviction plan', 1),
                        ('最后我们决定使用LRU缓存策略', 2),
                        ('the cache eviction plan, agreed by everyone', 1),
                        ('deploy.log quarterly latency report', 3),
                        ('rollout starts tuesday', 4),
                        ('rollout starts monday', 4);
             INSERT INTO cjk_text (rowid, content, message_id)
                 VALUES (2, cjk_grams('最后我们决定使用LRU缓存策略'), 2);"
        ))
        .unwrap();
}

/// What a search for `query` finds in channel 9: each hit's message and snippet.
fn search(store: &Store, query: &str) -> Vec<(u64, String)> {
    crate::store::testing::search_hits(store, query, &["9"])
        .into_iter()
        .map(|hit| (hit.message.message_id.get(), hit.snippet))
        .collect()
}

#[test]
fn a_store_from_before_finds_every_text_it_found_and_keeps_only_the_later_ones_apart() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.sqlite3");
    store_before(&path);
    let store = Store::open_writable(&path).unwrap();
    {
        let connection = store.lock();
        assert_eq!(version_and_id(&connection).unwrap().0, LATEST);
        // The index's own copy is gone; the later texts are kept apart, numbered down from -1
        // in the order written; the index agrees with what it reads its rows from.
        let copies: i64 = connection
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'message_text_content'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(copies, 0);
        let later: Vec<(i64, i64, String)> = connection
            .prepare("SELECT text_rowid, message_id, content FROM version_texts ORDER BY text_rowid DESC")
            .unwrap()
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            later,
            [
                (
                    -1,
                    1,
                    "the cache eviction plan, agreed by everyone".to_string()
                ),
                (-2, 3, "deploy.log quarterly latency report".to_string()),
                (-3, 4, "rollout starts tuesday".to_string()),
            ]
        );
        connection
            .execute(
                "INSERT INTO message_text (message_text, rank) VALUES ('integrity-check', 1)",
                [],
            )
            .unwrap();
    }
    // A message's own text, an edit's, the extras' words, an edit that came first, Chinese.
    assert_eq!(
        search(&store, "\"eviction\""),
        [(1, "the cache [eviction] plan".to_string()),]
    );
    assert_eq!(
        search(&store, "\"agreed\""),
        [(
            1,
            "the cache eviction plan, [agreed] by everyone".to_string()
        )]
    );
    assert_eq!(
        search(&store, "\"quarterly\""),
        [(3, "deploy.log [quarterly] latency report".to_string())]
    );
    assert_eq!(
        search(&store, "\"monday\""),
        [(4, "rollout starts [monday]".to_string())]
    );
    assert_eq!(
        search(&store, "\"tuesday\""),
        [(4, "rollout starts [tuesday]".to_string())]
    );
    assert_eq!(search(&store, "\"缓存\"")[0].0, 2);

    // A text written after the migration: the message's own under its number, an edit's
    // after the last kept apart.
    let fifth = crate::store::messages::tests::new_message("9", "7", "a standup note");
    store
        .write(|writer| {
            writer.insert_message(&fifth)?;
            writer.insert_edit(&NewEdit {
                message_id: MessageId::parse("1").unwrap(),
                channel_id: "9".parse().unwrap(),
                content: "the cache eviction plan, reverted".to_string(),
                edited_at: discord_manager_vocabulary::instant::Instant::from_micros(7),
                mentioned_user_ids: Vec::new(),
                mentioned_role_ids: Vec::new(),
                imported: false,
            })
        })
        .unwrap();
    assert_eq!(
        search(&store, "\"standup\""),
        [(fifth.message_id.get(), "a [standup] note".to_string())]
    );
    assert_eq!(
        search(&store, "\"reverted\""),
        [(1, "the cache eviction plan, [reverted]".to_string())]
    );
    let connection = store.lock();
    let newest: i64 = connection
        .query_row("SELECT min(text_rowid) FROM version_texts", [], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(newest, -4);
}
