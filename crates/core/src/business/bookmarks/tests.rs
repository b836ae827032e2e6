//! Unit tests of `bookmarks`, kept beside it so the production file reads on its own.

use discord_manager_playback::world::{World, new_id};
use discord_manager_store::BookmarkKind;

use super::*;
use crate::business::Source;
use crate::business::bookmarks::add::AddBookmark;
use crate::business::bookmarks::add::add_bookmark;
use crate::business::bookmarks::list::Bookmarks;
use crate::business::bookmarks::list::ListBookmarks;
use crate::business::bookmarks::list::list_bookmarks;
use crate::business::bookmarks::list::list_bookmarks_at;
use crate::business::bookmarks::resolve::ResolveBookmark;
use crate::business::bookmarks::resolve::ResolvedBookmark;
use crate::business::bookmarks::resolve::resolve_bookmark;
use crate::business::kernel::model::PageCursor;
use crate::test_fixtures::WorldContext;
use serde_json::json;

fn id<Id: std::str::FromStr>(text: impl std::fmt::Display) -> Id {
    discord_manager_playback::world::id(text)
}

fn add(world: &World, message_id: impl std::fmt::Display, note: Option<&str>) -> Result<Bookmark> {
    let input = AddBookmark {
        message_id: id(message_id),
        note: note.map(str::to_string),
        due_at: None,
    };
    add_bookmark(&world.store, input, &world.context())
}

fn resolve(
    world: &World,
    message_id: impl std::fmt::Display,
    source: Source,
) -> Result<ResolvedBookmark> {
    let mut context = world.context();
    context.source = source;
    resolve_bookmark(
        &world.store,
        ResolveBookmark {
            message_id: id(message_id),
        },
        &context,
    )
}

fn open(world: &World) -> Vec<Bookmark> {
    list_bookmarks(&world.store, ListBookmarks::default(), &world.context())
        .unwrap()
        .bookmarks
}

#[test]
fn a_bookmark_survives_the_messages_edit_and_deletion() {
    let world = World::new();
    let channel = world.channel("general");
    let edited = world.post(channel, "7", "as first written", json!({}));
    let deleted = world.post(channel, "7", "soon gone", json!({}));
    add(&world, edited, Some("check this")).unwrap();
    add(&world, deleted, None).unwrap();
    world.edit(channel, edited, "rewritten", "2026-11-29T12:00:00Z");
    world.delete(channel, deleted);

    let bookmarks = open(&world);
    assert_eq!(bookmarks.len(), 2);
    assert_eq!(bookmarks[0].message_id, edited);
    assert_eq!(bookmarks[0].content_when_bookmarked, "as first written");
    assert_eq!(bookmarks[0].message.body.content, "rewritten");
    assert_eq!(bookmarks[0].note.as_deref(), Some("check this"));
    assert_eq!(bookmarks[0].source, "cli");
    assert_eq!(bookmarks[1].message_id, deleted);
    assert!(bookmarks[1].message.body.deleted);
    assert_eq!(bookmarks[1].content_when_bookmarked, "soon gone");
}

#[test]
fn resolving_appends_an_event_with_its_source_and_closes_the_bookmark() {
    let world = World::new();
    let channel = world.channel("general");
    let message = world.post(channel, "7", "todo", json!({}));
    add(&world, message, Some("later")).unwrap();
    let resolved = resolve(&world, message, Source::Mcp).unwrap();
    assert_eq!(resolved.source, "mcp");
    assert_eq!(resolved.note.as_deref(), Some("later"));
    assert_eq!(open(&world).len(), 0);
    let latest = world
        .store
        .read(|reader| reader.latest_bookmark_event(&message))
        .unwrap()
        .unwrap();
    assert_eq!(latest.kind, BookmarkKind::Resolved);
    assert_eq!(latest.source, "mcp");
    assert_eq!(latest.created_at, resolved.resolved_at);
}

#[test]
fn resolving_twice_says_it_is_already_resolved() {
    let world = World::new();
    let channel = world.channel("general");
    let message = world.post(channel, "7", "todo", json!({}));
    add(&world, message, None).unwrap();
    resolve(&world, message, Source::Cli).unwrap();
    let error = resolve(&world, message, Source::Cli).unwrap_err();
    assert_eq!(error.message(), "That bookmark is already resolved");
    assert_eq!(
        error.kind(),
        discord_manager_vocabulary::error::ErrorKind::Conflict
    );
}

#[test]
fn a_message_can_be_bookmarked_again_once_resolved_but_not_twice_while_open() {
    let world = World::new();
    let channel = world.channel("general");
    let message = world.post(channel, "7", "todo", json!({}));
    add(&world, message, None).unwrap();
    let error = add(&world, message, None).unwrap_err();
    assert_eq!(error.message(), "That message is already bookmarked");
    resolve(&world, message, Source::Cli).unwrap();
    add(&world, message, Some("again")).unwrap();
    assert_eq!(open(&world)[0].note.as_deref(), Some("again"));
}

#[test]
fn unknown_messages_and_missing_bookmarks_are_named() {
    let world = World::new();
    let missing = new_id();
    let error = add(&world, &missing, None).unwrap_err();
    assert_eq!(
        error.message(),
        format!("`messageId`: no stored message has id {missing}")
    );
    assert_eq!(
        error.kind(),
        discord_manager_vocabulary::error::ErrorKind::NotFound
    );
    let channel = world.channel("general");
    let never = world.post(channel, "7", "never bookmarked", json!({}));
    let error = resolve(&world, never, Source::Cli).unwrap_err();
    assert_eq!(
        error.message(),
        format!("`messageId`: message {never} has no bookmark")
    );
    assert_eq!(
        error.kind(),
        discord_manager_vocabulary::error::ErrorKind::NotFound
    );
}

#[test]
fn a_message_outside_the_scope_cannot_be_bookmarked() {
    let world = World::new();
    let elsewhere = World::new();
    let channel = elsewhere.channel("theirs");
    let foreign = elsewhere.post(channel, "7", "not yours", json!({}));
    let error = add(&world, foreign, None).unwrap_err();
    assert_eq!(
        error.message(),
        format!("`messageId`: no stored message has id {foreign}")
    );
}

fn add_due(
    world: &World,
    message_id: impl std::fmt::Display,
    note: Option<&str>,
    due: &str,
) -> Result<Bookmark> {
    let input = AddBookmark {
        message_id: id(message_id),
        note: note.map(str::to_string),
        due_at: Some(Instant::parse(due).unwrap()),
    };
    add_bookmark(&world.store, input, &world.context())
}

fn listed_at(
    world: &World,
    now: &str,
    limit: Option<u32>,
    cursor: Option<PageCursor>,
) -> Bookmarks {
    let input = ListBookmarks { limit, cursor };
    list_bookmarks_at(
        &world.store,
        input,
        &world.context(),
        Instant::parse(now).unwrap(),
    )
    .unwrap()
}

/// (message id, due, overdue) of each bookmark of a page.
fn order(bookmarks: &Bookmarks) -> Vec<(MessageId, Option<String>, bool)> {
    bookmarks
        .bookmarks
        .iter()
        .map(|b| (b.message_id, b.due_at.map(|d| d.to_string()), b.overdue))
        .collect()
}

#[test]
fn due_bookmarks_come_first_soonest_first_and_are_overdue_only_after_their_due_time() {
    let world = World::new();
    let channel = world.channel("general");
    let plain = world.post(channel, "7", "plain", json!({}));
    let friday = world.post(channel, "7", "friday", json!({}));
    let monday = world.post(channel, "7", "monday", json!({}));
    add(&world, plain, None).unwrap();
    add_due(&world, friday, None, "2026-12-04T09:00:00Z").unwrap();
    add_due(&world, monday, None, "2026-11-30T09:00:00Z").unwrap();
    let friday_due = Some("2026-12-04T09:00:00.000000Z".to_string());
    let monday_due = Some("2026-11-30T09:00:00.000000Z".to_string());
    // At Monday's due time exactly, it is not overdue yet; a microsecond later it is.
    assert_eq!(
        order(&listed_at(&world, "2026-11-30T09:00:00Z", None, None)),
        vec![
            (monday, monday_due.clone(), false),
            (friday, friday_due.clone(), false),
            (plain, None, false),
        ]
    );
    assert_eq!(
        order(&listed_at(
            &world,
            "2026-11-30T09:00:00.000001Z",
            None,
            None
        )),
        vec![
            (monday, monday_due.clone(), true),
            (friday, friday_due.clone(), false),
            (plain, None, false),
        ]
    );
    // Paging one at a time reads the same order, each exactly once.
    let mut seen = Vec::new();
    let mut cursor = None;
    loop {
        let page = listed_at(&world, "2026-11-30T10:00:00Z", Some(1), cursor);
        seen.extend(page.bookmarks.iter().map(|b| b.message_id));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, vec![monday, friday, plain]);
}

#[test]
fn bookmarking_again_with_only_a_due_time_changes_it_as_a_new_event() {
    let world = World::new();
    let channel = world.channel("general");
    let message = world.post(channel, "7", "the PR", json!({}));
    add(&world, message, Some("review")).unwrap();
    let changed = add_due(&world, message, None, "2026-12-04T09:00:00Z").unwrap();
    assert_eq!(changed.note.as_deref(), Some("review"), "the note stays");
    assert_eq!(changed.due_at, Instant::parse("2026-12-04T09:00:00Z"));
    add_due(&world, message, None, "2026-12-07T09:00:00Z").unwrap();
    let listed = listed_at(&world, "2026-12-01T00:00:00Z", None, None);
    let bookmark = listed
        .bookmarks
        .iter()
        .find(|b| b.message_id == message)
        .unwrap();
    assert_eq!(bookmark.due_at, Instant::parse("2026-12-07T09:00:00Z"));
    let dues = world
        .store
        .read(|reader| reader.bookmark_due_times())
        .unwrap();
    assert_eq!(
        dues[&message].0,
        Instant::parse("2026-12-07T09:00:00Z").unwrap()
    );
    let error = add_due(&world, message, Some("new note"), "2026-12-08T09:00:00Z").unwrap_err();
    assert_eq!(
        error.message(),
        "That message is already bookmarked: give only `dueAt` to change when it is due"
    );
    let error = add(&world, message, None).unwrap_err();
    assert_eq!(error.message(), "That message is already bookmarked");
    // Resolved and bookmarked again, it starts without the old due time.
    resolve(&world, message, Source::Cli).unwrap();
    add(&world, message, None).unwrap();
    let listed = listed_at(&world, "2026-12-01T00:00:00Z", None, None);
    let bookmark = listed
        .bookmarks
        .iter()
        .find(|b| b.message_id == message)
        .unwrap();
    assert_eq!(bookmark.due_at, None);
}
