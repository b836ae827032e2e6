//! Unit tests of `schedules`, kept beside it so the production file reads on its own.

use std::time::Duration;

use discord_manager_playback::world::{
    Answer, SEND, ScriptedDiscord, VIEW, World, dispatch, new_id,
};
use discord_manager_sender::SendFailure;
use discord_manager_store::Store;
use discord_manager_vocabulary::error::ErrorKind;
use serde_json::json;

use super::job::{NONCE_WINDOW_SECONDS, run_schedules_by};
use super::*;
use crate::business::Source;

use crate::business::messages::send::{SendMessage, send_message};
use crate::business::schedules::add::AddSchedule;
use crate::business::schedules::add::add_schedule_at;
use crate::business::schedules::cancel::CancelSchedule;
use crate::business::schedules::cancel::cancel_schedule;
use crate::business::schedules::job::send_due_schedules;
use crate::business::schedules::list::ListSchedules;
use crate::business::schedules::list::list_schedules;
use crate::test_fixtures::WorldContext;

/// `schedules_add` as of now, without asking the owner.
fn add_schedule(store: &Store, input: AddSchedule, context: &OwnerContext) -> Result<Schedule> {
    add_schedule_at(store, input, context, Instant::now())
}

fn id<Id: std::str::FromStr>(text: impl std::fmt::Display) -> Id {
    discord_manager_playback::world::id(text)
}

fn adding(channel: impl std::fmt::Display, content: &str, send_at: Instant) -> AddSchedule {
    AddSchedule {
        channel_id: id(channel),
        content: content.to_string(),
        send_at,
        reply_to_message_id: None,
    }
}

/// Schedules (any state) whose content is `content`.
fn rows_with(world: &World, content: &str) -> usize {
    world
        .store
        .read(|reader| reader.schedules())
        .unwrap()
        .iter()
        .filter(|schedule| schedule.content == content)
        .count()
}

fn schedule(world: &World, schedule_id: i64) -> Schedule {
    world
        .store
        .read(|reader| view(reader, &reader.schedule(schedule_id)?.unwrap()))
        .unwrap()
}

fn kinds(world: &World, schedule_id: i64) -> Vec<ScheduleEventKind> {
    world
        .store
        .read(|reader| reader.schedule(schedule_id))
        .unwrap()
        .unwrap()
        .events
        .iter()
        .map(|event| event.kind)
        .collect()
}

/// When the schedule's first event (its first attempt, in these tests) was recorded.
fn first_event_at(world: &World, schedule_id: i64) -> Instant {
    world
        .store
        .read(|reader| reader.schedule(schedule_id))
        .unwrap()
        .unwrap()
        .events[0]
        .created_at
}

fn cancel(world: &World, schedule_id: i64) -> Result<Schedule> {
    let context = OwnerContext {
        source: Source::Mcp,
        ..world.sending_context()
    };
    cancel_schedule(&world.store, CancelSchedule { schedule_id }, &context)
}

/// Adds a schedule due at `send_at` in a fresh channel of `world`; answers (channel, id).
fn due(world: &World, content: &str, send_at: Instant) -> (ChannelId, i64) {
    let channel = world.channel("general");
    let added = add_schedule_at(
        &world.store,
        adding(channel, content, send_at),
        &world.sending_context(),
        send_at,
    )
    .unwrap();
    (channel, added.schedule_id)
}

#[tokio::test]
async fn adding_validates_everything_sending_validates_at_once_in_the_same_words() {
    let world = World::new();
    let context = world.sending_context();
    let now = Instant::now();
    let general = world.channel("general");
    let muted = world.channel_with(
        "muted",
        json!([{"id": world.guild_id, "type": 0, "allow": "0", "deny": SEND.to_string()}]),
    );
    let hidden = world.channel_with(
        "hidden",
        json!([{"id": world.guild_id, "type": 0, "allow": "0", "deny": VIEW.to_string()}]),
    );
    let missing = new_id();
    let deleted = world.post(general, "7", "gone", json!({}));
    world.delete(general, deleted);
    let tokenless = world.context();
    let read_only = OwnerContext {
        read_only: true,
        ..context.clone()
    };
    let outside = OwnerContext {
        send_channel_ids: Some(vec![muted]),
        ..context.clone()
    };
    let case = |context, channel, tag, reply_to, kind, message: String| Refusal {
        context,
        channel,
        tag,
        reply_to,
        kind,
        message,
    };
    let cases = vec![
        case(
            &tokenless,
            general.to_string(),
            "a",
            None,
            ErrorKind::Denied,
            "Sending needs the bot's token: set DISCORD_TOKEN".into(),
        ),
        case(
            &read_only,
            general.to_string(),
            "b",
            None,
            ErrorKind::Denied,
            "Sending is turned off: DISCORD_MANAGER_READ_ONLY is 1".into(),
        ),
        case(
            &context,
            general.to_string(),
            "   ",
            None,
            ErrorKind::Input,
            "`content` must not be blank: Discord refuses a message of only spaces".into(),
        ),
        case(
            &context,
            missing.clone(),
            "c",
            None,
            ErrorKind::NotFound,
            format!("`channelId`: no channel with id {missing} is in the store"),
        ),
        case(
            &outside,
            general.to_string(),
            "d",
            None,
            ErrorKind::Denied,
            format!(
                "Sending to channel {general} is denied: it is not in DISCORD_MANAGER_SEND_CHANNELS"
            ),
        ),
        case(
            &context,
            muted.to_string(),
            "e",
            None,
            ErrorKind::Denied,
            format!("The bot cannot send in channel {muted}: Send Messages is denied"),
        ),
        case(
            &context,
            hidden.to_string(),
            "f",
            None,
            ErrorKind::Denied,
            format!(
                "The bot cannot send in channel {hidden}: it cannot view the channel (View Channel is denied)"
            ),
        ),
        case(
            &context,
            general.to_string(),
            "g",
            Some(missing.clone()),
            ErrorKind::NotFound,
            format!("`replyToMessageId`: no stored message of channel {general} has id {missing}"),
        ),
        case(
            &context,
            general.to_string(),
            "h",
            Some(deleted.to_string()),
            ErrorKind::Conflict,
            format!("Message {deleted} was deleted: a reply needs a message that still exists"),
        ),
    ];
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    for refusal in cases {
        // A unique content to look for afterwards (blank content is never stored anyway).
        let content = if refusal.tag.trim().is_empty() {
            refusal.tag.to_string()
        } else {
            format!("{} {}", refusal.tag, new_id())
        };
        let input = AddSchedule {
            reply_to_message_id: refusal.reply_to.clone().map(id),
            ..adding(&refusal.channel, &content, now.plus_seconds(60))
        };
        let error = add_schedule_at(&world.store, input, refusal.context, now).unwrap_err();
        assert_eq!(error.message(), refusal.message);
        assert_eq!(error.kind(), refusal.kind, "{}", refusal.message);
        assert_eq!(
            rows_with(&world, &content),
            0,
            "no row for: {}",
            refusal.message
        );
        // messages_send refuses the same message in the same words.
        let send = SendMessage {
            channel_id: id(refusal.channel),
            content: content.clone(),
            reply_to_message_id: refusal.reply_to.map(id),
        };
        let sent = send_message(&world.store, send, refusal.context, Some(&discord)).await;
        assert_eq!(sent.unwrap_err(), error);
    }
    assert_eq!(discord.requests().len(), 0);
}

/// One refusal both `schedules_add` and `messages_send` must give.
struct Refusal<'a> {
    context: &'a OwnerContext,
    channel: String,
    tag: &'a str,
    reply_to: Option<String>,
    kind: ErrorKind,
    message: String,
}

#[test]
fn send_at_may_be_up_to_five_minutes_past_and_not_a_microsecond_more() {
    let world = World::new();
    let channel = world.channel("general");
    let now = Instant::now();
    let edge = now.minus_seconds(SEND_AT_GRACE_SECONDS);
    let content = format!("edge {}", new_id());
    let added = add_schedule_at(
        &world.store,
        adding(channel, &content, edge),
        &world.sending_context(),
        now,
    )
    .unwrap();
    assert_eq!(added.send_at, edge);
    assert_eq!(added.status, ScheduleStatus::Pending);
    assert_eq!(
        rows_with(&world, &content),
        1,
        "the count sees a written row"
    );
    let late = format!("late {}", new_id());
    let error = add_schedule_at(
        &world.store,
        adding(channel, &late, edge.plus_micros(-1)),
        &world.sending_context(),
        now,
    )
    .unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            "`sendAt` is {}, more than 5 minutes ago: give an instant to come, or use \
             messages_send to send now",
            edge.plus_micros(-1)
        )
    );
    assert_eq!(error.kind(), ErrorKind::Input);
    assert_eq!(rows_with(&world, &late), 0);
}

#[test]
fn send_at_may_be_up_to_a_year_ahead_and_not_a_microsecond_more() {
    let world = World::new();
    let channel = world.channel("general");
    let now = Instant::now();
    let edge = now.plus_seconds(SEND_AT_HORIZON_SECONDS);
    let content = format!("next year {}", new_id());
    let added = add_schedule_at(
        &world.store,
        adding(channel, &content, edge),
        &world.sending_context(),
        now,
    )
    .unwrap();
    assert_eq!(added.send_at, edge);
    let far = format!("year 9999 {}", new_id());
    let error = add_schedule_at(
        &world.store,
        adding(channel, &far, edge.plus_micros(1)),
        &world.sending_context(),
        now,
    )
    .unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            "`sendAt` is {}, more than a year ahead: give an instant within the next 365 days",
            edge.plus_micros(1)
        )
    );
    assert_eq!(error.kind(), ErrorKind::Input);
    assert_eq!(rows_with(&world, &far), 0);
}

#[tokio::test]
async fn what_an_assistant_scheduled_is_sent_by_an_assistants_rules_when_it_is_due() {
    let world = World::alone();
    let now = Instant::now();
    let channel = world.channel("general");
    let assistant = OwnerContext {
        source: Source::Mcp,
        send_channel_ids: Some(vec![channel]),
        ..world.sending_context()
    };
    let unlisted = OwnerContext {
        send_channel_ids: None,
        ..assistant.clone()
    };
    let error = add_schedule_at(
        &world.store,
        adding(channel, "not yet allowed", now),
        &unlisted,
        now,
    )
    .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Denied);
    assert_eq!(rows_with(&world, "not yet allowed"), 0);
    let by_assistant = add_schedule_at(
        &world.store,
        adding(channel, "by the assistant", now),
        &assistant,
        now,
    )
    .unwrap();
    let by_owner = add_schedule_at(
        &world.store,
        adding(channel, "by the owner", now),
        &world.sending_context(),
        now,
    )
    .unwrap();
    // The owner has since emptied the list the daemon runs with.
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    send_due_schedules(&world.store, &discord, &world.sending_context(), now)
        .await
        .unwrap();
    let sent: Vec<String> = discord
        .requests()
        .iter()
        .map(|request| request.message.content.clone())
        .collect();
    assert_eq!(sent, ["by the owner"]);
    assert!(discord.requests()[0].message.suppress_embeds);
    let failed = schedule(&world, by_assistant.schedule_id);
    assert_eq!(failed.status, ScheduleStatus::Failed);
    assert_eq!(
        failed.reason.as_deref(),
        Some(
            "An assistant may not post: no channel is allowed for it\nHint: To allow some, list \
             their ids in DISCORD_MANAGER_SEND_CHANNELS (comma-separated) and restart the MCP \
             server\nHint: `discord-manager send` from the terminal is not limited by it"
        )
    );
    assert_eq!(
        schedule(&world, by_owner.schedule_id).status,
        ScheduleStatus::Sent
    );
}

/// An assistant's scheduled messages are checked against its rate again as they go out: queued
/// for one minute, they post at most 5 in any minute with its other posts, and the rest wait,
/// still pending, for the minute to pass. The owner's are not held back.
#[tokio::test(start_paused = true)]
async fn an_assistants_scheduled_messages_wait_when_its_posts_of_the_last_minute_are_at_the_cap() {
    let world = World::alone();
    let now = Instant::now();
    let channel = world.channel("general");
    let assistant = OwnerContext {
        source: Source::Mcp,
        send_channel_ids: Some(vec![channel]),
        ..world.sending_context()
    };
    let scheduled: Vec<i64> = ["first", "second", "third"]
        .iter()
        .map(|content| {
            add_schedule_at(&world.store, adding(channel, content, now), &assistant, now)
                .unwrap()
                .schedule_id
        })
        .collect();
    let by_owner = add_schedule_at(
        &world.store,
        adding(channel, "the owner's", now),
        &world.sending_context(),
        now,
    )
    .unwrap();
    // Another MCP server's assistant posted four messages just now.
    for _ in 0..4 {
        world
            .store
            .write(|writer| writer.record_assistant_send(&channel))
            .unwrap();
    }
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let sent = |discord: &ScriptedDiscord| -> Vec<String> {
        discord
            .requests()
            .iter()
            .map(|request| request.message.content.clone())
            .collect()
    };
    let ended = send_due_schedules(&world.store, &discord, &assistant, now)
        .await
        .unwrap();
    assert_eq!(sent(&discord), ["first", "the owner's"]);
    assert_eq!(ended.len(), 2);
    for waiting in &scheduled[1..] {
        assert_eq!(schedule(&world, *waiting).status, ScheduleStatus::Pending);
        assert_eq!(kinds(&world, *waiting), Vec::<ScheduleEventKind>::new());
    }
    assert_eq!(
        schedule(&world, by_owner.schedule_id).status,
        ScheduleStatus::Sent
    );
    // Still inside the minute: nothing more goes.
    send_due_schedules(&world.store, &discord, &assistant, now.plus_seconds(59))
        .await
        .unwrap();
    assert_eq!(sent(&discord).len(), 2);
    // A minute after the last of them, the two waiting go out, once each.
    let later = world
        .store
        .read(|reader| reader.schedule(scheduled[0]))
        .unwrap()
        .unwrap()
        .events[0]
        .created_at
        .plus_seconds(60)
        .plus_micros(1);
    send_due_schedules(&world.store, &discord, &assistant, later)
        .await
        .unwrap();
    assert_eq!(sent(&discord), ["first", "the owner's", "second", "third"]);
    for id in &scheduled {
        assert_eq!(schedule(&world, *id).status, ScheduleStatus::Sent);
    }
}

#[test]
fn adding_records_the_schedule_with_its_source_and_lists_it_pending() {
    let world = World::new();
    let channel = world.channel("releases");
    let asked = world.post(channel, "7", "when is the freeze?", json!({}));
    let send_at = Instant::now().plus_seconds(3600);
    let context = OwnerContext {
        source: Source::Mcp,
        send_channel_ids: Some(vec![channel]),
        ..world.sending_context()
    };
    let input = AddSchedule {
        reply_to_message_id: Some(id(asked)),
        ..adding(channel, "Freeze starts now.", send_at)
    };
    let added = add_schedule(&world.store, input, &context).unwrap();
    assert_eq!(added.status, ScheduleStatus::Pending);
    assert_eq!(added.channel_name, "releases");
    assert_eq!(added.source, "mcp");
    assert_eq!(added.reply_to_message_id.as_ref(), Some(&asked));
    assert_eq!(added.attempts, 0);
    assert_eq!(added.message_id, None);
    assert_eq!(added.finished_at, None);
    let listed = list_schedules(&world.store, ListSchedules::default(), &world.context())
        .unwrap()
        .schedules;
    assert_eq!(listed, vec![added]);
}

#[test]
fn listing_filters_by_status_and_leaves_out_other_guilds() {
    let world = World::new();
    let channel = world.channel("general");
    let later = Instant::now().plus_seconds(3600);
    let context = world.sending_context();
    let first = add_schedule(&world.store, adding(channel, "one", later), &context).unwrap();
    let second = add_schedule(
        &world.store,
        adding(channel, "two", later.plus_seconds(1)),
        &context,
    )
    .unwrap();
    cancel(&world, second.schedule_id).unwrap();
    let elsewhere = World::new();
    let theirs = elsewhere.channel("theirs");
    add_schedule(
        &elsewhere.store,
        adding(theirs, "not yours", later),
        &elsewhere.sending_context(),
    )
    .unwrap();
    let list = |status| {
        list_schedules(
            &world.store,
            ListSchedules {
                status,
                ..ListSchedules::default()
            },
            &world.context(),
        )
        .unwrap()
        .schedules
        .iter()
        .map(|schedule| schedule.schedule_id)
        .collect::<Vec<_>>()
    };
    assert_eq!(list(None), vec![first.schedule_id, second.schedule_id]);
    assert_eq!(list(Some(ScheduleStatus::Pending)), vec![first.schedule_id]);
    assert_eq!(
        list(Some(ScheduleStatus::Cancelled)),
        vec![second.schedule_id]
    );
    assert_eq!(list(Some(ScheduleStatus::Sent)), Vec::<i64>::new());
}

#[test]
fn cancelling_appends_an_event_with_its_source_and_only_once() {
    let world = World::new();
    let channel = world.channel("general");
    let added = add_schedule(
        &world.store,
        adding(channel, "maybe", Instant::now().plus_seconds(60)),
        &world.sending_context(),
    )
    .unwrap();
    let cancelled = cancel(&world, added.schedule_id).unwrap();
    assert_eq!(cancelled.status, ScheduleStatus::Cancelled);
    let events = world
        .store
        .read(|reader| reader.schedule(added.schedule_id))
        .unwrap()
        .unwrap()
        .events;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].kind, ScheduleEventKind::Cancelled);
    assert_eq!(events[0].source.as_deref(), Some("mcp"));
    assert_eq!(cancelled.finished_at, Some(events[0].created_at));
    let error = cancel(&world, added.schedule_id).unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            "Scheduled message {} is already cancelled",
            added.schedule_id
        )
    );
    assert_eq!(error.kind(), ErrorKind::Conflict);
    assert_eq!(kinds(&world, added.schedule_id).len(), 1);
}

#[test]
fn an_unknown_or_foreign_schedule_is_not_found_by_its_id() {
    let world = World::new();
    let error = cancel(&world, i64::MAX).unwrap_err();
    assert_eq!(
        error.message(),
        format!("`scheduleId`: no scheduled message has id {}", i64::MAX)
    );
    assert_eq!(error.kind(), ErrorKind::NotFound);
    let elsewhere = World::new();
    let theirs = elsewhere.channel("theirs");
    let foreign = add_schedule(
        &elsewhere.store,
        adding(theirs, "not yours", Instant::now().plus_seconds(60)),
        &elsewhere.sending_context(),
    )
    .unwrap();
    let error = cancel(&world, foreign.schedule_id).unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            "`scheduleId`: no scheduled message has id {}",
            foreign.schedule_id
        )
    );
    assert_eq!(
        schedule(&elsewhere, foreign.schedule_id).status,
        ScheduleStatus::Pending
    );
}

#[tokio::test]
async fn a_sent_or_failed_schedule_cannot_be_cancelled() {
    let world = World::alone();
    let now = Instant::now();
    let (_, sent) = due(&world, "goes out", now);
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    send_due_schedules(&world.store, &discord, &world.sending_context(), now)
        .await
        .unwrap();
    let message_id = schedule(&world, sent).message_id.unwrap();
    let error = cancel(&world, sent).unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            "Scheduled message {sent} was already sent (message {message_id}); it cannot be cancelled"
        )
    );
    assert_eq!(error.kind(), ErrorKind::Conflict);
    let (failed_channel, failed) = due(&world, "refused", now);
    discord.then(vec![Answer::Fail(SendFailure::Refused {
        status: 403,
        code: Some(50013),
        message: "Missing Permissions".into(),
    })]);
    send_due_schedules(&world.store, &discord, &world.sending_context(), now)
        .await
        .unwrap();
    let error = cancel(&world, failed).unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            "Scheduled message {failed} already failed, so it will not be sent: Discord \
             refused to let the bot post in channel {failed_channel}: Missing Permissions (403, code 50013); \
             nothing was sent"
        )
    );
}

#[tokio::test(start_paused = true)]
async fn a_due_message_is_sent_once_and_recorded_through_the_gateways_recorder() {
    let world = World::alone();
    let now = Instant::now();
    let (channel, scheduled) = due(&world, "standup in 5", now);
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let ended = send_due_schedules(&world.store, &discord, &world.sending_context(), now)
        .await
        .unwrap();
    assert_eq!(ended.len(), 1);
    let sent = &ended[0];
    assert_eq!(sent.status, ScheduleStatus::Sent);
    assert_eq!(sent.attempts, 1);
    let message_id = sent.message_id.unwrap();
    let message = world
        .store
        .read(|reader| reader.message(&message_id))
        .unwrap()
        .unwrap();
    assert_eq!(message.current_content(), "standup in 5");
    assert_eq!(message.channel_id, channel);
    assert_eq!(message.guild_id.as_ref(), Some(&world.guild_id));
    let requests = discord.requests();
    assert_eq!(requests.len(), 1);
    let record = world
        .store
        .read(|reader| reader.schedule(scheduled))
        .unwrap()
        .unwrap();
    assert_eq!(requests[0].message.nonce, record.nonce);
    assert_eq!(
        record.events[0].nonce.as_deref(),
        Some(record.nonce.as_str())
    );
    assert_eq!(
        kinds(&world, scheduled),
        vec![ScheduleEventKind::Attempt, ScheduleEventKind::Sent]
    );
    // Nothing is due any more: a second run sends nothing.
    send_due_schedules(&world.store, &discord, &world.sending_context(), now)
        .await
        .unwrap();
    assert_eq!(discord.requests().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_message_due_in_a_microsecond_is_not_sent_yet() {
    let world = World::alone();
    let now = Instant::now();
    let (_, scheduled) = due(&world, "not yet", now.plus_micros(1));
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let ended = send_due_schedules(&world.store, &discord, &world.sending_context(), now)
        .await
        .unwrap();
    assert_eq!(ended.len(), 0);
    assert_eq!(discord.requests().len(), 0);
    send_due_schedules(
        &world.store,
        &discord,
        &world.sending_context(),
        now.plus_micros(1),
    )
    .await
    .unwrap();
    assert_eq!(schedule(&world, scheduled).status, ScheduleStatus::Sent);
}

#[tokio::test(start_paused = true)]
async fn retries_back_off_exponentially_honouring_retry_after_then_send_once() {
    let world = World::alone();
    let now = Instant::now();
    let (_, scheduled) = due(&world, "eventually", now);
    let unavailable = || {
        Answer::Fail(SendFailure::Unavailable {
            reason: "503 Service Unavailable".into(),
        })
    };
    let discord = ScriptedDiscord::new(
        &world.store,
        vec![
            unavailable(),
            unavailable(),
            Answer::Fail(SendFailure::RateLimited {
                retry_after: Duration::from_secs(60),
            }),
            unavailable(),
        ],
    );
    send_due_schedules(&world.store, &discord, &world.sending_context(), now)
        .await
        .unwrap();
    let at: Vec<u64> = discord.requests().iter().map(|r| r.at.as_secs()).collect();
    // Waits of 10 s, 20 s, then 60 s (Discord's retry_after beats the 40 s backoff), 80 s.
    assert_eq!(at, vec![0, 10, 30, 90, 170]);
    assert!(
        discord
            .requests()
            .iter()
            .all(|r| r.message == discord.requests()[0].message)
    );
    assert_eq!(discord.created(), 1);
    let sent = schedule(&world, scheduled);
    assert_eq!(sent.status, ScheduleStatus::Sent);
    assert_eq!(sent.attempts, 5);
    use ScheduleEventKind::{Attempt, Retry, Sent};
    assert_eq!(
        kinds(&world, scheduled),
        vec![
            Attempt, Retry, Attempt, Retry, Attempt, Retry, Attempt, Retry, Attempt, Sent
        ]
    );
    let record = world
        .store
        .read(|reader| reader.schedule(scheduled))
        .unwrap()
        .unwrap();
    assert_eq!(
        record.events[5].reason.as_deref(),
        Some(
            "Attempt 3 failed (Discord rate limited the bot for 60 s); the next one follows in 60 s"
        )
    );
}

#[tokio::test(start_paused = true)]
async fn it_gives_up_after_five_attempts_and_records_why() {
    let world = World::alone();
    let now = Instant::now();
    let (channel, scheduled) = due(&world, "never", now);
    let unavailable = || {
        Answer::Fail(SendFailure::Unavailable {
            reason: "503 Service Unavailable".into(),
        })
    };
    let discord = ScriptedDiscord::new(&world.store, (0..6).map(|_| unavailable()).collect());
    let started = tokio::time::Instant::now();
    send_due_schedules(&world.store, &discord, &world.sending_context(), now)
        .await
        .unwrap();
    assert_eq!(started.elapsed(), Duration::from_secs(10 + 20 + 40 + 80));
    assert_eq!(discord.requests().len(), 5);
    let failed = schedule(&world, scheduled);
    assert_eq!(failed.status, ScheduleStatus::Failed);
    assert_eq!(
        failed.reason.as_deref(),
        Some(&*format!(
            "Discord did not confirm the message after 5 attempts (503 Service Unavailable): check channel {channel} before sending it again"
        ))
    );
    // A later run does not try again.
    send_due_schedules(&world.store, &discord, &world.sending_context(), now)
        .await
        .unwrap();
    assert_eq!(discord.requests().len(), 5);
}

#[tokio::test(start_paused = true)]
async fn a_fifth_attempt_interrupted_by_a_restart_is_not_followed_by_a_sixth() {
    let world = World::alone();
    let now = Instant::now();
    let (channel, scheduled) = due(&world, "five at most", now);
    let unavailable = || {
        Answer::Fail(SendFailure::Unavailable {
            reason: "503 Service Unavailable".into(),
        })
    };
    let mut script: Vec<Answer> = (0..4).map(|_| unavailable()).collect();
    script.push(Answer::Hang);
    let discord = ScriptedDiscord::new(&world.store, script);
    let interrupted = tokio::time::timeout(
        Duration::from_secs(200),
        send_due_schedules(&world.store, &discord, &world.sending_context(), now),
    )
    .await;
    assert!(interrupted.is_err(), "the fifth attempt never finished");
    assert_eq!(discord.requests().len(), 5);
    send_due_schedules(&world.store, &discord, &world.sending_context(), now)
        .await
        .unwrap();
    assert_eq!(discord.requests().len(), 5, "no sixth attempt");
    let failed = schedule(&world, scheduled);
    assert_eq!(failed.status, ScheduleStatus::Failed);
    assert_eq!(
        failed.reason.as_deref(),
        Some(&*format!(
            "Gave up after 5 attempts; the last one was interrupted (the daemon stopped): check channel {channel} in case it was posted"
        ))
    );
}

#[tokio::test(start_paused = true)]
async fn a_refusal_or_an_overlong_retry_after_fails_it_at_once() {
    let world = World::alone();
    let now = Instant::now();
    let (refused_channel, refused) = due(&world, "refused", now);
    let (_, limited) = due(&world, "limited", now);
    let discord = ScriptedDiscord::new(
        &world.store,
        vec![
            Answer::Fail(SendFailure::Refused {
                status: 404,
                code: Some(10003),
                message: "Unknown Channel".into(),
            }),
            Answer::Fail(SendFailure::RateLimited {
                retry_after: Duration::from_secs(301),
            }),
        ],
    );
    let started = tokio::time::Instant::now();
    send_due_schedules(&world.store, &discord, &world.sending_context(), now)
        .await
        .unwrap();
    assert_eq!(started.elapsed(), Duration::ZERO);
    assert_eq!(discord.requests().len(), 2);
    assert_eq!(
        schedule(&world, refused).reason.as_deref(),
        Some(&*format!(
            "Discord does not know channel {refused_channel}: Unknown Channel (404, code 10003); nothing was sent"
        ))
    );
    assert_eq!(
        schedule(&world, limited).reason.as_deref(),
        Some(
            "Discord is rate limiting the bot and asked to wait 301 s, more than the 300 s a send may wait; nothing was sent: try again later"
        )
    );
}

#[tokio::test(start_paused = true)]
async fn what_changed_since_it_was_scheduled_is_checked_again_before_sending() {
    let world = World::alone();
    let now = Instant::now();
    let (channel, lost) = due(&world, "lost permission", now);
    dispatch(
        &world.store,
        "CHANNEL_UPDATE",
        world.channel_payload(
            channel,
            "general",
            0,
            None,
            json!([{"id": world.guild_id, "type": 0, "allow": "0", "deny": SEND.to_string()}]),
        ),
    );
    let (_, turned_off) = due(&world, "read only now", now);
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    send_due_schedules(&world.store, &discord, &world.sending_context(), now)
        .await
        .unwrap();
    assert_eq!(
        schedule(&world, lost).reason.as_deref(),
        Some(&*format!(
            "The bot cannot send in channel {channel}: Send Messages is denied"
        ))
    );
    assert_eq!(schedule(&world, lost).attempts, 0);
    let read_only = OwnerContext {
        read_only: true,
        ..world.sending_context()
    };
    // `turned_off` was sent above; schedule one more and turn sending off.
    assert_eq!(schedule(&world, turned_off).status, ScheduleStatus::Sent);
    let (_, later) = due(&world, "after read-only", now);
    send_due_schedules(&world.store, &discord, &read_only, now)
        .await
        .unwrap();
    assert_eq!(
        schedule(&world, later).reason.as_deref(),
        Some("Sending is turned off: DISCORD_MANAGER_READ_ONLY is 1")
    );
    assert_eq!(discord.requests().len(), 1, "only `turned_off` was posted");
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_message_is_never_sent() {
    let world = World::alone();
    let now = Instant::now();
    let (_, scheduled) = due(&world, "called off", now.plus_seconds(60));
    cancel(&world, scheduled).unwrap();
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    send_due_schedules(
        &world.store,
        &discord,
        &world.sending_context(),
        now.plus_seconds(60),
    )
    .await
    .unwrap();
    assert_eq!(discord.requests().len(), 0);
    assert_eq!(
        schedule(&world, scheduled).status,
        ScheduleStatus::Cancelled
    );
}

#[tokio::test(start_paused = true)]
async fn a_message_cancelled_while_the_daemon_is_busy_with_another_is_not_sent() {
    let world = World::alone();
    let now = Instant::now();
    let (_, first) = due(&world, "first", now);
    let (_, second) = due(&world, "second", now);
    // The first waits 10 s for its retry; the owner cancels the second meanwhile, after
    // the job has already found both due.
    let discord = ScriptedDiscord::new(
        &world.store,
        vec![Answer::Fail(SendFailure::Unavailable {
            reason: "503 Service Unavailable".into(),
        })],
    );
    let context = world.sending_context();
    let job = send_due_schedules(&world.store, &discord, &context, now);
    let owner = async {
        tokio::time::sleep(Duration::from_secs(5)).await;
        cancel(&world, second).unwrap();
    };
    let (ended, ()) = tokio::join!(job, owner);
    let ended = ended.unwrap();
    assert_eq!(ended.len(), 2);
    assert_eq!(schedule(&world, first).status, ScheduleStatus::Sent);
    assert_eq!(schedule(&world, second).status, ScheduleStatus::Cancelled);
    let contents: Vec<String> = discord
        .requests()
        .iter()
        .map(|request| request.message.content.clone())
        .collect();
    assert_eq!(contents, vec!["first", "first"]);
}

#[tokio::test(start_paused = true)]
async fn a_message_is_sent_once_across_a_restart_in_the_middle_of_sending_it() {
    let world = World::alone();
    let now = Instant::now();
    let (channel, scheduled) = due(&world, "exactly once", now);
    // Discord creates the message, but the daemon dies before the answer arrives.
    let discord = ScriptedDiscord::new(&world.store, vec![Answer::CreateThenHang]);
    let interrupted = tokio::time::timeout(
        Duration::from_secs(30),
        send_due_schedules(&world.store, &discord, &world.sending_context(), now),
    )
    .await;
    assert!(interrupted.is_err(), "the first run never finished");
    assert_eq!(kinds(&world, scheduled), vec![ScheduleEventKind::Attempt]);
    assert_eq!(schedule(&world, scheduled).status, ScheduleStatus::Pending);
    // While an attempt is out, it cannot be cancelled.
    let error = cancel(&world, scheduled).unwrap_err();
    let attempt_at = first_event_at(&world, scheduled);
    assert_eq!(
        error.message(),
        format!(
            "Scheduled message {scheduled} is being sent right now (attempt 1 started at {attempt_at}); it can no longer be cancelled"
        )
    );
    // The restarted daemon opens the store again and finds the attempt without an outcome.
    let store = world.reopened_store();
    let ended = send_due_schedules(&store, &discord, &world.sending_context(), now)
        .await
        .unwrap();
    let requests = discord.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].message, requests[1].message, "the same nonce");
    assert_eq!(discord.created(), 1, "Discord answered with the original");
    assert_eq!(ended[0].status, ScheduleStatus::Sent);
    assert_eq!(ended[0].attempts, 2);
    let in_channel = store
        .read(|reader| {
            reader.channel_messages_since(
                &discord_manager_playback::world::id(channel),
                Instant::from_micros(0),
                10,
            )
        })
        .unwrap();
    assert_eq!(in_channel.len(), 1);
    assert_eq!(
        Some(&in_channel[0].message_id),
        ended[0].message_id.as_ref()
    );
    // And a third start sends nothing.
    send_due_schedules(&store, &discord, &world.sending_context(), now)
        .await
        .unwrap();
    assert_eq!(discord.requests().len(), 2);
}

#[tokio::test(start_paused = true)]
async fn an_attempt_interrupted_longer_ago_than_discord_remembers_a_nonce_is_not_retried() {
    let world = World::alone();
    let now = Instant::now();
    let (_, inside) = due(&world, "inside the window", now);
    let discord = ScriptedDiscord::new(&world.store, vec![Answer::Hang]);
    let _ = tokio::time::timeout(
        Duration::from_secs(1),
        send_due_schedules(&world.store, &discord, &world.sending_context(), now),
    )
    .await;
    let attempt_at = first_event_at(&world, inside);
    // Exactly at the window's edge: retried with the same nonce.
    let edge = attempt_at.plus_seconds(NONCE_WINDOW_SECONDS);
    send_due_schedules(&world.store, &discord, &world.sending_context(), edge)
        .await
        .unwrap();
    assert_eq!(schedule(&world, inside).status, ScheduleStatus::Sent);
    assert_eq!(discord.requests().len(), 2);

    let (_, outside) = due(&world, "outside the window", now);
    discord.then(vec![Answer::Hang]);
    let _ = tokio::time::timeout(
        Duration::from_secs(1),
        send_due_schedules(&world.store, &discord, &world.sending_context(), now),
    )
    .await;
    let attempt_at = first_event_at(&world, outside);
    let past = attempt_at.plus_seconds(NONCE_WINDOW_SECONDS).plus_micros(1);
    send_due_schedules(&world.store, &discord, &world.sending_context(), past)
        .await
        .unwrap();
    assert_eq!(discord.requests().len(), 3, "no retry");
    let failed = schedule(&world, outside);
    assert_eq!(failed.status, ScheduleStatus::Failed);
    assert_eq!(
        failed.reason,
        Some(Text::from(format!(
            "Sending was interrupted at {attempt_at} (the daemon stopped), too long ago for \
             Discord to recognise a retry; it is not sent again in case it was posted: check \
             the channel"
        )))
    );
}

/// A clock that starts at the wall clock and then moves only with tokio's (virtual) time.
fn virtual_clock() -> impl Fn() -> Instant {
    let wall = Instant::now();
    let start = tokio::time::Instant::now();
    move || wall.plus_micros(start.elapsed().as_micros() as i64)
}

#[tokio::test(start_paused = true)]
async fn the_scheduler_sends_each_message_at_its_instant_and_what_was_due_at_start_up_once() {
    let world = World::alone();
    let clock = virtual_clock();
    let start = clock();
    let (_, overdue) = due(&world, "due before start-up", start);
    let (_, later) = due(&world, "due in 90 s", start.plus_seconds(90));
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let context = world.sending_context();
    let scheduler = run_schedules_by(&world.store, &discord, &context, clock, async {
        let _ = stopped.await;
    });
    let driver = async {
        tokio::time::sleep(Duration::from_secs(600)).await;
        stop.send(()).unwrap();
    };
    tokio::join!(scheduler, driver);
    let at: Vec<Duration> = discord.requests().iter().map(|r| r.at).collect();
    assert_eq!(at, vec![Duration::ZERO, Duration::from_secs(90)]);
    assert_eq!(schedule(&world, overdue).status, ScheduleStatus::Sent);
    assert_eq!(schedule(&world, later).status, ScheduleStatus::Sent);
}

#[tokio::test(start_paused = true)]
async fn shutdown_ends_the_scheduler_at_once_and_leaves_no_timer_behind() {
    let world = World::alone();
    let clock = virtual_clock();
    let start = clock();
    let (_, scheduled) = due(&world, "in an hour", start.plus_seconds(3600));
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let context = world.sending_context();
    let began = tokio::time::Instant::now();
    // 102 s is not a multiple of the 5 s look interval: the scheduler is mid-sleep.
    let scheduler = async {
        run_schedules_by(&world.store, &discord, &context, virtual_clock(), async {
            let _ = stopped.await;
        })
        .await;
        began.elapsed()
    };
    let driver = async {
        tokio::time::sleep(Duration::from_secs(102)).await;
        stop.send(()).unwrap();
    };
    let (ended_at, ()) = tokio::join!(scheduler, driver);
    assert_eq!(
        ended_at,
        Duration::from_secs(102),
        "it did not wait for its sleep to end"
    );
    assert_eq!(
        tokio::runtime::Handle::current()
            .metrics()
            .num_alive_tasks(),
        0,
        "nothing was left running"
    );
    // Time passes well beyond the message's instant: nothing is sent any more.
    tokio::time::sleep(Duration::from_secs(7200)).await;
    assert_eq!(discord.requests().len(), 0);
    assert_eq!(schedule(&world, scheduled).status, ScheduleStatus::Pending);
}

#[tokio::test(start_paused = true)]
async fn shutdown_during_a_backoff_leaves_the_message_pending_and_the_next_start_resumes_it() {
    let world = World::alone();
    let clock = virtual_clock();
    let (_, scheduled) = due(&world, "resumed", clock());
    let discord = ScriptedDiscord::new(
        &world.store,
        vec![Answer::Fail(SendFailure::Unavailable {
            reason: "502 Bad Gateway".into(),
        })],
    );
    let context = world.sending_context();
    run_schedules_by(
        &world.store,
        &discord,
        &context,
        clock,
        tokio::time::sleep(Duration::from_secs(5)),
    )
    .await;
    let pending = schedule(&world, scheduled);
    assert_eq!(pending.status, ScheduleStatus::Pending);
    assert_eq!(
        pending.reason.as_deref(),
        Some(
            "Attempt 1 failed (Discord did not answer: 502 Bad Gateway); the next one follows in 10 s"
        )
    );
    assert_eq!(discord.requests().len(), 1);
    let store = world.reopened_store();
    run_schedules_by(
        &store,
        &discord,
        &context,
        virtual_clock(),
        tokio::time::sleep(Duration::from_secs(1)),
    )
    .await;
    let sent = schedule(&world, scheduled);
    assert_eq!(sent.status, ScheduleStatus::Sent);
    assert_eq!(sent.attempts, 2);
    assert_eq!(discord.requests()[1].message, discord.requests()[0].message);
}
