//! `discord-manager seed`: a demo store built from the scripted feed in `seed/`, through the
//! real recorders (for Discord's events) and the real capabilities (for the owner's actions),
//! so the demo exercises exactly the code paths a live store does.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;

use crate::business::{OwnerContext, Source};
use crate::error::{Error, Result};
use crate::ingest::feed::{FeedLine, decode_dispatch, parse_feed};
use crate::ingest::{self, Origin, Recorded};
use crate::instant::Instant;
use crate::registry::{self, Services};
use crate::store::Store;

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
}

impl fmt::Display for FeedSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} events stored, {} already known, {} ignored; {} owner actions",
            self.stored, self.already_known, self.ignored, self.actions
        )
    }
}

#[derive(Deserialize)]
struct Application {
    owner: ApplicationOwner,
}

#[derive(Deserialize)]
struct ApplicationOwner {
    id: String,
}

/// Plays a feed into a store: dispatches through the recorders, actions through the registry
/// with an owner context built from what the store knows at that point.
pub async fn play_feed(store: &Arc<Store>, feed: &str, origin: Origin) -> Result<FeedSummary> {
    let mut summary = FeedSummary::default();
    for line in parse_feed(feed, Instant::now())? {
        match line {
            FeedLine::Dispatch { line, payload, .. } => {
                let event = decode_dispatch(line, &payload)?;
                match ingest::record_event(store, &event, origin)? {
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
                let owner_id = store.read(|reader| Ok(reader.identity()?.owner_user_id))?;
                let services = Services {
                    store: Arc::clone(store),
                    context: OwnerContext {
                        owner_id,
                        guild_ids: Vec::new(),
                        token_configured: false,
                        read_only: false,
                        send_channel_ids: None,
                        source: Source::Cli,
                    },
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
        }
    }
    Ok(summary)
}

/// Builds the demo store at `path`. Refuses a store that already holds anything unless
/// `replace` is set, in which case the old file is deleted first.
pub fn seed_demo(path: &Path, replace: bool) -> Result<String> {
    if path.exists() {
        let empty = Store::open(path)?.read(|reader| reader.is_empty())?;
        if !empty {
            if !replace {
                return Err(Error::conflict(format!(
                    "The store at {} is not empty: seed writes only into an empty store \
                     (pass --replace to delete it and start over)",
                    path.display()
                )));
            }
            for suffix in ["", "-wal", "-shm"] {
                let file = format!("{}{suffix}", path.display());
                match std::fs::remove_file(&file) {
                    Ok(()) => {}
                    Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                    Err(error) => {
                        return Err(Error::config(format!("Cannot delete {file}: {error}")));
                    }
                }
            }
        }
    }
    let store = Arc::new(Store::open(path)?);
    let application: Application = serde_json::from_str(DEMO_APPLICATION)
        .map_err(|error| Error::internal(format!("seed/application.json is invalid: {error}")))?;
    ingest::guilds::record_application_owner(&store, &application.owner.id, "seed")?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| Error::internal(format!("Cannot start the runtime: {error}")))?;
    let summary = runtime.block_on(play_feed(&store, DEMO_FEED, Origin::Seed))?;
    Ok(format!(
        "Seeded the demo store at {}: {summary}",
        path.display()
    ))
}
