//! The fetcher's rules that need no CDN: what is skipped with zero requests, the retry times,
//! and that a download cut short is never read as a whole file.

use super::*;
use crate::rest::RetryPolicy;
use discord_manager_core::config::Token;

/// A fetcher whose REST base and CDN are a closed loopback port: any request it made would
/// fail, so an outcome other than a failure proves it made none. Never a host off this
/// machine. Answers the folder of its store, the fetcher and the URL of a file on its CDN.
fn fetcher(policy: AttachmentPolicy) -> (tempfile::TempDir, Fetcher, String) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.sqlite3");
    let store = Arc::new(Store::open_writable(&path).unwrap());
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let token = Token::parse("fake.token.here").unwrap();
    let rest = Arc::new(Rest::new(&token, Some(base.as_str()), RetryPolicy::default()).unwrap());
    let cache = Cache::open(&path).unwrap();
    let cdn = CdnPolicy::for_api_base(Some(base.as_str()));
    let scope = FileScope {
        guilds: GuildScope::every_guild(),
        direct_messages: false,
    };
    let fetcher = Fetcher::new(store, rest, cache, policy, scope, cdn).unwrap();
    let url = format!("{base}/attachments/1400000000000000003/1600000000000000001/a.png");
    (folder, fetcher, url)
}

fn attachment(url: &str, size: u64) -> AttachmentRecord {
    AttachmentRecord {
        seq: 1,
        attachment_id: "1600000000000000001".parse().unwrap(),
        message_id: "1500000000000000001".parse().unwrap(),
        channel_id: "1400000000000000003".parse().unwrap(),
        filename: "eu-west-2-latency.png".into(),
        content_type: Some("image/png".into()),
        size,
        url: url.into(),
        failed_attempts: 0,
    }
}

#[tokio::test]
async fn a_url_off_discords_cdn_is_skipped_without_a_request() {
    let (_folder, fetcher, cdn) = fetcher(AttachmentPolicy::default());
    // Another port, another name of this machine, Discord's real CDN: none is the fake
    // Discord's own (and a test never reaches the internet).
    let port = reqwest::Url::parse(&cdn).unwrap().port().unwrap();
    let other_port = cdn.replace(&format!(":{port}/"), &format!(":{}/", port ^ 1));
    let other_name = cdn.replace("127.0.0.1", "localhost");
    let real = "https://cdn.discordapp.com/attachments/1/2/a.png".to_string();
    for (url, host) in [
        (other_port, format!("127.0.0.1:{}", port ^ 1)),
        (other_name, format!("localhost:{port}")),
        (real, "cdn.discordapp.com:443".to_string()),
    ] {
        let reason = format!(
            "the attachment's URL is on {host}, not the Discord on this machine \
             (DISCORD_API_BASE, 127.0.0.1:{port}), the only host fetched from while it is set"
        );
        assert_eq!(
            fetcher.fetch(&attachment(&url, 10), 0).await,
            (AttachmentOutcome::Skipped { reason }, false),
            "{url}"
        );
    }
}

#[tokio::test]
async fn a_file_over_the_per_file_cap_by_its_announced_size_is_skipped_without_a_request() {
    const MIB: u64 = 1024 * 1024;
    let policy = AttachmentPolicy {
        file_cap: MIB,
        ..AttachmentPolicy::default()
    };
    let (_folder, fetcher, cdn) = fetcher(policy);
    assert_eq!(
        fetcher.fetch(&attachment(&cdn, MIB + 1), 0).await,
        (
            AttachmentOutcome::Skipped {
                reason: "too large: 1048577 bytes, over the per-file cap of 1 MiB \
                         (DISCORD_MANAGER_ATTACHMENT_FILE_MB)"
                    .into()
            },
            false
        )
    );
    // At the cap it is fetched: here, from a closed port, so the attempt fails.
    let (outcome, downloaded) = fetcher.fetch(&attachment(&cdn, MIB), 0).await;
    assert!(downloaded);
    assert!(
        matches!(
            &outcome,
            AttachmentOutcome::Failed {
                attempts: 1,
                retry_at: Some(_),
                ..
            }
        ),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn the_total_cap_skips_a_file_that_would_pass_it_without_a_request() {
    let policy = AttachmentPolicy {
        total_cap: 4096,
        ..AttachmentPolicy::default()
    };
    let (_folder, fetcher, cdn) = fetcher(policy);
    let (outcome, downloaded) = fetcher.fetch(&attachment(&cdn, 100), 3997).await;
    assert!(!downloaded);
    assert!(
        matches!(&outcome, AttachmentOutcome::Skipped { reason } if reason.starts_with("total cap reached")),
        "{outcome:?}"
    );
}

#[test]
fn a_failure_is_retried_after_a_minute_doubling_to_six_hours_and_given_up_after_eight() {
    let now = Instant::parse("2026-12-03T08:00:00Z").unwrap();
    let mut record = attachment("https://cdn.discordapp.com/attachments/1/2/a.png", 10);
    let mut waits = Vec::new();
    for failed in 0..MAX_ATTEMPTS {
        record.failed_attempts = failed;
        match failure(&record, "the CDN answered 503".into(), now) {
            AttachmentOutcome::Failed {
                attempts,
                retry_at: Some(at),
                reason,
            } => {
                assert_eq!(attempts, failed + 1);
                assert_eq!(reason, "the CDN answered 503");
                waits.push((at.as_micros() - now.as_micros()) / 1_000_000);
            }
            AttachmentOutcome::Failed {
                attempts,
                retry_at: None,
                reason,
            } => {
                assert_eq!(attempts, MAX_ATTEMPTS);
                assert_eq!(reason, "gave up after 8 attempts: the CDN answered 503");
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(waits, [60, 120, 240, 480, 960, 1920, 3840]);
}

#[test]
fn a_429s_retry_after_is_read_in_seconds() {
    let mut headers = reqwest::header::HeaderMap::new();
    assert_eq!(retry_after(&headers), Duration::from_secs(1));
    headers.insert(reqwest::header::RETRY_AFTER, "2.5".parse().unwrap());
    assert_eq!(retry_after(&headers), Duration::from_millis(2500));
    headers.insert(reqwest::header::RETRY_AFTER, "soon".parse().unwrap());
    assert_eq!(retry_after(&headers), Duration::from_secs(1));
}

#[tokio::test(start_paused = true)]
async fn the_pacing_wait_ends_at_its_time_or_at_once_on_a_stop() {
    let (stopping, mut stop) = watch::channel(false);
    let started = tokio::time::Instant::now();
    assert!(!wait(&mut stop, GAP).await);
    assert_eq!(started.elapsed(), GAP);
    let stopper = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(1)).await;
        stopping.send(true).unwrap();
    });
    let started = tokio::time::Instant::now();
    assert!(wait(&mut stop, Duration::from_secs(3600)).await);
    assert_eq!(started.elapsed(), Duration::from_secs(1));
    stopper.await.unwrap();
}

#[test]
fn a_download_is_read_whole_only_when_its_end_came_and_one_cut_short_is_an_error() {
    let read = |pieces: Vec<Piece>| {
        let (send, receive) = mpsc::channel(8);
        for piece in pieces {
            send.try_send(piece).ok().unwrap();
        }
        drop(send);
        let mut bytes = Vec::new();
        Incoming::new(receive)
            .read_to_end(&mut bytes)
            .map(|_| bytes)
    };
    let whole = read(vec![
        Piece::Bytes(b"hel".to_vec()),
        Piece::Bytes(b"lo".to_vec()),
        Piece::End,
    ]);
    assert_eq!(whole.unwrap(), b"hello");
    // The sender dropped before the end (the daemon stopping, the task dropped).
    let dropped = read(vec![Piece::Bytes(b"hel".to_vec())]).unwrap_err();
    assert_eq!(dropped.to_string(), "the download was interrupted");
    let broken = read(vec![
        Piece::Bytes(b"hel".to_vec()),
        Piece::Broken("connection reset".into()),
    ])
    .unwrap_err();
    assert_eq!(broken.to_string(), "connection reset");
}

#[test]
fn search_reads_a_text_file_up_to_the_bound_and_not_a_byte_past_it() {
    let bound = usize::try_from(INDEXED_TEXT_BYTES).unwrap();
    // A file exactly at the bound is read whole...
    let at = "a".repeat(bound - 5) + "tail!";
    let (text, bytes) = text_to_index(at.as_bytes()).unwrap();
    assert_eq!((text.len(), bytes), (bound, INDEXED_TEXT_BYTES));
    assert!(text.ends_with("tail!"));
    // ...one a byte over it loses that byte.
    let over = at.clone() + "Z";
    let (text, bytes) = text_to_index(over.as_bytes()).unwrap();
    assert_eq!((text.as_str(), bytes), (at.as_str(), INDEXED_TEXT_BYTES));
    // A character cut at the bound, and invalid UTF-8, read as U+FFFD.
    let cut = "a".repeat(bound - 1) + "é";
    let (text, bytes) = text_to_index(cut.as_bytes()).unwrap();
    assert_eq!(bytes, INDEXED_TEXT_BYTES);
    assert!(text.ends_with("a\u{FFFD}"));
    let (text, _) = text_to_index(&b"ok \xff ok"[..]).unwrap();
    assert_eq!(text, "ok \u{FFFD} ok");
}

/// The words search finds in channel 1400000000000000003 of `fetcher`'s store, with the
/// attachment each hit was in.
fn found(fetcher: &Fetcher, query: &str) -> Vec<Option<String>> {
    let filter = discord_manager_store::SearchFilter {
        channel_ids: vec!["1400000000000000003".parse().unwrap()],
        ..Default::default()
    };
    fetcher
        .store
        .read(|reader| reader.search(query, &filter, 10))
        .unwrap()
        .unwrap()
        .hits
        .into_iter()
        .map(|hit| hit.in_attachment.map(|matched| matched.filename))
        .collect()
}

/// `attachment` seen on its message (recorded once, whatever else it carries).
fn seen(fetcher: &Fetcher, attachment: &AttachmentRecord) {
    let extras = discord_manager_store::MessageExtras {
        attachments: vec![Attachment {
            id: attachment.attachment_id,
            filename: attachment.filename.clone(),
            size: attachment.size,
            content_type: attachment.content_type.clone(),
            url: attachment.url.clone(),
            width: None,
            height: None,
            description: None,
            duration_ms: None,
        }],
        ..Default::default()
    };
    let message = discord_manager_store::NewMessage {
        message_id: attachment.message_id,
        channel_id: attachment.channel_id,
        guild_id: None,
        author_id: "7".parse().unwrap(),
        author_name: "someone".into(),
        content: "see attached".into(),
        sent_at: Instant::now(),
        reply_to_message_id: None,
        reply_to_author_id: None,
        mention_everyone: false,
        mentioned_user_ids: Vec::new(),
        mentioned_role_ids: Vec::new(),
        origin: discord_manager_store::Origin::Gateway,
        provenance: discord_manager_store::Provenance::default(),
    };
    fetcher
        .store
        .write(|writer| {
            writer.insert_message(&message)?;
            writer.record_extras(&attachment.message_id, &attachment.channel_id, &extras)
        })
        .unwrap();
}

#[tokio::test]
async fn a_text_file_recorded_kept_is_searchable_and_an_image_is_not_read() {
    let (_folder, fetcher, url) = fetcher(AttachmentPolicy::default());
    let log = AttachmentRecord {
        attachment_id: "1600000000000000002".parse().unwrap(),
        filename: "deploy.log".into(),
        content_type: None,
        ..attachment(&url, 38)
    };
    seen(&fetcher, &log);
    let kept = fetcher
        .cache
        .keep(&b"step 4: quokka-migration exited 137\n\xff"[..], 1 << 20)
        .unwrap();
    let fetched = AttachmentOutcome::Fetched {
        hash: kept.hash.to_string(),
        bytes: kept.bytes,
    };
    fetcher.record(&log, fetched).await;
    assert_eq!(
        found(&fetcher, "quokka"),
        vec![Some("deploy.log".to_string())]
    );
    // An image is kept, never read as text: its bytes' words find nothing.
    let image = attachment(&url, 12);
    seen(&fetcher, &image);
    let kept = fetcher.cache.keep(&b"wombat bytes"[..], 1 << 20).unwrap();
    let fetched = AttachmentOutcome::Fetched {
        hash: kept.hash.to_string(),
        bytes: kept.bytes,
    };
    fetcher.record(&image, fetched).await;
    assert_eq!(found(&fetcher, "wombat"), Vec::<Option<String>>::new());
}

#[tokio::test]
async fn text_files_kept_before_search_read_them_are_indexed_once_by_the_pass_at_start() {
    let (_folder, fetcher, url) = fetcher(AttachmentPolicy::default());
    let notes = AttachmentRecord {
        attachment_id: "1600000000000000003".parse().unwrap(),
        filename: "notes.md".into(),
        content_type: Some("text/markdown".into()),
        ..attachment(&url, 20)
    };
    seen(&fetcher, &notes);
    let kept = fetcher
        .cache
        .keep(&b"# Retro\nthe pangolin"[..], 1 << 20)
        .unwrap();
    // Recorded kept as before this change: no text indexed with it.
    fetcher
        .store
        .write(|writer| {
            writer.record_attachment_outcome(
                &notes.attachment_id,
                &AttachmentOutcome::Fetched {
                    hash: kept.hash.to_string(),
                    bytes: kept.bytes,
                },
            )
        })
        .unwrap();
    assert_eq!(found(&fetcher, "pangolin"), Vec::<Option<String>>::new());
    fetcher.index_kept_text().await;
    assert_eq!(
        found(&fetcher, "pangolin"),
        vec![Some("notes.md".to_string())]
    );
    // A second pass finds nothing left to index, and indexes nothing twice.
    fetcher.index_kept_text().await;
    assert_eq!(found(&fetcher, "pangolin").len(), 1);
    let left = fetcher
        .store
        .read(|reader| reader.unindexed_kept_files(0, 10))
        .unwrap();
    assert_eq!(left, vec![]);
}

/// A message of the test store: in the guild `guild` (None: a direct message to the bot).
fn stored_message(fetcher: &Fetcher, id: &str, guild: Option<&str>) {
    let mut payload = serde_json::json!({"id": id, "channel_id": "1400000000000000003",
        "author": {"id": "1000000000000000009", "username": "stranger", "discriminator": "0",
                   "global_name": null, "avatar": null},
        "content": "", "timestamp": "2026-11-29T10:00:00Z", "edited_timestamp": null,
        "tts": false, "mention_everyone": false, "mentions": [], "mention_roles": [],
        "attachments": [], "embeds": [], "pinned": false, "type": 0, "flags": 0});
    if let Some(guild) = guild {
        payload["guild_id"] = serde_json::json!(guild);
    }
    let message: serenity::model::channel::Message = serde_json::from_value(payload).unwrap();
    discord_manager_ingest::messages::record_message(
        &fetcher.store,
        &message,
        None,
        discord_manager_ingest::Origin::Gateway,
    )
    .unwrap();
}

#[tokio::test]
async fn only_files_of_messages_in_scope_are_fetched_a_strangers_direct_message_is_not() {
    let (_folder, mut fetcher, cdn) = fetcher(AttachmentPolicy::default());
    stored_message(&fetcher, "1500000000000000001", Some("1200000000000000001"));
    stored_message(&fetcher, "1500000000000000002", None);
    let of = |message: &str| AttachmentRecord {
        message_id: message.parse().unwrap(),
        ..attachment(&cdn, 10)
    };
    let (guild, direct, unknown) = (
        of("1500000000000000001"),
        of("1500000000000000002"),
        of("1500000000000000003"),
    );
    assert!(fetcher.in_scope(&guild).await);
    assert!(
        !fetcher.in_scope(&direct).await,
        "direct messages are out of scope by default"
    );
    assert!(!fetcher.in_scope(&unknown).await);
    fetcher.scope.direct_messages = true;
    assert!(fetcher.in_scope(&direct).await);
    fetcher.scope.guilds = GuildScope::only(vec!["1200000000000000002".parse().unwrap()]);
    assert!(!fetcher.in_scope(&guild).await, "a guild out of scope");
}
