//! Scheduled messages: the schedule as the owner added it, and its events (attempts, retries,
//! the outcome, a cancellation). The status is derived from the events, never stored.

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId};
use discord_manager_vocabulary::words::word_enum;
use rusqlite::{OptionalExtension, Row, named_params};

use super::words::word;
use super::{Reader, Writer};

/// A schedule to write: what to send, where, when, and the nonce every attempt will carry.
#[derive(Debug, Clone)]
pub struct NewSchedule {
    pub channel_id: ChannelId,
    pub content: String,
    pub reply_to_message_id: Option<MessageId>,
    pub send_at: Instant,
    pub nonce: String,
    pub source: String,
}

word_enum! {
    /// What happened to a schedule.
    pub enum ScheduleEventKind {
        /// The owner approved it in person (the MCP client's form) when an assistant added it,
        /// recorded with the schedule: it may go where the owner's lists alone would not let it.
        Approved = "approved",
        /// An attempt to send started (recorded before the request leaves).
        Attempt = "attempt",
        /// An attempt failed and another will follow.
        Retry = "retry",
        /// Discord created the message. Final.
        Sent = "sent",
        /// Given up. Final.
        Failed = "failed",
        /// The owner cancelled it before it was sent. Final.
        Cancelled = "cancelled",
    }
}

impl ScheduleEventKind {
    /// Whether nothing can follow it.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            ScheduleEventKind::Sent | ScheduleEventKind::Failed | ScheduleEventKind::Cancelled
        )
    }

    /// The final kinds as a JSON array, `["sent","failed","cancelled"]`, bound as
    /// `:final_kinds`: what a schedule that is still pending has none of.
    fn final_kinds_json() -> String {
        let finals: Vec<&str> = ScheduleEventKind::ALL
            .iter()
            .filter(|kind| kind.is_final())
            .map(|kind| kind.as_str())
            .collect();
        serde_json::to_string(&finals).unwrap_or_else(|_| "[]".into())
    }
}

/// One event of a schedule; the fields its kind does not use are None.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleEvent {
    pub kind: ScheduleEventKind,
    pub created_at: Instant,
    pub attempt: Option<u32>,
    pub nonce: Option<String>,
    pub message_id: Option<MessageId>,
    pub reason: Option<String>,
    pub source: Option<String>,
}

/// A schedule with every event recorded for it, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleRecord {
    pub schedule_id: i64,
    pub created_at: Instant,
    pub channel_id: ChannelId,
    pub content: String,
    pub reply_to_message_id: Option<MessageId>,
    pub send_at: Instant,
    pub nonce: String,
    pub source: String,
    pub events: Vec<ScheduleEvent>,
}

impl ScheduleRecord {
    /// The final event, if there is one.
    pub fn outcome(&self) -> Option<&ScheduleEvent> {
        self.events.iter().find(|event| event.kind.is_final())
    }

    /// How many attempts to send it started.
    pub fn attempts(&self) -> u32 {
        self.events
            .iter()
            .filter(|event| event.kind == ScheduleEventKind::Attempt)
            .count() as u32
    }

    /// Whether the owner approved it in person when it was added.
    pub fn approved(&self) -> bool {
        self.events
            .iter()
            .any(|event| event.kind == ScheduleEventKind::Approved)
    }

    /// The newest event, if any.
    pub fn latest(&self) -> Option<&ScheduleEvent> {
        self.events.last()
    }
}

/// The columns [`schedule_from_row`] reads, in its order: a macro, so that statements can
/// `concat!` it.
macro_rules! schedule_columns {
    () => {
        "schedule_id, created_at, channel_id, content, reply_to_message_id, send_at, nonce, source"
    };
}

const SCHEDULE_BY_ID: &str = concat!(
    "SELECT ",
    schedule_columns!(),
    " FROM schedules WHERE schedule_id = :schedule_id"
);

const SCHEDULES_BY_SEND_TIME: &str = concat!(
    "SELECT ",
    schedule_columns!(),
    " FROM schedules ORDER BY send_at, schedule_id"
);

const DUE_SCHEDULES: &str = concat!(
    "SELECT ",
    schedule_columns!(),
    " FROM schedules AS s
     WHERE send_at <= :now
       AND NOT EXISTS (SELECT 1 FROM schedule_events AS e
                       WHERE e.schedule_id = s.schedule_id
                         AND e.kind IN (SELECT value FROM json_each(:final_kinds)))
     ORDER BY send_at, schedule_id"
);

const NEXT_SEND_AT: &str = "SELECT min(send_at) FROM schedules AS s
     WHERE NOT EXISTS (SELECT 1 FROM schedule_events AS e
                       WHERE e.schedule_id = s.schedule_id
                         AND e.kind IN (SELECT value FROM json_each(:final_kinds)))";

const EVENTS_OF_SCHEDULES: &str = "SELECT schedule_id, kind, created_at, attempt, nonce,
         message_id, reason, source
     FROM schedule_events WHERE schedule_id IN (SELECT value FROM json_each(:schedule_ids))
     ORDER BY seq";

const INSERT_SCHEDULE: &str = "INSERT INTO schedules (created_at, channel_id, content,
         reply_to_message_id, send_at, nonce, source)
     VALUES (:created_at, :channel_id, :content, :reply_to_message_id, :send_at, :nonce, :source)";

const INSERT_SCHEDULE_EVENT: &str = "INSERT INTO schedule_events (created_at, schedule_id, kind,
         attempt, nonce, message_id, reason, source)
     VALUES (:created_at, :schedule_id, :kind, :attempt, :nonce, :message_id, :reason, :source)";

fn schedule_from_row(row: &Row<'_>) -> rusqlite::Result<ScheduleRecord> {
    Ok(ScheduleRecord {
        schedule_id: row.get(0)?,
        created_at: row.get(1)?,
        channel_id: row.get(2)?,
        content: row.get(3)?,
        reply_to_message_id: row.get(4)?,
        send_at: row.get(5)?,
        nonce: row.get(6)?,
        source: row.get(7)?,
        events: Vec::new(),
    })
}

fn event_from_row(row: &Row<'_>) -> rusqlite::Result<(i64, ScheduleEvent)> {
    Ok((
        row.get(0)?,
        ScheduleEvent {
            kind: word(row, 1)?,
            created_at: row.get(2)?,
            attempt: row.get(3)?,
            nonce: row.get(4)?,
            message_id: row.get(5)?,
            reason: row.get(6)?,
            source: row.get(7)?,
        },
    ))
}

impl Reader<'_> {
    /// One schedule with its events.
    pub fn schedule(&self, schedule_id: i64) -> Result<Option<ScheduleRecord>> {
        let found = self
            .connection
            .prepare_cached(SCHEDULE_BY_ID)?
            .query_row(
                named_params! {":schedule_id": schedule_id},
                schedule_from_row,
            )
            .optional()?;
        Ok(match found {
            Some(schedule) => self.with_events(vec![schedule])?.pop(),
            None => None,
        })
    }

    /// Every schedule, by `send_at` and then by id, with its events.
    pub fn schedules(&self) -> Result<Vec<ScheduleRecord>> {
        let rows = self
            .connection
            .prepare_cached(SCHEDULES_BY_SEND_TIME)?
            .query_map([], schedule_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        self.with_events(rows)
    }

    /// Schedules without a final event whose `send_at` is at or before `now`, soonest first.
    pub fn due_schedules(&self, now: Instant) -> Result<Vec<ScheduleRecord>> {
        let rows = self
            .connection
            .prepare_cached(DUE_SCHEDULES)?
            .query_map(
                named_params! {
                    ":now": now,
                    ":final_kinds": ScheduleEventKind::final_kinds_json(),
                },
                schedule_from_row,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        self.with_events(rows)
    }

    /// The earliest `send_at` of the schedules without a final event.
    pub fn next_send_at(&self) -> Result<Option<Instant>> {
        Ok(self.connection.prepare_cached(NEXT_SEND_AT)?.query_row(
            named_params! {":final_kinds": ScheduleEventKind::final_kinds_json()},
            |row| row.get(0),
        )?)
    }

    fn with_events(&self, mut schedules: Vec<ScheduleRecord>) -> Result<Vec<ScheduleRecord>> {
        if schedules.is_empty() {
            return Ok(schedules);
        }
        let ids: Vec<i64> = schedules.iter().map(|s| s.schedule_id).collect();
        let ids = serde_json::to_string(&ids).unwrap_or_else(|_| "[]".into());
        let mut statement = self.connection.prepare_cached(EVENTS_OF_SCHEDULES)?;
        let events = statement
            .query_map(named_params! {":schedule_ids": ids}, event_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        for (schedule_id, event) in events {
            if let Some(schedule) = schedules.iter_mut().find(|s| s.schedule_id == schedule_id) {
                schedule.events.push(event);
            }
        }
        Ok(schedules)
    }
}

impl Writer<'_> {
    /// Records a new schedule; the caller has checked that it may be sent.
    pub fn insert_schedule(&mut self, schedule: &NewSchedule) -> Result<ScheduleRecord> {
        let created_at = self.stamp();
        self.transaction.execute(
            INSERT_SCHEDULE,
            named_params! {
                ":created_at": created_at,
                ":channel_id": schedule.channel_id,
                ":content": schedule.content,
                ":reply_to_message_id": schedule.reply_to_message_id,
                ":send_at": schedule.send_at,
                ":nonce": schedule.nonce,
                ":source": schedule.source,
            },
        )?;
        Ok(ScheduleRecord {
            schedule_id: self.transaction.last_insert_rowid(),
            created_at,
            channel_id: schedule.channel_id,
            content: schedule.content.clone(),
            reply_to_message_id: schedule.reply_to_message_id,
            send_at: schedule.send_at,
            nonce: schedule.nonce.clone(),
            source: schedule.source.clone(),
            events: Vec::new(),
        })
    }

    /// Appends an event to a schedule; the caller has checked that it follows from the last.
    pub fn append_schedule_event(
        &mut self,
        schedule_id: i64,
        event: &ScheduleEventDraft<'_>,
    ) -> Result<ScheduleEvent> {
        let created_at = self.stamp();
        self.transaction.execute(
            INSERT_SCHEDULE_EVENT,
            named_params! {
                ":created_at": created_at,
                ":schedule_id": schedule_id,
                ":kind": event.kind.as_str(),
                ":attempt": event.attempt,
                ":nonce": event.nonce,
                ":message_id": event.message_id,
                ":reason": event.reason,
                ":source": event.source,
            },
        )?;
        Ok(ScheduleEvent {
            kind: event.kind,
            created_at,
            attempt: event.attempt,
            nonce: event.nonce.map(str::to_string),
            message_id: event.message_id.cloned(),
            reason: event.reason.map(str::to_string),
            source: event.source.map(str::to_string),
        })
    }
}

/// An event about to be appended: its kind and the fields that kind uses.
#[derive(Debug, Clone, Copy)]
pub struct ScheduleEventDraft<'a> {
    pub kind: ScheduleEventKind,
    pub attempt: Option<u32>,
    pub nonce: Option<&'a str>,
    pub message_id: Option<&'a MessageId>,
    pub reason: Option<&'a str>,
    pub source: Option<&'a str>,
}

impl ScheduleEventDraft<'_> {
    /// An event of this kind with every field empty.
    pub fn of(kind: ScheduleEventKind) -> ScheduleEventDraft<'static> {
        ScheduleEventDraft {
            kind,
            attempt: None,
            nonce: None,
            message_id: None,
            reason: None,
            source: None,
        }
    }
}
