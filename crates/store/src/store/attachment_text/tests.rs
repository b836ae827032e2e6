//! A kept text file's words in search: found, reported as the attachment's, indexed once, and
//! the kept files not yet indexed listed for the daemon's pass. Each test has a store of its
//! own: the unindexed list is the whole store's.

use super::*;
use crate::store::messages::tests::new_message;
use crate::store::{
    Attachment, AttachmentMatch, AttachmentOutcome, FILES_RANKED, MessageExtras, SearchFilter,
    Store,
};
use discord_manager_vocabulary::snowflake::MessageId;

fn store() -> (tempfile::TempDir, Store) {
    let folder = tempfile::tempdir().unwrap();
    let store = Store::open_writable(&folder.path().join("store.sqlite3")).unwrap();
    (folder, store)
}

/// A message in channel 300 saying `content`, carrying `deploy.log` (attachment `id`), kept
/// under a hash; the attachment as last seen.
fn message_with_a_kept_log(store: &Store, id: &str, content: &str) -> AttachmentRecord {
    message_with_a_kept_log_in(store, "300", id, content)
}

/// [`message_with_a_kept_log`] in `channel`.
fn message_with_a_kept_log_in(
    store: &Store,
    channel: &str,
    id: &str,
    content: &str,
) -> AttachmentRecord {
    let message = new_message(channel, "7", content);
    let log = Attachment {
        id: id.parse().unwrap(),
        filename: "deploy.log".into(),
        size: 40,
        content_type: Some("text/plain".into()),
        url: format!("https://cdn.discordapp.com/attachments/{channel}/{id}/deploy.log"),
        width: None,
        height: None,
        description: None,
        duration_ms: None,
    };
    let extras = MessageExtras {
        attachments: vec![log],
        ..MessageExtras::default()
    };
    store
        .write(|writer| {
            writer.insert_message(&message)?;
            writer.record_extras(&message.message_id, &channel.parse().unwrap(), &extras)?;
            writer.record_attachment_outcome(
                &id.parse().unwrap(),
                &AttachmentOutcome::Fetched {
                    hash: format!("{id:0>64}"),
                    bytes: 40,
                },
            )
        })
        .unwrap();
    store
        .read(|reader| reader.attachment(&id.parse().unwrap()))
        .unwrap()
        .unwrap()
}

fn search(store: &Store, query: &str) -> Vec<(MessageId, String, Option<AttachmentMatch>)> {
    crate::store::testing::search_hits(store, query, &["300"])
        .into_iter()
        .map(|hit| (hit.message.message_id, hit.snippet, hit.in_attachment))
        .collect()
}

#[test]
fn a_word_only_in_a_kept_files_text_finds_its_message_and_the_hit_names_the_attachment() {
    let (_folder, store) = store();
    let log = message_with_a_kept_log(&store, "901", "the deploy failed again");
    // Before its text is indexed, the file's words find nothing (the filename's do).
    assert_eq!(search(&store, "quota"), vec![]);
    let indexed = store
        .write(|writer| {
            writer.index_attachment_text(&log, "error: disk quota exceeded on node-3", 36)
        })
        .unwrap();
    assert!(indexed);
    let in_log = Some(AttachmentMatch {
        attachment_id: "901".parse().unwrap(),
        filename: "deploy.log".into(),
    });
    assert_eq!(
        search(&store, "quota"),
        vec![(
            log.message_id,
            "error: disk [quota] exceeded on node-3".to_string(),
            in_log
        )]
    );
    // A word of the message's own text is a hit in the message, as before.
    assert_eq!(
        search(&store, "failed"),
        vec![(
            log.message_id,
            "the deploy [failed] again".to_string(),
            None
        )]
    );
}

#[test]
fn a_files_text_is_indexed_once_and_the_unindexed_list_reads_on_after_its_cursor() {
    let (_folder, store) = store();
    let first = message_with_a_kept_log(&store, "911", "one");
    let second = message_with_a_kept_log(&store, "912", "two");
    // A skipped file is not kept, so there is nothing of it to index.
    store
        .write(|writer| {
            writer.record_extras(
                &"913".parse().unwrap(),
                &"300".parse().unwrap(),
                &MessageExtras {
                    attachments: vec![Attachment {
                        id: "913".parse().unwrap(),
                        filename: "huge.log".into(),
                        size: 1 << 30,
                        url: "https://cdn.discordapp.com/x".into(),
                        content_type: None,
                        width: None,
                        height: None,
                        description: None,
                        duration_ms: None,
                    }],
                    ..MessageExtras::default()
                },
            )?;
            writer.record_attachment_outcome(
                &"913".parse().unwrap(),
                &AttachmentOutcome::Skipped {
                    reason: "too large".into(),
                },
            )
        })
        .unwrap();
    let unindexed = store
        .read(|reader| reader.unindexed_kept_files(0, 10))
        .unwrap();
    let listed: Vec<(u64, &str)> = unindexed
        .iter()
        .map(|file| (file.attachment.attachment_id.get(), file.hash.as_str()))
        .collect();
    let (hash_911, hash_912) = (format!("{:0>64}", "911"), format!("{:0>64}", "912"));
    assert_eq!(
        listed,
        vec![(911, hash_911.as_str()), (912, hash_912.as_str())]
    );
    assert_eq!(unindexed[0].attachment, first);
    // Bounded, and read on after the last one's outcome.
    let page = store
        .read(|reader| reader.unindexed_kept_files(0, 1))
        .unwrap();
    assert_eq!(page.len(), 1);
    let rest = store
        .read(|reader| reader.unindexed_kept_files(page[0].outcome_seq, 10))
        .unwrap();
    assert_eq!(rest.len(), 1);
    assert_eq!(rest[0].attachment, second);
    // Indexed once: a second time writes nothing and the file leaves the list.
    assert!(
        store
            .write(|writer| writer.index_attachment_text(&first, "alpha", 5))
            .unwrap()
    );
    assert!(
        !store
            .write(|writer| writer.index_attachment_text(&first, "alpha", 5))
            .unwrap()
    );
    assert_eq!(search(&store, "alpha").len(), 1);
    let left = store
        .read(|reader| reader.unindexed_kept_files(0, 10))
        .unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].attachment, second);
}

/// `count` kept logs in `channel` whose text says "gateway timeout", attachments `first`,
/// `first + 1`, …, indexed in that order (the last is the newest).
fn kept_timeout_logs(store: &Store, channel: &str, first: u64, count: u64) {
    for id in first..first + count {
        let log = message_with_a_kept_log_in(store, channel, &id.to_string(), "see attached");
        store
            .write(|writer| writer.index_attachment_text(&log, "gateway timeout after 30 s", 26))
            .unwrap();
    }
}

/// The page for `query` in `channels`, up to `limit` messages: each hit's attachment id (None
/// for a message's own words), and whether older files went unranked.
fn page(store: &Store, query: &str, channels: &[&str], limit: usize) -> (Vec<Option<u64>>, bool) {
    let filter = SearchFilter {
        channel_ids: channels.iter().map(|id| id.parse().unwrap()).collect(),
        ..SearchFilter::default()
    };
    let page = store
        .read(|reader| reader.search(query, &filter, limit))
        .unwrap()
        .unwrap();
    let hits = page
        .hits
        .iter()
        .map(|hit| {
            hit.in_attachment
                .as_ref()
                .map(|matched| matched.attachment_id.to_string().parse().unwrap())
        })
        .collect();
    (hits, page.older_files_unranked)
}

#[test]
fn a_search_ranks_the_newest_200_matching_files_and_says_so_only_when_an_older_one_matched() {
    let (_folder, store) = store();
    kept_timeout_logs(&store, "300", 5_000, FILES_RANKED as u64);
    let (hits, older_unranked) = page(&store, "timeout", &["300"], 1_000);
    assert_eq!(hits.len(), 200);
    assert!(hits.contains(&Some(5_000)));
    assert!(
        !older_unranked,
        "exactly 200 matching files: every one ranked"
    );
    // Two more, newer: the two oldest are no longer ranked, the third oldest still is, and the
    // page says so.
    kept_timeout_logs(&store, "300", 5_200, 2);
    let (hits, older_unranked) = page(&store, "timeout", &["300"], 1_000);
    assert_eq!(hits.len(), 200);
    assert!(hits.contains(&Some(5_201)));
    assert!(hits.contains(&Some(5_002)));
    assert!(!hits.contains(&Some(5_001)));
    assert!(!hits.contains(&Some(5_000)));
    assert!(older_unranked);
    // A word no file holds ranks no file and says nothing of files.
    assert_eq!(page(&store, "quota", &["300"], 1_000), (vec![], false));
}

#[test]
fn the_files_bound_counts_only_files_that_pass_the_filters_and_messages_are_ranked_beside_them() {
    let (_folder, store) = store();
    // The oldest file, alone in channel 301; then 201 newer in channel 300.
    kept_timeout_logs(&store, "301", 4_000, 1);
    kept_timeout_logs(&store, "300", 5_000, FILES_RANKED as u64 + 1);
    let said = new_message("300", "8", "the gateway timeout is back");
    store.write(|writer| writer.insert_message(&said)).unwrap();
    // Narrowed to its channel, the old file is ranked: the bound is on files that pass.
    assert_eq!(
        page(&store, "timeout", &["301"], 10),
        (vec![Some(4_000)], false)
    );
    // Everywhere, it is past the newest 200.
    let (hits, older_unranked) = page(&store, "timeout", &["300", "301"], 1_000);
    assert!(!hits.contains(&Some(4_000)));
    assert!(older_unranked);
    // The message's own words are ranked beside the files, whatever the files' count.
    assert_eq!(hits.len(), 201);
    assert_eq!(hits.iter().filter(|hit| hit.is_none()).count(), 1);
    let (hits, _) = page(&store, "\"timeout is back\"", &["300", "301"], 10);
    assert_eq!(hits, vec![None]);
}

/// Migration 0027 moves the files' text out of the messages' index into its own, under the
/// same rowids, so `attachment_text` (append-only) still names it.
#[test]
fn a_store_from_before_the_files_own_index_finds_its_files_words_after_the_upgrade() {
    let (folder, store) = store();
    let path = folder.path().join("store.sqlite3");
    let log = message_with_a_kept_log(&store, "921", "the deploy failed again");
    drop(store);
    // Back to schema 26: the file's text a row of `message_text`, as 0021 wrote it.
    let connection = rusqlite::Connection::open(&path).unwrap();
    connection
        .execute_batch(crate::store::testing::BEFORE_0036)
        .unwrap();
    connection
        .execute_batch(&format!(
            "DROP INDEX attachment_text_by_time;
             DROP TABLE file_text;
             DROP TABLE cjk_text; DROP TABLE IF EXISTS cjk_text_content; DROP TABLE meaning_walks; DROP TABLE meaning_blocks;
             INSERT INTO message_text (content, message_id)
                 VALUES ('error: disk quota exceeded on node-3', '{message}');
             INSERT INTO attachment_text
                 (created_at, attachment_id, message_id, filename, text_rowid, indexed_bytes)
                 VALUES ('2026-11-29T10:00:01.000000Z', '921', '{message}', 'deploy.log',
                         last_insert_rowid(), 36);
             PRAGMA user_version = 26;",
            message = log.message_id
        ))
        .unwrap();
    drop(connection);
    let store = Store::open_writable(&path).unwrap();
    let in_log = Some(AttachmentMatch {
        attachment_id: "921".parse().unwrap(),
        filename: "deploy.log".into(),
    });
    assert_eq!(
        search(&store, "quota"),
        vec![(
            log.message_id,
            "error: disk [quota] exceeded on node-3".to_string(),
            in_log
        )]
    );
    assert_eq!(
        search(&store, "failed"),
        vec![(
            log.message_id,
            "the deploy [failed] again".to_string(),
            None
        )]
    );
    let count = |sql: &str| -> i64 { store.lock().query_row(sql, [], |row| row.get(0)).unwrap() };
    assert_eq!(
        count("SELECT count(*) FROM message_text WHERE message_text MATCH 'quota'"),
        0
    );
    assert_eq!(count("SELECT count(*) FROM file_text"), 1);
    // A file kept after the upgrade is indexed after the moved one, and found beside it.
    let later = message_with_a_kept_log(&store, "922", "another");
    store
        .write(|writer| writer.index_attachment_text(&later, "quota again on node-4", 21))
        .unwrap();
    assert_eq!(
        count("SELECT max(text_rowid) FROM attachment_text WHERE attachment_id = '922'"),
        count("SELECT max(rowid) FROM file_text")
    );
    assert_eq!(search(&store, "quota").len(), 2);
}

/// The owner's keywords are looked for in kept files too, and the files' index is read only
/// from the first file indexed since the window opened.
#[test]
fn a_keyword_in_a_kept_file_of_a_message_in_the_window_is_a_keyword_match() {
    let (_folder, store) = store();
    let old = message_with_a_kept_log(&store, "931", "yesterday's deploy");
    store
        .write(|writer| writer.index_attachment_text(&old, "disk quota exceeded", 19))
        .unwrap();
    let opened = store.read(|reader| reader.clock_now()).unwrap();
    let log = message_with_a_kept_log(&store, "932", "today's deploy");
    store
        .write(|writer| writer.index_attachment_text(&log, "disk quota exceeded again", 25))
        .unwrap();
    let now = store.read(|reader| reader.clock_now()).unwrap();
    let matches = |from| {
        store
            .read(|reader| reader.keyword_matches("disk quota", from, now))
            .unwrap()
            .into_iter()
            .map(|hit| hit.message_id)
            .collect::<Vec<_>>()
    };
    // The message arrived at `opened` or later, and its file after it.
    assert_eq!(matches(opened), vec![log.message_id]);
    // From the first message's arrival on, both.
    let first = store
        .read(|reader| reader.message(&old.message_id))
        .unwrap()
        .unwrap()
        .created_at;
    assert_eq!(matches(first), vec![old.message_id, log.message_id]);
    // A window that opens after both arrived has none.
    assert_eq!(matches(now), Vec::<MessageId>::new());
}
