//! The ingest daemon's own record: its connection history, how far each channel is provably
//! complete (coverage), where each channel's record begins (an id Discord returned), the gaps
//! it knows of, and its readings of Discord's clock.
//!
//! Coverage only ever moves on proof from REST: a backfill that paged from a channel's
//! coverage up to the newest message Discord has. The gateway alone never moves it, because
//! serenity runs handlers concurrently and a crash can leave received-but-uncommitted messages
//! below the newest stored one.

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId, from_stored, to_stored};
use discord_manager_vocabulary::words::word_enum;
use rusqlite::{OptionalExtension, Row, named_params};

use super::messages::Origin;
use super::words::word;
use super::{Reader, Store, Writer};

word_enum! {
    /// What happened to the daemon's gateway connection (see `migrations/0002_gateway_state.sql`).
    pub enum GatewayEventKind {
        Identify = "identify",
        Ready = "ready",
        Resumed = "resumed",
        Alive = "alive",
        Stop = "stop",
    }
}

/// One row of the connection history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayEventRecord {
    pub kind: GatewayEventKind,
    pub session_id: Option<String>,
    pub detail: Option<String>,
    pub created_at: Instant,
}

/// A completed backfill of one channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCoverage {
    pub channel_id: ChannelId,
    pub started_after: u64,
    pub complete_through: u64,
    pub fetched: u64,
    pub stored: u64,
    pub reason: &'static str,
}

/// A channel's coverage as the store knows it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelCoverage {
    pub channel_id: ChannelId,
    /// Every message with an id at or below this is in the store.
    pub complete_through: u64,
    /// When the latest backfill of the channel completed.
    pub last_backfill_at: Instant,
}

/// Where the store's record of a channel begins, as an id Discord returned: a channel never
/// backfilled is backfilled from after it (see `migrations/0008_discord_clock_and_anchors.sql`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChannelBeginning {
    /// Messages with a higher id are the store's to hold.
    pub after_message_id: u64,
    pub source: BeginningSource,
}

word_enum! {
    /// Which of Discord's ids a channel's beginning is.
    pub enum BeginningSource {
        /// The channel's `last_message_id` when the daemon first saw it.
        LastMessageId = "last-message-id",
        /// The channel's own id minus one (a channel without messages then, or first seen when it
        /// was created): every message of a channel has an id at or above the channel's.
        ChannelId = "channel-id",
    }
}

impl ChannelBeginning {
    /// The beginning Discord's own ids give a channel: after its newest message, or, when it
    /// has none, after the id just below the channel's own.
    pub fn of(channel_id: u64, last_message_id: Option<u64>) -> ChannelBeginning {
        match last_message_id {
            Some(last) => ChannelBeginning {
                after_message_id: last,
                source: BeginningSource::LastMessageId,
            },
            None => ChannelBeginning {
                after_message_id: channel_id.saturating_sub(1),
                source: BeginningSource::ChannelId,
            },
        }
    }
}

/// One reading of Discord's clock beside the host's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiscordClockReading {
    /// Discord's `Date` header (whole seconds).
    pub discord_at: Instant,
    /// The host's clock when the answer arrived.
    pub host_at: Instant,
}

impl DiscordClockReading {
    /// How far the host's clock is ahead of Discord's, in milliseconds (negative: behind).
    /// The header has whole seconds, so the figure is exact to within a second.
    pub fn host_ahead_ms(self) -> i64 {
        (self.host_at.as_micros() - self.discord_at.as_micros()) / 1_000
    }
}

word_enum! {
    /// What kind of hole a gap is.
    pub enum GapKind {
        /// The daemon was not listening: deletions, edits and reactions in the span are lost.
        Downtime = "downtime",
        /// A channel's backfill failed after a message: messages after it may be missing.
        Messages = "messages",
        /// One event Discord delivered could not be stored.
        Event = "event",
    }
}

/// A gap as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GapRecord {
    pub kind: GapKind,
    /// None: every channel.
    pub channel_id: Option<ChannelId>,
    pub from_at: Instant,
    pub until_at: Instant,
    pub after_message_id: Option<u64>,
    pub detail: String,
    pub created_at: Instant,
}

/// A gap to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewGap {
    pub kind: GapKind,
    pub channel_id: Option<ChannelId>,
    pub from_at: Instant,
    pub until_at: Instant,
    pub after_message_id: Option<u64>,
    pub detail: String,
}

fn gateway_event_from_row(row: &Row<'_>) -> rusqlite::Result<GatewayEventRecord> {
    Ok(GatewayEventRecord {
        kind: word(row, 0)?,
        session_id: row.get(1)?,
        detail: row.get(2)?,
        created_at: row.get(3)?,
    })
}

const LATEST_GATEWAY_EVENT: &str = "SELECT kind, session_id, detail, created_at
     FROM gateway_events ORDER BY seq DESC LIMIT 1";

const GATEWAY_EVENTS_OF_KIND_SINCE: &str = "SELECT created_at FROM gateway_events
     WHERE kind = :kind AND created_at >= :since ORDER BY seq";

const FIRST_GATEWAY_EVENT_OF_KIND: &str =
    "SELECT created_at FROM gateway_events WHERE kind = :kind ORDER BY seq LIMIT 1";

const LAST_LISTENING_BEFORE: &str = "SELECT created_at FROM gateway_events
     WHERE kind IN (:ready, :resumed, :alive, :stop) AND created_at < :before
     ORDER BY seq DESC LIMIT 1";

const NEWEST_MESSAGE_OF_ORIGIN: &str =
    "SELECT created_at FROM messages WHERE origin = :origin ORDER BY seq DESC LIMIT 1";
const NEWEST_EDIT: &str = "SELECT created_at FROM message_edits ORDER BY seq DESC LIMIT 1";
const NEWEST_DELETION: &str = "SELECT created_at FROM message_deletions ORDER BY seq DESC LIMIT 1";
const NEWEST_REACTION_EVENT: &str =
    "SELECT created_at FROM reaction_events ORDER BY seq DESC LIMIT 1";

const CHANNEL_COVERAGE: &str = "SELECT channel_id, max(complete_through), max(created_at)
     FROM channel_coverage WHERE channel_id = :channel_id GROUP BY channel_id";

const COVERAGES: &str = "SELECT channel_id, max(complete_through), max(created_at)
     FROM channel_coverage GROUP BY channel_id ORDER BY channel_id";

const BACKFILLED_PAST: &str = "SELECT EXISTS (SELECT 1 FROM channel_coverage
     WHERE channel_id = :channel_id AND started_after <= :after AND created_at > :since)";

const OPEN_GAP_OF_KIND: &str = "SELECT EXISTS (
     SELECT 1 FROM coverage_gaps AS gap
     WHERE gap.kind = :kind AND gap.channel_id = :channel_id
       AND gap.after_message_id = :after
       AND NOT EXISTS (SELECT 1 FROM channel_coverage AS coverage
                       WHERE coverage.channel_id = :channel_id
                         AND coverage.started_after <= :after
                         AND coverage.created_at > gap.created_at))";

const CHANNEL_BEGINNING: &str =
    "SELECT after_message_id, source FROM channel_anchors WHERE channel_id = :channel_id";

const CHANNEL_FIRST_SEEN: &str =
    "SELECT created_at FROM channel_anchors WHERE channel_id = :channel_id";

const LATEST_DISCORD_CLOCK: &str =
    "SELECT discord_at, host_at FROM discord_clock_readings ORDER BY seq DESC LIMIT 1";

const GAPS: &str = "SELECT kind, channel_id, from_at, until_at, after_message_id, detail,
         created_at
     FROM coverage_gaps ORDER BY seq";

const MESSAGE_COUNT: &str = "SELECT max(seq) FROM messages";

impl Reader<'_> {
    /// The newest row of the connection history, if the daemon ever ran.
    pub fn latest_gateway_event(&self) -> Result<Option<GatewayEventRecord>> {
        Ok(self
            .connection
            .prepare_cached(LATEST_GATEWAY_EVENT)?
            .query_row([], gateway_event_from_row)
            .optional()?)
    }

    /// When each row of one kind was written, at or after `since`, oldest first.
    pub fn gateway_events_since(
        &self,
        kind: GatewayEventKind,
        since: Instant,
    ) -> Result<Vec<Instant>> {
        let mut statement = self
            .connection
            .prepare_cached(GATEWAY_EVENTS_OF_KIND_SINCE)?;
        let rows = statement.query_map(
            named_params! {":kind": kind.as_str(), ":since": since},
            |row| row.get(0),
        )?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The first IDENTIFY the daemon ever made: where the store begins for backfill.
    pub fn first_identify(&self) -> Result<Option<Instant>> {
        Ok(self
            .connection
            .prepare_cached(FIRST_GATEWAY_EVENT_OF_KIND)?
            .query_row(
                named_params! {":kind": GatewayEventKind::Identify.as_str()},
                |row| row.get(0),
            )
            .optional()?)
    }

    /// The newest sign that the daemon was listening, written before `before`: a session
    /// that began or resumed, a periodic sign of life, or a clean stop.
    pub fn last_listening_before(&self, before: Instant) -> Result<Option<Instant>> {
        Ok(self
            .connection
            .prepare_cached(LAST_LISTENING_BEFORE)?
            .query_row(
                named_params! {
                    ":ready": GatewayEventKind::Ready.as_str(),
                    ":resumed": GatewayEventKind::Resumed.as_str(),
                    ":alive": GatewayEventKind::Alive.as_str(),
                    ":stop": GatewayEventKind::Stop.as_str(),
                    ":before": before,
                },
                |row| row.get(0),
            )
            .optional()?)
    }

    /// The arrival of the newest row any gateway event wrote: a message the gateway delivered,
    /// an edit, a deletion or a reaction. Each table's newest row is its highest `seq`, since
    /// the arrival clock only moves forward.
    pub fn newest_gateway_event(&self) -> Result<Option<Instant>> {
        let gateway_message = self
            .connection
            .prepare_cached(NEWEST_MESSAGE_OF_ORIGIN)?
            .query_row(named_params! {":origin": Origin::Gateway.as_str()}, |row| {
                row.get(0)
            })
            .optional()?;
        let mut newest = gateway_message;
        for newest_of_table in [NEWEST_EDIT, NEWEST_DELETION, NEWEST_REACTION_EVENT] {
            let at = self
                .connection
                .prepare_cached(newest_of_table)?
                .query_row([], |row| row.get(0))
                .optional()?;
            newest = newest.max(at);
        }
        Ok(newest)
    }

    /// How far one channel is provably complete, and when it was last backfilled.
    pub fn channel_coverage(&self, channel_id: &ChannelId) -> Result<Option<ChannelCoverage>> {
        Ok(self
            .connection
            .prepare_cached(CHANNEL_COVERAGE)?
            .query_row(named_params! {":channel_id": channel_id}, coverage_from_row)
            .optional()?)
    }

    /// Every channel ever backfilled, with its coverage.
    pub fn coverages(&self) -> Result<Vec<ChannelCoverage>> {
        let mut statement = self.connection.prepare_cached(COVERAGES)?;
        let rows = statement.query_map([], coverage_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Whether a backfill of `channel_id` that started at or before message `after` completed
    /// after `since`: what closes a `messages` gap recorded at `since`.
    pub fn backfilled_past(
        &self,
        channel_id: &ChannelId,
        after: u64,
        since: Instant,
    ) -> Result<bool> {
        Ok(self.connection.prepare_cached(BACKFILLED_PAST)?.query_row(
            named_params! {
                ":channel_id": channel_id,
                ":after": to_stored(after),
                ":since": since,
            },
            |row| row.get(0),
        )?)
    }

    /// Whether a `messages` gap of `channel_id` after message `after` is already recorded and
    /// still open (no backfill from at or before it completed since): a backfill that keeps
    /// failing at the same point records its gap once.
    pub fn open_messages_gap(&self, channel_id: &ChannelId, after: u64) -> Result<bool> {
        Ok(self
            .connection
            .prepare_cached(OPEN_GAP_OF_KIND)?
            .query_row(
                named_params! {
                    ":kind": GapKind::Messages.as_str(),
                    ":channel_id": channel_id,
                    ":after": to_stored(after),
                },
                |row| row.get(0),
            )?)
    }

    /// Where the store's record of a channel begins, if the daemon recorded it.
    pub fn channel_beginning(&self, channel_id: &ChannelId) -> Result<Option<ChannelBeginning>> {
        Ok(self
            .connection
            .prepare_cached(CHANNEL_BEGINNING)?
            .query_row(named_params! {":channel_id": channel_id}, |row| {
                Ok(ChannelBeginning {
                    after_message_id: from_stored(row.get(0)?),
                    source: word(row, 1)?,
                })
            })
            .optional()?)
    }

    /// When the store recorded a channel's beginning (the host's clock): when the daemon first
    /// saw the channel.
    pub fn channel_first_seen(&self, channel_id: &ChannelId) -> Result<Option<Instant>> {
        Ok(self
            .connection
            .prepare_cached(CHANNEL_FIRST_SEEN)?
            .query_row(named_params! {":channel_id": channel_id}, |row| row.get(0))
            .optional()?)
    }

    /// The newest reading of Discord's clock, if the daemon ever took one.
    pub fn latest_discord_clock(&self) -> Result<Option<DiscordClockReading>> {
        Ok(self
            .connection
            .prepare_cached(LATEST_DISCORD_CLOCK)?
            .query_row([], |row| {
                Ok(DiscordClockReading {
                    discord_at: row.get(0)?,
                    host_at: row.get(1)?,
                })
            })
            .optional()?)
    }

    /// Every gap ever recorded, oldest first.
    pub fn gaps(&self) -> Result<Vec<GapRecord>> {
        let mut statement = self.connection.prepare_cached(GAPS)?;
        let rows = statement.query_map([], |row| {
            Ok(GapRecord {
                kind: word(row, 0)?,
                channel_id: row.get(1)?,
                from_at: row.get(2)?,
                until_at: row.get(3)?,
                after_message_id: row.get::<_, Option<i64>>(4)?.map(from_stored),
                detail: row.get(5)?,
                created_at: row.get(6)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// How many messages the store holds. Rows are never deleted and `seq` is the rowid, so
    /// the highest `seq` is the count, read in constant time.
    pub fn message_count(&self) -> Result<u64> {
        let count: Option<i64> = self
            .connection
            .prepare_cached(MESSAGE_COUNT)?
            .query_row([], |row| row.get(0))?;
        Ok(count.map_or(0, |count| count.max(0) as u64))
    }

    /// Whether a message with this id is stored.
    pub fn has_message(&self, message_id: &MessageId) -> Result<bool> {
        Ok(self.author_of(message_id)?.is_some())
    }
}

fn coverage_from_row(row: &Row<'_>) -> rusqlite::Result<ChannelCoverage> {
    Ok(ChannelCoverage {
        channel_id: row.get(0)?,
        complete_through: from_stored(row.get(1)?),
        last_backfill_at: row.get(2)?,
    })
}

const INSERT_GATEWAY_EVENT: &str = "INSERT INTO gateway_events (created_at, kind, session_id,
         detail)
     VALUES (:created_at, :kind, :session_id, :detail)";

const INSERT_COVERAGE: &str = "INSERT INTO channel_coverage (created_at, channel_id,
         started_after, complete_through, fetched, stored, reason)
     VALUES (:created_at, :channel_id, :started_after, :complete_through, :fetched, :stored,
         :reason)";

const INSERT_CHANNEL_BEGINNING: &str = "INSERT INTO channel_anchors (created_at, channel_id,
         after_message_id, source)
     VALUES (:created_at, :channel_id, :after_message_id, :source)";

const INSERT_DISCORD_CLOCK_READING: &str = "INSERT INTO discord_clock_readings (created_at,
         discord_at, host_at, host_ahead_ms)
     VALUES (:created_at, :discord_at, :host_at, :host_ahead_ms)";

const INSERT_GAP: &str = "INSERT INTO coverage_gaps (created_at, kind, channel_id, from_at,
         until_at, after_message_id, detail)
     VALUES (:created_at, :kind, :channel_id, :from_at, :until_at, :after_message_id, :detail)";

impl Writer<'_> {
    /// Appends a row to the connection history; returns its arrival instant.
    pub fn record_gateway_event(
        &mut self,
        kind: GatewayEventKind,
        session_id: Option<&str>,
        detail: Option<&str>,
    ) -> Result<Instant> {
        let created_at = self.stamp();
        self.transaction
            .prepare_cached(INSERT_GATEWAY_EVENT)?
            .execute(named_params! {
                ":created_at": created_at,
                ":kind": kind.as_str(),
                ":session_id": session_id,
                ":detail": detail,
            })?;
        Ok(created_at)
    }

    /// Records a completed backfill of one channel.
    pub fn record_coverage(&mut self, coverage: &NewCoverage) -> Result<()> {
        let created_at = self.stamp();
        self.transaction
            .prepare_cached(INSERT_COVERAGE)?
            .execute(named_params! {
                ":created_at": created_at,
                ":channel_id": coverage.channel_id,
                ":started_after": to_stored(coverage.started_after),
                ":complete_through": to_stored(coverage.complete_through),
                ":fetched": coverage.fetched as i64,
                ":stored": coverage.stored as i64,
                ":reason": coverage.reason,
            })?;
        Ok(())
    }

    /// Records where the store's record of a channel begins, unless it is already recorded
    /// (the first sighting wins); returns the beginning in force.
    pub fn record_channel_beginning(
        &mut self,
        channel_id: &ChannelId,
        beginning: ChannelBeginning,
    ) -> Result<ChannelBeginning> {
        if let Some(known) = self.reader().channel_beginning(channel_id)? {
            return Ok(known);
        }
        let created_at = self.stamp();
        self.transaction
            .prepare_cached(INSERT_CHANNEL_BEGINNING)?
            .execute(named_params! {
                ":created_at": created_at,
                ":channel_id": channel_id,
                ":after_message_id": to_stored(beginning.after_message_id),
                ":source": beginning.source.as_str(),
            })?;
        Ok(beginning)
    }

    /// Records a reading of Discord's clock.
    pub fn record_discord_clock(&mut self, reading: DiscordClockReading) -> Result<()> {
        let created_at = self.stamp();
        self.transaction
            .prepare_cached(INSERT_DISCORD_CLOCK_READING)?
            .execute(named_params! {
                ":created_at": created_at,
                ":discord_at": reading.discord_at,
                ":host_at": reading.host_at,
                ":host_ahead_ms": reading.host_ahead_ms(),
            })?;
        Ok(())
    }

    /// Records a gap.
    pub fn record_gap(&mut self, gap: &NewGap) -> Result<()> {
        let created_at = self.stamp();
        self.transaction
            .prepare_cached(INSERT_GAP)?
            .execute(named_params! {
                ":created_at": created_at,
                ":kind": gap.kind.as_str(),
                ":channel_id": gap.channel_id,
                ":from_at": gap.from_at,
                ":until_at": gap.until_at,
                ":after_message_id": gap.after_message_id.map(to_stored),
                ":detail": gap.detail,
            })?;
        Ok(())
    }
}

impl Store {
    /// The bytes the store takes on disk: the database file and its write-ahead log.
    pub fn size_on_disk(&self) -> u64 {
        ["", "-wal"]
            .iter()
            .filter_map(|suffix| {
                let mut path = self.path().as_os_str().to_owned();
                path.push(suffix);
                std::fs::metadata(path).ok().map(|meta| meta.len())
            })
            .sum()
    }
}

#[cfg(test)]
mod tests;
