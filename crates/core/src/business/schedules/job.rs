//! The job that sends scheduled messages, kept apart from the capabilities that add, list and
//! cancel them: [`send_due_schedules`] is its body, [`run_schedules`] the loop the ingest daemon
//! runs it in. It is not a capability (ARCHITECTURE.md, "Jobs are not capabilities"): the
//! owner's action is `schedules_add`.
//!
//! Each message goes through the same steps, one function each: whose rules it is checked by
//! ([`on_behalf_of`]), an interrupted attempt too old to retry safely ([`give_up_if_stale`]),
//! the check and the attempt recorded in one transaction ([`begin_attempt`]), and what the
//! post came to ([`record_outcome`]). An attempt is on record before its request leaves, so a
//! daemon that stops mid-send finds it at the next start and retries it with the same nonce.

use std::future::Future;
use std::time::Duration;

use discord_manager_sender::{Delivered, DiscordSender, OutgoingMessage, SendFailure};
use discord_manager_store::{ScheduleEventDraft, ScheduleEventKind, ScheduleRecord, Store, Writer};
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;

use super::{Schedule, view};
use crate::business::OwnerContext;
use crate::business::kernel::approval::Consent;
use crate::business::kernel::context::Source;
use crate::business::kernel::names::named;
use crate::business::kernel::outbox::{self, RetryPolicy};

/// How the daemon retries a scheduled message: five attempts, 10 s after the first failure and
/// doubling, never waiting more than 5 minutes at a time (a longer `retry_after` gives up).
pub const JOB_POLICY: RetryPolicy = RetryPolicy {
    attempts: 5,
    first_backoff: Duration::from_secs(10),
    max_wait: Duration::from_secs(5 * 60),
};

/// How long Discord recognises a nonce it has seen ("the past few minutes", by its
/// documentation; this stays well inside that). An attempt interrupted longer ago than this is
/// not retried: a retry could post the message a second time.
pub(crate) const NONCE_WINDOW_SECONDS: i64 = 2 * 60;

/// How often the daemon's loop looks for schedules another process added.
pub(crate) const LOOK_INTERVAL: Duration = Duration::from_secs(5);

/// The job body: sends every scheduled message due at `now`, one after the other, each with
/// retries by [`JOB_POLICY`], and answers each as it ended (sent, failed, or untouched because
/// it was cancelled meanwhile). An attempt that an earlier run began and never finished (the
/// daemon stopped mid-send) is retried with the same nonce if it began within the window in
/// which Discord recognises that nonce, and given up with the reason otherwise.
pub async fn send_due_schedules(
    store: &Store,
    sender: &dyn DiscordSender,
    context: &OwnerContext,
    now: Instant,
) -> Result<Vec<Schedule>> {
    let due = store.read(|reader| reader.due_schedules(now))?;
    let mut ended = Vec::new();
    for schedule in due {
        if !send_one(store, sender, context, &schedule, now).await? {
            continue;
        }
        ended.push(store.read(|reader| {
            let record = reader.schedule(schedule.schedule_id)?.ok_or_else(|| {
                Error::internal(format!(
                    "Scheduled message {} vanished",
                    schedule.schedule_id
                ))
            })?;
            view(reader, &record)
        })?);
    }
    Ok(ended)
}

/// What to do next with a scheduled message, decided inside one write transaction.
enum Step {
    /// Post it: the attempt (with this number) is recorded.
    Post { attempt: u32, channel_name: String },
    /// Nothing more: it ended (cancelled meanwhile, or given up just now).
    Stop,
    /// Not yet: an assistant's message waits, still pending, until its rate allows it.
    Wait,
}

/// Sends one due message: attempts until it is sent, refused, given up or cancelled, each
/// outcome appended as an event. False when it was left pending, an assistant's message over
/// its rate, to be sent by a later run.
async fn send_one(
    store: &Store,
    sender: &dyn DiscordSender,
    context: &OwnerContext,
    schedule: &ScheduleRecord,
    now: Instant,
) -> Result<bool> {
    let context = &on_behalf_of(context, schedule);
    if give_up_if_stale(store, schedule, now)? {
        return Ok(true);
    }
    let outgoing = OutgoingMessage {
        channel_id: schedule.channel_id,
        content: schedule.content.clone(),
        reply_to_message_id: schedule.reply_to_message_id,
        nonce: schedule.nonce.clone(),
        suppress_embeds: !context.link_previews,
    };
    loop {
        let (attempt, channel_name) =
            match begin_attempt(store, context, schedule.schedule_id, now)? {
                Step::Post {
                    attempt,
                    channel_name,
                } => (attempt, channel_name),
                Step::Stop => return Ok(true),
                Step::Wait => return Ok(false),
            };
        let posted = sender.post_message(&outgoing).await;
        match record_outcome(store, schedule.schedule_id, attempt, &channel_name, posted)? {
            Some(wait) => tokio::time::sleep(wait).await,
            None => return Ok(true),
        }
    }
}

/// The context a scheduled message is checked in when it is due: the rules of whoever
/// scheduled it, though the daemon sends it. An assistant's by an assistant's (the owner may
/// have narrowed DISCORD_MANAGER_SEND_CHANNELS since), the owner's by the owner's.
fn on_behalf_of(context: &OwnerContext, schedule: &ScheduleRecord) -> OwnerContext {
    OwnerContext {
        source: if schedule.source == Source::Mcp.as_str() {
            Source::Mcp
        } else {
            Source::Cli
        },
        ..context.clone()
    }
}

/// Gives the message up, with the reason, when an earlier run's attempt was interrupted longer
/// ago than Discord remembers its nonce: a retry could post it twice. True when it was given up.
fn give_up_if_stale(store: &Store, schedule: &ScheduleRecord, now: Instant) -> Result<bool> {
    let Some(latest) = schedule.latest() else {
        return Ok(false);
    };
    if latest.kind != ScheduleEventKind::Attempt
        || latest.created_at >= now.minus_seconds(NONCE_WINDOW_SECONDS)
    {
        return Ok(false);
    }
    let reason = format!(
        "Sending was interrupted at {} (the daemon stopped), too long ago for Discord to \
         recognise a retry; it is not sent again in case it was posted: check the channel",
        latest.created_at
    );
    append(store, schedule.schedule_id, failed(&reason))?;
    Ok(true)
}

/// Checks the message again and records the next attempt, in one transaction, so a
/// cancellation cannot slip in between and the attempt is on record before the request leaves.
/// A message that no longer passes the checks, or whose attempts are spent (the last one
/// interrupted), is failed here with the reason. An assistant's message is counted toward its
/// rate as it goes out, its first attempt held back while the minute before `now` is full.
fn begin_attempt(store: &Store, context: &OwnerContext, id: i64, now: Instant) -> Result<Step> {
    store.write(|writer| {
        let Some(current) = writer.reader().schedule(id)? else {
            return Ok(Step::Stop);
        };
        if current.outcome().is_some() {
            return Ok(Step::Stop);
        }
        let channel = match check_still_sendable(writer, context, &current) {
            Ok(channel) => channel,
            Err(refusal) => {
                // The reason keeps the refusal's hints: the owner reads it later, in the list.
                writer.append_schedule_event(id, &failed(&refusal.explained().to_string()))?;
                return Ok(Step::Stop);
            }
        };
        let attempt = current.attempts() + 1;
        if context.source == Source::Mcp && attempt == 1 {
            if !outbox::assistant_may_post_now(&writer.reader(), now)? {
                return Ok(Step::Wait);
            }
            writer.record_assistant_send(&channel.channel_id)?;
        }
        if attempt > JOB_POLICY.attempts {
            let reason = format!(
                "Gave up after {} attempts; the last one was interrupted (the daemon stopped): \
                 check {} in case it was posted",
                current.attempts(),
                named(&channel)
            );
            writer.append_schedule_event(id, &failed(&reason))?;
            return Ok(Step::Stop);
        }
        let draft = ScheduleEventDraft {
            attempt: Some(attempt),
            nonce: Some(&current.nonce),
            ..ScheduleEventDraft::of(ScheduleEventKind::Attempt)
        };
        writer.append_schedule_event(id, &draft)?;
        Ok(Step::Post {
            attempt,
            channel_name: named(&channel),
        })
    })
}

/// The checks `messages_send` makes, as of now, for the stored message; the channel it goes to.
fn check_still_sendable(
    writer: &Writer<'_>,
    context: &OwnerContext,
    current: &ScheduleRecord,
) -> Result<discord_manager_store::ChannelRecord> {
    // The owner's yes when it was added stands for it: the daemon cannot ask again.
    outbox::check_sendable(
        &writer.reader(),
        context,
        &current.channel_id,
        &current.content,
        current.reply_to_message_id.as_ref(),
        if current.approved() {
            Consent::Approved
        } else {
            Consent::NotAsked
        },
    )
    .map(|(channel, _)| channel)
}

/// Records what attempt number `attempt` came to: sent, a retry to make after the wait
/// answered, or given up. None when the message is done with.
fn record_outcome(
    store: &Store,
    id: i64,
    attempt: u32,
    channel_name: &str,
    posted: std::result::Result<Delivered, SendFailure>,
) -> Result<Option<Duration>> {
    let failure = match posted {
        Ok(delivered) => {
            // Whatever became of recording the message itself (the gateway delivers it too),
            // the outcome goes on record: from then on it is never sent again.
            let message_id = delivered.message_id;
            let draft = ScheduleEventDraft {
                message_id: Some(&message_id),
                ..ScheduleEventDraft::of(ScheduleEventKind::Sent)
            };
            append(store, id, draft)?;
            if let Some(why) = delivered.unrecorded {
                tracing::warn!(
                    schedule = id,
                    "scheduled message {id} was sent as {message_id} but not recorded: {why}"
                );
            }
            return Ok(None);
        }
        Err(failure) => failure,
    };
    let Some(wait) = JOB_POLICY.wait_after(attempt, &failure) else {
        let reason = JOB_POLICY.gave_up(&failure, attempt, channel_name);
        append(store, id, failed(&reason))?;
        return Ok(None);
    };
    let reason = format!(
        "Attempt {attempt} failed ({}); the next one follows in {} s",
        RetryPolicy::describe(&failure),
        wait.as_secs_f64()
    );
    let draft = ScheduleEventDraft {
        attempt: Some(attempt),
        reason: Some(&reason),
        ..ScheduleEventDraft::of(ScheduleEventKind::Retry)
    };
    append(store, id, draft)?;
    Ok(Some(wait))
}

/// The event that fails a scheduled message, with why.
fn failed(reason: &str) -> ScheduleEventDraft<'_> {
    ScheduleEventDraft {
        reason: Some(reason),
        ..ScheduleEventDraft::of(ScheduleEventKind::Failed)
    }
}

fn append(store: &Store, schedule_id: i64, draft: ScheduleEventDraft<'_>) -> Result<()> {
    store.write(|writer| {
        writer
            .append_schedule_event(schedule_id, &draft)
            .map(|_| ())
    })
}

/// The daemon's scheduler: sends what is due at start-up, then sleeps until the next scheduled
/// message is due (looking every few seconds for ones another process added) and sends it,
/// until `shutdown` completes. Stopping drops whatever it was waiting on: no timer is left.
pub async fn run_schedules(
    store: &Store,
    sender: &dyn DiscordSender,
    context: &OwnerContext,
    shutdown: impl Future<Output = ()>,
) {
    run_schedules_by(store, sender, context, Instant::now, shutdown).await
}

/// [`run_schedules`] on the clock `now`.
pub(crate) async fn run_schedules_by(
    store: &Store,
    sender: &dyn DiscordSender,
    context: &OwnerContext,
    now: impl Fn() -> Instant,
    shutdown: impl Future<Output = ()>,
) {
    let work = async {
        let mut first = true;
        loop {
            match send_due_schedules(store, sender, context, now()).await {
                Ok(ended) if first => tracing::info!(
                    "the scheduler is running: {} scheduled messages were due at start-up",
                    ended.len()
                ),
                Ok(_) => {}
                Err(error) => {
                    tracing::warn!("sending scheduled messages failed: {error:#}")
                }
            }
            first = false;
            let next = store.read(|reader| reader.next_send_at()).unwrap_or(None);
            let current = now();
            let wait = match next {
                Some(at) if at > current => {
                    Duration::from_micros((at.as_micros() - current.as_micros()) as u64)
                        .min(LOOK_INTERVAL)
                }
                _ => LOOK_INTERVAL,
            };
            tokio::time::sleep(wait).await;
        }
    };
    tokio::select! {
        () = work => {}
        () = shutdown => {}
    }
}
