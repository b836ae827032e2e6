//! `schedules_cancel`: cancels a pending scheduled message; its input, the function and its
//! examples. Its answer is the schedule.

use discord_manager_store::{ScheduleEventDraft, ScheduleEventKind, Store};
use discord_manager_vocabulary::error::{Error, Result};

use crate::business::OwnerContext;
use crate::business::kernel::examples::{Examples, Sample, demo};
use crate::business::schedules::{Schedule, in_scope, view};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// Cancel a scheduled message that has not been sent yet; it will never be sent. A message
/// already sent, failed or cancelled cannot be cancelled.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CancelSchedule {
    /// The scheduled message, as `schedules_add` or `schedules_list` gave its `scheduleId`.
    #[schemars(range(min = 1))]
    pub schedule_id: i64,
}

pub fn cancel_schedule(
    store: &Store,
    input: CancelSchedule,
    context: &OwnerContext,
) -> Result<Schedule> {
    let id = input.schedule_id;
    store.write(|writer| {
        let record = match writer.reader().schedule(id)? {
            Some(record) if in_scope(&writer.reader(), &record, context)? => record,
            _ => {
                return Err(Error::not_found(format!(
                    "`scheduleId`: no scheduled message has id {id}"
                )));
            }
        };
        if let Some(outcome) = record.outcome() {
            return Err(Error::conflict(match outcome.kind {
                ScheduleEventKind::Sent => format!(
                    "Scheduled message {id} was already sent (message {}); it cannot be cancelled",
                    outcome
                        .message_id
                        .map_or("unknown".to_string(), |id| id.to_string())
                ),
                ScheduleEventKind::Failed => format!(
                    "Scheduled message {id} already failed, so it will not be sent: {}",
                    outcome
                        .reason
                        .as_deref()
                        .unwrap_or("no reason was recorded")
                ),
                _ => format!("Scheduled message {id} is already cancelled"),
            }));
        }
        if let Some(latest) = record.latest()
            && latest.kind == ScheduleEventKind::Attempt
        {
            return Err(Error::conflict(format!(
                "Scheduled message {id} is being sent right now (attempt {} started at {}); it \
                 can no longer be cancelled",
                latest.attempt.unwrap_or(1),
                latest.created_at
            )));
        }
        let draft = ScheduleEventDraft {
            source: Some(context.source.as_str()),
            ..ScheduleEventDraft::of(ScheduleEventKind::Cancelled)
        };
        writer.append_schedule_event(id, &draft)?;
        let record = writer
            .reader()
            .schedule(id)?
            .ok_or_else(|| Error::internal(format!("Scheduled message {id} vanished")))?;
        view(&writer.reader(), &record)
    })
}

/// What [`cancel_schedule`] is shown with: the schedule its `add_schedule` demo made.
pub(crate) fn cancel_schedule_examples(sample: &Sample) -> Examples {
    Examples {
        default: Some(json!({"scheduleId": sample.schedule_id})),
        largest: Vec::new(),
        demo: vec![json!({"scheduleId": demo::NEXT_SCHEDULE})],
    }
}
