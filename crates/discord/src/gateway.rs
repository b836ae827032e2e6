//! The gateway side of the daemon: the gateway tap (`gateway_tap`) hands every dispatch, as
//! Discord sent it, to the queue of [`Writer`], one thread that reads each into serenity's
//! event and Discord's JSON of it and records them in the order they were received.
//!
//! Why one writer: SQLite serialises writes anyway; one thread keeps the store's work (and the
//! parsing of each dispatch) off the async threads, keeps receive order (the tap queues each
//! dispatch in the order its frames arrive, before serenity reads it), and makes a clean stop
//! provable: the queue closes only when every tap is gone, so everything Discord dispatched
//! has been committed when it is drained.
//!
//! Events that queued up while the previous commit was written are committed together, in
//! one transaction (a burst costs a few commits, not one per event); an event that triggers
//! follow-up work (READY, RESUMED, GUILD_CREATE) is committed on its own, after everything
//! before it, so that work sees exactly the store it follows. A batch that fails is stored
//! again event by event, so one event that cannot be stored holds back no other.
//!
//! An event is acknowledged — logged as stored, counted, allowed to trigger follow-up work —
//! only after its transaction commits. (serenity itself advances and heartbeats its sequence
//! number when it reads a frame, before any handler runs, and offers no way to hold it back;
//! what could be lost that way is covered by backfill from provable coverage and, for events
//! REST cannot recover, by a recorded gap.)

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use discord_manager_core::config::GuildScope;
use discord_manager_ingest::direct::record_direct_channel;
use discord_manager_ingest::feed::{repair_unparsed, why_unparsed};
use discord_manager_ingest::ids::TypedId;
use discord_manager_ingest::{Origin, Recorded};
use discord_manager_store::{GapKind, GatewayEventKind, NewGap, Store};
use discord_manager_vocabulary::error::{Error, ErrorKind, Result};
use discord_manager_vocabulary::instant::Instant;
use serde_json::Value;
use serenity::model::channel::Message;
use serenity::model::event::Event;
use serenity::model::gateway::Ready;
use serenity::model::guild::Guild;
use serenity::model::id::{ChannelId, GuildId, UserId};
use tokio::sync::mpsc;
use tracing::{debug, error, info, warn};

use super::backfill::{self, Batch};
use super::gateway_tap::RawDispatch;

/// A dispatch as Discord sent it, with when it was received.
pub struct Received {
    pub dispatch: RawDispatch,
    pub at: Instant,
}

/// Hands every dispatch the tap relays to the writer's queue, stamped with when it arrived,
/// until the tap is gone.
pub async fn relay(
    mut dispatches: mpsc::UnboundedReceiver<RawDispatch>,
    queue: mpsc::UnboundedSender<Received>,
) {
    while let Some(dispatch) = dispatches.recv().await {
        // A send fails only when the writer is gone, which happens only after a stop.
        let _ = queue.send(Received {
            dispatch,
            at: Instant::now(),
        });
    }
}

/// What the writer tells the supervisor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// A new session began (READY); `reidentify`: serenity identified again within this run.
    SessionStarted { reidentify: bool },
    /// The session was resumed.
    Resumed,
    /// The store cannot be written any more (a full disk, a read-only file): the writer stopped.
    StoreUnwritable(Error),
}

/// How many consecutive guild messages from people with no content, attachment, embed,
/// sticker or poll make the daemon say the Message Content intent is probably off.
pub const EMPTY_CONTENT_WARNING_AFTER: u32 = 20;

/// Notices when every message arrives empty: what Discord sends when the bot lacks the
/// privileged Message Content intent.
#[derive(Debug, Default)]
pub struct ContentWatch {
    empty_in_a_row: u32,
    warned: bool,
}

impl ContentWatch {
    /// Observes one gateway message; returns true exactly once, when the streak of empty
    /// messages reaches [`EMPTY_CONTENT_WARNING_AFTER`].
    pub fn observe(&mut self, message: &Message) -> bool {
        if message.guild_id.is_none() || message.author.bot {
            return false;
        }
        let empty = message.content.is_empty()
            && message.attachments.is_empty()
            && message.embeds.is_empty()
            && message.sticker_items.is_empty()
            && message.poll.is_none();
        if !empty {
            self.empty_in_a_row = 0;
            return false;
        }
        self.empty_in_a_row += 1;
        if self.empty_in_a_row >= EMPTY_CONTENT_WARNING_AFTER && !self.warned {
            self.warned = true;
            return true;
        }
        false
    }
}

/// The most events committed in one transaction.
const MAX_BATCH: usize = 256;

/// A received event, ready to be recorded.
struct Prepared {
    kind: &'static str,
    at: Instant,
    /// When the event before it was received.
    previous: Option<Instant>,
}

/// Events waiting to be committed together, in the order received, each with Discord's JSON
/// of its data where a recorder reads it (a message's).
#[derive(Default)]
struct Pending {
    events: Vec<(Event, Option<Value>)>,
    prepared: Vec<Prepared>,
}

/// The writer's configuration and outlets.
pub struct Writer {
    pub store: Arc<Store>,
    /// The guilds in scope: only those are backfilled.
    pub guild_scope: GuildScope,
    /// When this run of the daemon started: the previous run's last sign of life is before it.
    pub run_started_at: Instant,
    pub backfill: mpsc::UnboundedSender<Batch>,
    pub notices: mpsc::UnboundedSender<Notice>,
    /// Events committed this run.
    pub stored: Arc<AtomicU64>,
}

/// The writer's state across events.
#[derive(Default)]
struct State {
    sessions: u32,
    /// Guilds the current session's READY announced: their GUILD_CREATE starts a backfill.
    announced: Vec<u64>,
    bot_user_id: Option<UserId>,
    last_received: Option<Instant>,
    content: ContentWatch,
}

impl Writer {
    /// Records every event from `queue` until it closes (every relay dropped), or until the
    /// store cannot be written any more: then the supervisor is told why and nothing more is
    /// taken from the queue (what was not stored is backfilled by the next start).
    pub fn run(self, mut queue: mpsc::UnboundedReceiver<Received>) {
        if let Err(unwritable) = self.record_all(&mut queue) {
            error!("stopped recording: {unwritable}");
            let _ = self.notices.send(Notice::StoreUnwritable(unwritable));
            return;
        }
        debug!("the gateway queue is drained");
    }

    fn record_all(&self, queue: &mut mpsc::UnboundedReceiver<Received>) -> Result<()> {
        let mut state = State::default();
        let mut pending = Pending::default();
        while let Some(first) = queue.blocking_recv() {
            // Whatever queued up meanwhile joins the batch.
            let mut next = Some(first);
            while let Some(received) = next {
                if let Some((event, prepared)) = self.prepare(&mut state, received) {
                    if has_follow_up(&event.0) {
                        self.commit(&mut state, std::mem::take(&mut pending))?;
                        self.commit(
                            &mut state,
                            Pending {
                                events: vec![event],
                                prepared: vec![prepared],
                            },
                        )?;
                    } else {
                        pending.events.push(event);
                        pending.prepared.push(prepared);
                        if pending.events.len() >= MAX_BATCH {
                            self.commit(&mut state, std::mem::take(&mut pending))?;
                        }
                    }
                }
                next = queue.try_recv().ok();
            }
            self.commit(&mut state, std::mem::take(&mut pending))?;
        }
        Ok(())
    }

    fn in_scope(&self, guild_id: GuildId) -> bool {
        self.guild_scope.includes(&guild_id.typed())
    }

    /// What comes before recording an event: a dispatch serenity could not parse is repaired
    /// or skipped (None), a direct message's channel is recorded, the content check observes.
    fn prepare(
        &self,
        state: &mut State,
        received: Received,
    ) -> Option<((Event, Option<Value>), Prepared)> {
        let Received { dispatch, at } = received;
        let previous = state.last_received.replace(at);
        let RawDispatch { name, data, .. } = dispatch;
        let data: Value = match serde_json::from_str(data.get()) {
            Ok(data) => data,
            Err(error) => {
                warn!(event = %name, "skipped a {name} dispatch that is not JSON: {error:#}");
                return None;
            }
        };
        // serenity's reading of it, exactly as its own client reads a dispatch (one it cannot
        // parse is `Event::Unknown`).
        let event = match serde_json::from_value(serde_json::json!({"t": name, "d": data})) {
            Ok(event) => event,
            Err(error) => {
                self.skip_unknown(&name, &data);
                debug!(event = %name, "serenity could not read it: {error}");
                return None;
            }
        };
        // What a recorder reads beside serenity's event: a message's JSON.
        let data =
            matches!(event, Event::MessageCreate(_) | Event::MessageUpdate(_)).then_some(data);
        let event = match event {
            Event::Unknown(unknown) => match repair_unparsed(&unknown.kind, &unknown.value) {
                Some(repaired) => repaired,
                None => {
                    self.skip_unknown(&unknown.kind, &unknown.value);
                    return None;
                }
            },
            event => event,
        };
        if let Event::MessageCreate(create) = &event {
            self.before_message(state, &create.message);
        }
        let kind = kind_of(&event);
        Some(((event, data), Prepared { kind, at, previous }))
    }

    /// Records a batch in one transaction and acknowledges each event; if the batch fails,
    /// records its events one by one. Fails only when the store cannot be written at all (a
    /// full disk, a read-only file), where nothing more can be recorded, not even the gap.
    fn commit(&self, state: &mut State, pending: Pending) -> Result<()> {
        let Pending { events, prepared } = pending;
        if events.len() > 1 {
            match discord_manager_ingest::record_dispatches(&self.store, &events, Origin::Gateway) {
                Ok(recorded) => {
                    for (((event, _), prepared), recorded) in
                        events.iter().zip(&prepared).zip(recorded)
                    {
                        self.acknowledge(state, event, prepared, recorded);
                    }
                    return Ok(());
                }
                Err(failure) if failure.kind() == ErrorKind::StoreUnwritable => {
                    return Err(failure);
                }
                Err(failure) => warn!(
                    "a batch of {} events could not be stored ({failure}); storing them one by one",
                    events.len()
                ),
            }
        }
        for ((event, data), prepared) in events.iter().zip(&prepared) {
            let recorded = discord_manager_ingest::record_dispatch(
                &self.store,
                event,
                data.as_ref(),
                Origin::Gateway,
            );
            match recorded {
                Ok(recorded) => self.acknowledge(state, event, prepared, recorded),
                Err(failure) if failure.kind() == ErrorKind::StoreUnwritable => {
                    return Err(failure);
                }
                Err(failure) => self.not_stored(event, prepared, &failure.to_string()),
            }
        }
        Ok(())
    }

    /// After an event's commit: counted, logged, and its follow-up work done.
    fn acknowledge(
        &self,
        state: &mut State,
        event: &Event,
        prepared: &Prepared,
        recorded: Recorded,
    ) {
        let kind = prepared.kind;
        if recorded != Recorded::Ignored {
            self.stored.fetch_add(1, Ordering::Relaxed);
        }
        debug!(event = kind, ?recorded, "stored");
        if let Err(failure) = self.after_commit(state, event, prepared.at, prepared.previous) {
            error!("could not record what follows a {kind} event: {failure}");
        }
    }

    /// An event that could not be stored: recorded as a gap, and its channel backfilled.
    fn not_stored(&self, event: &Event, prepared: &Prepared, failure: &str) {
        let kind = prepared.kind;
        error!(event = kind, "could not store a {kind} event: {failure}");
        let channel = channel_of(event);
        let gap = NewGap {
            kind: GapKind::Event,
            channel_id: channel.map(|channel| channel.typed()),
            from_at: prepared.at,
            until_at: prepared.at,
            after_message_id: None,
            detail: format!("A {kind} event could not be stored: {failure}"),
        };
        if let Err(also) = self.store.write(|writer| writer.record_gap(&gap)) {
            error!("could not record the gap either: {also}");
        }
        if let Some(channel) = channel {
            self.repair_channels(&[channel], "an event that could not be stored");
        }
    }

    /// A dispatch serenity could not parse: one of a kind the store records is logged as skipped
    /// and its channel repaired by backfill; one of a kind this version does not know, ignored.
    fn skip_unknown(&self, kind: &str, value: &serde_json::Value) {
        match why_unparsed(kind, value) {
            Some(reason) => {
                warn!(
                    event = %kind,
                    "skipped a {kind} dispatch that does not parse ({reason}); its channel will be repaired by backfill"
                );
                if let Some(channel) = value.get("channel_id").and_then(channel_id_in) {
                    self.repair_channels(&[channel], "a dispatch that did not parse");
                }
            }
            None => info!(event = %kind, "ignored a {kind} dispatch this version does not know"),
        }
    }

    /// A direct message's channel is recorded before the message (Discord sends no
    /// CHANNEL_CREATE for it); an empty guild message feeds the Message Content check.
    fn before_message(&self, state: &mut State, message: &Message) {
        if message.guild_id.is_none() {
            let bot = state.bot_user_id;
            let other = (Some(message.author.id) != bot).then_some(&message.author);
            if let Err(failure) = record_direct_channel(&self.store, message.channel_id, other) {
                error!("could not record a direct-message channel: {failure}");
            }
        }
        if state.content.observe(message) {
            warn!(
                "the last {EMPTY_CONTENT_WARNING_AFTER} messages arrived with empty content: the \
                 Message Content intent is probably off (Discord Developer Portal → your \
                 application → Bot → Privileged Gateway Intents → Message Content Intent)"
            );
        }
    }

    /// What follows a committed event beyond its rows: session bookkeeping, gaps, and the
    /// backfills an event calls for. One handler per event kind that needs any.
    fn after_commit(
        &self,
        state: &mut State,
        event: &Event,
        at: Instant,
        previous: Option<Instant>,
    ) -> Result<()> {
        match event {
            Event::Ready(ready) => self.on_ready(state, &ready.ready, at, previous),
            Event::Resumed(_) => self.on_resumed(),
            Event::GuildCreate(create) => self.on_guild_create(state, &create.guild),
            _ => Ok(()),
        }
    }

    /// A new session: the downtime since the last one is a gap, and direct-message channels
    /// are backfilled (guilds are, as their GUILD_CREATEs arrive).
    fn on_ready(
        &self,
        state: &mut State,
        ready: &Ready,
        at: Instant,
        previous: Option<Instant>,
    ) -> Result<()> {
        let reidentify = state.sessions > 0;
        state.sessions += 1;
        state.bot_user_id = Some(ready.user.id);
        state.announced = ready.guilds.iter().map(|guild| guild.id.get()).collect();
        let run_started_at = self.run_started_at;
        let session = ready.session_id.clone();
        let gap = self.store.write(|writer| {
            let from = if reidentify {
                previous
            } else {
                let reader = writer.reader();
                reader
                    .last_listening_before(run_started_at)?
                    .max(reader.newest_gateway_event()?)
            };
            writer.record_gateway_event(GatewayEventKind::Ready, Some(&session), None)?;
            let Some(from) = from.filter(|from| *from < at) else {
                return Ok(None);
            };
            let gap = NewGap {
                kind: GapKind::Downtime,
                channel_id: None,
                from_at: from,
                until_at: at,
                after_message_id: None,
                detail: format!(
                    "The daemon was not listening from {from} to {at}: messages sent then \
                     are backfilled, but deletions, edits and reactions then cannot be \
                     recovered"
                ),
            };
            writer.record_gap(&gap)?;
            Ok(Some(gap))
        })?;
        info!(
            session = %ready.session_id,
            "connected: new gateway session as {} with {} guilds{}",
            ready.user.name,
            ready.guilds.len(),
            if reidentify { " (identified again: the previous session could not be resumed)" } else { "" }
        );
        if let Some(gap) = gap {
            info!(
                "recorded a gap: not listening from {} to {}",
                gap.from_at, gap.until_at
            );
        }
        let _ = self.notices.send(Notice::SessionStarted { reidentify });
        self.backfill_direct_channels(if reidentify { "reconnect" } else { "start" })?;
        Ok(())
    }

    fn on_resumed(&self) -> Result<()> {
        self.store
            .write(|writer| writer.record_gateway_event(GatewayEventKind::Resumed, None, None))?;
        info!("resumed the gateway session: Discord replays what was missed");
        let _ = self.notices.send(Notice::Resumed);
        Ok(())
    }

    /// A guild in scope: each channel's beginning recorded on first sight, then every readable
    /// channel backfilled from its coverage.
    fn on_guild_create(&self, state: &mut State, guild: &Guild) -> Result<()> {
        if !self.in_scope(guild.id) {
            return Ok(());
        }
        let reason = if !state.announced.contains(&guild.id.get()) {
            "joined"
        } else if state.sessions > 1 {
            "reconnect"
        } else {
            "start"
        };
        self.store
            .write(|writer| backfill::record_guild_beginnings(writer, guild))?;
        let jobs = backfill::guild_jobs(&self.store, guild)?;
        let _ = self.backfill.send(Batch {
            reason,
            label: format!("guild {}", guild.name),
            channels: jobs,
        });
        Ok(())
    }

    fn backfill_direct_channels(&self, reason: &'static str) -> Result<()> {
        let channels = self.store.read(|reader| reader.channels())?;
        let jobs = backfill::direct_jobs(&channels);
        if !jobs.is_empty() {
            let _ = self.backfill.send(Batch {
                reason,
                label: "direct messages".to_string(),
                channels: jobs,
            });
        }
        Ok(())
    }

    fn repair_channels(&self, channel_ids: &[ChannelId], why: &str) {
        let jobs = backfill::repair_jobs(&self.store, channel_ids);
        if !jobs.is_empty() {
            let _ = self.backfill.send(Batch {
                reason: "repair",
                label: why.to_string(),
                channels: jobs,
            });
        }
    }
}

/// Whether the writer does more after committing this event (see `Writer::after_commit`):
/// such an event is committed alone, after everything received before it.
fn has_follow_up(event: &Event) -> bool {
    matches!(
        event,
        Event::Ready(_) | Event::Resumed(_) | Event::GuildCreate(_)
    )
}

/// The dispatch name of the events the store records (for the logs).
fn kind_of(event: &Event) -> &'static str {
    match event {
        Event::Ready(_) => "READY",
        Event::Resumed(_) => "RESUMED",
        Event::GuildCreate(_) => "GUILD_CREATE",
        Event::GuildUpdate(_) => "GUILD_UPDATE",
        Event::GuildDelete(_) => "GUILD_DELETE",
        Event::GuildRoleCreate(_) => "GUILD_ROLE_CREATE",
        Event::GuildRoleUpdate(_) => "GUILD_ROLE_UPDATE",
        Event::GuildRoleDelete(_) => "GUILD_ROLE_DELETE",
        Event::GuildMemberUpdate(_) => "GUILD_MEMBER_UPDATE",
        Event::ChannelCreate(_) => "CHANNEL_CREATE",
        Event::ChannelUpdate(_) => "CHANNEL_UPDATE",
        Event::ChannelDelete(_) => "CHANNEL_DELETE",
        Event::ThreadCreate(_) => "THREAD_CREATE",
        Event::ThreadUpdate(_) => "THREAD_UPDATE",
        Event::ThreadDelete(_) => "THREAD_DELETE",
        Event::ThreadListSync(_) => "THREAD_LIST_SYNC",
        Event::MessageCreate(_) => "MESSAGE_CREATE",
        Event::MessageUpdate(_) => "MESSAGE_UPDATE",
        Event::MessageDelete(_) => "MESSAGE_DELETE",
        Event::MessageDeleteBulk(_) => "MESSAGE_DELETE_BULK",
        Event::ReactionAdd(_) => "MESSAGE_REACTION_ADD",
        Event::ReactionRemove(_) => "MESSAGE_REACTION_REMOVE",
        Event::ReactionRemoveAll(_) => "MESSAGE_REACTION_REMOVE_ALL",
        Event::ReactionRemoveEmoji(_) => "MESSAGE_REACTION_REMOVE_EMOJI",
        _ => "other",
    }
}

/// The channel an event is about, if it is about one.
fn channel_of(event: &Event) -> Option<ChannelId> {
    let value = serde_json::to_value(event).ok()?;
    let data = value.get("d")?;
    data.get("channel_id")
        .or_else(|| data.get("channel").and_then(|channel| channel.get("id")))
        .and_then(channel_id_in)
}

/// A payload's channel id (a string of digits, as Discord sends it), if it is one: serenity's
/// own parsing, which refuses zero.
fn channel_id_in(id: &serde_json::Value) -> Option<ChannelId> {
    id.as_str()?.parse().ok()
}

#[cfg(test)]
mod tests;
