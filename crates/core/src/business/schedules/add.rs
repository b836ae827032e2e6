//! `schedules_add`: a message to send later, checked as a send is when it is added; its input,
//! the function and its examples. Its answer is the schedule.

use discord_manager_store::{NewSchedule, ScheduleEventDraft, ScheduleEventKind, Store, Writer};
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId};

use crate::business::OwnerContext;
use crate::business::kernel::approval::{ApprovalRequest, Checked, Clearance, Consent, PostKind};
use crate::business::kernel::examples::{Examples, Sample, demo, from_now, long_text};
use crate::business::kernel::{approval, outbox};
use crate::business::schedules::{SEND_AT_GRACE_SECONDS, SEND_AT_HORIZON_SECONDS, Schedule, view};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// Schedule a message to be posted as the owner's bot at an instant, optionally as a reply;
/// the ingest daemon sends it when it is due, retrying if Discord is busy, and never twice. It
/// is checked now exactly as `messages_send` checks a message (sending allowed, the channel
/// known and open to the bot and, for an assistant, listed in DISCORD_MANAGER_SEND_CHANNELS,
/// the message replied to in that channel) and again when it is sent; an assistant's schedules
/// count towards its 5 posts a minute. Use `schedules_list` to follow it and `schedules_cancel`
/// to call it off. Like a post, it may wait for the owner's yes in the MCP client's form
/// instead of being refused outside the list; the yes stands when it is sent.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AddSchedule {
    /// The channel or thread to post in.
    pub channel_id: ChannelId,
    /// What to say: 1 to 2000 characters, not only spaces (Discord's markdown applies).
    #[schemars(length(min = 1, max = 2000))]
    pub content: String,
    /// When to send it: at most a year ahead. An instant up to 5 minutes in the past is
    /// accepted and sent at once.
    pub send_at: Instant,
    /// Post it as a reply to this message of the same channel. Default: not a reply.
    pub reply_to_message_id: Option<MessageId>,
}

pub async fn add_schedule(
    store: &Store,
    input: AddSchedule,
    context: &OwnerContext,
) -> Result<Schedule> {
    let now = Instant::now();
    check_send_at(context, &input, now)?;
    approval::cleared(store, context, |writer, consent| {
        checked_schedule(writer, &input, context, Instant::now(), consent)
    })
    .await
}

/// [`add_schedule`] as of `now`, without asking the owner (the owner's own, and tests').
#[cfg(test)]
pub(crate) fn add_schedule_at(
    store: &Store,
    input: AddSchedule,
    context: &OwnerContext,
    now: Instant,
) -> Result<Schedule> {
    check_send_at(context, &input, now)?;
    match store.write(|writer| checked_schedule(writer, &input, context, now, Consent::NotAsked))? {
        Checked::Cleared(schedule) => Ok(schedule),
        Checked::Ask(_) => Err(Error::internal(
            "This schedule needs the owner's approval, and there is no way to ask them",
        )),
    }
}

/// The checks of a schedule that need no store: sending allowed, the content, `sendAt`.
fn check_send_at(context: &OwnerContext, input: &AddSchedule, now: Instant) -> Result<()> {
    outbox::check_may_send(context, Consent::NotAsked)?;
    outbox::check_content(&input.content)?;
    if input.send_at < now.minus_seconds(SEND_AT_GRACE_SECONDS) {
        return Err(Error::input(format!(
            "`sendAt` is {}, more than 5 minutes ago: give an instant to come, or use \
             messages_send to send now",
            input.send_at
        )));
    }
    if input.send_at > now.plus_seconds(SEND_AT_HORIZON_SECONDS) {
        return Err(Error::input(format!(
            "`sendAt` is {}, more than a year ahead: give an instant within the next 365 days",
            input.send_at
        )));
    }
    Ok(())
}

/// A schedule's checks in the store, and the schedule added once they clear (with the owner's
/// approval on record when they gave it), in one transaction.
fn checked_schedule(
    writer: &mut Writer<'_>,
    input: &AddSchedule,
    context: &OwnerContext,
    now: Instant,
    consent: Consent,
) -> Result<Checked<Schedule>> {
    let (channel, clearance) = outbox::check_sendable(
        &writer.reader(),
        context,
        &input.channel_id,
        &input.content,
        input.reply_to_message_id.as_ref(),
        consent,
    )?;
    // The schedule row itself is what counts it.
    outbox::check_assistant_rate(&writer.reader(), context, now)?;
    if let Clearance::AskOwner(reason) = clearance {
        return Ok(Checked::Ask(ApprovalRequest {
            kind: PostKind::Schedule,
            reason,
            channel_id: channel.channel_id,
            channel_name: channel.name,
            content: input.content.clone(),
            message_id: input.reply_to_message_id,
            send_at: Some(input.send_at),
        }));
    }
    let record = writer.insert_schedule(&NewSchedule {
        channel_id: channel.channel_id,
        content: input.content.clone(),
        reply_to_message_id: input.reply_to_message_id,
        send_at: input.send_at,
        nonce: outbox::new_nonce(),
        source: context.source.as_str().to_string(),
    })?;
    if consent == Consent::Approved {
        writer.append_schedule_event(
            record.schedule_id,
            &ScheduleEventDraft::of(ScheduleEventKind::Approved),
        )?;
    }
    let record = writer
        .reader()
        .schedule(record.schedule_id)?
        .unwrap_or(record);
    Ok(Checked::Cleared(view(&writer.reader(), &record)?))
}

/// What [`add_schedule`] is shown with: a line tomorrow, and the longest reply in a hundred
/// days.
pub(crate) fn add_schedule_examples(sample: &Sample) -> Examples {
    Examples {
        default: Some(
            json!({"channelId": sample.channel, "content": "Retro at 4pm",
                             "sendAt": from_now(86_400)}),
        ),
        largest: vec![
            json!({"channelId": sample.channel, "content": long_text(2000),
                             "sendAt": from_now(100 * 86_400),
                             "replyToMessageId": sample.message}),
        ],
        demo: vec![
            json!({"channelId": demo::RELEASES, "content": "Release retro at 15:00 UTC.",
                          "sendAt": from_now(3600)}),
        ],
    }
}
