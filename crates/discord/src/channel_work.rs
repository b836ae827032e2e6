//! What the backfill and the history import share: the channel they work on ([`ChannelJob`]),
//! Discord's page of messages ([`PAGE`]), the progress line both draw ([`Progress`]), and how
//! their store work runs off the async threads ([`blocking`]). Both stand on it; neither names
//! the other's internals for it.

use discord_manager_ingest::ids::TypedId;
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::snowflake;
use serenity::model::id::{ChannelId, GuildId, MessageId};
use tracing::info;

/// Discord's largest page of messages.
pub const PAGE: u8 = 100;

/// One channel to backfill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelJob {
    pub channel_id: ChannelId,
    pub guild_id: Option<GuildId>,
    pub name: String,
    /// Discord's `last_message_id` for the channel when it is known: a channel whose newest
    /// message is at or below its coverage needs no request at all.
    pub last_message_id: Option<MessageId>,
}

impl ChannelJob {
    /// The channel's id as the store keys it. A job's id is always one Discord or the store
    /// gave, never zero.
    pub fn stored_id(&self) -> snowflake::ChannelId {
        self.channel_id.typed()
    }
}

/// Stores blocking work off the async threads.
pub(super) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|error| Error::internal("A store task failed").with_source(error))?
}

/// Progress on stderr, through indicatif: a line redrawn in place on a terminal (indicatif
/// decides, and draws nothing elsewhere); off a terminal, nothing extra for a backfill (the
/// per-channel log lines say it all) and a log line per page of an import.
pub struct Progress {
    line: indicatif::ProgressBar,
}

/// An import's bar counts its window in thousandths.
const IMPORT_STEPS: u64 = 1000;

impl Progress {
    pub fn new() -> Progress {
        Progress {
            line: indicatif::ProgressBar::with_draw_target(
                None,
                indicatif::ProgressDrawTarget::stderr(),
            ),
        }
    }

    /// A page of a channel's backfill stored: its pages, messages and new ones so far.
    pub(crate) fn backfill_page(&mut self, channel: &str, pages: u64, fetched: u64, new: u64) {
        self.line
            .set_style(indicatif::ProgressStyle::with_template("{msg}").expect("a template"));
        self.line.set_message(format!(
            "backfilling #{channel}: {pages} pages, {fetched} messages, {new} new"
        ));
    }

    /// A page of a channel's import stored: how far back it reached, on a bar across the
    /// window when the window has an end.
    pub(super) fn import_page(
        &mut self,
        channel: &str,
        beginning: u64,
        window_start: u64,
        reached: u64,
        stored: u64,
    ) {
        let back_to = discord_manager_vocabulary::snowflake::minted_at(reached).to_iso();
        let back_to = back_to.get(..16).unwrap_or(&back_to);
        if self.line.is_hidden() {
            info!("importing #{channel}'s history: back to {back_to}Z, {stored} new on this page");
            return;
        }
        let template = match import_share(beginning, window_start, reached) {
            Some(share) => {
                self.line.set_length(IMPORT_STEPS);
                self.line
                    .set_position((share * IMPORT_STEPS as f64).round() as u64);
                "importing {prefix} [{bar:20}] back to {msg}"
            }
            None => "importing {prefix} back to {msg}",
        };
        self.line.set_style(
            indicatif::ProgressStyle::with_template(template)
                .expect("a template")
                .progress_chars("#>-"),
        );
        self.line.set_prefix(format!("#{channel}"));
        self.line.set_message(format!("{back_to}Z"));
    }

    pub(crate) fn clear(&mut self) {
        self.line.finish_and_clear();
        self.line = Progress::new().line;
    }
}

/// How much of an import's window is done, from 0 to 1; None for a window without an end.
fn import_share(beginning: u64, window_start: u64, reached: u64) -> Option<f64> {
    if window_start == 0 || beginning <= window_start {
        return None;
    }
    let done = beginning.saturating_sub(reached) as f64;
    Some((done / (beginning - window_start) as f64).clamp(0.0, 1.0))
}

impl Default for Progress {
    fn default() -> Self {
        Progress::new()
    }
}
