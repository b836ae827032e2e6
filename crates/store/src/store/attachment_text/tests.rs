//! A kept text file's words in search: found, reported as the attachment's, indexed once, and
//! the kept files not yet indexed listed for the daemon's pass. Each test has a store of its
//! own: the unindexed list is the whole store's.

use super::*;
use crate::store::messages::tests::new_message;
use crate::store::{
    Attachment, AttachmentMatch, AttachmentOutcome, MessageExtras, SearchFilter, Store,
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
    let message = new_message("300", "7", content);
    let log = Attachment {
        id: id.parse().unwrap(),
        filename: "deploy.log".into(),
        size: 40,
        content_type: Some("text/plain".into()),
        url: format!("https://cdn.discordapp.com/attachments/300/{id}/deploy.log"),
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
            writer.record_extras(&message.message_id, &"300".parse().unwrap(), &extras)?;
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
    let filter = SearchFilter {
        channel_ids: vec!["300".parse().unwrap()],
        ..SearchFilter::default()
    };
    store
        .read(|reader| reader.search(query, &filter, 10))
        .unwrap()
        .unwrap()
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
            log.message_id.clone(),
            "error: disk [quota] exceeded on node-3".to_string(),
            in_log
        )]
    );
    // A word of the message's own text is a hit in the message, as before.
    assert_eq!(
        search(&store, "failed"),
        vec![(
            log.message_id.clone(),
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
    let listed: Vec<(&str, &str)> = unindexed
        .iter()
        .map(|file| (file.attachment.attachment_id.as_str(), file.hash.as_str()))
        .collect();
    let (hash_911, hash_912) = (format!("{:0>64}", "911"), format!("{:0>64}", "912"));
    assert_eq!(
        listed,
        vec![("911", hash_911.as_str()), ("912", hash_912.as_str())]
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
