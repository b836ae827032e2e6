//! The import of history from before the store began: what a channel held before the daemon
//! first saw it, fetched newest page first (`before=` paging) back to a window, 7 days by
//! default.
//!
//! A channel first seen with messages begins at its `last_message_id` (its anchor in
//! `channel_anchors`); the backfill covers everything above it, the import everything at and
//! below it inside the window. The import never moves coverage: coverage stays what backfills
//! proved from Discord's ids. Every window is measured in Discord's ids from the anchor, never
//! from the host's clock, so a resumed import plans exactly what the first one did.
//!
//! Imported history is history, not news: a message Discord sent more than a day before the
//! anchor is recorded with origin `import`, which no reader of news counts; the last day before
//! it is `import-recent`, news like any backfill, so the owner's first catch-up shows the last
//! day. Each page is stored with the import's progress in one transaction, so a daemon killed
//! mid-import resumes below the last page it stored and fetches no stored page twice.

use std::sync::Arc;

use discord_manager_core::config::ImportWindow;
use discord_manager_ingest::history::record_import_page;
use discord_manager_ingest::ids::TypedId;
use discord_manager_store::{BeginningSource, ChannelBeginning, ImportState, NewImportStep, Store};
use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{days_before, snowflake_at};
use serenity::model::id::{ChannelId, MessageId};
use tracing::{info, warn};

use super::channel_work::{ChannelJob, PAGE, Progress, blocking};
use super::rest::{Rest, RestError};

/// The lowest imported id that is news: a message Discord sent within the last day before the
/// daemon first saw the channel counts as new when it arrives, like a backfilled one; older
/// ones are history. The day is counted back from Discord's clock at first sight (`seen`, the
/// host's clock then, less how far the host ran ahead of Discord's `Date` header), not from
/// the channel's newest message, which in a quiet channel may be days older; without a record
/// of first sight, from the channel's beginning in Discord's ids.
pub fn news_start(beginning: u64, seen: Option<Instant>, host_ahead_ms: i64) -> u64 {
    match seen {
        Some(seen) => {
            let discord_at = Instant::from_micros(seen.as_micros() - host_ahead_ms * 1_000);
            snowflake_at(discord_at.minus_seconds(24 * 60 * 60), 0)
        }
        None => days_before(beginning, 1),
    }
}

/// What a channel's import does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportPlan {
    /// Fetch the page of messages just below `before`, keeping those at or above
    /// `window_start`.
    Fetch { before: u64, window_start: u64 },
    /// Nothing (more) to import.
    Done,
}

/// What a channel's import does next, from where its record begins and how far earlier pages
/// came. Only a channel that began at its `last_message_id` has history below its beginning (a
/// channel begun at its own id has no message before it); its first page is the one below and
/// including that message, which the backfill, starting after it, never fetches.
pub fn plan(
    beginning: ChannelBeginning,
    state: Option<&ImportState>,
    window: ImportWindow,
) -> ImportPlan {
    if beginning.source != BeginningSource::LastMessageId {
        return ImportPlan::Done;
    }
    let Some(window_start) = window.start(beginning.after_message_id) else {
        return ImportPlan::Done;
    };
    let before = match state {
        None => beginning.after_message_id.saturating_add(1),
        Some(state) if state.exhausted => return ImportPlan::Done,
        Some(state) => state.reached,
    };
    if before <= window_start {
        return ImportPlan::Done;
    }
    ImportPlan::Fetch {
        before,
        window_start,
    }
}

/// The step a fetched page makes: which of its ids are kept (those inside the window) and how
/// far the import then reached. A page shorter than Discord's largest with nothing below the
/// window means Discord has nothing older; a page reaching below the window ends it there, so
/// a wider window later resumes from the window's edge, not past what was left out.
pub fn step_after_page(
    channel_id: ChannelId,
    before: u64,
    window_start: u64,
    page_ids: &[u64],
) -> (NewImportStep, Vec<u64>) {
    let kept: Vec<u64> = page_ids
        .iter()
        .copied()
        .filter(|id| *id >= window_start && *id < before)
        .collect();
    let lowest = page_ids.iter().copied().min();
    let (reached, exhausted) = match lowest {
        None => (before, true),
        Some(lowest) if lowest >= window_start => (lowest, page_ids.len() < usize::from(PAGE)),
        Some(_) => (window_start, false),
    };
    let step = NewImportStep {
        channel_id: channel_id.typed(),
        window_start,
        reached,
        exhausted,
        fetched: page_ids.len() as u64,
        stored: 0,
    };
    (step, kept)
}

/// What a channel's import does next, read from the store.
/// With the plan, the channel's beginning and the lowest id of its news ([`news_start`]).
pub async fn next_step(
    store: &Arc<Store>,
    channel_id: ChannelId,
    window: ImportWindow,
) -> Result<(ImportPlan, Option<(ChannelBeginning, u64)>)> {
    let store = Arc::clone(store);
    blocking(move || {
        store.read(|reader| {
            let channel = channel_id.typed();
            let Some(beginning) = reader.channel_beginning(&channel)? else {
                return Ok((ImportPlan::Done, None));
            };
            let state = reader.import_state(&channel)?;
            let ahead = reader
                .latest_discord_clock()?
                .map_or(0, |reading| reading.host_ahead_ms());
            let news = news_start(
                beginning.after_message_id,
                reader.channel_first_seen(&channel)?,
                ahead,
            );
            Ok((
                plan(beginning, state.as_ref(), window),
                Some((beginning, news)),
            ))
        })
    })
    .await
}

/// Whether the import of a channel goes on after this page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageOutcome {
    /// A page was stored and more is to come.
    More,
    /// Nothing more to import (this page, if any, was the last).
    Done,
    /// Discord refused or failed; the import of this channel waits for the next start or
    /// repair, and resumes where it stopped.
    Failed,
}

/// Fetches and stores one page of a channel's import.
pub async fn import_page(
    rest: &Rest,
    store: &Arc<Store>,
    job: &ChannelJob,
    window: ImportWindow,
    progress: &mut Progress,
) -> Result<PageOutcome> {
    let (
        ImportPlan::Fetch {
            before,
            window_start,
        },
        Some((beginning, news)),
    ) = next_step(store, job.channel_id, window).await?
    else {
        return Ok(PageOutcome::Done);
    };
    let page = match rest
        .messages_before(job.channel_id, MessageId::new(before), PAGE)
        .await
    {
        Ok(page) => page,
        Err(error) => {
            warn!(
                channel = %job.channel_id,
                "the import of #{}'s history stopped below message {before}: {} (it resumes there at the next repair)",
                job.name,
                error.describe()
            );
            if error == RestError::Unauthorized {
                return Err(error.into());
            }
            return Ok(PageOutcome::Failed);
        }
    };
    let ids: Vec<u64> = page
        .iter()
        .map(|fetched| fetched.message.id.get())
        .collect();
    let (step, kept) = step_after_page(job.channel_id, before, window_start, &ids);
    // Oldest first, so the page's arrival order is Discord's.
    let mut page: Vec<_> = page
        .into_iter()
        .filter(|fetched| kept.contains(&fetched.message.id.get()))
        .collect();
    page.sort_by_key(|fetched| fetched.message.id);
    let recorded = {
        let (store, step) = (Arc::clone(store), step.clone());
        let guild = job.guild_id;
        blocking(move || record_import_page(&store, guild, &page, news, &step)).await?
    };
    let done = step.exhausted || step.reached <= window_start;
    progress.import_page(
        &job.name,
        beginning.after_message_id,
        window_start,
        step.reached,
        recorded.new_messages,
    );
    if done {
        info!(
            channel = %job.channel_id,
            "imported #{}'s history back to {}",
            job.name,
            reached_in_words(&step)
        );
        return Ok(PageOutcome::Done);
    }
    Ok(PageOutcome::More)
}

/// How far an import reached, for a log line or `status`.
fn reached_in_words(step: &NewImportStep) -> String {
    if step.exhausted {
        "the channel's first message".to_string()
    } else {
        discord_manager_vocabulary::snowflake::minted_at(step.reached).to_iso()
    }
}

#[cfg(test)]
mod tests;
