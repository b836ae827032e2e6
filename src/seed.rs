//! `discord-manager seed`: a demo store built from the scripted feed in `seed/`, through the
//! real recorders (for Discord's events), the real capabilities (for the owner's actions) and
//! the real job bodies (for what the daemon does), so the demo exercises exactly the code paths
//! a live store does.
//!
//! The demo has no Discord to send to. Where the daemon would post a scheduled message, the
//! seed posts it to [`DemoDiscord`], a stand-in that answers as Discord answers a bot's post
//! (the created message as JSON, one message per nonce), and nothing leaves the machine.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use discord_manager_vocabulary::snowflake::{AttachmentId, ChannelId, UserId};
use serde::Deserialize;

use discord_manager_attachments::{Cache, NotKept};
use discord_manager_core::business::messages::embedding::EmbeddingPass;
use discord_manager_core::business::{OwnerContext, Source};
use discord_manager_core::config::GuildScope;
use discord_manager_core::registry::{self, Services};
use discord_manager_ingest::feed::{FeedLine, decode_dispatch, parse_feed};
use discord_manager_ingest::sent::StoreRecorder;
use discord_manager_ingest::{Origin, Recorded};
use discord_manager_playback::demo::DemoDiscord;
use discord_manager_sender::DiscordSender;
use discord_manager_store::{AttachmentOutcome, IdentitySource, Store};
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;

/// The demo guild's history: gateway dispatches and owner actions, in order.
pub const DEMO_FEED: &str = include_str!("../seed/demo.jsonl");
/// The demo application, as Discord's `GET /oauth2/applications/@me` answers it.
pub const DEMO_APPLICATION: &str = include_str!("../seed/application.json");

/// What a feed did to a store.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeedSummary {
    pub stored: usize,
    pub already_known: usize,
    pub ignored: usize,
    pub actions: usize,
    pub jobs: usize,
    pub kept: usize,
}

impl fmt::Display for FeedSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} events stored, {} already known, {} ignored; {} owner actions, {} job runs, {} \
             attachment files kept",
            self.stored, self.already_known, self.ignored, self.actions, self.jobs, self.kept
        )
    }
}

#[derive(Deserialize)]
struct Application {
    owner: ApplicationOwner,
}

#[derive(Deserialize)]
struct ApplicationOwner {
    id: UserId,
}

/// The owner context of a feed's actions and jobs, from what the store knows at that point:
/// the owner of a deployment that may send (its sends go to [`DemoDiscord`]).
fn feed_context(store: &Store) -> Result<OwnerContext> {
    let owner_id = store.read(|reader| Ok(reader.identity()?.owner_user_id))?;
    Ok(OwnerContext {
        token_configured: true,
        ..OwnerContext::with_unset_settings(owner_id, GuildScope::every_guild(), Source::Cli)
    })
}

/// Plays a feed into a store: dispatches through the recorders, actions through the registry,
/// jobs through their bodies, with an owner context built from what the store knows at that
/// point. Whatever is sent goes to a [`DemoDiscord`].
pub async fn play_feed(store: &Arc<Store>, feed: &str, origin: Origin) -> Result<FeedSummary> {
    let mut summary = FeedSummary::default();
    let discord = Arc::new(DemoDiscord::new(
        Arc::clone(store),
        StoreRecorder::new(Arc::clone(store)),
    ));
    for line in parse_feed(feed, Instant::now())? {
        match line {
            FeedLine::Dispatch { line, payload, .. } => {
                let event = decode_dispatch(line, &payload)?;
                let data = payload.get("d");
                match discord_manager_ingest::record_dispatch(store, &event, data, origin)? {
                    Recorded::Stored => summary.stored += 1,
                    Recorded::AlreadyKnown => summary.already_known += 1,
                    Recorded::Ignored => summary.ignored += 1,
                }
            }
            FeedLine::Action {
                line,
                tool,
                arguments,
            } => {
                let services = Services {
                    store: Arc::clone(store),
                    context: feed_context(store)?,
                    sender: Some(Arc::clone(&discord) as Arc<dyn DiscordSender>),
                };
                let capability = registry::find(&tool)?;
                capability
                    .call(arguments, &services)
                    .await
                    .map_err(|error| {
                        Error::internal(format!(
                            "Feed line {line} ({tool}) failed: {}",
                            error.message()
                        ))
                    })?;
                summary.actions += 1;
            }
            FeedLine::Kept {
                line,
                attachment_id,
                base64,
            } => {
                keep_attachment(store, line, &attachment_id, &base64)?;
                summary.kept += 1;
            }
            FeedLine::Job { line, job } => {
                match job.as_str() {
                    "schedules_send_due" => {
                        discord_manager_core::business::schedules::job::send_due_schedules(
                            store,
                            discord.as_ref(),
                            &feed_context(store)?,
                            Instant::now(),
                        )
                        .await?;
                    }
                    other => {
                        return Err(Error::internal(format!(
                            "Feed line {line} runs job {other:?}; the jobs are: schedules_send_due"
                        )));
                    }
                }
                summary.jobs += 1;
            }
        }
    }
    Ok(summary)
}

/// Keeps an attachment's bytes as the daemon's fetcher does: written into the store's cache
/// and recorded `fetched` through the same store method, so `attachments_get` serves them.
fn keep_attachment(
    store: &Store,
    line: usize,
    attachment_id: &AttachmentId,
    encoded: &str,
) -> Result<()> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|error| {
            Error::internal(format!(
                "Feed line {line}'s \"base64\" is not base64: {error}"
            ))
        })?;
    let known = store.read(|reader| reader.attachment(attachment_id))?;
    if known.is_none() {
        return Err(Error::internal(format!(
            "Feed line {line} keeps attachment {attachment_id}, which no message before it carries"
        )));
    }
    let cannot = |error: String| {
        Error::internal(format!(
            "Feed line {line}: cannot keep attachment {attachment_id}: {error}"
        ))
    };
    let cache = Cache::open(store.path()).map_err(|error| cannot(error.to_string()))?;
    let kept = match cache.keep(bytes.as_slice(), u64::MAX) {
        Ok(kept) => kept,
        Err(NotKept::TooLarge { cap }) => return Err(cannot(format!("over {cap} bytes"))),
        Err(NotKept::Io(error)) => return Err(cannot(error.to_string())),
    };
    store.write(|writer| {
        writer.record_attachment_outcome(
            attachment_id,
            &AttachmentOutcome::Fetched {
                hash: kept.hash.to_string(),
                bytes: kept.bytes,
            },
        )
    })
}

/// The message and the attachment [`play_kept_text_attachment`] plays.
pub const SAMPLE_MESSAGE: &str = "1700000000000000001";
pub const SAMPLE_ATTACHMENT: &str = "1700000000000000002";

/// Plays into `channel_id` a message carrying one text file, a log longer than one answer,
/// kept as the daemon's fetcher keeps a file: what the generated stores of the benchmark and
/// of the answer-budget gate point `attachments_get` at. Playing it again changes nothing
/// (the message is known, the file already kept). Returns the attachment's id.
pub async fn play_kept_text_attachment(
    store: &Arc<Store>,
    channel_id: &ChannelId,
) -> Result<AttachmentId> {
    use base64::Engine as _;
    use std::fmt::Write as _;
    let guild_id = store
        .read(|reader| reader.channel(channel_id))?
        .and_then(|channel| channel.guild_id);
    let mut log = String::new();
    for line in 0..2_000 {
        let _ = writeln!(
            log,
            "2026-12-01T03:{:02}:{:02}Z eu-west-2 cache node c3 p99 {} ms, evictions {}",
            line / 60 % 60,
            line % 60,
            120 + line % 700,
            line * 7 % 1000
        );
    }
    let message = serde_json::json!({"t": "MESSAGE_CREATE", "d": {
        "id": SAMPLE_MESSAGE, "channel_id": channel_id, "guild_id": guild_id,
        "author": {"id": "1000000000000000099", "username": "sampler", "discriminator": "0",
                   "global_name": "Sampler", "avatar": null, "bot": false},
        "content": "the node's log", "timestamp": "@now-1h", "edited_timestamp": null,
        "tts": false, "mention_everyone": false, "mentions": [], "mention_roles": [],
        "attachments": [{"id": SAMPLE_ATTACHMENT, "filename": "node-c3.log", "size": log.len(),
                         "url": "https://cdn.discordapp.com/attachments/1/2/node-c3.log",
                         "proxy_url": "https://media.discordapp.net/attachments/1/2/node-c3.log",
                         "content_type": "text/plain; charset=utf-8"}],
        "embeds": [], "pinned": false, "type": 0, "flags": 0}});
    let kept = serde_json::json!({"kept": {
        "attachmentId": SAMPLE_ATTACHMENT,
        "base64": base64::engine::general_purpose::STANDARD.encode(log.as_bytes())}});
    play_feed(store, &format!("{message}\n{kept}\n"), Origin::Seed).await?;
    AttachmentId::parse(SAMPLE_ATTACHMENT)
        .ok_or_else(|| Error::internal("the sample attachment's id is not a Discord id"))
}

/// Builds the demo store at `path`. Refuses a store that already holds anything unless
/// `replace` is set, in which case the old file is deleted first: only a demo store seed made,
/// and only while no other process has it open. A file that is not a discord-manager store is
/// refused by the open, untouched.
pub fn seed_demo(path: &Path, replace: bool) -> Result<String> {
    // Held until the demo is written: no `ingest` starts on the store meanwhile.
    let mut _claim = None;
    // Held while the old store is deleted and the new one written: nobody opens either.
    let mut replacing = None;
    if path.exists() {
        let existing = Store::open_writable(path)?;
        let empty = existing.read(|reader| reader.is_empty())?;
        if !empty {
            if !replace {
                return Err(Error::conflict(format!(
                    "The store at {} is not empty: seed writes only into an empty store \
                     (pass --replace to delete it and start over)",
                    path.display()
                )));
            }
            // --replace deletes only what seed made: never a store ingest recorded into.
            if !existing.created_by_seed()? {
                return Err(Error::conflict(format!(
                    "The store at {} was not created by seed: --replace deletes only a demo \
                     store seed made, never one ingest recorded into (delete it yourself if \
                     you mean to)",
                    path.display()
                )));
            }
            let claim = existing.claim_ingest().map_err(|refusal| {
                if refusal.kind() == discord_manager_vocabulary::error::ErrorKind::Conflict {
                    Error::conflict(format!(
                        "The store at {} is in use by `discord-manager ingest`: stop it before \
                         replacing the store",
                        path.display()
                    ))
                } else {
                    refusal
                }
            })?;
            let lock = existing.close_for_replacing()?;
            for suffix in ["", "-wal", "-shm"] {
                let file = format!("{}{suffix}", path.display());
                match std::fs::remove_file(&file) {
                    Ok(()) => {}
                    Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                    Err(error) => {
                        return Err(
                            Error::config(format!("Cannot delete {file}")).with_source(error)
                        );
                    }
                }
            }
            _claim = Some(claim);
            replacing = Some(lock);
        }
    }
    let store = Arc::new(match replacing {
        Some(lock) => Store::open_replacement(path, lock)?,
        None => Store::open_writable(path)?,
    });
    store.mark_created_by_seed()?;
    let application: Application = serde_json::from_str(DEMO_APPLICATION)
        .map_err(|error| Error::internal("seed/application.json is invalid").with_source(error))?;
    discord_manager_ingest::guilds::record_application_owner(
        &store,
        &application.owner.id,
        IdentitySource::Seed,
    )?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| Error::internal("Cannot start the runtime").with_source(error))?;
    let summary = runtime.block_on(play_feed(&store, DEMO_FEED, Origin::Seed))?;
    // Every message embedded, as the ingest daemon would, so search by meaning works on the
    // demo store at once.
    EmbeddingPass::new()?.run_to_end(&store)?;
    Ok(format!(
        "Seeded the demo store at {}: {summary}",
        path.display()
    ))
}
