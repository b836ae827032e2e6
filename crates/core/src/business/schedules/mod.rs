//! The schedules toolset: messages to send later. The owner's actions are capabilities:
//! `schedules_add` (in [`add`], checked exactly as `messages_send` checks a message, when it is
//! added), `schedules_list` (in [`list`]) and `schedules_cancel` (in [`cancel`]); here, the
//! schedule they share, with its page and its text. Sending what is due is a job, not a
//! capability, and lives in [`job`]: [`job::send_due_schedules`] is its body and
//! [`job::run_schedules`] the loop the ingest daemon runs it in.
//!
//! Every state change is an appended event, and a job is sent once even when the daemon stops
//! in the middle of sending it: an attempt is recorded (with its nonce) before the request
//! leaves, so at the next start an attempt without an outcome is found and retried with the
//! same nonce and `enforce_nonce`, and Discord answers with the message it already created
//! instead of creating a second one.

pub mod add;
pub mod cancel;
pub mod job;
pub mod list;

use discord_manager_store::{Reader, ScheduleEventKind, ScheduleRecord};
use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId};
use discord_manager_vocabulary::words::word_enum;

use crate::answer::page::{Page, Render, excerpt};
use crate::answer::text::{ModelText, TextBlock};
use crate::business::OwnerContext;
use crate::business::kernel::model::Text;
use crate::business::kernel::untrusted::scrub;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

word_enum! {
    /// Where a scheduled message stands.
    pub enum ScheduleStatus {
        /// Waiting for its instant, or being sent.
        Pending = "pending",
        Sent = "sent",
        Failed = "failed",
        Cancelled = "cancelled",
    }
}

/// A scheduled message and where it stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Schedule {
    pub schedule_id: i64,
    pub status: ScheduleStatus,
    pub channel_id: ChannelId,
    /// The channel's name as last seen (its id if the store never saw it).
    pub channel_name: Text,
    pub content: Text,
    /// The message it answers; absent when it is not a reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_to_message_id: Option<MessageId>,
    /// When it is (or was) to be sent.
    pub send_at: Instant,
    /// When it was scheduled (the store's arrival clock).
    pub created_at: Instant,
    /// Where it was scheduled from: `cli` or `mcp`.
    pub source: String,
    /// How many attempts to send it were made.
    pub attempts: u32,
    /// The message Discord created; absent unless sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<MessageId>,
    /// When it was sent, given up or cancelled (the store's arrival clock); absent while
    /// pending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<Instant>,
    /// Why it failed; for a pending message, why its last attempt failed (it will be
    /// retried); absent when nothing failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Text>,
}

/// How far in the past `sendAt` may be: a client that asks for "now" is a moment late by the
/// time the call arrives; anything older is more likely a mistake than a wish.
pub(crate) const SEND_AT_GRACE_SECONDS: i64 = 5 * 60;

/// How far ahead `sendAt` may be: a year. A message meant for later than that is more likely a
/// typo (or an injected instruction planting a post that outlives everyone's memory of it)
/// than a plan.
pub(crate) const SEND_AT_HORIZON_SECONDS: i64 = 365 * 24 * 60 * 60;

pub(crate) fn view(reader: &Reader<'_>, record: &ScheduleRecord) -> Result<Schedule> {
    let outcome = record.outcome();
    let status = match outcome.map(|event| event.kind) {
        Some(ScheduleEventKind::Sent) => ScheduleStatus::Sent,
        Some(ScheduleEventKind::Failed) => ScheduleStatus::Failed,
        Some(ScheduleEventKind::Cancelled) => ScheduleStatus::Cancelled,
        _ => ScheduleStatus::Pending,
    };
    let reason = match (status, record.latest()) {
        // A reason quotes Discord's answer and channel names: third-party text.
        (ScheduleStatus::Failed, _) => outcome.and_then(|event| {
            event
                .reason
                .as_deref()
                .map(|reason| scrub(reason).into_owned())
        }),
        (ScheduleStatus::Pending, Some(latest)) if latest.kind == ScheduleEventKind::Retry => {
            latest
                .reason
                .as_deref()
                .map(|reason| scrub(reason).into_owned())
        }
        _ => None,
    };
    Ok(Schedule {
        schedule_id: record.schedule_id,
        status,
        channel_name: reader.channel(&record.channel_id)?.map_or_else(
            || Text::new(&record.channel_id.to_string()),
            |channel| Text::from(channel.name),
        ),
        channel_id: record.channel_id,
        content: Text::new(&record.content),
        reply_to_message_id: record.reply_to_message_id,
        send_at: record.send_at,
        created_at: record.created_at,
        source: record.source.clone(),
        attempts: record.attempts(),
        message_id: outcome.and_then(|event| event.message_id),
        finished_at: outcome.map(|event| event.created_at),
        reason: reason.map(Text::from),
    })
}

/// Whether a schedule's channel is in the owner's scope (a channel the store forgot counts).
pub(crate) fn in_scope(
    reader: &Reader<'_>,
    record: &ScheduleRecord,
    context: &OwnerContext,
) -> Result<bool> {
    Ok(match reader.channel(&record.channel_id)? {
        Some(channel) => context.in_scope(channel.guild_id.as_ref()),
        None => true,
    })
}

fn status_text(schedule: &Schedule) -> String {
    match schedule.status {
        ScheduleStatus::Pending => match &schedule.reason {
            Some(reason) => format!("pending (retrying: {})", excerpt(reason, 40)),
            None => "pending".to_string(),
        },
        ScheduleStatus::Sent => format!(
            "sent as {}",
            schedule
                .message_id
                .map_or("unknown".to_string(), |id| id.to_string())
        ),
        ScheduleStatus::Failed => format!(
            "failed: {}",
            schedule.reason.as_deref().unwrap_or("no reason recorded")
        ),
        ScheduleStatus::Cancelled => "cancelled".to_string(),
    }
}

impl Render for Schedule {
    fn render(&self) -> Page {
        format!(
            "Scheduled message {} for {} at {}: {}\n",
            self.schedule_id,
            self.channel_name,
            self.send_at,
            status_text(self)
        )
        .into()
    }
}

fn schedule_line(text: &mut TextBlock, schedule: &Schedule) -> String {
    let mut line = format!(
        "- schedule {} ({}) in {} (channel {}) at {}: {}",
        schedule.schedule_id,
        serde_json::to_value(schedule.status)
            .ok()
            .and_then(|status| status.as_str().map(str::to_string))
            .unwrap_or_default(),
        text.data(&format!("#{}", schedule.channel_name)),
        schedule.channel_id,
        schedule.send_at,
        text.data(&schedule.content)
    );
    if let Some(reply) = &schedule.reply_to_message_id {
        let _ = write!(line, " [reply to {reply}]");
    }
    if let Some(message) = &schedule.message_id {
        let _ = write!(line, " [sent as msg {message}]");
    }
    if let Some(reason) = &schedule.reason {
        let _ = write!(line, " [{}]", text.data(reason));
    }
    line
}

impl ModelText for Schedule {
    fn write_text(&self, text: &mut TextBlock) {
        let line = schedule_line(text, self);
        text.line(&line);
    }
}

#[cfg(test)]
mod tests;
