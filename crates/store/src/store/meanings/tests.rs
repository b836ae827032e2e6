//! The vectors' table: one current row per message, replaced not added; the messages with no
//! vector of a model and those whose text changed, each read on after a cursor; progress;
//! a search's filter over candidates. Each test has a store of its own.

use super::*;
use crate::store::messages::tests::new_message;
use crate::store::{Instant, NewEdit, Store};
use discord_manager_vocabulary::snowflake::MessageId;

fn store() -> (tempfile::TempDir, Store) {
    let folder = tempfile::tempdir().unwrap();
    let store = Store::open_writable(&folder.path().join("store.sqlite3")).unwrap();
    (folder, store)
}

/// Stores a message in `channel` saying `content`; its key.
fn message(store: &Store, channel: &str, content: &str) -> (i64, MessageId) {
    let message = new_message(channel, "7", content);
    store
        .write(|writer| writer.insert_message(&message).map(|_| ()))
        .unwrap();
    let key = store
        .lock()
        .query_row(
            "SELECT seq FROM messages WHERE message_id = ?1",
            [&message.message_id],
            |row| row.get(0),
        )
        .unwrap();
    (key, message.message_id)
}

fn rows(store: &Store) -> Vec<(i64, i64, i64, Vec<u8>)> {
    let connection = store.lock();
    let mut statement = connection
        .prepare("SELECT message_key, model, fingerprint, vector FROM message_meanings ORDER BY message_key")
        .unwrap();
    statement
        .query_map([], |row| {
            Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn a_message_has_one_current_vector_replaced_when_it_is_embedded_again() {
    let (_folder, store) = store();
    let (key, _) = message(&store, "300", "first words");
    let model = store
        .write(|writer| writer.meaning_model("{\"id\":\"m1\"}"))
        .unwrap();
    assert_eq!(
        store
            .write(|writer| writer.meaning_model("{\"id\":\"m1\"}"))
            .unwrap(),
        model
    );
    store
        .write(|writer| writer.put_meaning(key, model, 11, &[1; 384]))
        .unwrap();
    let first = store
        .read(|reader| reader.meanings_after(model, 0, 10))
        .unwrap();
    assert_eq!(first.len(), 1);
    store
        .write(|writer| writer.put_meaning(key, model, 12, &[2; 384]))
        .unwrap();
    assert_eq!(rows(&store), [(key, model, 12, vec![2; 384])]);
    // Read on after the first write, the replacement is there: a reader holding the first
    // learns of the second.
    let after = store
        .read(|reader| reader.meanings_after(model, first[0].seq, 10))
        .unwrap();
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].key, key);
    assert_eq!(after[0].vector, vec![2; 384]);
    assert!(after[0].seq > first[0].seq);
    assert_eq!(after[0].channel_id, "300");
    assert_eq!(
        after[0].sent,
        Instant::parse("2026-11-29T10:00:00Z").unwrap().as_micros()
    );
}

#[test]
fn messages_without_a_vector_of_the_model_are_listed_after_the_cursor() {
    let (_folder, store) = store();
    let (first, _) = message(&store, "300", "one");
    let (second, _) = message(&store, "300", "two");
    let (third, _) = message(&store, "300", "three");
    let (old, new) = store
        .write(|writer| Ok((writer.meaning_model("old")?, writer.meaning_model("new")?)))
        .unwrap();
    store
        .write(|writer| {
            writer.put_meaning(first, new, 1, &[1; 384])?;
            writer.put_meaning(second, old, 1, &[1; 384])
        })
        .unwrap();
    let list = |after, limit| {
        store
            .read(|reader| reader.unembedded_messages(new, after, i64::MAX, limit))
            .unwrap()
    };
    // The second has only another model's vector: it is embedded again.
    assert_eq!(list(0, 10), [second, third]);
    assert_eq!(list(0, 1), [second]);
    assert_eq!(list(second, 10), [third]);
    assert_eq!(list(third, 10), Vec::<i64>::new());
    // A span ends where it is told to, both sides of its end.
    let span = |through| {
        store
            .read(|reader| reader.unembedded_messages(new, 0, through, 10))
            .unwrap()
    };
    assert_eq!(span(third - 1), [second]);
    assert_eq!(span(third), [second, third]);
    assert_eq!(span(first), Vec::<i64>::new());
    let progress = store
        .read(|reader| reader.meaning_progress(Some(new)))
        .unwrap();
    assert_eq!(
        progress,
        MeaningProgress {
            embedded: 1,
            messages: 3
        }
    );
    assert_eq!(
        store.read(|reader| reader.meaning_progress(None)).unwrap(),
        MeaningProgress {
            embedded: 0,
            messages: 3
        }
    );
    assert_eq!(
        store
            .read(|reader| reader.meaning_models_other_than("new"))
            .unwrap(),
        ["old"]
    );
}

#[test]
fn progress_counts_each_message_once_under_the_model_of_its_current_vector() {
    let (_folder, store) = store();
    let keys: Vec<i64> = ["one", "two", "three"]
        .iter()
        .map(|content| message(&store, "300", content).0)
        .collect();
    let (old, new) = store
        .write(|writer| Ok((writer.meaning_model("old")?, writer.meaning_model("new")?)))
        .unwrap();
    let progress = |model| {
        let progress = store
            .read(|reader| reader.meaning_progress(Some(model)))
            .unwrap();
        assert_eq!(progress.messages, 3);
        progress.embedded
    };
    assert_eq!((progress(old), progress(new)), (0, 0));
    store
        .write(|writer| {
            for key in &keys {
                writer.put_meaning(*key, old, 1, &[1; 384])?;
            }
            Ok(())
        })
        .unwrap();
    assert_eq!((progress(old), progress(new)), (3, 0));
    // Embedded again by the same model (an edit): still one each.
    store
        .write(|writer| writer.put_meaning(keys[0], old, 2, &[2; 384]))
        .unwrap();
    assert_eq!((progress(old), progress(new)), (3, 0));
    // Re-embedded by another model, one of them left with no text: moved, not added.
    store
        .write(|writer| {
            writer.put_meaning(keys[0], new, 3, &[3; 384])?;
            writer.put_meaning(keys[1], new, 3, &[])
        })
        .unwrap();
    assert_eq!((progress(old), progress(new)), (1, 2));
    // A batch that fails is rolled back whole, its counts with it.
    let failed = store.write(|writer| {
        writer.put_meaning(keys[2], new, 4, &[4; 384])?;
        Err::<(), _>(discord_manager_vocabulary::error::Error::internal(
            "stopped",
        ))
    });
    assert!(failed.is_err());
    assert_eq!((progress(old), progress(new)), (1, 2));
    assert_eq!(rows(&store).len(), 3);
}

#[test]
fn an_edit_lists_its_message_as_changed_once_and_the_text_to_embed_is_the_edited_one() {
    let (_folder, store) = store();
    let (key, message_id) = message(&store, "300", "we keep the LRU");
    let (other, _) = message(&store, "300", "unrelated");
    let (changed, read_to) = store
        .read(|reader| reader.changed_texts(TextChanges::default(), 10))
        .unwrap();
    assert!(changed.is_empty());
    assert_eq!(read_to, TextChanges::default());
    store
        .write(|writer| {
            writer
                .insert_edit(&NewEdit {
                    message_id,
                    channel_id: "300".parse().unwrap(),
                    content: "we drop the LRU for TTLs".into(),
                    edited_at: Instant::parse("2026-11-29T11:00:00Z").unwrap(),
                    mentioned_user_ids: vec![],
                    mentioned_role_ids: vec![],
                    imported: false,
                })
                .map(|_| ())
        })
        .unwrap();
    let (changed, read_to) = store
        .read(|reader| reader.changed_texts(TextChanges::default(), 10))
        .unwrap();
    assert_eq!(changed, [key]);
    assert!(read_to.edits > 0);
    let (again, _) = store
        .read(|reader| reader.changed_texts(read_to, 10))
        .unwrap();
    assert!(again.is_empty());
    let texts = store
        .read(|reader| reader.texts_to_embed(&[other, key]))
        .unwrap();
    assert_eq!(texts.len(), 2);
    assert_eq!(texts[1].key, key);
    assert_eq!(texts[1].content, "we drop the LRU for TTLs");
    assert_eq!(texts[1].stored, None);
}

#[test]
fn the_vectors_of_candidates_are_read_by_key_for_their_model_only_and_current() {
    let (_folder, store) = store();
    let (one, _) = message(&store, "300", "one");
    let (two, _) = message(&store, "300", "two");
    let (three, _) = message(&store, "300", "three");
    let (old, new) = store
        .write(|writer| Ok((writer.meaning_model("old")?, writer.meaning_model("new")?)))
        .unwrap();
    store
        .write(|writer| {
            writer.put_meaning(one, new, 1, &[1; 384])?;
            writer.put_meaning(two, old, 2, &[2; 384])?;
            writer.put_meaning(three, new, 3, &[3; 384])?;
            // Embedded again: the current vector is read.
            writer.put_meaning(three, new, 4, &[4; 384])
        })
        .unwrap();
    let read = |keys: &[i64]| {
        store
            .read(|reader| reader.meaning_vectors(new, keys))
            .unwrap()
    };
    // Another model's vector is never read, nor a key with no vector.
    assert_eq!(
        read(&[three, two, one, 999]),
        vec![(three, vec![4; 384]), (one, vec![1; 384])]
    );
    assert_eq!(read(&[]), vec![]);
    assert_eq!(
        store
            .read(|reader| reader.meaning_vectors(old, &[one, two]))
            .unwrap(),
        vec![(two, vec![2; 384])]
    );
}
