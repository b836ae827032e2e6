//! Unit tests of the briefing's ranking, on worlds whose answer is known.

use discord_manager_playback::world::{World, new_id};
use serde_json::json;

use super::*;
use crate::business::bookmarks::add::{AddBookmark, add_bookmark};

use crate::config::Keywords;
use crate::test_fixtures::WorldContext;

fn mention_of(user: impl std::fmt::Display) -> serde_json::Value {
    json!({"mentions": [{"id": user.to_string(), "username": "o", "discriminator": "0", "avatar": null}]})
}

fn brief(world: &World, context: &OwnerContext, input: Briefing) -> BriefingReport {
    briefing(&world.store, input, context).unwrap()
}

fn since(at: Instant) -> Briefing {
    Briefing {
        since: Some(at),
        ..Briefing::default()
    }
}

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

/// The earliest instant a message stored from now on can arrive at.
fn next_arrival(world: &World) -> Instant {
    world
        .store
        .read(|reader| reader.clock_now())
        .unwrap()
        .plus_micros(1)
}

fn needs_ids(report: &BriefingReport) -> Vec<(NeedReason, MessageId)> {
    report
        .needs_you
        .as_ref()
        .unwrap()
        .items
        .iter()
        .map(|item| (item.reason, item.message.message_id))
        .collect()
}

#[test]
fn needs_you_lists_direct_messages_then_mentions_replies_and_roles_then_everyone_and_only_counts_the_closed()
 {
    let world = World::alone();
    let context = OwnerContext {
        allow_dms: true,
        ..world.context()
    };
    let owner = world.owner_id;
    let channel = world.channel("general");
    let start = next_arrival(&world);
    let everyone = world.post(
        channel,
        "7",
        "@here standup",
        json!({"mention_everyone": true}),
    );
    let mention = world.post(channel, "7", "can you look?", mention_of(owner));
    let mine = world.post(channel, owner, "my question", json!({}));
    let reply = world.post(
        channel,
        "8",
        "answering you",
        json!({"type": 19, "message_reference": {"message_id": mine, "channel_id": channel},
               "referenced_message": world.message_payload(mine, channel, owner, "my question", json!({}))}),
    );
    let role = world.post(
        channel,
        "9",
        "maintainers, please",
        json!({"mention_roles": [world.owner_role_id]}),
    );
    let (_, direct) = world.direct_message("10", "a word in private?", json!({}));
    // Answered by the owner's reply: closed, counted, never listed.
    let answered = world.post(channel, "7", "and this?", mention_of(owner));
    world.post(
        channel,
        owner,
        "done",
        json!({"type": 19, "message_reference": {"message_id": answered, "channel_id": channel},
               "referenced_message": world.message_payload(answered, channel, "7", "and this?", json!({}))}),
    );
    world.post(channel, "7", "nothing for you", json!({}));

    let report = brief(&world, &context, since(start));
    let needs = report.needs_you.as_ref().unwrap();
    assert_eq!(
        needs_ids(&report),
        [
            (NeedReason::DirectMessage, direct),
            (NeedReason::Mention, mention),
            (NeedReason::Reply, reply),
            (NeedReason::Role, role),
            (NeedReason::Everyone, everyone),
        ]
    );
    assert_eq!((needs.total, needs.closed), (5, 1));
    assert_eq!(needs.next_cursor, None);
    let quoted = needs.items[2].replies_to.as_ref().unwrap();
    assert_eq!(quoted.message_id, mine);
    assert_eq!(quoted.text.as_deref(), Some("my question"));
    // Neither the closed mention nor any item addressed to the owner reappears below.
    assert_eq!(report.keywords.as_ref().unwrap().total, 0);
    assert_eq!(report.watermark, report.through);

    // A direct message is dismissed like a mention: then closed, counted, no longer listed.
    crate::business::mentions::dismiss::dismiss_mention(
        &world.store,
        crate::business::mentions::dismiss::DismissMention {
            message_id: discord_manager_playback::world::id(direct),
            note: None,
        },
        &context,
    )
    .unwrap();
    let report = brief(&world, &context, since(start));
    let needs = report.needs_you.as_ref().unwrap();
    assert_eq!((needs.total, needs.closed), (4, 2));
    assert_eq!(needs.items[0].reason, NeedReason::Mention);
}

#[test]
fn a_direct_message_out_of_scope_is_never_shown_nor_counted() {
    let world = World::alone();
    let context = world.context();
    let start = world.store.read(|reader| reader.clock_now()).unwrap();
    let (dm_channel, _) = world.direct_message("10", "secret plans", json!({}));
    let channel = world.channel("general");
    world.post(channel, "7", "hello", json!({}));

    let report = brief(&world, &context, since(start));
    let needs = report.needs_you.as_ref().unwrap();
    assert_eq!((needs.total, needs.closed, needs.items.len()), (0, 0, 0));
    let json = serde_json::to_string(&report).unwrap();
    assert!(!json.contains(&dm_channel.to_string()), "{json}");
    assert!(!json.contains("secret plans"), "{json}");
    assert_eq!(report.rest.as_ref().unwrap().messages, 1);
}

#[test]
fn a_keyword_hit_is_in_the_window_at_since_and_out_of_it_a_microsecond_later() {
    let world = World::new();
    let context = OwnerContext {
        keywords: Keywords::of(&["eviction", "cache node"]),
        ..world.context()
    };
    let channel = world.channel("infra");
    let hit = world.post(channel, "7", "we agreed on the Eviction policy", json!({}));
    world.post(channel, "7", "evictions are a different word", json!({}));
    let phrase = world.post(channel, "8", "one bad cache node, replaced", json!({}));
    world.post(
        channel,
        "8",
        "the node of the cache is not the phrase",
        json!({}),
    );
    let addressed = world.post(
        channel,
        "9",
        "eviction question for you",
        mention_of(world.owner_id),
    );
    let at = arrival(&world, hit);

    let report = brief(&world, &context, since(at));
    let keywords = report.keywords.as_ref().unwrap();
    let found: Vec<(String, &[String])> = keywords
        .items
        .iter()
        .map(|item| (item.message.message_id.to_string(), item.matched.as_slice()))
        .collect();
    assert_eq!(
        found,
        [
            (hit.to_string(), &["eviction".to_string()][..]),
            (phrase.to_string(), &["cache node".to_string()][..]),
        ]
    );
    assert_eq!(keywords.total, 2);
    assert_eq!(needs_ids(&report), [(NeedReason::Mention, addressed)]);

    let later = brief(&world, &context, since(at.plus_micros(1)));
    let keywords = later.keywords.as_ref().unwrap();
    assert_eq!(keywords.total, 1);
    assert_eq!(keywords.items[0].message.message_id, phrase);
}

#[test]
fn a_thread_the_owner_wrote_in_exactly_at_the_lookback_edge_is_a_conversation_and_not_a_microsecond_before()
 {
    let world = World::new();
    let context = world.context();
    let parent = world.channel("general");
    let thread = world.thread(parent, "the plan");
    let mine = world.post(thread, world.owner_id, "my proposal", json!({}));
    let answer = world.post(thread, "7", "looks good", json!({}));
    world.post(thread, "8", "agreed", json!({}));
    let wrote_at = arrival(&world, mine);
    let at_edge = wrote_at.plus_micros(24 * 60 * 60 * 1_000_000);
    let input = || Briefing {
        since: Some(wrote_at),
        lookback_days: Some(1),
        cursor: None,
    };
    let now = Instant::now();

    let report = briefing_through(&world.store, input(), &context, now, Some(at_edge)).unwrap();
    let conversations = report.conversations.as_ref().unwrap();
    assert_eq!(conversations.total, 1);
    let conversation = &conversations.items[0];
    assert_eq!(conversation.channel_id, thread);
    assert_eq!(conversation.new_messages, 2);
    assert_eq!(conversation.you_wrote_at, wrote_at);
    assert_eq!(conversation.participants.len(), 2);
    assert_ne!(conversation.newest.message_id, answer);

    let past = briefing_through(
        &world.store,
        input(),
        &context,
        now,
        Some(at_edge.plus_micros(1)),
    )
    .unwrap();
    assert_eq!(past.conversations.as_ref().unwrap().total, 0);
    let rest = past.rest.as_ref().unwrap();
    assert_eq!((rest.total, rest.messages), (1, 3));
}

#[test]
fn notices_discord_writes_make_no_channel_busy_but_a_commands_answer_counts() {
    let world = World::new();
    let context = world.context();
    let start = next_arrival(&world);
    let lobby = world.channel("lobby");
    let bots = world.channel("bots");
    // Six members join and one pins: notices, from six people, in one channel.
    for author in ["7", "8", "9", "10", "11", "12"] {
        world.post(lobby, author, "", json!({"type": 7}));
    }
    world.post(lobby, "7", "", json!({"type": 6}));
    // Five answers to slash commands are messages, and one channel is busy with them.
    for n in 0..5 {
        world.post(bots, ["7", "8"][n % 2], "deployed", json!({"type": 20}));
    }
    let report = brief(&world, &context, since(start));
    let active: Vec<String> = report
        .most_active
        .iter()
        .flat_map(|section| section.items.iter().map(|item| item.channel_id.to_string()))
        .collect();
    let rest: Vec<String> = report
        .rest
        .iter()
        .flat_map(|section| section.items.iter().map(|item| item.channel_id.to_string()))
        .collect();
    assert_eq!((active, rest), (vec![bots.to_string()], vec![]));
}

#[test]
fn busy_discussions_rank_by_score_the_rest_by_count_and_quiet_channels_are_only_counted() {
    let world = World::new();
    let context = world.context();
    let start = next_arrival(&world);
    let busy = world.channel("busy");
    let busier = world.channel("busier");
    let steady = world.channel("steady");
    let quiet = world.channel("quiet");
    let monologue = world.channel("monologue");
    for n in 0..5 {
        world.post(busy, if n % 2 == 0 { "7" } else { "8" }, "talk", json!({}));
    }
    for n in 0..6 {
        world.post(busier, ["7", "8", "9"][n % 3], "more talk", json!({}));
    }
    for _ in 0..3 {
        world.post(steady, "7", "status", json!({}));
    }
    world.post(quiet, "7", "hi", json!({}));
    for _ in 0..6 {
        world.post(monologue, "7", "me again", json!({}));
    }

    let report = brief(&world, &context, since(start));
    let active = report.most_active.as_ref().unwrap();
    let ranked: Vec<(String, u64)> = active
        .items
        .iter()
        .map(|item| (item.channel_id.to_string(), item.participants))
        .collect();
    // busier: 6 + 3×3 = 15; busy: 5 + 3×2 = 11. One author is a monologue, not a discussion.
    assert_eq!(ranked, [(busier.to_string(), 3), (busy.to_string(), 2)]);
    let rest = report.rest.as_ref().unwrap();
    let listed: Vec<(String, u64)> = rest
        .items
        .iter()
        .map(|item| (item.channel_id.to_string(), item.messages))
        .collect();
    assert_eq!(
        listed,
        [(monologue.to_string(), 6), (steady.to_string(), 3)]
    );
    assert_eq!(
        (
            rest.total,
            rest.messages,
            rest.quiet_channels,
            rest.quiet_messages
        ),
        (3, 10, 1, 1)
    );
    // The quiet one is one cursor away, alone.
    let page = brief(
        &world,
        &context,
        Briefing {
            cursor: rest.next_cursor.clone(),
            ..Briefing::default()
        },
    );
    assert_eq!(page.section, Some(SectionName::Rest));
    assert!(page.needs_you.is_none() && page.most_active.is_none());
    let rest = page.rest.unwrap();
    assert_eq!(rest.items.len(), 1);
    assert_eq!(rest.items[0].channel_id, quiet);
    assert_eq!((rest.quiet_channels, rest.next_cursor), (0, None));
}

#[test]
fn a_section_cut_by_the_budget_reads_on_with_its_cursor_each_item_exactly_once() {
    let world = World::new();
    let context = world.context();
    let start = next_arrival(&world);
    let channel = world.channel("incidents");
    let long = "x".repeat(400);
    let planted: Vec<MessageId> = (0..60)
        .map(|n| {
            world.post(
                channel,
                format!("{}", 7 + n % 5),
                &format!("{n} {long}"),
                mention_of(world.owner_id),
            )
        })
        .collect();

    let report = brief(&world, &context, since(start));
    let needs = report.needs_you.clone().unwrap();
    assert_eq!(needs.total, 60);
    assert!(needs.items.len() < 60, "the budget cuts the section");
    assert!(
        serde_json::to_string(&report).unwrap().len()
            < crate::business::kernel::budget::ANSWER_BYTES
    );
    let mut seen: Vec<MessageId> = needs
        .items
        .iter()
        .map(|item| item.message.message_id)
        .collect();
    let mut cursor = needs.next_cursor;
    while let Some(next) = cursor {
        let page = brief(
            &world,
            &context,
            Briefing {
                cursor: Some(next),
                ..Briefing::default()
            },
        );
        let needs = page.needs_you.unwrap();
        assert_eq!(needs.total, 60, "every page states the section's count");
        seen.extend(needs.items.iter().map(|item| item.message.message_id));
        cursor = needs.next_cursor;
    }
    assert_eq!(seen, planted, "every item once, oldest first");
}

#[test]
fn due_lists_overdue_bookmarks_then_those_due_within_a_day_and_never_later_ones() {
    let world = World::new();
    let context = world.context();
    let channel = world.channel("todo");
    let now = Instant::now();
    let hour = 60 * 60 * 1_000_000;
    let bookmark = |due: Instant| {
        let id = world.post(channel, "7", "follow up", json!({}));
        add_bookmark(
            &world.store,
            AddBookmark {
                message_id: discord_manager_playback::world::id(id),
                note: None,
                due_at: Some(due),
            },
            &context,
        )
        .unwrap();
        id
    };
    let soon = bookmark(now.plus_micros(23 * hour));
    let later = bookmark(now.plus_micros(25 * hour));
    let overdue = bookmark(Instant::from_micros(now.as_micros() - hour));

    let report = briefing_at(&world.store, Briefing::default(), &context, now).unwrap();
    let due = report.due.unwrap();
    let listed: Vec<(MessageId, bool)> = due
        .items
        .iter()
        .map(|item| match item {
            DueItem::Bookmark(bookmark) => (bookmark.message.message_id, bookmark.overdue),
            DueItem::FailedSchedule(_) => panic!("no schedule failed"),
        })
        .collect();
    assert_eq!(listed, [(overdue, true), (soon, false)]);
    assert!(
        !serde_json::to_string(&due)
            .unwrap()
            .contains(&later.to_string())
    );
}

#[test]
fn a_cursor_of_another_tool_or_beside_since_is_refused_in_the_owners_words() {
    let world = World::new();
    let context = world.context();
    let foreign = PageCursor::parse("0_0").unwrap();
    let error = briefing(
        &world.store,
        Briefing {
            cursor: Some(foreign),
            ..Briefing::default()
        },
        &context,
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("`cursor` is not one activity_briefing returned"),
        "{error}"
    );
    let ours = PageCursor::parse(&format!("107_-1_{}_0_0_0", new_id())).unwrap();
    let error = briefing(
        &world.store,
        Briefing {
            cursor: Some(ours),
            since: Some(Instant::now()),
            ..Briefing::default()
        },
        &context,
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("not both"), "{error}");
}

#[test]
fn the_text_block_has_a_header_per_section_one_line_an_item_and_says_what_to_call_next() {
    use crate::answer::Outcome;
    let world = World::new();
    let context = world.context();
    let start = next_arrival(&world);
    let channel = world.channel("incidents");
    let ping = world.post(
        channel,
        "7",
        "are you around?\nsecond line",
        mention_of(world.owner_id),
    );
    let report = brief(&world, &context, since(start));
    let text = report.to_text();
    let lines: Vec<&str> = text.lines().collect();
    let headers: Vec<&str> = lines
        .iter()
        .filter(|line| line.starts_with("## "))
        .map(|line| line.split(':').next().unwrap())
        .collect();
    assert_eq!(
        headers,
        [
            "## Needs you",
            "## Your keywords",
            "## Due",
            "## Conversations you are in",
            "## Most active",
            "## The rest"
        ]
    );
    let item = lines
        .iter()
        .find(|line| line.starts_with("- mentions you, waited "))
        .unwrap_or_else(|| panic!("{text}"));
    // The item gives the message's link, where the owner opens it.
    assert!(
        item.starts_with("- mentions you, waited ")
            && item.contains(&format!("message {ping} (https://discord.com/channels/"))
            && item.contains(&format!("/{ping}) in ")),
        "{item}"
    );
    assert!(item.contains("are you around? second line"), "{item}");
    assert!(
        text.contains(&format!(
            "channels_mark_read {{\"through\":\"{}\"}}",
            report.watermark
        )),
        "{text}"
    );
    assert!(
        text.contains("messages_history {channelId, around: messageId}"),
        "{text}"
    );
}

#[test]
fn needs_you_counts_each_mention_of_a_window_longer_than_several_pages_once() {
    // 370 mentions read in pages of 100, 200 and 400, two in three of them closed by the
    // owner writing after them: each page boundary falls between an open and a closed one.
    // Each holds the owner's keyword; being addressed to them, none is a keyword hit.
    let world = World::alone();
    let context = OwnerContext {
        keywords: Keywords::of(&["question"]),
        ..world.context()
    };
    let owner = world.owner_id;
    let answered_here = world.channel("general");
    let waiting_here = world.channel("random");
    let start = next_arrival(&world);
    let mut waiting = Vec::new();
    for index in 0..370 {
        if index % 3 == 0 {
            waiting.push(world.post(waiting_here, "7", "a question", mention_of(owner)));
        } else {
            world.post(answered_here, "7", "a question", mention_of(owner));
        }
    }
    world.post(
        answered_here,
        owner,
        "answered all of it",
        json!({"timestamp": "2026-11-29T11:00:00Z"}),
    );

    let report = brief(&world, &context, since(start));
    let needs = report.needs_you.as_ref().unwrap();
    assert_eq!((needs.total, needs.closed), (124, 246));
    assert_eq!(waiting.len(), 124);
    let listed: Vec<MessageId> = needs_ids(&report).into_iter().map(|(_, id)| id).collect();
    assert_eq!(listed, waiting[..listed.len()]);
    assert_eq!(report.keywords.as_ref().unwrap().total, 0);
}

/// What `activity::arrivals` reads several times a second is the briefing's own "Needs you"
/// and "Your keywords" for the same window, item for item: the push and the briefing cannot
/// disagree.
#[test]
fn the_addressed_sections_alone_are_the_briefings_own_for_the_same_window() {
    let world = World::alone();
    let context = OwnerContext {
        allow_dms: true,
        keywords: Keywords::parse("postmortem").unwrap(),
        ..world.context()
    };
    let owner = world.owner_id;
    let channel = world.channel("general");
    let start = next_arrival(&world);
    world.post(
        channel,
        "7",
        "@here standup",
        json!({"mention_everyone": true}),
    );
    world.post(channel, "7", "can you look?", mention_of(owner));
    world.post(channel, "8", "the postmortem is up", json!({}));
    world.direct_message("10", "a word in private?", json!({}));
    world.post(channel, "7", "nothing for you", json!({}));
    let through = world.store.read(|reader| reader.clock_now()).unwrap();
    let now = Instant::now();

    let whole = briefing_through(&world.store, since(start), &context, now, Some(through)).unwrap();
    let addressed = addressed_through(&world.store, &context, start, through, now).unwrap();
    assert_eq!(addressed.needs_you, whole.needs_you);
    assert_eq!(addressed.keywords, whole.keywords);
    assert_eq!(
        needs_ids(&addressed).len(),
        3,
        "{:?}",
        needs_ids(&addressed)
    );
    assert_eq!(addressed.keywords.as_ref().unwrap().items.len(), 1);
    // Nothing else is read.
    assert!(
        addressed
            .due
            .as_ref()
            .is_none_or(|due| due.items.is_empty())
    );
    assert!(addressed.conversations.is_none());

    // What arrivals makes of them: the kinds pushed, @everyone never.
    let arrived = crate::business::activity::arrivals::arrivals(
        &world.store,
        &context,
        crate::config::PushKinds::default(),
        start.plus_micros(-1),
        Some(through),
    )
    .unwrap();
    let kinds: Vec<&str> = arrived
        .items
        .iter()
        .map(|item| item.kind.as_str())
        .collect();
    assert_eq!(kinds, ["mention", "keyword", "directMessage"]);
    let only_dms = crate::business::activity::arrivals::arrivals(
        &world.store,
        &context,
        crate::config::PushKinds::parse("dms").unwrap(),
        start.plus_micros(-1),
        Some(through),
    )
    .unwrap();
    assert_eq!(only_dms.items.len(), 1);
    assert_eq!(only_dms.items[0].kind.as_str(), "directMessage");
}
