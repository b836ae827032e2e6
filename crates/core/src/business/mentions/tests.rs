//! Unit tests of `mentions`, kept beside it so the production file reads on its own.

use discord_manager_playback::world::{BOT_ID, VIEW, World, new_id};

use super::*;
use discord_manager_vocabulary::snowflake::MessageId;

use crate::business::mentions::awaiting_reply::AwaitingReply;
use crate::business::mentions::awaiting_reply::awaiting_reply_at;
use crate::business::mentions::dismiss::DismissMention;
use crate::business::mentions::dismiss::DismissedMention;
use crate::business::mentions::dismiss::dismiss_mention;
use crate::business::mentions::list::ListMentions;
use crate::business::mentions::list::list_mentions;
use crate::test_fixtures::WorldContext;
use serde_json::json;

fn mentions_from(world: &World, since: Instant, limit: Option<u32>) -> Mentions {
    list_mentions(
        &world.store,
        ListMentions {
            cursor: None,
            since: Some(since),
            limit,
        },
        &world.context(),
    )
    .unwrap()
}

fn ids(mentions: &Mentions) -> Vec<String> {
    mentions
        .mentions
        .iter()
        .map(|message| message.message.body.message_id.to_string())
        .collect()
}

#[test]
fn finds_direct_role_everyone_and_reply_mentions_but_never_the_owners_own() {
    let world = World::new();
    let channel = world.channel("general");
    let owner = world.owner_id;
    let direct = world.post(
        channel,
        "7",
        "hey",
        json!({"mentions": [{"id": owner, "username": "o", "discriminator": "0", "avatar": null}]}),
    );
    world.post(channel, "7", "not about you", json!({}));
    let by_role = world.post(
        channel,
        "7",
        "maintainers!",
        json!({"mention_roles": [world.owner_role_id]}),
    );
    let other_role = world.post(
        channel,
        "7",
        "someone else's role",
        json!({"mention_roles": [new_id()]}),
    );
    let everyone = world.post(channel, "7", "@here", json!({"mention_everyone": true}));
    let own = world.post(
        channel,
        owner,
        "my own @here",
        json!({"mention_everyone": true}),
    );
    let reply = world.post(
        channel,
        "8",
        "answering you",
        json!({"type": 19, "message_reference": {"message_id": own, "channel_id": channel}}),
    );
    let result = mentions_from(&world, Instant::from_micros(0), None);
    assert_eq!(
        ids(&result),
        vec![
            direct.to_string(),
            by_role.to_string(),
            everyone.to_string(),
            reply.to_string()
        ]
    );
    assert!(
        result
            .mentions
            .iter()
            .all(|message| message.message.body.mentions_owner)
    );
    assert!(!ids(&result).contains(&other_role.to_string()));
    assert_eq!(result.next_cursor, None);
}

#[test]
fn since_is_inclusive_on_the_arrival_clock() {
    let world = World::new();
    let channel = world.channel("general");
    let first = world.post(channel, "7", "@here one", json!({"mention_everyone": true}));
    let second = world.post(channel, "7", "@here two", json!({"mention_everyone": true}));
    let all = mentions_from(&world, Instant::from_micros(0), None);
    assert_eq!(ids(&all), vec![first.to_string(), second.to_string()]);
    let second_arrived = all.mentions[1].message.body.created_at;
    assert_eq!(
        ids(&mentions_from(&world, second_arrived, None)),
        vec![second.to_string()]
    );
    assert_eq!(
        mentions_from(&world, second_arrived.plus_micros(1), None)
            .mentions
            .len(),
        0
    );
}

#[test]
fn stops_at_the_limit_and_its_cursor_reads_on_from_the_first_left_out() {
    let world = World::new();
    let channel = world.channel("general");
    let first = world.post(channel, "7", "@here 1", json!({"mention_everyone": true}));
    let second = world.post(channel, "7", "@here 2", json!({"mention_everyone": true}));
    let result = mentions_from(&world, Instant::from_micros(0), Some(1));
    assert_eq!(ids(&result), vec![first.to_string()]);
    let cursor = result.next_cursor.expect("a cursor to the second mention");
    let next = list_mentions(
        &world.store,
        ListMentions {
            cursor: Some(cursor),
            ..ListMentions::default()
        },
        &world.context(),
    )
    .unwrap();
    assert_eq!(ids(&next), vec![second.to_string()]);
    assert_eq!(next.next_cursor, None);
}

#[test]
fn leaves_out_mentions_in_channels_the_bot_cannot_read() {
    let world = World::new();
    let readable = world.channel("open");
    let hidden = world.channel_with(
        "hidden",
        json!([{"id": world.guild_id, "type": 0, "allow": "0", "deny": VIEW.to_string()}]),
    );
    world.post(
        hidden,
        "7",
        "@here hidden",
        json!({"mention_everyone": true}),
    );
    let visible = world.post(
        readable,
        "7",
        "@here open",
        json!({"mention_everyone": true}),
    );
    assert_eq!(
        ids(&mentions_from(&world, Instant::from_micros(0), Some(1))),
        vec![visible.to_string()]
    );
}

#[test]
fn needs_the_owners_id() {
    let world = World::new();
    let mut context = world.context();
    context.owner_id = None;
    let error = list_mentions(&world.store, ListMentions::default(), &context).unwrap_err();
    assert_eq!(
        error.message(),
        "Mentions need the owner's Discord user id: set DISCORD_OWNER_ID"
    );
    assert_eq!(
        error.kind(),
        discord_manager_vocabulary::error::ErrorKind::Config
    );
}

#[test]
fn awaiting_reply_keeps_unanswered_mentions_silent_for_longer_than_the_window() {
    let world = World::new();
    let channel = world.channel("general");
    let other = world.channel("other");
    let owner = world.owner_id;
    let sent = "2026-11-29T10:00:00Z";
    let at = Instant::parse(sent).unwrap();
    let everyone =
        |text: &str| json!({"mention_everyone": true, "timestamp": sent, "content": text});
    let answered = world.post(channel, "7", "@here answered", everyone("answered"));
    world.post(
        channel,
        owner,
        "my answer",
        json!({"timestamp": "2026-11-29T10:05:00Z"}),
    );
    let waiting = world.post(other, "7", "@here waiting", everyone("waiting"));
    let ask = |now: Instant| {
        let input = AwaitingReply {
            cursor: None,
            since: Some(Instant::from_micros(0)),
            silence_minutes: Some(30),
            limit: None,
        };
        let result = awaiting_reply_at(&world.store, input, &world.context(), now).unwrap();
        result
            .mentions
            .into_iter()
            .map(|m| m.message.body.message_id)
            .collect::<Vec<_>>()
    };
    // Silent for exactly 30 minutes is not longer than 30 minutes; a microsecond more is.
    assert_eq!(ask(at.plus_seconds(30 * 60)), Vec::<String>::new());
    assert_eq!(ask(at.plus_seconds(30 * 60).plus_micros(1)), vec![waiting]);
    assert!(!ask(at.plus_seconds(3600)).contains(&answered));
}

#[test]
fn an_owner_message_before_the_mention_is_not_an_answer() {
    let world = World::new();
    let channel = world.channel("general");
    let owner = world.owner_id;
    world.post(
        channel,
        owner,
        "earlier",
        json!({"timestamp": "2026-11-29T09:00:00Z"}),
    );
    let mention = world.post(
        channel,
        "7",
        "@here later",
        json!({"mention_everyone": true, "timestamp": "2026-11-29T10:00:00Z"}),
    );
    let input = AwaitingReply {
        cursor: None,
        since: Some(Instant::from_micros(0)),
        silence_minutes: Some(0),
        limit: None,
    };
    let now = Instant::parse("2026-11-29T11:00:00Z").unwrap();
    let result = awaiting_reply_at(&world.store, input, &world.context(), now).unwrap();
    assert_eq!(
        result
            .mentions
            .iter()
            .map(|m| m.message.body.message_id.to_string())
            .collect::<Vec<_>>(),
        vec![mention.to_string()]
    );
}

/// Each mention of `world` from the start, with why it closed.
fn closures(world: &World) -> Vec<(MessageId, Option<Closed>)> {
    mentions_from(world, Instant::from_micros(0), None)
        .mentions
        .into_iter()
        .map(|mention| (mention.message.body.message_id, mention.closed))
        .collect()
}

fn awaiting(world: &World) -> Vec<MessageId> {
    let input = AwaitingReply {
        cursor: None,
        since: Some(Instant::from_micros(0)),
        silence_minutes: Some(0),
        limit: None,
    };
    let now = Instant::parse("2026-11-29T12:00:00Z").unwrap();
    awaiting_reply_at(&world.store, input, &world.context(), now)
        .unwrap()
        .mentions
        .into_iter()
        .map(|mention| mention.message.body.message_id)
        .collect()
}

fn at(time: &str) -> serde_json::Value {
    json!({"mention_everyone": true, "timestamp": time})
}

#[test]
fn a_reply_from_this_bot_closes_a_mention_as_replied_but_its_earlier_message_does_not() {
    let world = World::new();
    let channel = world.channel("general");
    world.post(
        channel,
        BOT_ID,
        "earlier",
        json!({"timestamp": "2026-11-29T09:00:00Z"}),
    );
    let answered = world.post(channel, "7", "@here q1", at("2026-11-29T10:00:00Z"));
    let open = world.post(
        world.channel("other"),
        "7",
        "@here q2",
        at("2026-11-29T10:00:00Z"),
    );
    assert_eq!(awaiting(&world), vec![answered, open]);
    world.post(
        channel,
        BOT_ID,
        "on it",
        json!({"timestamp": "2026-11-29T10:01:00Z", "type": 19,
               "message_reference": {"message_id": answered, "channel_id": channel}}),
    );
    assert_eq!(awaiting(&world), vec![open]);
    assert_eq!(
        closures(&world),
        vec![(answered, Some(Closed::Replied)), (open, None)]
    );
}

#[test]
fn a_message_from_the_owner_or_this_bot_after_a_mention_closes_it_as_wrote_after() {
    let world = World::new();
    let channel = world.channel("general");
    let thread = world.thread(channel, "side");
    let by_owner = world.post(channel, "7", "@here a", at("2026-11-29T10:00:00Z"));
    let by_bot = world.post(thread, "7", "@here b", at("2026-11-29T10:00:00Z"));
    // At the mention's very instant is not after it; a microsecond later is.
    world.post(
        channel,
        world.owner_id,
        "same time",
        json!({"timestamp": "2026-11-29T10:00:00Z"}),
    );
    world.post(
        thread,
        BOT_ID,
        "same time",
        json!({"timestamp": "2026-11-29T10:00:00Z"}),
    );
    assert_eq!(awaiting(&world), vec![by_owner, by_bot]);
    world.post(
        channel,
        world.owner_id,
        "later",
        json!({"timestamp": "2026-11-29T10:00:00.000001Z"}),
    );
    world.post(
        thread,
        BOT_ID,
        "later",
        json!({"timestamp": "2026-11-29T10:00:00.000001Z"}),
    );
    assert_eq!(awaiting(&world), Vec::<String>::new());
    assert_eq!(
        closures(&world),
        vec![
            (by_owner, Some(Closed::WroteAfter)),
            (by_bot, Some(Closed::WroteAfter))
        ]
    );
}

#[test]
fn a_reaction_from_the_owner_closes_a_mention_as_reacted_but_someone_elses_does_not() {
    let world = World::new();
    let channel = world.channel("general");
    let mention = world.post(channel, "7", "@here look", at("2026-11-29T10:00:00Z"));
    world.react("MESSAGE_REACTION_ADD", channel, mention, "8", "👀");
    assert_eq!(awaiting(&world), vec![mention]);
    world.react(
        "MESSAGE_REACTION_ADD",
        channel,
        mention,
        world.owner_id,
        "👍",
    );
    assert_eq!(awaiting(&world), Vec::<String>::new());
    // Taking the reaction back does not reopen what it acknowledged.
    world.react(
        "MESSAGE_REACTION_REMOVE",
        channel,
        mention,
        world.owner_id,
        "👍",
    );
    assert_eq!(closures(&world), vec![(mention, Some(Closed::Reacted))]);
}

fn dismiss(
    world: &World,
    message_id: impl std::fmt::Display,
    note: Option<&str>,
) -> Result<DismissedMention> {
    let mut context = world.context();
    context.source = crate::business::Source::Mcp;
    dismiss_mention(
        &world.store,
        DismissMention {
            message_id: discord_manager_playback::world::id(message_id),
            note: note.map(str::to_string),
        },
        &context,
    )
}

#[test]
fn a_dismissed_mention_leaves_awaiting_reply_and_is_listed_as_dismissed_with_its_record() {
    let world = World::new();
    let channel = world.channel("general");
    let mention = world.post(channel, "7", "@here fyi", at("2026-11-29T10:00:00Z"));
    // Dismissing outranks any answer: it is what the owner said about it.
    world.react(
        "MESSAGE_REACTION_ADD",
        channel,
        mention,
        world.owner_id,
        "👍",
    );
    let dismissed = dismiss(&world, mention, Some("just news")).unwrap();
    assert_eq!(dismissed.mention.message.body.message_id, mention);
    assert_eq!(dismissed.mention.closed, Some(Closed::Dismissed));
    assert_eq!(dismissed.note.as_deref(), Some("just news"));
    assert_eq!(dismissed.source, "mcp");
    let recorded = world
        .store
        .read(|reader| reader.mention_dismissal(&mention))
        .unwrap()
        .unwrap();
    assert_eq!(recorded.created_at, dismissed.dismissed_at);
    assert_eq!(awaiting(&world), Vec::<String>::new());
    assert_eq!(closures(&world), vec![(mention, Some(Closed::Dismissed))]);
    let again = dismiss(&world, mention, None).unwrap_err();
    assert_eq!(again.message(), "That mention is already dismissed");
    assert_eq!(
        again.kind(),
        discord_manager_vocabulary::error::ErrorKind::Conflict
    );
}

#[test]
fn dismissing_refuses_an_unknown_message_and_one_that_does_not_mention_the_owner() {
    let world = World::new();
    let channel = world.channel("general");
    let plain = world.post(channel, "7", "lunch?", json!({}));
    let unknown = new_id();
    let error = dismiss(&world, &unknown, None).unwrap_err();
    assert_eq!(
        error.message(),
        format!("`messageId`: no stored message has id {unknown}")
    );
    assert_eq!(
        error.kind(),
        discord_manager_vocabulary::error::ErrorKind::NotFound
    );
    let error = dismiss(&world, plain, None).unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            "Message {plain} does not mention the owner: only a mention or a direct message can be dismissed"
        )
    );
    assert_eq!(
        world
            .store
            .read(|reader| reader.mention_dismissal(&plain))
            .unwrap(),
        None
    );
}

#[test]
fn mention_pages_double_from_a_hundred_up_to_ten_thousand() {
    use super::{FIRST_MENTION_PAGE, next_mention_page};
    let sizes: Vec<usize> = std::iter::successors(Some(FIRST_MENTION_PAGE), |&size| {
        Some(next_mention_page(size))
    })
    .take(10)
    .collect();
    assert_eq!(
        sizes,
        [
            100, 200, 400, 800, 1_600, 3_200, 6_400, 10_000, 10_000, 10_000
        ]
    );
    assert_eq!(next_mention_page(1), 100);
    assert_eq!(next_mention_page(usize::MAX), 10_000);
}
