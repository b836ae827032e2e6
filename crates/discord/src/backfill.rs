//! Backfill: fetching over REST what the gateway did not deliver (or delivered and was never
//! committed), channel by channel, and proving how far each channel is complete.
//!
//! A channel's backfill starts at its coverage, the highest message id a previous backfill
//! proved complete, never at the newest stored message: handlers run concurrently, so a crash
//! can leave received-but-uncommitted messages below the newest stored one. A channel never
//! backfilled starts where the store's record of it begins: the channel's `last_message_id`
//! when the daemon first saw it (or the channel's own id, for one without messages). Both
//! points are ids Discord returned, never an instant of the host's clock, so a host whose clock
//! runs ahead of Discord's cannot skip what Discord mints later. It pages with
//! `after=` (Discord answers each page newest first, so the next `after` is the page's highest
//! id) until a page comes back short, records each page in one transaction, and only then
//! records the new coverage. A backfill that fails records the coverage it did prove and a
//! `messages` gap after it; the next successful backfill of the channel closes the gap.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use discord_manager_core::config::ImportWindow;
use discord_manager_ingest::history::record_history_page;
use discord_manager_ingest::ids::TypedId;
use discord_manager_store::{
    ChannelBeginning, ChannelRecord, GapKind, NewCoverage, NewGap, Reader, Store, Writer,
};
use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::permissions::ChannelAccess;
use serenity::model::channel::{Channel, GuildChannel};
use serenity::model::guild::Guild;
use serenity::model::id::{ChannelId, GuildId, MessageId};
use tokio::sync::{mpsc, watch};
use tracing::{info, warn};

use super::channel_work::{ChannelJob, PAGE, Progress, blocking};
use super::import::{self, PageOutcome};
use super::rest::{Rest, RestError};

/// A set of channels to backfill for one reason, reported together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// start | reconnect | repair | joined
    pub reason: &'static str,
    /// What the batch is about, for the log ("guild Lighthouse Labs").
    pub label: String,
    pub channels: Vec<ChannelJob>,
}

/// What one channel's backfill came to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChannelOutcome {
    pub pages: u64,
    pub fetched: u64,
    pub new_messages: u64,
    pub new_edits: u64,
    /// Whether a request was needed at all.
    pub skipped: bool,
    pub failed: bool,
}

/// Where a backfill of a channel starts: its coverage, else where the store's record of it
/// begins. Both are ids Discord returned, never an instant of the host's clock: a host whose
/// clock runs ahead of Discord's would otherwise start past messages Discord mints later.
fn recorded_start(store: &Store, channel_id: ChannelId) -> Result<Option<u64>> {
    store.read(|reader| {
        let channel = channel_id.typed();
        if let Some(coverage) = reader.channel_coverage(&channel)? {
            return Ok(Some(coverage.complete_through));
        }
        Ok(reader
            .channel_beginning(&channel)?
            .map(|beginning| beginning.after_message_id))
    })
}

/// Where a thread the store never saw begins. One created after the store began covering its
/// parent (a thread's id is minted when it is created, so it is then above the parent's
/// beginning) is wholly the store's: every message of it, from just below its own id. An older
/// one begins at its newest message, like any channel first seen. Ids only, no clock.
pub(crate) fn thread_beginning(
    reader: &Reader<'_>,
    thread_id: ChannelId,
    parent_id: Option<ChannelId>,
    last_message_id: Option<MessageId>,
) -> Result<ChannelBeginning> {
    let parent_began = match parent_id {
        Some(parent) => reader
            .channel_beginning(&parent.typed())?
            .map(|beginning| beginning.after_message_id),
        None => None,
    };
    Ok(match parent_began {
        Some(began) if thread_id.get() > began => ChannelBeginning::of(thread_id.get(), None),
        _ => ChannelBeginning::of(thread_id.get(), last_message_id.map(MessageId::get)),
    })
}

/// Records where each channel and thread of a guild begins, on first sight, from its
/// GUILD_CREATE: a channel never backfilled is backfilled from there, whatever the host's
/// clock. Channels first: a thread's beginning depends on its parent's.
pub(crate) fn record_guild_beginnings(writer: &mut Writer<'_>, guild: &Guild) -> Result<()> {
    for channel in guild.channels.values() {
        let beginning = ChannelBeginning::of(
            channel.id.get(),
            channel.last_message_id.map(MessageId::get),
        );
        writer.record_channel_beginning(&channel.id.typed(), beginning)?;
    }
    record_thread_beginnings(writer, &guild.threads)
}

/// Records where each of `threads` the store never saw begins (see [`thread_beginning`]).
pub(crate) fn record_thread_beginnings<'a>(
    writer: &mut Writer<'_>,
    threads: impl IntoIterator<Item = &'a GuildChannel>,
) -> Result<()> {
    for thread in threads {
        let id = thread.id.typed();
        if writer.reader().channel_beginning(&id)?.is_none() {
            let beginning = thread_beginning(
                &writer.reader(),
                thread.id,
                thread.parent_id,
                thread.last_message_id,
            )?;
            writer.record_channel_beginning(&id, beginning)?;
        }
    }
    Ok(())
}

/// The channels of a guild to backfill after its GUILD_CREATE was recorded: those the store
/// holds for it that it can backfill, each with the `last_message_id` the GUILD_CREATE gave.
pub(crate) fn guild_jobs(store: &Store, guild: &Guild) -> Result<Vec<ChannelJob>> {
    let last: HashMap<ChannelId, MessageId> = guild
        .channels
        .values()
        .chain(guild.threads.iter())
        .filter_map(|channel| Some((channel.id, channel.last_message_id?)))
        .collect();
    let guild_id = guild.id.typed();
    let channels = store.read(|reader| reader.channels())?;
    Ok(channels
        .into_iter()
        .filter(|channel| {
            channel.guild_id.as_ref() == Some(&guild_id)
                && !channel.removed
                && channel.access == ChannelAccess::Readable
                && channel.holds_messages()
        })
        .map(|channel| {
            let id = ChannelId::new(channel.channel_id.get());
            ChannelJob {
                channel_id: id,
                guild_id: Some(guild.id),
                name: channel.name,
                last_message_id: last.get(&id).copied(),
            }
        })
        .collect())
}

/// The direct-message channels among `channels` (the store's) to backfill: those not removed,
/// their `last_message_id` not known (a caller that asked Discord fills it in).
pub(crate) fn direct_jobs(channels: &[ChannelRecord]) -> Vec<ChannelJob> {
    channels
        .iter()
        .filter(|channel| channel.guild_id.is_none() && !channel.removed)
        .map(|channel| ChannelJob {
            channel_id: ChannelId::new(channel.channel_id.get()),
            guild_id: None,
            name: channel.name.clone(),
            last_message_id: None,
        })
        .collect()
}

/// The channels among `channel_ids` to repair by backfill: each the store knows; one it cannot
/// read back now is left to the periodic repair.
pub(crate) fn repair_jobs(store: &Store, channel_ids: &[ChannelId]) -> Vec<ChannelJob> {
    channel_ids
        .iter()
        .filter_map(|id| {
            let channel = store
                .read(|reader| reader.channel(&id.typed()))
                .ok()
                .flatten()?;
            Some(ChannelJob {
                channel_id: *id,
                guild_id: channel
                    .guild_id
                    .as_ref()
                    .map(|guild| GuildId::new(guild.get())),
                name: channel.name,
                last_message_id: None,
            })
        })
        .collect()
}

/// The channels of a REST listing to backfill, once the listing is recorded: those with a
/// message that the store holds readable and holding messages, each with the listing's `last_message_id`.
pub(crate) fn listed_jobs(store: &Store, listed: &[GuildChannel]) -> Result<Vec<ChannelJob>> {
    store.read(|reader| {
        let mut jobs = Vec::new();
        for channel in listed {
            let Some(last) = channel.last_message_id else {
                continue;
            };
            let known = reader.channel(&channel.id.typed())?;
            if let Some(known) = known
                .filter(|known| known.access == ChannelAccess::Readable && known.holds_messages())
            {
                jobs.push(ChannelJob {
                    channel_id: channel.id,
                    guild_id: Some(channel.guild_id),
                    name: known.name,
                    last_message_id: Some(last),
                });
            }
        }
        Ok(jobs)
    })
}

/// A channel the daemon never recorded a beginning for (a direct-message channel, a thread
/// first met in a repair): its beginning is Discord's `last_message_id` for it (from the job,
/// else asked for now), recorded so that a crash before the first backfill keeps it.
async fn begin_channel(
    rest: &Rest,
    store: &Arc<Store>,
    job: &ChannelJob,
) -> std::result::Result<u64, RestError> {
    let last = match job.last_message_id {
        Some(last) => Some(last.get()),
        None => match rest.channel(job.channel_id).await? {
            Channel::Guild(channel) => channel.last_message_id.map(MessageId::get),
            Channel::Private(channel) => channel.last_message_id.map(MessageId::get),
            _ => None,
        },
    };
    let beginning = ChannelBeginning::of(job.channel_id.get(), last);
    let store = Arc::clone(store);
    let channel = job.stored_id();
    let recorded = blocking(move || {
        store.write(|writer| writer.record_channel_beginning(&channel, beginning))
    })
    .await
    .map_err(|error| RestError::Failed(error.message().to_string()))?;
    Ok(recorded.after_message_id)
}

/// Backfills one channel: pages from its start point until caught up, then records coverage.
/// Stops between pages when `stop` turns true (the daemon is shutting down).
pub async fn backfill_channel(
    rest: &Rest,
    store: &Arc<Store>,
    job: &ChannelJob,
    reason: &'static str,
    stop: &watch::Receiver<bool>,
    progress: &mut Progress,
) -> Result<ChannelOutcome> {
    let mut outcome = ChannelOutcome::default();
    let Some(started_after) = start_point(rest, store, job).await? else {
        outcome.failed = true;
        return Ok(outcome);
    };
    if job
        .last_message_id
        .is_some_and(|last| last.get() <= started_after)
    {
        outcome.skipped = true;
        return Ok(outcome);
    }
    let paged = page_after(
        rest,
        store,
        job,
        started_after,
        stop,
        progress,
        &mut outcome,
    )
    .await?;
    let stopped = *stop.borrow();
    record_paged(store, job, reason, &paged, &outcome, stopped).await?;
    if let Some(error) = paged.failure {
        outcome.failed = true;
        warn!(
            channel = %job.channel_id,
            "backfill of #{} failed after message {}: {} (recorded as a gap; the next repair tries again)",
            job.name,
            paged.through,
            error.describe()
        );
        if error == RestError::Unauthorized {
            return Err(error.into());
        }
    }
    Ok(outcome)
}

/// Where a channel's backfill starts: what the store recorded, else the beginning learned now.
/// None when Discord would not say (logged: the next repair tries again); a token Discord
/// rejects is an error.
async fn start_point(rest: &Rest, store: &Arc<Store>, job: &ChannelJob) -> Result<Option<u64>> {
    let recorded = {
        let store = Arc::clone(store);
        let channel = job.channel_id;
        blocking(move || recorded_start(&store, channel)).await?
    };
    if recorded.is_some() {
        return Ok(recorded);
    }
    match begin_channel(rest, store, job).await {
        Ok(start) => Ok(Some(start)),
        Err(error) => {
            warn!(
                channel = %job.channel_id,
                "cannot learn where #{} begins: {} (the next repair tries again)",
                job.name,
                error.describe()
            );
            if error == RestError::Unauthorized {
                return Err(error.into());
            }
            Ok(None)
        }
    }
}

/// How far one backfill's paging came.
struct Paged {
    started_after: u64,
    /// The highest message id stored (`started_after` when none was).
    through: u64,
    /// The request that failed, ending the paging early.
    failure: Option<RestError>,
}

/// Pages a channel with `after=` from `started_after`, recording each page in one transaction,
/// until a page comes back short, a request fails or `stop` turns true.
async fn page_after(
    rest: &Rest,
    store: &Arc<Store>,
    job: &ChannelJob,
    started_after: u64,
    stop: &watch::Receiver<bool>,
    progress: &mut Progress,
    outcome: &mut ChannelOutcome,
) -> Result<Paged> {
    let mut after = started_after;
    let failure = loop {
        if *stop.borrow() {
            break None;
        }
        let mut page = match rest
            .messages_after(job.channel_id, MessageId::new(after.max(1)), PAGE)
            .await
        {
            Ok(page) => page,
            Err(error) => break Some(error),
        };
        // Discord answers newest first: record oldest first, so arrival order is Discord's.
        page.sort_by_key(|fetched| fetched.message.id);
        outcome.pages += 1;
        let count = page.len();
        outcome.fetched += count as u64;
        let Some(highest) = page.iter().map(|fetched| fetched.message.id.get()).max() else {
            break None;
        };
        let recorded = {
            let store = Arc::clone(store);
            let guild = job.guild_id;
            blocking(move || record_history_page(&store, guild, &page)).await?
        };
        outcome.new_messages += recorded.new_messages;
        outcome.new_edits += recorded.new_edits;
        after = after.max(highest);
        progress.backfill_page(
            &job.name,
            outcome.pages,
            outcome.fetched,
            outcome.new_messages,
        );
        if count < usize::from(PAGE) {
            break None;
        }
    };
    Ok(Paged {
        started_after,
        through: after,
        failure,
    })
}

/// Records what a backfill proved: its coverage, unless it proved nothing (a stop before any
/// page), and a `messages` gap after where a failure ended it.
async fn record_paged(
    store: &Arc<Store>,
    job: &ChannelJob,
    reason: &'static str,
    paged: &Paged,
    outcome: &ChannelOutcome,
    stopped: bool,
) -> Result<()> {
    let after = paged.through;
    let coverage = NewCoverage {
        channel_id: job.stored_id(),
        started_after: paged.started_after,
        complete_through: after,
        fetched: outcome.fetched,
        stored: outcome.new_messages,
        reason,
    };
    let gap = paged.failure.as_ref().map(|error| NewGap {
        kind: GapKind::Messages,
        channel_id: Some(job.stored_id()),
        from_at: Instant::now(),
        until_at: Instant::now(),
        after_message_id: Some(after),
        detail: format!(
            "The backfill of #{} stopped after message {after}: {}; messages after it may be \
             missing until a later backfill completes",
            job.name,
            error.describe()
        ),
    });
    // A backfill interrupted by a stop proved only the pages it stored: record that much.
    let proved = paged.failure.is_none() && !stopped || after > paged.started_after;
    let store = Arc::clone(store);
    let channel = job.stored_id();
    blocking(move || {
        store.write(|writer| {
            if proved {
                writer.record_coverage(&coverage)?;
            }
            if let Some(gap) = &gap {
                // A backfill that keeps failing at the same point says so once.
                if !writer.reader().open_messages_gap(&channel, after)? {
                    writer.record_gap(gap)?;
                }
            }
            Ok(())
        })
    })
    .await
}

/// The backfill worker: one batch at a time, one channel at a time (Discord's rate limits are
/// per route, and a sequential backfill never competes with itself). A channel already queued
/// is not queued twice. Between batches, with none waiting, it imports the history from before
/// the store began of each channel a batch backfilled, one page at a time, so a repair never
/// waits for a whole import and no two requests of the worker are ever in flight together.
pub async fn run_worker(
    rest: Arc<Rest>,
    store: Arc<Store>,
    mut batches: mpsc::UnboundedReceiver<Batch>,
    stop: watch::Receiver<bool>,
    import: ImportWindow,
) -> Result<()> {
    let mut queue: VecDeque<Batch> = VecDeque::new();
    let mut imports: VecDeque<ChannelJob> = VecDeque::new();
    let mut progress = Progress::new();
    loop {
        if queue.is_empty() && imports.is_empty() {
            let mut stop_changed = stop.clone();
            tokio::select! {
                batch = batches.recv() => match batch {
                    Some(batch) => queue.push_back(batch),
                    None => return Ok(()),
                },
                _ = stop_changed.wait_for(|stopping| *stopping) => return Ok(()),
            }
        }
        while let Ok(batch) = batches.try_recv() {
            queue.push_back(batch);
        }
        if *stop.borrow() {
            return Ok(());
        }
        if let Some(batch) = queue.pop_front() {
            let waiting: Vec<ChannelId> = queue
                .iter()
                .flat_map(|queued| queued.channels.iter().map(|job| job.channel_id))
                .collect();
            let backfilled =
                run_batch(&rest, &store, &batch, &waiting, &stop, &mut progress).await?;
            for job in backfilled {
                if import != ImportWindow::Off
                    && !imports
                        .iter()
                        .any(|queued| queued.channel_id == job.channel_id)
                {
                    imports.push_back(job);
                }
            }
        } else if let Some(job) = imports.front() {
            let outcome = import::import_page(&rest, &store, job, import, &mut progress).await?;
            if outcome != PageOutcome::More {
                progress.clear();
                imports.pop_front();
            }
        }
    }
}

/// Backfills one batch's channels (those not queued again in a later batch), logs what it came
/// to, and returns the channels whose backfill did not fail.
async fn run_batch(
    rest: &Rest,
    store: &Arc<Store>,
    batch: &Batch,
    waiting: &[ChannelId],
    stop: &watch::Receiver<bool>,
    progress: &mut Progress,
) -> Result<Vec<ChannelJob>> {
    let started = std::time::Instant::now();
    let mut totals = ChannelOutcome::default();
    let mut channels = 0;
    let mut backfilled = Vec::new();
    for job in batch
        .channels
        .iter()
        .filter(|job| !waiting.contains(&job.channel_id))
    {
        if *stop.borrow() {
            return Ok(backfilled);
        }
        let outcome = backfill_channel(rest, store, job, batch.reason, stop, progress).await?;
        progress.clear();
        if !outcome.failed {
            backfilled.push(job.clone());
        }
        if outcome.skipped {
            continue;
        }
        channels += 1;
        totals.pages += outcome.pages;
        totals.fetched += outcome.fetched;
        totals.new_messages += outcome.new_messages;
        totals.new_edits += outcome.new_edits;
        if !outcome.failed {
            info!(
                channel = %job.channel_id,
                "backfilled #{}: {} pages, {} messages fetched, {} new, {} edits recovered",
                job.name, outcome.pages, outcome.fetched, outcome.new_messages, outcome.new_edits
            );
        }
    }
    info!(
        reason = batch.reason,
        "backfill done ({}) for {}: {channels} channels fetched, {} messages, {} new, in {:.1} s",
        batch.reason,
        batch.label,
        totals.fetched,
        totals.new_messages,
        started.elapsed().as_secs_f64()
    );
    Ok(backfilled)
}

/// How long the worker waits between the repair passes the daemon schedules.
pub const DEFAULT_REPAIR_EVERY: Duration = Duration::from_secs(300);

#[cfg(test)]
mod tests {
    use discord_manager_store::BeginningSource;
    use discord_manager_store::testing::{fresh_id, shared_store};

    use super::*;

    #[test]
    fn a_thread_newer_than_its_parents_beginning_is_wholly_the_stores_and_an_older_one_is_not() {
        let store = shared_store();
        let parent: u64 = fresh_id::<String>().parse().unwrap();
        store
            .write(|writer| {
                writer.record_channel_beginning(
                    &parent.to_string().parse().unwrap(),
                    ChannelBeginning::of(parent, Some(parent + 1_000)),
                )
            })
            .unwrap();
        let begins = |thread: u64, parent: Option<u64>| {
            store
                .read(|reader| {
                    thread_beginning(
                        reader,
                        ChannelId::new(thread),
                        parent.map(ChannelId::new),
                        Some(MessageId::new(thread + 50)),
                    )
                })
                .unwrap()
        };
        // Created after the store began covering the parent: every message of it.
        assert_eq!(
            begins(parent + 1_001, Some(parent)),
            ChannelBeginning {
                after_message_id: parent + 1_000,
                source: BeginningSource::ChannelId
            }
        );
        // At or before that point: from its newest message on, like any channel first seen.
        for older in [parent + 1_000, parent + 10] {
            assert_eq!(
                begins(older, Some(parent)),
                ChannelBeginning {
                    after_message_id: older + 50,
                    source: BeginningSource::LastMessageId
                }
            );
        }
        // A parent the store has no beginning for says nothing about the thread's age.
        assert_eq!(
            begins(parent + 5_000, Some(parent + 1)).source,
            BeginningSource::LastMessageId
        );
    }
}
