//! Unit tests of `activity`, kept beside it so the production file reads on its own.

use std::sync::Arc;

use discord_manager_playback::world::World;
use discord_manager_vocabulary::instant::Instant;
use serde_json::json;

use crate::business::activity::digest::Digest;
use crate::business::activity::digest::DigestReport;
use crate::business::activity::digest::digest_at;
use crate::business::activity::wait::Activity;
use crate::business::activity::wait::POLL_INTERVAL;
use crate::business::activity::wait::WaitForActivity;
use crate::business::activity::wait::wait_for_activity;
use crate::business::bookmarks::add::{AddBookmark, add_bookmark};
use crate::business::{OwnerContext, WaitingCalls};
use crate::test_fixtures::WorldContext;

use std::time::Duration;

async fn poll(world: &World, after: Instant, wait_seconds: u32) -> Activity {
    let input = WaitForActivity {
        after: Some(after),
        channel_id: None,
        wait_seconds: Some(wait_seconds),
    };
    wait_for_activity(&world.store, input, &world.context())
        .await
        .unwrap()
}

#[tokio::test]
async fn polling_with_the_returned_cutoff_reads_zero_until_something_new_arrives() {
    let world = World::new();
    let channel = world.channel("general");
    world.post(channel, "7", "before we started", json!({}));
    let first = poll(&world, Instant::from_micros(0), 0).await;
    assert_eq!(first.total, 1);
    let quiet = poll(&world, first.cutoff, 0).await;
    assert_eq!((quiet.total, quiet.channels.len()), (0, 0));
    assert_eq!(quiet.cutoff, first.cutoff.max(quiet.cutoff));
    world.post(channel, "7", "news", json!({}));
    let news = poll(&world, quiet.cutoff, 0).await;
    assert_eq!(news.total, 1);
    assert_eq!(news.channels[0].messages, 1);
    assert_eq!(news.channels[0].channel_id, channel);
    assert_eq!(poll(&world, news.cutoff, 0).await.total, 0);
}

#[tokio::test]
async fn after_is_strictly_after_on_the_arrival_clock() {
    let world = World::new();
    let channel = world.channel("general");
    let id = world.post(channel, "7", "the one", json!({}));
    let arrived = world
        .store
        .read(|reader| reader.message(&id))
        .unwrap()
        .unwrap()
        .created_at;
    assert_eq!(poll(&world, arrived.plus_micros(-1), 0).await.total, 1);
    assert_eq!(poll(&world, arrived, 0).await.total, 0);
}

#[tokio::test]
async fn one_channel_named_counts_exactly_what_every_channel_counts_for_it() {
    let world = World::new();
    let (general, random) = (world.channel("general"), world.channel("random"));
    let start = poll(&world, Instant::from_micros(0), 0).await.cutoff;
    let id = world.post(general, "7", "one", json!({}));
    world.post(random, "7", "two", json!({}));
    world.edit(general, id, "one!", "2026-11-29T12:00:00Z");
    world.react("MESSAGE_REACTION_ADD", general, id, "8", "👍");
    let every = poll(&world, start, 0).await;
    assert_eq!(every.total, 4);
    let named = WaitForActivity {
        after: Some(start),
        channel_id: discord_manager_playback::world::id_as(general),
        wait_seconds: Some(0),
    };
    let only = wait_for_activity(&world.store, named, &world.context())
        .await
        .unwrap();
    let counts = |activity: &Activity, channel: &str| {
        activity
            .channels
            .iter()
            .find(|counted| counted.channel_id == channel)
            .map(|c| (c.messages, c.edits, c.deletions, c.reactions))
    };
    assert_eq!(counts(&every, &general.to_string()), Some((1, 1, 0, 1)));
    assert_eq!(counts(&every, &random.to_string()), Some((1, 0, 0, 0)));
    assert_eq!(counts(&only, &general.to_string()), Some((1, 1, 0, 1)));
    assert_eq!((only.total, only.channels.len()), (3, 1));
}

#[tokio::test]
async fn counts_edits_deletions_and_reactions_apart() {
    let world = World::new();
    let channel = world.channel("general");
    let id = world.post(channel, "7", "v1", json!({}));
    let start = poll(&world, Instant::from_micros(0), 0).await.cutoff;
    world.edit(channel, id, "v2", "2026-11-29T12:00:00Z");
    world.react("MESSAGE_REACTION_ADD", channel, id, "8", "👍");
    world.delete(channel, id);
    let activity = poll(&world, start, 0).await;
    let counts = &activity.channels[0];
    assert_eq!(
        (
            counts.messages,
            counts.edits,
            counts.deletions,
            counts.reactions
        ),
        (0, 1, 1, 1)
    );
    assert_eq!(activity.total, 3);
}

#[tokio::test(start_paused = true)]
async fn waiting_with_nothing_new_returns_when_the_time_is_up() {
    let world = World::new();
    world.channel("general");
    let cutoff = poll(&world, Instant::from_micros(0), 0).await.cutoff;
    let started = tokio::time::Instant::now();
    let activity = poll(&world, cutoff, 5).await;
    assert_eq!(activity.total, 0);
    assert_eq!(started.elapsed(), Duration::from_secs(5));
}

#[tokio::test(start_paused = true)]
async fn waiting_returns_at_once_when_something_is_already_there() {
    let world = World::new();
    let channel = world.channel("general");
    world.post(channel, "7", "already here", json!({}));
    let started = tokio::time::Instant::now();
    assert_eq!(poll(&world, Instant::from_micros(0), 30).await.total, 1);
    assert_eq!(started.elapsed(), Duration::ZERO);
}

#[tokio::test(start_paused = true)]
async fn waiting_wakes_within_one_poll_of_an_arrival() {
    let world = Arc::new(World::new());
    let channel = world.channel("general");
    let cutoff = poll(&world, Instant::from_micros(0), 0).await.cutoff;
    let writer = Arc::clone(&world);
    let started = tokio::time::Instant::now();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(2)).await;
        writer.post(channel, "7", "while you waited", json!({}));
    });
    let activity = poll(&world, cutoff, 60).await;
    assert_eq!(activity.total, 1);
    let elapsed = started.elapsed();
    assert!(
        elapsed >= Duration::from_secs(2) && elapsed <= Duration::from_secs(2) + POLL_INTERVAL,
        "{elapsed:?}"
    );
}

fn report(world: &World, since: Instant, until: Instant) -> DigestReport {
    digest_at(
        &world.store,
        Digest {
            since: Some(since),
            until: Some(until),
        },
        &world.context(),
        until,
    )
    .unwrap()
}

#[test]
fn the_digest_window_includes_since_and_excludes_until() {
    let world = World::new();
    let channel = world.channel("general");
    let first = world.post(channel, "7", "first", json!({}));
    let second = world.post(channel, "8", "second", json!({}));
    let at = |id: &str| {
        world
            .store
            .read(|reader| reader.message(&discord_manager_playback::world::id(id)))
            .unwrap()
            .unwrap()
            .created_at
    };
    let (first_at, second_at) = (at(&first.to_string()), at(&second.to_string()));
    assert_eq!(report(&world, first_at, second_at).total_messages, 1);
    assert_eq!(
        report(&world, first_at, second_at.plus_micros(1)).total_messages,
        2
    );
    assert_eq!(
        report(&world, first_at.plus_micros(1), second_at.plus_micros(1)).total_messages,
        1
    );
    let error = digest_at(
        &world.store,
        Digest {
            since: Some(second_at),
            until: Some(first_at),
        },
        &world.context(),
        second_at,
    )
    .unwrap_err();
    assert_eq!(error.message(), "`until` must be after `since`");
}

#[test]
fn the_digest_counts_authors_ranks_reactions_and_lists_what_waits_for_the_owner() {
    let world = World::new();
    let busy = world.channel("busy");
    let calm = world.channel("calm");
    let start = poll_now(&world);
    world.post(busy, "7", "a", json!({}));
    world.post(busy, "7", "b", json!({}));
    let popular = world.post(busy, "8", "popular", json!({}));
    let liked = world.post(calm, "9", "liked", json!({"mention_everyone": true}));
    for user in ["1", "2", "3"] {
        world.react("MESSAGE_REACTION_ADD", busy, popular, user, "🎉");
    }
    world.react("MESSAGE_REACTION_ADD", calm, liked, "1", "👍");
    let input = AddBookmark {
        message_id: discord_manager_playback::world::id(liked),
        note: None,
        due_at: None,
    };
    add_bookmark(&world.store, input, &world.context()).unwrap();
    let end = poll_now(&world).plus_micros(1);
    let digest = report(&world, start, end);
    assert_eq!(digest.total_messages, 4);
    let channels: Vec<(&str, u64)> = digest
        .channels
        .iter()
        .map(|c| (c.channel_name.as_str(), c.messages))
        .collect();
    assert_eq!(channels, vec![("busy", 3), ("calm", 1)]);
    let authors: Vec<(u64, u64)> = digest.channels[0]
        .top_authors
        .iter()
        .map(|a| (a.author_id.get(), a.messages))
        .collect();
    assert_eq!(authors, vec![(7, 2), (8, 1)]);
    assert_eq!(digest.channels[0].most_reacted[0].message_id, popular);
    assert_eq!(digest.channels[0].most_reacted.len(), 1);
    assert_eq!(
        digest
            .unanswered_mentions
            .iter()
            .map(|m| m.body.message_id.to_string())
            .collect::<Vec<_>>(),
        vec![liked.to_string()]
    );
    assert_eq!(digest.open_bookmarks.len(), 1);
    assert_eq!(digest.open_bookmarks[0].message_id, liked);
}

/// The store's clock now, for windows built around a test's own rows.
fn poll_now(world: &World) -> Instant {
    world
        .store
        .read(|reader| reader.clock_now())
        .unwrap()
        .plus_micros(1)
}

#[tokio::test]
async fn waiting_on_a_channel_the_bot_cannot_read_is_refused_with_the_reason() {
    let world = World::new();
    let hidden = world.channel_with(
        "hidden",
        json!([{"id": world.guild_id, "type": 0, "allow": "0", "deny": discord_manager_playback::world::VIEW.to_string()}]),
    );
    let input = WaitForActivity {
        after: None,
        channel_id: discord_manager_playback::world::id_as(hidden),
        wait_seconds: None,
    };
    let error = wait_for_activity(&world.store, input, &world.context())
        .await
        .unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            "`channelId`: channel {hidden} cannot be read: the bot cannot view this channel (View Channel is denied)"
        )
    );
    assert_eq!(
        error.kind(),
        discord_manager_vocabulary::error::ErrorKind::Denied
    );
}

fn waiting_for(after: Instant, wait_seconds: u32) -> WaitForActivity {
    WaitForActivity {
        after: Some(after),
        channel_id: None,
        wait_seconds: Some(wait_seconds),
    }
}

/// Runs until `waiting` has no place left, without sleeping: the waits take their places
/// after their first count, on the blocking pool.
async fn until_full(waiting: &WaitingCalls) {
    while waiting.waiting() < waiting.most() {
        tokio::task::yield_now().await;
    }
}

#[tokio::test(start_paused = true)]
async fn a_wait_beyond_the_bound_is_refused_at_once_and_an_ended_wait_frees_its_place() {
    let world = Arc::new(World::new());
    let channel = world.channel("general");
    let cutoff = poll(&world, Instant::from_micros(0), 0).await.cutoff;
    // A context of two places, as one server's calls share it.
    let context = OwnerContext {
        waiting_calls: WaitingCalls::new(2),
        ..world.context()
    };
    let waiting = context.waiting_calls.clone();
    let wait = |seconds: u32| {
        let (world, context) = (Arc::clone(&world), context.clone());
        tokio::spawn(async move {
            wait_for_activity(&world.store, waiting_for(cutoff, seconds), &context).await
        })
    };
    let (first, second) = (wait(60), wait(60));
    until_full(&waiting).await;
    let started = tokio::time::Instant::now();
    let refused = wait(60).await.unwrap().unwrap_err();
    assert_eq!(
        refused.message(),
        "`waitSeconds`: 2 activity_wait calls are already waiting, the most that may wait at \
         once; call again once one of them has returned, or without `waitSeconds` to count at \
         once"
    );
    assert_eq!(started.elapsed(), Duration::ZERO);
    // A call that does not wait is never refused.
    assert_eq!(wait(0).await.unwrap().unwrap().total, 0);
    // An ended wait (here: its future dropped, as a cancelled call's is) frees its place.
    first.abort();
    assert!(first.await.unwrap_err().is_cancelled());
    assert_eq!(waiting.waiting(), 1);
    let third = wait(60);
    until_full(&waiting).await;
    // Something new: the waits answer, and their places are free again.
    world.post(channel, "7", "news", json!({}));
    assert_eq!(second.await.unwrap().unwrap().total, 1);
    assert_eq!(third.await.unwrap().unwrap().total, 1);
    assert_eq!(waiting.waiting(), 0);
    // With every place taken, what has already arrived is still answered at once.
    let (fourth, fifth) = (wait(60), wait(60));
    assert_eq!(fourth.await.unwrap().unwrap().total, 1);
    assert_eq!(fifth.await.unwrap().unwrap().total, 1);
}
