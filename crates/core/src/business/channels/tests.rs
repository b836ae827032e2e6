//! Unit tests of `channels`, kept beside it so the production file reads on its own.

use discord_manager_playback::world::{HISTORY, World};
use discord_manager_store::ChannelKind;

use super::*;
use crate::business::channels::list::ChannelList;
use crate::business::channels::list::ChannelSummary;
use crate::business::channels::list::ListChannels;
use crate::business::channels::list::list_channels;
use crate::business::channels::mark_read::MarkRead;
use crate::business::channels::mark_read::MarkedRead;
use crate::business::channels::mark_read::mark_read;
use crate::business::kernel::model::PageCursor;
use crate::test_fixtures::WorldContext;
use serde_json::json;

#[test]
fn a_forum_post_is_listed_under_its_forum_with_its_title_and_tags() {
    let world = World::new();
    let forum = discord_manager_playback::world::new_id();
    let mut payload = world.channel_payload(&forum, "help", 15, None, json!([]));
    payload["available_tags"] = json!([
        {"id": "91", "name": "rollout", "moderated": false, "emoji_id": null, "emoji_name": null},
        {"id": "92", "name": "solved", "moderated": false, "emoji_id": null, "emoji_name": null}
    ]);
    discord_manager_playback::world::dispatch(&world.store, "CHANNEL_CREATE", payload);
    let post = discord_manager_playback::world::new_id();
    let mut thread =
        world.channel_payload(&post, "Rollout stuck at 40%", 11, Some(&forum), json!([]));
    thread["applied_tags"] = json!(["92", "77"]);
    discord_manager_playback::world::dispatch(&world.store, "THREAD_CREATE", thread);
    let general = world.channel("general");
    let list = list_channels(&world.store, ListChannels::default(), &world.context()).unwrap();
    let find = |id: &str| {
        list.channels
            .iter()
            .find(|channel| channel.channel_id == id)
            .unwrap()
            .clone()
    };
    let listed_forum = find(&forum);
    assert_eq!(listed_forum.threads.len(), 1, "the post is under its forum");
    let listed = &listed_forum.threads[0];
    assert_eq!(listed.channel_id, post);
    assert_eq!(listed.name, "Rollout stuck at 40%");
    assert_eq!(listed.kind, ChannelKind::PublicThread);
    // A tag the forum does not list keeps its id as its name.
    assert_eq!(listed.tags, vec!["solved".to_string(), "77".to_string()]);
    assert_eq!(listed_forum.tags, vec!["rollout", "solved"]);
    assert!(find(&general.to_string()).tags.is_empty());
    assert!(
        !list
            .channels
            .iter()
            .any(|channel| channel.channel_id == post),
        "the post is not listed at the top level too"
    );
}

#[test]
fn lists_each_channel_with_readability_and_counts_since_inclusive() {
    let world = World::new();
    let general = world.channel("general");
    let archive = world.channel_with(
        "archive",
        json!([{"id": world.guild_id, "type": 0, "allow": "0", "deny": HISTORY.to_string()}]),
    );
    world.post(general, "7", "one", json!({}));
    world.post(general, "7", "two", json!({}));
    let all = list_channels(
        &world.store,
        ListChannels {
            limit: None,
            cursor: None,
            since: Some(Instant::from_micros(0)),
        },
        &world.context(),
    )
    .unwrap();
    assert_eq!(all.channels.len(), 2);
    let general_summary = all
        .channels
        .iter()
        .find(|c| c.channel_id == general)
        .unwrap();
    assert_eq!(general_summary.new_since, 2);
    assert!(general_summary.readable);
    assert_eq!(general_summary.kind, ChannelKind::Text);
    let newest = general_summary.newest_arrival.unwrap();
    let archive_summary = all
        .channels
        .iter()
        .find(|c| c.channel_id == archive)
        .unwrap();
    assert!(!archive_summary.readable);
    assert_eq!(
        archive_summary.unreadable_reason.as_deref(),
        Some("the bot cannot read this channel's history (Read Message History is denied)")
    );
    assert_eq!(archive_summary.newest_arrival, None);

    let at_newest = list_channels(
        &world.store,
        ListChannels {
            limit: None,
            cursor: None,
            since: Some(newest),
        },
        &world.context(),
    )
    .unwrap();
    assert_eq!(
        at_newest
            .channels
            .iter()
            .find(|c| c.channel_id == general)
            .unwrap()
            .new_since,
        1
    );
    let after = list_channels(
        &world.store,
        ListChannels {
            limit: None,
            cursor: None,
            since: Some(newest.plus_micros(1)),
        },
        &world.context(),
    )
    .unwrap();
    assert_eq!(
        after
            .channels
            .iter()
            .find(|c| c.channel_id == general)
            .unwrap()
            .new_since,
        0
    );
}

#[test]
fn a_deleted_channel_leaves_the_list_and_a_thread_names_its_parent() {
    let world = World::new();
    let parent = world.channel("releases");
    let gone = world.channel("gone");
    let thread = discord_manager_playback::world::new_id();
    discord_manager_playback::world::dispatch(
        &world.store,
        "THREAD_CREATE",
        world.channel_payload(&thread, "rollout", 11, Some(&parent.to_string()), json!([])),
    );
    discord_manager_playback::world::dispatch(
        &world.store,
        "CHANNEL_DELETE",
        world.channel_payload(gone, "gone", 0, None, json!([])),
    );
    let list = list_channels(&world.store, ListChannels::default(), &world.context()).unwrap();
    let ids: Vec<String> = list
        .channels
        .iter()
        .map(|c| c.channel_id.to_string())
        .collect();
    assert!(ids.contains(&parent.to_string()));
    assert!(!ids.contains(&gone.to_string()));
    let parent_summary = list
        .channels
        .iter()
        .find(|c| c.channel_id == parent)
        .unwrap();
    let thread_summary = &parent_summary.threads[0];
    assert_eq!(thread_summary.channel_id, thread);
    assert_eq!(thread_summary.kind, ChannelKind::PublicThread);
}

/// A thread of `parent` named `name`, as THREAD_CREATE records it.
fn thread(world: &World, parent: impl std::fmt::Display, name: &str) -> ChannelId {
    let id = discord_manager_playback::world::new_id();
    discord_manager_playback::world::dispatch(
        &world.store,
        "THREAD_CREATE",
        world.channel_payload(&id, name, 11, Some(&parent.to_string()), json!([])),
    );
    discord_manager_playback::world::id(id)
}

fn page(world: &World, limit: u32, cursor: Option<PageCursor>) -> ChannelList {
    let input = ListChannels {
        since: Some(Instant::from_micros(0)),
        limit: Some(limit),
        cursor,
    };
    list_channels(&world.store, input, &world.context()).unwrap()
}

/// Every page from the first, each channel and thread id in listing order, and each page.
fn every_page(world: &World, limit: u32) -> (Vec<ChannelId>, Vec<ChannelList>) {
    let (mut ids, mut pages) = (Vec::new(), Vec::new());
    let mut cursor = None;
    loop {
        let list = page(world, limit, cursor);
        for channel in &list.channels {
            if !channel.continued {
                ids.push(channel.channel_id);
            }
            ids.extend(list_thread_ids(channel));
        }
        cursor = list.next_cursor.clone();
        pages.push(list);
        if cursor.is_none() {
            return (ids, pages);
        }
        assert!(pages.len() < 1_000, "paging never ends");
    }
}

fn list_thread_ids(channel: &ChannelSummary) -> Vec<ChannelId> {
    channel
        .threads
        .iter()
        .map(|thread| thread.channel_id)
        .collect()
}

#[test]
fn a_page_boundary_inside_a_parents_threads_neither_skips_nor_repeats_one() {
    let world = World::new();
    let general = world.channel("general");
    let threads: Vec<ChannelId> = (0..5)
        .map(|n| thread(&world, general, &format!("thread {n}")))
        .collect();
    let releases = world.channel("releases");
    world.post(threads[3], "7", "in a thread", json!({}));
    let mut wanted = vec![general];
    wanted.extend(threads.iter().cloned());
    wanted.push(releases);
    for limit in 1..=7 {
        let (ids, _) = every_page(&world, limit);
        assert_eq!(ids, wanted, "limit {limit}: each exactly once, in order");
    }
    // Three to a page: general and two threads, then general continued with three more.
    let first = page(&world, 3, None);
    assert_eq!(first.channels.len(), 1);
    assert_eq!(list_thread_ids(&first.channels[0]), threads[..2]);
    assert!(!first.channels[0].continued);
    let second = page(&world, 3, first.next_cursor);
    let continued = &second.channels[0];
    assert_eq!(continued.channel_id, general);
    assert_eq!(continued.name, "general");
    assert_eq!(continued.kind, ChannelKind::Text);
    assert!(continued.continued);
    assert_eq!(continued.unread, 0, "counts were on the first page");
    assert_eq!(list_thread_ids(continued), threads[2..5]);
    assert_eq!(continued.threads[1].new_since, 1, "the thread's own count");
    assert_eq!(continued.threads[1].unread, 1);
    let third = page(&world, 3, second.next_cursor);
    assert_eq!(third.channels.len(), 1);
    assert_eq!(third.channels[0].channel_id, releases);
    assert_eq!(third.next_cursor, None);
}

#[test]
fn a_forum_with_more_posts_than_fit_in_an_answer_goes_on_over_pages_within_the_budget() {
    let world = World::new();
    let forum = discord_manager_playback::world::new_id();
    discord_manager_playback::world::dispatch(
        &world.store,
        "CHANNEL_CREATE",
        world.channel_payload(&forum, "help", 15, None, json!([])),
    );
    let title = "A long forum post title that takes room in the answer, as real ones do ";
    let posts: Vec<ChannelId> = (0..300)
        .map(|n| thread(&world, &forum, &format!("{title}{n}")))
        .collect();
    let (ids, pages) = every_page(&world, 500);
    let mut wanted: Vec<ChannelId> = vec![discord_manager_playback::world::id(&forum)];
    wanted.extend(posts.iter().cloned());
    assert_eq!(ids, wanted, "each post exactly once, in id order");
    assert!(
        pages.len() >= 3,
        "300 posts overflow one page: {}",
        pages.len()
    );
    for (n, list) in pages.iter().enumerate() {
        let bytes = serde_json::to_string(list).unwrap().len();
        assert!(
            bytes < crate::business::kernel::budget::ANSWER_BYTES / 2,
            "page {n}: {bytes}"
        );
        assert_eq!(list.channels.len(), 1);
        assert_eq!(list.channels[0].channel_id, forum);
        assert_eq!(list.channels[0].continued, n > 0, "page {n}");
    }
}

#[test]
fn a_thread_whose_parent_is_not_listed_comes_at_the_top_level_naming_its_parent() {
    let world = World::new();
    let general = world.channel("general");
    let never_seen = discord_manager_playback::world::new_id();
    let orphan = thread(&world, &never_seen, "from a channel never seen");
    let gone = world.channel("gone");
    let left_behind = thread(&world, gone, "its parent was deleted");
    discord_manager_playback::world::dispatch(
        &world.store,
        "CHANNEL_DELETE",
        world.channel_payload(gone, "gone", 0, None, json!([])),
    );
    let (ids, pages) = every_page(&world, 100);
    assert_eq!(
        ids,
        vec![
            general,
            discord_manager_playback::world::id(orphan),
            discord_manager_playback::world::id(left_behind)
        ]
    );
    let list = &pages[0];
    assert_eq!(
        list.channels[1].parent_id.as_ref(),
        Some(&discord_manager_playback::world::id(&never_seen))
    );
    assert_eq!(list.channels[1].kind, ChannelKind::PublicThread);
    assert_eq!(list.channels[1].name, "from a channel never seen");
    assert_eq!(list.channels[2].parent_id.as_ref(), Some(&gone));
    assert!(
        list.channels
            .iter()
            .all(|channel| channel.threads.is_empty())
    );
}

#[test]
fn a_cursor_of_another_shape_is_refused_by_name() {
    let world = World::new();
    world.channel("general");
    let input = ListChannels {
        cursor: PageCursor::parse("5"),
        ..ListChannels::default()
    };
    let error = list_channels(&world.store, input, &world.context()).unwrap_err();
    assert_eq!(
        error.message(),
        "`cursor` is not one channels_list returned: pass its `nextCursor` unchanged"
    );
}

/// Each message's arrival, by id.
fn arrival(world: &World, message_id: impl std::fmt::Display) -> Instant {
    world
        .store
        .read(|reader| {
            Ok(reader
                .message(&discord_manager_playback::world::id(message_id))?
                .unwrap()
                .created_at)
        })
        .unwrap()
}

fn mark(world: &World, channel: Option<&str>, through: Option<Instant>) -> Result<MarkedRead> {
    let input = MarkRead {
        channel_id: channel.map(discord_manager_playback::world::id),
        through,
    };
    mark_read(&world.store, input, &world.context())
}

/// (unread, readThrough) of `channel` in `channels_list`.
fn unread(world: &World, channel: impl std::fmt::Display) -> (u64, Option<Instant>) {
    let list = list_channels(&world.store, ListChannels::default(), &world.context()).unwrap();
    let summary = list
        .channels
        .into_iter()
        .find(|summary| summary.channel_id == channel.to_string())
        .unwrap();
    (summary.unread, summary.read_through)
}

#[test]
fn unread_counts_what_arrived_strictly_after_the_instant_marked_read_through() {
    let world = World::new();
    let general = world.channel("general");
    world.post(general, "7", "one", json!({}));
    let second = world.post(general, "7", "two", json!({}));
    world.post(general, "7", "three", json!({}));
    assert_eq!(
        unread(&world, general),
        (3, None),
        "never marked: all unread"
    );
    let at = arrival(&world, second);
    // Through the second's very arrival: it is read, only the third is not.
    let marked = mark(&world, Some(&general.to_string()), Some(at)).unwrap();
    assert_eq!(marked.through, at);
    assert_eq!(marked.channels.len(), 1);
    assert_eq!(marked.channels[0].channel_id, general);
    assert_eq!(marked.source, "cli");
    assert_eq!(unread(&world, general), (1, Some(at)));
    // A microsecond earlier: the second is unread again (the marker moves back).
    mark(&world, Some(&general.to_string()), Some(at.plus_micros(-1))).unwrap();
    assert_eq!(unread(&world, general), (2, Some(at.plus_micros(-1))));
}

#[test]
fn marking_without_a_channel_or_instant_marks_every_readable_channel_through_now() {
    let world = World::new();
    let general = world.channel("general");
    let releases = world.channel("releases");
    world.post(general, "7", "one", json!({}));
    let newest = world.post(releases, "7", "two", json!({}));
    let marked = mark(&world, None, None).unwrap();
    assert!(marked.through >= arrival(&world, newest));
    let mut ids: Vec<String> = marked
        .channels
        .iter()
        .map(|c| c.channel_id.to_string())
        .collect();
    ids.sort();
    let mut wanted = vec![general.to_string(), releases.to_string()];
    wanted.sort();
    assert_eq!(ids, wanted);
    assert_eq!(unread(&world, general).0, 0);
    assert_eq!(unread(&world, releases).0, 0);
    world.post(releases, "7", "three", json!({}));
    assert_eq!(unread(&world, releases).0, 1);
}

#[test]
fn marking_refuses_an_instant_after_the_newest_arrival_and_an_unknown_channel() {
    // A store of its own: the newest arrival is store-wide, and in the shared store another
    // test's commit between reading it and marking would move it past `through`.
    let world = World::alone();
    let general = world.channel("general");
    world.post(general, "7", "one", json!({}));
    let now = world.store.read(|reader| reader.clock_now()).unwrap();
    let error = mark(&world, Some(&general.to_string()), Some(now.plus_micros(1))).unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            "`through` is later than anything the store holds (its newest arrival is {now}): \
             a read marker covers only what arrived"
        )
    );
    assert_eq!(
        error.kind(),
        discord_manager_vocabulary::error::ErrorKind::Conflict
    );
    assert_eq!(unread(&world, general), (1, None), "nothing was marked");
    let unknown = discord_manager_playback::world::new_id();
    let error = mark(&world, Some(&unknown), None).unwrap_err();
    assert_eq!(
        error.message(),
        format!("`channelId`: no channel with id {unknown} is in the store")
    );
}
