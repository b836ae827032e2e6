//! `messages_send` (`business::messages::send::send_message`) over the real store, with a recording
//! stand-in for Discord: every refusal is checked with its exact message, with no request made and
//! no row written.

use std::sync::Arc;
use std::time::Duration;

use discord_manager_ingest::Recorded;
use discord_manager_playback::world::{
    Answer, BOT_ID, SEND, SEND_IN_THREADS, ScriptedDiscord, VIEW, World, dispatch, new_id,
};
use discord_manager_store::Store;
use discord_manager_vocabulary::error::ErrorKind;
use serde_json::json;

use super::*;
use crate::business::kernel::model::Message;
use crate::business::messages::send::{SendMessage, send_message};
use crate::test_fixtures::WorldContext;

fn id<Id: std::str::FromStr>(text: impl std::fmt::Display) -> Id {
    discord_manager_playback::world::id(text)
}

fn input(channel: impl std::fmt::Display, content: &str, reply_to: Option<&str>) -> SendMessage {
    SendMessage {
        channel_id: id(channel),
        content: content.to_string(),
        reply_to_message_id: reply_to.map(id),
    }
}

async fn send(
    world: &World,
    discord: &ScriptedDiscord,
    context: &OwnerContext,
    input: SendMessage,
) -> Result<Message> {
    send_message(
        &world.store,
        input,
        context,
        Some(discord as &dyn DiscordSender),
    )
    .await
}

/// Every stored message of a channel whose content is `content`.
fn stored(store: &Store, channel: impl std::fmt::Display, content: &str) -> usize {
    store
        .read(|reader| {
            reader.channel_messages_since(
                &discord_manager_playback::world::id(channel),
                Instant::from_micros(0),
                500,
            )
        })
        .unwrap()
        .iter()
        .filter(|message| message.original_content == content)
        .count()
}

/// Refused with exactly this message and kind; nothing was requested and nothing stored.
async fn assert_refused(
    world: &World,
    context: &OwnerContext,
    input: SendMessage,
    kind: ErrorKind,
    message: &str,
) {
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let channel = input.channel_id.to_string();
    let content = input.content.clone();
    let error = send(world, &discord, context, input).await.unwrap_err();
    assert_eq!(error.explained().to_string(), message);
    assert_eq!(error.kind(), kind, "{message}");
    assert_eq!(discord.requests().len(), 0, "no request for: {message}");
    assert_eq!(stored(&world.store, &channel, &content), 0);
}

#[tokio::test]
async fn sends_a_reply_and_records_it_once_even_when_the_gateway_echoes_it() {
    let world = World::new();
    let channel = world.channel("general");
    let asked = world.post(channel, world.owner_id, "who has the keys?", json!({}));
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let sent = send(
        &world,
        &discord,
        &world.sending_context(),
        input(channel, "I do", Some(&asked.to_string())),
    )
    .await
    .unwrap();
    assert_eq!(sent.body.author_id, BOT_ID);
    assert_eq!(sent.body.content, "I do");
    assert_eq!(sent.channel_id, channel);
    assert_eq!(sent.guild_id.as_ref(), Some(&world.guild_id));
    assert_eq!(sent.body.reply_to_message_id.as_ref(), Some(&asked));
    assert_eq!(
        sent.body.author_kind,
        crate::business::kernel::model::AuthorKind::ThisBot
    );
    let requests = discord.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].message,
        OutgoingMessage {
            channel_id: channel,
            content: "I do".into(),
            reply_to_message_id: Some(asked),
            nonce: requests[0].message.nonce.clone(),
            suppress_embeds: true,
        }
    );
    assert!(requests[0].message.nonce.len() <= 25);
    // The gateway delivers the same message, as Discord created it (embeds suppressed): a
    // replay.
    let echo = world.message_payload(
        sent.body.message_id,
        channel,
        BOT_ID,
        "I do",
        json!({"flags": 4}),
    );
    assert_eq!(
        dispatch(&world.store, "MESSAGE_CREATE", echo),
        Recorded::AlreadyKnown
    );
    assert_eq!(stored(&world.store, channel, "I do"), 1);
    let origin = world
        .store
        .read(|reader| reader.message(&sent.body.message_id))
        .unwrap()
        .unwrap();
    assert_eq!(origin.created_at, sent.body.created_at);
}

#[tokio::test]
async fn content_of_2000_characters_is_sent_and_2001_is_refused() {
    let world = World::new();
    let channel = world.channel("general");
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let longest = "é".repeat(2000);
    send(
        &world,
        &discord,
        &world.sending_context(),
        input(channel, &longest, None),
    )
    .await
    .unwrap();
    assert_refused(
        &world,
        &world.sending_context(),
        input(channel, &"é".repeat(2001), None),
        ErrorKind::Input,
        "`content` must be text of 1 to 2000 characters; got text of 2001 characters",
    )
    .await;
}

#[tokio::test]
async fn the_capability_gate_refuses_before_anything_else() {
    let world = World::new();
    let channel = world.channel("general");
    let content = format!("gate {}", new_id());
    assert_refused(
        &world,
        &world.context(),
        input(channel, &content, None),
        ErrorKind::Denied,
        "Sending needs the bot's token: set DISCORD_TOKEN",
    )
    .await;
    let read_only = OwnerContext {
        read_only: true,
        ..world.sending_context()
    };
    assert_refused(
        &world,
        &read_only,
        input(channel, &content, None),
        ErrorKind::Denied,
        "Sending is turned off: DISCORD_MANAGER_READ_ONLY is 1",
    )
    .await;
    // The gate comes first: even blank content in an unknown channel reads as denied.
    assert_refused(
        &world,
        &read_only,
        input(new_id(), "   ", None),
        ErrorKind::Denied,
        "Sending is turned off: DISCORD_MANAGER_READ_ONLY is 1",
    )
    .await;
}

#[tokio::test]
async fn blank_content_is_refused() {
    let world = World::new();
    let channel = world.channel("general");
    assert_refused(
        &world,
        &world.sending_context(),
        input(channel, " \n\t ", None),
        ErrorKind::Input,
        "`content` must not be blank: Discord refuses a message of only spaces",
    )
    .await;
}

#[tokio::test]
async fn the_channel_must_be_stored_alive_and_in_scope() {
    let world = World::new();
    let context = world.sending_context();
    let missing = new_id();
    assert_refused(
        &world,
        &context,
        input(&missing, "hello", None),
        ErrorKind::NotFound,
        &format!("`channelId`: no channel with id {missing} is in the store"),
    )
    .await;
    let gone = world.channel("gone");
    dispatch(
        &world.store,
        "CHANNEL_DELETE",
        world.channel_payload(gone, "gone", 0, None, json!([])),
    );
    assert_refused(
        &world,
        &context,
        input(gone, "hello", None),
        ErrorKind::NotFound,
        &format!("`channelId`: channel {gone} was deleted"),
    )
    .await;
    let elsewhere = World::new();
    let foreign = elsewhere.channel("theirs");
    assert_refused(
        &world,
        &context,
        input(foreign, "hello", None),
        ErrorKind::Denied,
        &format!("Channel {foreign} is outside the guilds in scope (DISCORD_GUILD_IDS)"),
    )
    .await;
}

#[tokio::test]
async fn sending_is_limited_to_discord_manager_send_channels_and_their_threads() {
    let world = World::new();
    let allowed = world.channel_with(
        "allowed",
        json!([{"id": world.guild_id, "type": 0, "allow": SEND_IN_THREADS.to_string(), "deny": "0"}]),
    );
    let other = world.channel("other");
    let thread = world.thread(allowed, "allowed thread");
    let context = OwnerContext {
        send_channel_ids: Some(vec![allowed]),
        ..world.sending_context()
    };
    assert_refused(
        &world,
        &context,
        input(other, "hello", None),
        ErrorKind::Denied,
        &format!(
            "Sending to channel {other} is denied: it is not in DISCORD_MANAGER_SEND_CHANNELS"
        ),
    )
    .await;
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    send(
        &world,
        &discord,
        &context,
        input(allowed, "in the channel", None),
    )
    .await
    .unwrap();
    send(
        &world,
        &discord,
        &context,
        input(thread, "in its thread", None),
    )
    .await
    .unwrap();
    assert_eq!(discord.requests().len(), 2);
}

/// A category in DISCORD_MANAGER_SEND_CHANNELS allows none of its channels (the owner may add
/// channels to it later without meaning to allow them); the refusal says why.
#[tokio::test]
async fn a_category_in_the_send_list_allows_none_of_its_channels_and_the_refusal_says_why() {
    let world = World::new();
    let category = fresh_category(&world, "ops");
    let inside = new_id();
    dispatch(
        &world.store,
        "CHANNEL_CREATE",
        world.channel_payload(&inside, "ops-chat", 0, Some(&category), json!([])),
    );
    let context = OwnerContext {
        send_channel_ids: Some(vec![discord_manager_playback::world::id(category.clone())]),
        ..world.sending_context()
    };
    assert_refused(
        &world,
        &context,
        input(&inside, "hello", None),
        ErrorKind::Denied,
        &format!(
            "Sending to channel {inside} is denied: it is not in DISCORD_MANAGER_SEND_CHANNELS (its \
             category {category} is, but a category allows none of its channels: list each \
             channel's id)"
        ),
    )
    .await;
    // Listed itself, the channel in the category takes the post.
    let context = OwnerContext {
        send_channel_ids: Some(vec![
            discord_manager_playback::world::id(category.clone()),
            discord_manager_playback::world::id(inside.clone()),
        ]),
        ..world.sending_context()
    };
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    send(&world, &discord, &context, input(&inside, "listed", None))
        .await
        .unwrap();
    assert_eq!(discord.requests().len(), 1);
}

/// A category channel of `world`'s guild, and its id.
fn fresh_category(world: &World, name: &str) -> String {
    let id = new_id();
    dispatch(
        &world.store,
        "CHANNEL_CREATE",
        world.channel_payload(&id, name, 4, None, json!([])),
    );
    id
}

/// An assistant's context: MCP, allowed to post in `allowed` (None: the variable unset).
fn assistant(world: &World, allowed: Option<&[&ChannelId]>) -> OwnerContext {
    OwnerContext {
        source: Source::Mcp,
        send_channel_ids: allowed.map(|ids| ids.iter().map(id).collect()),
        ..world.sending_context()
    }
}

#[tokio::test]
async fn an_assistant_may_not_post_until_the_owner_lists_channels_though_the_cli_may() {
    let world = World::alone();
    let general = world.channel("general");
    assert_refused(
        &world,
        &assistant(&world, None),
        input(general, "forwarding #incidents here", None),
        ErrorKind::Denied,
        "An assistant may not post: no channel is allowed for it\nHint: To allow some, list \
         their ids in DISCORD_MANAGER_SEND_CHANNELS (comma-separated) and restart the MCP \
         server\nHint: `discord-manager send` from the terminal is not limited by it",
    )
    .await;
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    send(
        &world,
        &discord,
        &world.sending_context(),
        input(general, "typed by the owner", None),
    )
    .await
    .unwrap();
    send(
        &world,
        &discord,
        &assistant(&world, Some(&[&general])),
        input(general, "listed", None),
    )
    .await
    .unwrap();
    assert_eq!(discord.requests().len(), 2);
    let other = world.channel("other");
    assert_refused(
        &world,
        &assistant(&world, Some(&[&general])),
        input(other, "not listed", None),
        ErrorKind::Denied,
        &format!(
            "Sending to channel {other} is denied: it is not in DISCORD_MANAGER_SEND_CHANNELS"
        ),
    )
    .await;
}

#[tokio::test]
async fn posts_suppress_link_previews_unless_the_owner_turns_them_on() {
    let world = World::new();
    let general = world.channel("general");
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let link = "see https://example.invalid/?q=secret";
    send(
        &world,
        &discord,
        &world.sending_context(),
        input(general, link, None),
    )
    .await
    .unwrap();
    let previews = OwnerContext {
        link_previews: true,
        ..world.sending_context()
    };
    send(&world, &discord, &previews, input(general, link, None))
        .await
        .unwrap();
    let suppressed: Vec<bool> = discord
        .requests()
        .iter()
        .map(|request| request.message.suppress_embeds)
        .collect();
    assert_eq!(suppressed, [true, false]);
}

#[tokio::test]
async fn a_direct_message_channel_is_refused_unless_the_owner_allows_direct_messages() {
    let world = // A store of its own: a direct message is in no guild, so every other test's
    // catch-up of the shared store would see it.
    World::alone();
    let (direct, _) = world.direct_message("7", "forward #incidents to this DM", json!({}));
    let context = OwnerContext {
        send_channel_ids: Some(vec![direct]),
        ..world.sending_context()
    };
    for context in [
        context.clone(),
        OwnerContext {
            source: Source::Mcp,
            ..context.clone()
        },
    ] {
        assert_refused(
            &world,
            &context,
            input(direct, "here you go", None),
            ErrorKind::Denied,
            &format!(
                "Channel {direct} is a direct message, out of scope: set \
                 DISCORD_MANAGER_ALLOW_DMS=1 to read and send direct messages"
            ),
        )
        .await;
    }
    let allowed = OwnerContext {
        allow_dms: true,
        ..context
    };
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    send(&world, &discord, &allowed, input(direct, "hello", None))
        .await
        .unwrap();
    assert_eq!(discord.requests().len(), 1);
}

#[tokio::test]
async fn an_assistant_posts_at_most_five_times_a_minute_counting_schedules_and_the_cli_is_not_capped()
 {
    use crate::business::schedules::add::{AddSchedule, add_schedule_at};
    let add_schedule =
        |store, input, context| add_schedule_at(store, input, context, Instant::now());
    let world = World::alone();
    let general = world.channel("general");
    let context = assistant(&world, Some(&[&general]));
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    for n in 0..4 {
        send(
            &world,
            &discord,
            &context,
            input(general, &format!("post {n}"), None),
        )
        .await
        .unwrap();
    }
    let later = AddSchedule {
        channel_id: id(general),
        content: "the fifth, scheduled".into(),
        send_at: Instant::now().plus_seconds(3600),
        reply_to_message_id: None,
    };
    add_schedule(&world.store, later.clone(), &context).unwrap();
    let cap = "An assistant may post at most 5 messages a minute (sends, edits and \
               schedules together), and that many were started in the last minute; nothing was sent: \
               wait a minute, or send it from the terminal with `discord-manager send`";
    assert_refused(
        &world,
        &context,
        input(general, "the sixth", None),
        ErrorKind::Denied,
        cap,
    )
    .await;
    let error = add_schedule(&world.store, later, &context).unwrap_err();
    assert_eq!(error.message(), cap);
    send(
        &world,
        &discord,
        &world.sending_context(),
        input(general, "the owner's", None),
    )
    .await
    .unwrap();
    assert_eq!(discord.requests().len(), 5);
}

#[test]
fn the_cap_counts_the_minute_before_now_inclusively() {
    let world = World::alone();
    let general = world.channel("general");
    let context = assistant(&world, Some(&[&general]));
    let mut first = None;
    for _ in 0..ASSISTANT_POSTS_PER_MINUTE {
        let at = world
            .store
            .write(|writer| writer.record_assistant_send(&general))
            .unwrap();
        first.get_or_insert(at);
    }
    let first = first.unwrap();
    let check = |now: Instant| {
        world
            .store
            .read(|reader| check_assistant_rate(reader, &context, now))
    };
    assert_eq!(
        check(first.plus_seconds(60)).unwrap_err().kind(),
        ErrorKind::Denied
    );
    assert!(check(first.plus_seconds(60).plus_micros(1)).is_ok());
    let owner = world.sending_context();
    assert!(
        world
            .store
            .read(|reader| check_assistant_rate(reader, &owner, first))
            .is_ok()
    );
}

#[tokio::test]
async fn a_channel_that_takes_no_messages_is_refused() {
    let world = World::new();
    let category = new_id();
    dispatch(
        &world.store,
        "CHANNEL_CREATE",
        world.channel_payload(&category, "projects", 4, None, json!([])),
    );
    assert_refused(
        &world,
        &world.sending_context(),
        input(&category, "hello", None),
        ErrorKind::Input,
        &format!("`channelId` names channel {category}, a category: messages go to a text channel or a thread"),
    )
    .await;
}

#[tokio::test]
async fn the_bot_must_be_allowed_to_send_there() {
    let world = World::new();
    let context = world.sending_context();
    let everyone = |allow: u64, deny: u64| json!([{"id": world.guild_id, "type": 0, "allow": allow.to_string(), "deny": deny.to_string()}]);
    let hidden = world.channel_with("hidden", everyone(SEND, VIEW));
    assert_refused(
        &world,
        &context,
        input(hidden, "hello", None),
        ErrorKind::Denied,
        &format!("The bot cannot send in channel {hidden}: it cannot view the channel (View Channel is denied)"),
    )
    .await;
    let muted = world.channel_with("muted", everyone(0, SEND));
    assert_refused(
        &world,
        &context,
        input(muted, "hello", None),
        ErrorKind::Denied,
        &format!("The bot cannot send in channel {muted}: Send Messages is denied"),
    )
    .await;
    // The test guild grants Send Messages but not Send Messages in Threads.
    let parent = world.channel("general");
    let thread = world.thread(parent, "rollout");
    assert_refused(
        &world,
        &context,
        input(thread, "hello", None),
        ErrorKind::Denied,
        &format!("The bot cannot send in thread {thread}: Send Messages in Threads is denied"),
    )
    .await;
    dispatch(&world.store, "GUILD_DELETE", json!({"id": world.guild_id}));
    assert_refused(
        &world,
        &context,
        input(parent, "hello", None),
        ErrorKind::Denied,
        &format!("The bot cannot send in channel {parent}: it is no longer in that guild"),
    )
    .await;
}

#[tokio::test]
async fn the_reply_target_must_be_a_stored_live_message_of_that_channel() {
    let world = World::new();
    let context = world.sending_context();
    let general = world.channel("general");
    let other = world.channel("other");
    let elsewhere = world.post(other, "7", "over there", json!({}));
    assert_refused(
        &world,
        &context,
        input(general, "hello", Some(&elsewhere.to_string())),
        ErrorKind::NotFound,
        &format!("`replyToMessageId`: no stored message of channel {general} has id {elsewhere}"),
    )
    .await;
    let missing = new_id();
    assert_refused(
        &world,
        &context,
        input(general, "hello", Some(&missing)),
        ErrorKind::NotFound,
        &format!("`replyToMessageId`: no stored message of channel {general} has id {missing}"),
    )
    .await;
    let deleted = world.post(general, "7", "soon gone", json!({}));
    world.delete(general, deleted);
    assert_refused(
        &world,
        &context,
        input(general, "hello", Some(&deleted.to_string())),
        ErrorKind::Conflict,
        &format!("Message {deleted} was deleted: a reply needs a message that still exists"),
    )
    .await;
}

#[tokio::test]
async fn without_a_discord_client_a_checked_send_says_so() {
    let world = World::new();
    let channel = world.channel("general");
    let error = send_message(
        &world.store,
        input(channel, "hello", None),
        &world.sending_context(),
        None,
    )
    .await
    .unwrap_err();
    assert_eq!(
        error.message(),
        "Sending is not available: no Discord client was set up for it"
    );
    assert_eq!(stored(&world.store, channel, "hello"), 0);
}

/// Discord refuses a post to a fresh channel: that channel, the error, how many requests.
async fn refused_by_discord(status: u16, code: u64, message: &str) -> (ChannelId, Error, usize) {
    let world = World::new();
    let channel = world.channel("general");
    let discord = ScriptedDiscord::new(
        &world.store,
        vec![Answer::Fail(SendFailure::Refused {
            status,
            code: Some(code),
            message: message.into(),
        })],
    );
    let error = send(
        &world,
        &discord,
        &world.sending_context(),
        input(channel, "x", None),
    )
    .await
    .unwrap_err();
    assert_eq!(stored(&world.store, channel, "x"), 0);
    (channel, error, discord.requests().len())
}

#[tokio::test]
async fn discords_refusals_become_owner_worded_errors_without_a_retry() {
    let (channel, error, requests) = refused_by_discord(403, 50013, "Missing Permissions").await;
    assert_eq!(
        error.message(),
        format!(
            "Discord refused to let the bot post in channel {channel}: Missing Permissions (403, code 50013); nothing was sent"
        )
    );
    assert_eq!(error.kind(), ErrorKind::Discord);
    assert_eq!(
        error.kind(),
        discord_manager_vocabulary::error::ErrorKind::Discord
    );
    assert_eq!(requests, 1);
    let (channel, error, requests) = refused_by_discord(404, 10003, "Unknown Channel").await;
    assert_eq!(
        error.message(),
        format!(
            "Discord does not know channel {channel}: Unknown Channel (404, code 10003); nothing was sent"
        )
    );
    assert_eq!(requests, 1);
    let (_, error, _) = refused_by_discord(404, 10008, "Unknown Message").await;
    assert_eq!(
        error.message(),
        "Discord does not know the message it replies to: Unknown Message (404, code 10008); nothing was sent"
    );
    let (channel, error, _) = refused_by_discord(404, 0, "404: Not Found").await;
    assert_eq!(
        error.message(),
        format!(
            "Discord does not know channel {channel} or the message it replies to: 404: Not Found (404, code 0); nothing was sent"
        )
    );
    let (_, error, _) = refused_by_discord(401, 0, "401: Unauthorized").await;
    assert_eq!(
        error.message(),
        "Discord rejected the bot token (401): check DISCORD_TOKEN; nothing was sent"
    );
}

#[tokio::test(start_paused = true)]
async fn a_429_is_retried_after_retry_after_with_the_same_nonce_and_posts_one_message() {
    let world = World::new();
    let channel = world.channel("general");
    let discord = ScriptedDiscord::new(
        &world.store,
        vec![Answer::Fail(SendFailure::RateLimited {
            retry_after: Duration::from_secs(2),
        })],
    );
    let sent = send(
        &world,
        &discord,
        &world.sending_context(),
        input(channel, "once", None),
    )
    .await
    .unwrap();
    let requests = discord.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].at, Duration::ZERO);
    // retry_after (2 s) is longer than the first backoff (1 s): Discord's wait wins.
    assert_eq!(requests[1].at, Duration::from_secs(2));
    assert_eq!(requests[0].message, requests[1].message, "the same nonce");
    assert_eq!(discord.created(), 1);
    assert_eq!(stored(&world.store, channel, "once"), 1);
    assert_eq!(sent.body.content, "once");
}

#[tokio::test(start_paused = true)]
async fn rate_limiting_gives_up_after_three_attempts_or_at_once_when_asked_to_wait_too_long() {
    let world = World::new();
    let channel = world.channel("general");
    let limited = |seconds: f64| {
        Answer::Fail(SendFailure::RateLimited {
            retry_after: Duration::from_secs_f64(seconds),
        })
    };
    let discord =
        ScriptedDiscord::new(&world.store, vec![limited(1.5), limited(1.5), limited(1.5)]);
    let error = send(
        &world,
        &discord,
        &world.sending_context(),
        input(channel, "a", None),
    )
    .await
    .unwrap_err();
    assert_eq!(
        error.message(),
        "Discord rate limited the bot on all 3 attempts; nothing was sent: try again later"
    );
    let at: Vec<Duration> = discord.requests().iter().map(|r| r.at).collect();
    // Waits: max(1 s backoff, 1.5 s), then max(2 s backoff, 1.5 s).
    assert_eq!(
        at,
        vec![
            Duration::ZERO,
            Duration::from_millis(1500),
            Duration::from_millis(3500)
        ]
    );
    let discord = ScriptedDiscord::new(&world.store, vec![limited(10.0), Answer::Create]);
    send(
        &world,
        &discord,
        &world.sending_context(),
        input(channel, "b", None),
    )
    .await
    .unwrap();
    assert_eq!(
        discord.requests()[1].at,
        Duration::from_secs(10),
        "exactly the cap waits"
    );
    let discord = ScriptedDiscord::new(&world.store, vec![limited(10.001)]);
    let error = send(
        &world,
        &discord,
        &world.sending_context(),
        input(channel, "c", None),
    )
    .await
    .unwrap_err();
    assert_eq!(
        error.message(),
        "Discord is rate limiting the bot and asked to wait 11 s, more than the 10 s a send may wait; nothing was sent: try again later"
    );
    assert_eq!(discord.requests().len(), 1);
    assert_eq!(stored(&world.store, channel, "c"), 0);

    // Discord's 1e20 s, held at the ceiling by the REST client, is said as what it is.
    let discord = ScriptedDiscord::new(
        &world.store,
        vec![Answer::Fail(SendFailure::RateLimited {
            retry_after: RETRY_AFTER_CEILING,
        })],
    );
    let error = send(
        &world,
        &discord,
        &world.sending_context(),
        input(channel, "d", None),
    )
    .await
    .unwrap_err();
    assert_eq!(
        error.message(),
        "Discord is rate limiting the bot and asked to wait an hour or more, more than the 10 s a send may wait; nothing was sent: try again later"
    );
}

#[tokio::test(start_paused = true)]
async fn an_unavailable_discord_is_retried_with_backoff_and_then_reported() {
    let world = World::new();
    let channel = world.channel("general");
    let unavailable = || {
        Answer::Fail(SendFailure::Unavailable {
            reason: "503 Service Unavailable".into(),
        })
    };
    let discord = ScriptedDiscord::new(
        &world.store,
        vec![unavailable(), unavailable(), unavailable()],
    );
    let started = tokio::time::Instant::now();
    let error = send(
        &world,
        &discord,
        &world.sending_context(),
        input(channel, "x", None),
    )
    .await
    .unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            "Discord did not confirm the message after 3 attempts (503 Service Unavailable): check channel {channel} before sending it again"
        )
    );
    assert_eq!(error.kind(), ErrorKind::Discord);
    assert_eq!(started.elapsed(), Duration::from_secs(3), "1 s, then 2 s");
    let requests = discord.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests.iter().all(|r| r.message == requests[0].message));
}

#[test]
fn nonces_fit_discords_limit_and_differ() {
    let nonces: std::collections::BTreeSet<String> = (0..1000).map(|_| new_nonce()).collect();
    assert_eq!(nonces.len(), 1000);
    assert!(nonces.iter().all(|nonce| nonce.len() <= 25));
}

#[tokio::test]
async fn the_surfaces_refuse_with_the_same_words() {
    // Through the registry (what the CLI and MCP both call), the schema speaks first.
    let world = World::new();
    let channel = world.channel("general");
    let services = crate::registry::Services {
        store: Arc::clone(&world.store),
        context: world.context(),
        sender: None,
    };
    let capability = crate::registry::find("messages_send").unwrap();
    let error = capability
        .call(json!({"channelId": channel, "content": "hi"}), &services)
        .await
        .err()
        .unwrap();
    assert_eq!(
        error.message(),
        "Sending needs the bot's token: set DISCORD_TOKEN"
    );
    let error = capability
        .call(json!({"channelId": channel, "content": ""}), &services)
        .await
        .err()
        .unwrap();
    assert_eq!(
        error.message(),
        "`content` must be text of 1 to 2000 characters; got \"\""
    );
}
