//! The attachments' record: sightings once per URL, the pending batches, outcomes and totals.
//! Each test has a store of its own: the pending list and the totals are the whole store's.

use super::*;
use crate::store::{MessageExtras, Store};

fn store() -> (tempfile::TempDir, Store) {
    let folder = tempfile::tempdir().unwrap();
    let store = Store::open_writable(&folder.path().join("store.sqlite3")).unwrap();
    (folder, store)
}

fn attachment(id: &str, url: &str, size: u64) -> Attachment {
    Attachment {
        id: id.parse().unwrap(),
        filename: format!("{id}.png"),
        size,
        content_type: Some("image/png".into()),
        url: url.into(),
        width: None,
        height: None,
        description: None,
        duration_ms: None,
    }
}

fn record(store: &Store, message: &str, attachments: Vec<Attachment>) {
    let extras = MessageExtras {
        attachments,
        ..MessageExtras::default()
    };
    store
        .write(|writer| {
            writer.record_extras(&message.parse().unwrap(), &"300".parse().unwrap(), &extras)
        })
        .unwrap();
}

fn ids(records: &[AttachmentRecord]) -> Vec<String> {
    records
        .iter()
        .map(|record| record.attachment_id.to_string())
        .collect()
}

#[test]
fn an_attachment_is_recorded_once_per_url_and_read_back_as_last_seen() {
    let (_folder, store) = store();
    record(&store, "10", vec![attachment("1", "https://cdn/1?ex=1", 5)]);
    let clock = store.read(|reader| reader.clock_now()).unwrap();
    // A replay of the same version writes nothing, and leaves the clock where it was.
    let written = store
        .write(|writer| {
            writer.record_attachments(
                &"10".parse().unwrap(),
                &"300".parse().unwrap(),
                &[attachment("1", "https://cdn/1?ex=1", 5)],
            )
        })
        .unwrap();
    assert_eq!(written, 0);
    assert_eq!(store.read(|reader| reader.clock_now()).unwrap(), clock);
    // A fresh URL is a new sighting, and the attachment reads as last seen.
    record(&store, "10", vec![attachment("1", "https://cdn/1?ex=2", 5)]);
    let seen = store
        .read(|reader| reader.attachment(&"1".parse().unwrap()))
        .unwrap()
        .unwrap();
    assert_eq!(seen.url, "https://cdn/1?ex=2");
    assert_eq!(
        (seen.message_id.get(), seen.channel_id.get(), seen.size),
        (10, 300, 5)
    );
    assert_eq!(seen.filename, "1.png");
    assert_eq!(seen.content_type.as_deref(), Some("image/png"));
    assert_eq!(
        store
            .read(|reader| reader.attachment(&"2".parse().unwrap()))
            .unwrap(),
        None
    );
    // Listed once, at its newest sighting.
    let pending = store
        .read(|reader| reader.pending_attachments(0, Instant::now(), None, 10))
        .unwrap();
    assert_eq!(ids(&pending), ["1"]);
    assert_eq!(pending[0].url, "https://cdn/1?ex=2");
}

#[test]
fn pending_comes_in_bounded_batches_oldest_first_and_after_a_cursor() {
    let (_folder, store) = store();
    record(
        &store,
        "10",
        vec![attachment("1", "u1", 1), attachment("2", "u2", 2)],
    );
    record(&store, "11", vec![attachment("3", "u3", 3)]);
    let now = Instant::now();
    let first = store
        .read(|reader| reader.pending_attachments(0, now, None, 2))
        .unwrap();
    assert_eq!(ids(&first), ["1", "2"]);
    let rest = store
        .read(|reader| reader.pending_attachments(first[1].seq, now, None, 2))
        .unwrap();
    assert_eq!(ids(&rest), ["3"]);
    let none = store
        .read(|reader| reader.pending_attachments(rest[0].seq, now, None, 2))
        .unwrap();
    assert!(none.is_empty());
}

#[test]
fn fetched_and_skipped_are_never_pending_and_a_failure_is_again_once_its_retry_is_due() {
    let (_folder, store) = store();
    record(
        &store,
        "10",
        vec![
            attachment("1", "u1", 1),
            attachment("2", "u2", 2),
            attachment("3", "u3", 3),
            attachment("4", "u4", 4),
        ],
    );
    let now = Instant::now();
    let retry_at = now.plus_seconds(60);
    store
        .write(|writer| {
            writer.record_attachment_outcome(
                &"1".parse().unwrap(),
                &AttachmentOutcome::Fetched {
                    hash: "a".repeat(64),
                    bytes: 1,
                },
            )?;
            writer.record_attachment_outcome(
                &"2".parse().unwrap(),
                &AttachmentOutcome::Skipped {
                    reason: "too large".into(),
                },
            )?;
            writer.record_attachment_outcome(
                &"3".parse().unwrap(),
                &AttachmentOutcome::Failed {
                    reason: "the CDN answered 503".into(),
                    attempts: 2,
                    retry_at: Some(retry_at),
                },
            )?;
            writer.record_attachment_outcome(
                &"4".parse().unwrap(),
                &AttachmentOutcome::Failed {
                    reason: "deleted before it could be fetched".into(),
                    attempts: 1,
                    retry_at: None,
                },
            )
        })
        .unwrap();
    let pending_at = |at: Instant| {
        store
            .read(|reader| reader.pending_attachments(0, at, None, 10))
            .unwrap()
    };
    // Both sides of the retry time.
    assert!(pending_at(retry_at.plus_micros(-1)).is_empty());
    let due = pending_at(retry_at);
    assert_eq!(ids(&due), ["3"]);
    assert_eq!(due[0].failed_attempts, 2);
    // A failure never retried stays out, however late.
    assert_eq!(ids(&pending_at(retry_at.plus_seconds(86_400 * 365))), ["3"]);
    assert_eq!(
        store
            .read(|reader| reader.attachment_outcome(&"3".parse().unwrap()))
            .unwrap(),
        Some(AttachmentOutcome::Failed {
            reason: "the CDN answered 503".into(),
            attempts: 2,
            retry_at: Some(retry_at),
        })
    );
    assert_eq!(
        store
            .read(|reader| reader.attachment_outcome(&"5".parse().unwrap()))
            .unwrap(),
        None
    );
    // Fetched at last: the newest outcome decides.
    store
        .write(|writer| {
            writer.record_attachment_outcome(
                &"3".parse().unwrap(),
                &AttachmentOutcome::Fetched {
                    hash: "b".repeat(64),
                    bytes: 3,
                },
            )
        })
        .unwrap();
    assert!(pending_at(retry_at).is_empty());
}

#[test]
fn cache_totals_count_each_file_once_and_each_attachment_by_its_latest_outcome() {
    let (_folder, store) = store();
    assert_eq!(
        store.read(|reader| reader.cache_totals()).unwrap(),
        CacheTotals::default()
    );
    record(
        &store,
        "10",
        (1..=6)
            .map(|n| attachment(&n.to_string(), &format!("u{n}"), n))
            .collect(),
    );
    let fetched = |hash: char, bytes| AttachmentOutcome::Fetched {
        hash: hash.to_string().repeat(64),
        bytes,
    };
    store
        .write(|writer| {
            // The same file for two attachments: one file, its bytes once.
            writer.record_attachment_outcome(&"1".parse().unwrap(), &fetched('a', 100))?;
            writer.record_attachment_outcome(&"2".parse().unwrap(), &fetched('a', 100))?;
            writer.record_attachment_outcome(&"3".parse().unwrap(), &fetched('b', 20))?;
            writer.record_attachment_outcome(
                &"4".parse().unwrap(),
                &AttachmentOutcome::Skipped {
                    reason: "type not kept".into(),
                },
            )?;
            writer.record_attachment_outcome(
                &"5".parse().unwrap(),
                &AttachmentOutcome::Failed {
                    reason: "timed out".into(),
                    attempts: 1,
                    retry_at: Some(Instant::now()),
                },
            )
        })
        .unwrap();
    assert_eq!(store.read(|reader| reader.kept_bytes()).unwrap(), 120);
    assert_eq!(
        store.read(|reader| reader.cache_totals()).unwrap(),
        CacheTotals {
            files: 2,
            bytes: 120,
            pending: 1,
            failed: 1,
            skipped: 1,
        }
    );
}

#[test]
fn which_attachments_are_kept_is_read_for_a_whole_page_at_once() {
    let (_folder, store) = store();
    record(
        &store,
        "1",
        vec![
            attachment("10", "https://cdn.discordapp.com/a/10", 5),
            attachment("11", "https://cdn.discordapp.com/a/11", 5),
            attachment("12", "https://cdn.discordapp.com/a/12", 5),
        ],
    );
    store
        .write(|writer| {
            writer.record_attachment_outcome(
                &"10".parse().unwrap(),
                &AttachmentOutcome::Fetched {
                    hash: "ab".repeat(32),
                    bytes: 5,
                },
            )?;
            writer.record_attachment_outcome(
                &"11".parse().unwrap(),
                &AttachmentOutcome::Skipped {
                    reason: "type not kept".into(),
                },
            )
        })
        .unwrap();
    let kept = store
        .read(|reader| {
            reader.kept_attachments(&[
                &"10".parse().unwrap(),
                &"11".parse().unwrap(),
                &"12".parse().unwrap(),
                &"99".parse().unwrap(),
            ])
        })
        .unwrap();
    assert_eq!(
        kept,
        std::collections::HashSet::from(["10".parse().unwrap()])
    );
    assert!(
        store
            .read(|reader| reader.kept_attachments(&[]))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_file_skipped_at_the_total_cap_is_pending_again_once_the_cache_has_room_for_it() {
    let (_folder, store) = store();
    record(
        &store,
        "10",
        vec![attachment("1", "u1", 100), attachment("2", "u2", 100)],
    );
    store
        .write(|writer| {
            writer.record_attachment_outcome(
                &"1".parse().unwrap(),
                &AttachmentOutcome::Skipped {
                    reason: format!(
                        "{TOTAL_CAP_REACHED}: the cache holds up to 1 MiB \
                         (DISCORD_MANAGER_ATTACHMENT_TOTAL_MB)"
                    ),
                },
            )?;
            // Any other skip is final, whatever room there is.
            writer.record_attachment_outcome(
                &"2".parse().unwrap(),
                &AttachmentOutcome::Skipped {
                    reason: "type not kept: other".into(),
                },
            )
        })
        .unwrap();
    let pending_with = |room: Option<u64>| {
        let pending = store
            .read(|reader| reader.pending_attachments(0, Instant::now(), room, 10))
            .unwrap();
        ids(&pending).into_iter().collect::<Vec<_>>()
    };
    assert!(pending_with(None).is_empty(), "room not asked");
    // Both sides of the file's announced size.
    assert!(pending_with(Some(99)).is_empty());
    assert_eq!(pending_with(Some(100)), ["1"]);
    assert_eq!(pending_with(Some(u64::MAX)), ["1"]);
    // Kept at last: the newest outcome decides, and it is never offered again.
    store
        .write(|writer| {
            writer.record_attachment_outcome(
                &"1".parse().unwrap(),
                &AttachmentOutcome::Fetched {
                    hash: "c".repeat(64),
                    bytes: 100,
                },
            )
        })
        .unwrap();
    assert!(pending_with(Some(u64::MAX)).is_empty());
}
