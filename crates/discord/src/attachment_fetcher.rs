//! The attachment fetcher: keeps the files of messages in the cache beside the store, in the
//! background, for as long as the daemon runs.
//!
//! The recorders list every attachment they see (gateway, backfill, history import; the
//! migration listed those of the messages already stored). The fetcher takes the pending ones
//! in batches, oldest first, and records what became of each, append-only:
//!
//! - **What is kept** is the owner's [`AttachmentPolicy`]: a file of a kind not kept, over the
//!   per-file cap by its announced size, or that would take the cache past its total cap is
//!   recorded `skipped` with zero requests. A file larger than announced is caught by the
//!   cache's own cap as it streams in, and leaves nothing. A skip at the total cap alone is not
//!   final: each pass from the list's start (the daemon's start, each rescan) offers such a
//!   file again when the cache has room for it, so raising the cap brings them back.
//! - **Only the owner's scope is fetched** ([`FileScope`]): a file of a message no reader
//!   would show (a stranger's direct message with direct messages out of scope, a guild out
//!   of scope) is left pending, unfetched and unrecorded, and fetched if it comes into scope.
//! - **Only Discord's CDN is fetched** ([`CdnPolicy`]): any other host is recorded `skipped`
//!   and never asked, a redirect off the CDN is refused, and the bot token is never sent.
//! - **A URL past its `ex`** (or about to be) is refreshed by fetching the message again over
//!   REST, as is the URL of a failed attempt; a message Discord no longer has is recorded
//!   `failed: deleted before it could be fetched`, never retried.
//! - **Paced**: one download at a time, a short gap after each, a 429's `Retry-After` waited
//!   out; a failure is retried later with the exponential backoff (`backoff.rs`), up to
//!   [`MAX_ATTEMPTS`].
//! - **Crash-safe**: the cache writes a file whole under a temporary name and renames it to its
//!   hash, so `kill -9` never leaves a partial file at a name (the daemon clears what it left
//!   as it starts); an attachment recorded `fetched` is never fetched again.
//!
//! - **Search reads text files**: a text-like file (the policy's [`FileKind::Text`]) is
//!   indexed for full-text search as it is recorded kept, in the same transaction, its first
//!   [`INDEXED_TEXT_BYTES`] decoded as UTF-8 (lossily); text files kept before search read them
//!   are indexed by a pass as the fetcher starts ([`Fetcher::index_kept_text`]).
//!
//! It runs as a task of its own on the daemon's runtime, and does its store and file work on
//! blocking threads ([`blocking`]), so the gateway's writer never waits for it.

use std::io::{self, Read};
use std::sync::Arc;
use std::time::Duration;

use serenity::model::id::{ChannelId, MessageId};
use tokio::sync::{mpsc, watch};
use tracing::{debug, info, warn};

use super::cdn::{self, CdnPolicy};
use super::channel_work::blocking;
use super::rest::{Rest, RestError};
use discord_manager_attachments::{Cache, NotKept};
use discord_manager_core::backoff::Backoff;
use discord_manager_core::config::{AttachmentPolicy, FileKind, GuildScope};
use discord_manager_ingest::ids::TypedId;
use discord_manager_store::{
    Attachment, AttachmentOutcome, AttachmentRecord, Store, UnindexedFile,
};
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::GuildId;
use progress::FetchProgress;

/// How many pending attachments one read of the store takes.
const BATCH: usize = 50;
/// The wait after each download: one file at a time, a few a second at most.
const GAP: Duration = Duration::from_millis(250);
/// The wait before looking again once nothing is pending.
const IDLE: Duration = Duration::from_secs(2);
/// How often the whole list is read again from its start, for failures whose retry is due
/// (new attachments are read after the last one seen).
const RESCAN: Duration = Duration::from_secs(60);
/// A signed URL expiring within this many seconds is refreshed first.
const EXPIRY_MARGIN_SECONDS: i64 = 300;
/// Attempts before a failing file is given up.
pub const MAX_ATTEMPTS: u32 = 8;
/// The wait before the next attempt after failures in a row: a minute, doubling to 6 hours.
pub const RETRY: Backoff = Backoff {
    first: Duration::from_secs(60),
    longest: Duration::from_secs(6 * 3600),
};
/// The longest `Retry-After` waited out within one attempt; a longer one fails the attempt.
const LONGEST_RATE_LIMIT: Duration = Duration::from_secs(120);
/// How often one attempt waits out a 429 before it counts as failed.
const RATE_LIMITS_PER_ATTEMPT: u32 = 3;
/// The longest one download may take.
const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(300);

/// How much of a kept text file search reads: its first 64 KiB. What someone quotes from a
/// log (the error, the stack's head, the command run) is near its start; 64 KiB is some
/// 1,000 lines of a log, twice the whole answer budget, and bounds the index: a cache full of
/// text files adds at most 64 KiB of words per file to the store, however large the files
/// (up to 8 MiB each by default). The whole file is still kept and read on through
/// `attachments_get`.
pub const INDEXED_TEXT_BYTES: u64 = 64 * 1024;

/// The reason recorded for a message Discord no longer has.
pub const DELETED: &str = "deleted before it could be fetched";

/// Whose files are fetched: messages in the owner's scope, the same scope every reader holds
/// to (`OwnerContext::in_scope`). A stranger's direct message, with direct messages out of
/// scope, is never fetched: it would fill the owner's cache with files no answer shows.
#[derive(Debug, Clone)]
pub struct FileScope {
    pub guilds: GuildScope,
    /// `DISCORD_MANAGER_ALLOW_DMS`.
    pub direct_messages: bool,
}

impl FileScope {
    /// Whether a message in `guild_id` (None: a direct message) is in scope.
    pub fn includes(&self, guild_id: Option<&GuildId>) -> bool {
        match guild_id {
            None => self.direct_messages,
            Some(guild_id) => self.guilds.includes(guild_id),
        }
    }
}

/// The fetcher of one daemon run.
pub struct Fetcher {
    store: Arc<Store>,
    rest: Arc<Rest>,
    cache: Cache,
    policy: AttachmentPolicy,
    scope: FileScope,
    cdn: CdnPolicy,
    /// The CDN's client: no token, no cookies, redirects only within the CDN.
    client: reqwest::Client,
}

impl Fetcher {
    /// The fetcher for `store`'s cache, fetching through `cdn`'s hosts only.
    pub fn new(
        store: Arc<Store>,
        rest: Arc<Rest>,
        cache: Cache,
        policy: AttachmentPolicy,
        scope: FileScope,
        cdn: CdnPolicy,
    ) -> Result<Fetcher> {
        let redirects = cdn.clone();
        let client = reqwest::Client::builder()
            .timeout(DOWNLOAD_TIMEOUT)
            .connect_timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::custom(move |attempt| {
                if attempt.previous().len() >= 5 {
                    attempt.error("too many redirects")
                } else if let Err(refused) = redirects.admits(attempt.url().as_str()) {
                    attempt.error(format!("a redirect off Discord's CDN: {refused}"))
                } else {
                    attempt.follow()
                }
            }))
            .use_rustls_tls()
            .build()
            .map_err(|error| {
                Error::internal(format!(
                    "Cannot build the attachments' HTTP client: {error}"
                ))
            })?;
        Ok(Fetcher {
            store,
            rest,
            cache,
            policy,
            scope,
            cdn,
            client,
        })
    }

    /// Fetches what is pending until `stop` turns true. A download in progress when it does is
    /// dropped: nothing of it is kept or recorded, and the next start fetches it again.
    pub async fn run(self, mut stop: watch::Receiver<bool>) {
        tokio::select! {
            () = self.index_kept_text() => {}
            _ = stop.wait_for(|stopping| *stopping) => return,
        }
        let mut after = 0;
        // Whether this pass through the list began at its start (the daemon's start, or a
        // rescan): only such a pass reads what the cache holds first, and offers again the
        // files skipped at the total cap that now fit (the owner raised it).
        let mut whole_pass = true;
        let total_cap = self.policy.total_cap;
        let mut rescanned = tokio::time::Instant::now();
        let mut progress = FetchProgress::on_stderr();
        let drawn = progress.is_drawn();
        loop {
            if *stop.borrow() {
                return;
            }
            let store = Arc::clone(&self.store);
            // What the cache holds is read only when there is something to fetch, or on a
            // whole pass: an idle poll reads the pending list after the cursor, nothing more.
            // The bar's count of what waits is read only when a bar is drawn.
            let batch = blocking(move || {
                let room = if whole_pass {
                    let kept = store.read(|reader| reader.kept_bytes())?;
                    Some(total_cap.saturating_sub(kept))
                } else {
                    None
                };
                let pending = store.read(|reader| {
                    reader.pending_attachments(after, Instant::now(), room, BATCH)
                })?;
                let (kept, waiting) = if pending.is_empty() {
                    (0, 0)
                } else if drawn {
                    let totals = store.read(|reader| reader.cache_totals())?;
                    (totals.bytes, totals.pending.max(pending.len() as u64))
                } else {
                    (store.read(|reader| reader.kept_bytes())?, 0)
                };
                Ok((kept, waiting, pending))
            })
            .await;
            let (mut kept, waiting, batch) = match batch {
                Ok(read) => read,
                Err(error) => {
                    warn!("cannot read the attachments to fetch: {error:#}");
                    if wait(&mut stop, IDLE).await {
                        return;
                    }
                    continue;
                }
            };
            let Some(last) = batch.last() else {
                whole_pass = false;
                progress.idle();
                if wait(&mut stop, IDLE).await {
                    return;
                }
                if rescanned.elapsed() >= RESCAN {
                    after = 0;
                    whole_pass = true;
                    rescanned = tokio::time::Instant::now();
                }
                continue;
            };
            after = last.seq;
            progress.found(waiting);
            for attachment in batch {
                if !self.in_scope(&attachment).await {
                    // Left pending, with nothing recorded: in scope later (the owner allows
                    // direct messages, or adds the guild), it is fetched then.
                    debug!(
                        "left attachment {} unfetched: its message is out of scope",
                        attachment.attachment_id
                    );
                    continue;
                }
                let (outcome, downloaded) = tokio::select! {
                    outcome = self.fetch(&attachment, kept) => outcome,
                    _ = stop.wait_for(|stopping| *stopping) => return,
                };
                if let AttachmentOutcome::Fetched { bytes, .. } = &outcome {
                    kept += bytes;
                }
                self.record(&attachment, outcome).await;
                progress.file_done();
                if downloaded && wait(&mut stop, GAP).await {
                    return;
                }
            }
        }
    }

    /// Records what became of `attachment`, and says so in the log.
    async fn record(&self, attachment: &AttachmentRecord, outcome: AttachmentOutcome) {
        match &outcome {
            AttachmentOutcome::Fetched { hash, bytes } => info!(
                "kept attachment {} ({}, {bytes} bytes) as {hash}",
                attachment.attachment_id, attachment.filename
            ),
            AttachmentOutcome::Skipped { reason } => info!(
                "skipped attachment {} ({}): {reason}",
                attachment.attachment_id, attachment.filename
            ),
            AttachmentOutcome::Failed {
                reason, retry_at, ..
            } => warn!(
                "could not fetch attachment {} ({}): {reason}{}",
                attachment.attachment_id,
                attachment.filename,
                match retry_at {
                    Some(at) => format!("; trying again at {at}"),
                    None => "; not trying again".to_string(),
                }
            ),
        }
        let (store, cache) = (Arc::clone(&self.store), self.cache.clone());
        let attachment = attachment.clone();
        let recorded = blocking(move || {
            // A text file's words go into search with the record that it is kept.
            let text = match &outcome {
                AttachmentOutcome::Fetched { hash, .. } if is_text(&attachment) => {
                    text_of_kept(&cache, hash)
                }
                _ => None,
            };
            store.write(|writer| {
                writer.record_attachment_outcome(&attachment.attachment_id, &outcome)?;
                if let Some((text, bytes)) = &text {
                    writer.index_attachment_text(&attachment, text, *bytes)?;
                }
                Ok(())
            })
        })
        .await;
        if let Err(error) = recorded {
            warn!("cannot record what became of an attachment: {error:#}");
        }
    }

    /// Indexes the text files kept before search read them (or whose indexing was cut short),
    /// in batches, once: an indexed file leaves the list.
    pub async fn index_kept_text(&self) {
        let mut after = 0;
        loop {
            let (store, cache) = (Arc::clone(&self.store), self.cache.clone());
            let pass = blocking(move || {
                let files = store.read(|reader| reader.unindexed_kept_files(after, BATCH))?;
                let mut indexed = 0;
                for UnindexedFile {
                    attachment, hash, ..
                } in &files
                {
                    if !is_text(attachment) {
                        continue;
                    }
                    if let Some((text, bytes)) = text_of_kept(&cache, hash)
                        && store.write(|writer| {
                            writer.index_attachment_text(attachment, &text, bytes)
                        })?
                    {
                        indexed += 1;
                    }
                }
                Ok((files.last().map(|file| file.outcome_seq), indexed))
            })
            .await;
            match pass {
                Ok((Some(last), indexed)) => {
                    if indexed > 0 {
                        info!("indexed the text of {indexed} kept files for search");
                    }
                    after = last;
                }
                Ok((None, _)) => return,
                Err(error) => {
                    warn!("cannot index the text of kept files: {error:#}");
                    return;
                }
            }
        }
    }

    /// Whether `attachment`'s message is in the owner's scope (a message the store does not
    /// have is not).
    async fn in_scope(&self, attachment: &AttachmentRecord) -> bool {
        let (store, message_id) = (Arc::clone(&self.store), attachment.message_id);
        let guild = blocking(move || {
            store.read(|reader| Ok(reader.message(&message_id)?.map(|message| message.guild_id)))
        })
        .await;
        match guild {
            Ok(Some(guild_id)) => self.scope.includes(guild_id.as_ref()),
            Ok(None) => false,
            Err(error) => {
                warn!(
                    "cannot tell whether attachment {} is in scope: {error}",
                    attachment.attachment_id
                );
                false
            }
        }
    }

    /// One attempt at `attachment`, with `kept` bytes in the cache: its outcome, and whether a
    /// download was made (what the pacing waits after).
    async fn fetch(&self, attachment: &AttachmentRecord, kept: u64) -> (AttachmentOutcome, bool) {
        let skipped = |reason: String| AttachmentOutcome::Skipped { reason };
        if let Err(reason) = self.policy.decide(
            &attachment.filename,
            attachment.content_type.as_deref(),
            attachment.size,
            kept,
        ) {
            return (skipped(reason.to_string()), false);
        }
        let url = match self.cdn.admits(&attachment.url) {
            Ok(url) => url,
            Err(refused) => return (skipped(refused.to_string()), false),
        };
        let stale = cdn::needs_refresh(&url, Instant::now(), EXPIRY_MARGIN_SECONDS);
        let url = if stale || attachment.failed_attempts > 0 {
            match self.refresh(attachment).await {
                Ok(fresh) => fresh,
                Err(outcome) => return (outcome, false),
            }
        } else {
            url
        };
        let outcome = match self.download(url).await {
            Ok(kept) => AttachmentOutcome::Fetched {
                hash: kept.hash.to_string(),
                bytes: kept.bytes,
            },
            Err(Download::TooLarge) => skipped(format!(
                "too large: more than the per-file cap of {} bytes came, though {} bytes were \
                 announced",
                self.policy.file_cap, attachment.size
            )),
            Err(Download::Refused(refused)) => skipped(refused),
            Err(Download::Failed(reason)) => failure(attachment, reason, Instant::now()),
        };
        (outcome, true)
    }

    /// The attachment's URL as Discord signs it now, from its message fetched again over REST
    /// (and recorded as its newest sighting); the outcome to record when there is none.
    async fn refresh(
        &self,
        attachment: &AttachmentRecord,
    ) -> std::result::Result<reqwest::Url, AttachmentOutcome> {
        let (channel, message) = (
            ChannelId::new(attachment.channel_id.get()),
            MessageId::new(attachment.message_id.get()),
        );
        let message = match self.rest.message(channel, message).await {
            Ok(message) => message,
            Err(RestError::NotFound(_)) => return Err(never_again(attachment, DELETED)),
            Err(error) => {
                return Err(failure(
                    attachment,
                    format!("its URL could not be refreshed: {}", error.describe()),
                    Instant::now(),
                ));
            }
        };
        let Some(fresh) = message
            .attachments
            .iter()
            .chain(
                message
                    .message_snapshots
                    .iter()
                    .flat_map(|snapshot| &snapshot.attachments),
            )
            .find(|fresh| fresh.id.typed() == attachment.attachment_id)
        else {
            return Err(never_again(
                attachment,
                "removed from its message before it could be fetched",
            ));
        };
        let url = self
            .cdn
            .admits(&fresh.url)
            .map_err(|refused| AttachmentOutcome::Skipped {
                reason: refused.to_string(),
            })?;
        debug!(
            "refreshed the URL of attachment {}",
            attachment.attachment_id
        );
        let sighting = Attachment {
            id: attachment.attachment_id,
            filename: attachment.filename.clone(),
            size: attachment.size,
            content_type: attachment.content_type.clone(),
            url: fresh.url.clone(),
            width: None,
            height: None,
            description: None,
            duration_ms: None,
        };
        let (store, message_id, channel_id) = (
            Arc::clone(&self.store),
            attachment.message_id,
            attachment.channel_id,
        );
        let recorded = blocking(move || {
            store.write(|writer| writer.record_attachments(&message_id, &channel_id, &[sighting]))
        })
        .await;
        if let Err(error) = recorded {
            warn!("cannot record an attachment's refreshed URL: {error:#}");
        }
        Ok(url)
    }

    /// Downloads `url` into the cache, streaming: at most the per-file cap is read, and a
    /// download that fails or is dropped midway leaves nothing.
    async fn download(
        &self,
        url: reqwest::Url,
    ) -> std::result::Result<discord_manager_attachments::Kept, Download> {
        let mut rate_limits = 0;
        let mut response = loop {
            let response = self
                .client
                .get(url.clone())
                .send()
                .await
                .map_err(|error| Download::from_request(&error))?;
            if response.status() != reqwest::StatusCode::TOO_MANY_REQUESTS {
                break response;
            }
            rate_limits += 1;
            let wait = retry_after(response.headers());
            if rate_limits > RATE_LIMITS_PER_ATTEMPT || wait > LONGEST_RATE_LIMIT {
                return Err(Download::Failed(
                    "Discord's CDN kept answering 429 Too Many Requests".into(),
                ));
            }
            tokio::time::sleep(wait).await;
        };
        if !response.status().is_success() {
            return Err(Download::Failed(format!(
                "Discord's CDN answered {}",
                response.status()
            )));
        }
        let (pieces, incoming) = mpsc::channel(8);
        let (cache, cap) = (self.cache.clone(), self.policy.file_cap);
        let keeping = tokio::task::spawn_blocking(move || cache.keep(Incoming::new(incoming), cap));
        loop {
            let piece = match response.chunk().await {
                Ok(Some(bytes)) => Piece::Bytes(bytes.to_vec()),
                Ok(None) => Piece::End,
                Err(error) => Piece::Broken(describe(&error)),
            };
            let last = !matches!(piece, Piece::Bytes(_));
            // The cache stops reading past the cap; then there is no one left to send to.
            if pieces.send(piece).await.is_err() || last {
                break;
            }
        }
        drop(pieces);
        match keeping.await {
            Ok(Ok(kept)) => Ok(kept),
            Ok(Err(NotKept::TooLarge { .. })) => Err(Download::TooLarge),
            Ok(Err(NotKept::Io(error))) => Err(Download::Failed(format!(
                "the download did not complete: {error}"
            ))),
            Err(error) => Err(Download::Failed(format!(
                "the cache's task failed: {error}"
            ))),
        }
    }
}

/// Why a download kept nothing.
enum Download {
    /// More bytes came than the per-file cap.
    TooLarge,
    /// A redirect off Discord's CDN: never followed.
    Refused(String),
    /// Anything else: tried again later.
    Failed(String),
}

impl Download {
    fn from_request(error: &reqwest::Error) -> Download {
        if error.is_redirect() {
            Download::Refused(describe(error))
        } else {
            Download::Failed(describe(error))
        }
    }
}

/// An error's own words and their causes, without the URL (a signed URL is a credential of
/// sorts, and long).
fn describe(error: &reqwest::Error) -> String {
    let mut text = if error.is_timeout() {
        "the download timed out".to_string()
    } else {
        error.to_string()
    };
    if let Some(url) = error.url() {
        text = text
            .replace(&format!(" ({url})"), "")
            .replace(url.as_str(), "the URL");
    }
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text
}

/// A 429's wait: its `Retry-After` in seconds (a second when it has none).
fn retry_after(headers: &reqwest::header::HeaderMap) -> Duration {
    headers
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|value| value.to_str().ok())
        .and_then(|text| text.trim().parse::<f64>().ok())
        .filter(|seconds| seconds.is_finite() && *seconds >= 0.0)
        .map_or(Duration::from_secs(1), Duration::from_secs_f64)
}

/// The outcome of a failed attempt at `attachment` at `now`: tried again after the backoff,
/// or given up after [`MAX_ATTEMPTS`].
pub fn failure(attachment: &AttachmentRecord, reason: String, now: Instant) -> AttachmentOutcome {
    let attempts = attachment.failed_attempts.saturating_add(1);
    let retry_at = (attempts < MAX_ATTEMPTS).then(|| {
        let wait = RETRY.after(attempts);
        now.plus_micros(i64::try_from(wait.as_micros()).unwrap_or(i64::MAX))
    });
    let reason = if retry_at.is_none() {
        format!("gave up after {attempts} attempts: {reason}")
    } else {
        reason
    };
    AttachmentOutcome::Failed {
        reason,
        attempts,
        retry_at,
    }
}

/// Whether search reads `attachment`'s file: the kinds the policy calls text.
fn is_text(attachment: &AttachmentRecord) -> bool {
    FileKind::of(&attachment.filename, attachment.content_type.as_deref()) == FileKind::Text
}

/// The text search indexes of the kept file `hash`, with how many bytes it read; None when
/// the file is not there or cannot be read (said in the log; nothing is indexed).
fn text_of_kept(cache: &discord_manager_attachments::Cache, hash: &str) -> Option<(String, u64)> {
    let file = discord_manager_attachments::ContentHash::parse(hash)
        .map(|hash| cache.open_file(&hash))
        .transpose()
        .map(Option::flatten);
    match file {
        Ok(Some(file)) => match text_to_index(file) {
            Ok(text) => Some(text),
            Err(error) => {
                warn!("cannot read the kept file {hash} for search: {error:#}");
                None
            }
        },
        Ok(None) => {
            warn!("the kept file {hash} is not in the cache: its text is not searchable");
            None
        }
        Err(error) => {
            warn!("cannot open the kept file {hash} for search: {error:#}");
            None
        }
    }
}

/// The first [`INDEXED_TEXT_BYTES`] of `file` as text (invalid UTF-8, and a character cut at
/// the bound, become U+FFFD), and how many bytes that was.
pub fn text_to_index(file: impl Read) -> io::Result<(String, u64)> {
    let mut bytes = Vec::new();
    file.take(INDEXED_TEXT_BYTES).read_to_end(&mut bytes)?;
    Ok((
        String::from_utf8_lossy(&bytes).into_owned(),
        bytes.len() as u64,
    ))
}

/// A failure never tried again.
fn never_again(attachment: &AttachmentRecord, reason: &str) -> AttachmentOutcome {
    AttachmentOutcome::Failed {
        reason: reason.to_string(),
        attempts: attachment.failed_attempts.saturating_add(1),
        retry_at: None,
    }
}

/// Waits `duration`, or until `stop` turns true (then true).
async fn wait(stop: &mut watch::Receiver<bool>, duration: Duration) -> bool {
    tokio::select! {
        _ = tokio::time::sleep(duration) => {}
        _ = stop.wait_for(|stopping| *stopping) => return true,
    }
    *stop.borrow()
}

/// What the download hands the cache's thread.
enum Piece {
    Bytes(Vec<u8>),
    /// The whole body came.
    End,
    /// The connection failed midway.
    Broken(String),
}

/// The download as the cache reads it, on a blocking thread. It ends only when the whole body
/// came: a download dropped midway (its sender gone) or broken is an error, so the cache
/// keeps nothing of it.
struct Incoming {
    pieces: mpsc::Receiver<Piece>,
    current: Vec<u8>,
    at: usize,
    ended: bool,
}

impl Incoming {
    fn new(pieces: mpsc::Receiver<Piece>) -> Incoming {
        Incoming {
            pieces,
            current: Vec::new(),
            at: 0,
            ended: false,
        }
    }
}

impl Read for Incoming {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        while self.at == self.current.len() {
            if self.ended {
                return Ok(0);
            }
            match self.pieces.blocking_recv() {
                Some(Piece::Bytes(bytes)) => {
                    self.current = bytes;
                    self.at = 0;
                }
                Some(Piece::End) => self.ended = true,
                Some(Piece::Broken(reason)) => return Err(io::Error::other(reason)),
                None => return Err(io::Error::other("the download was interrupted")),
            }
        }
        let count = buffer.len().min(self.current.len() - self.at);
        buffer[..count].copy_from_slice(&self.current[self.at..self.at + count]);
        self.at += count;
        Ok(count)
    }
}

mod progress;

#[cfg(test)]
mod tests;
