//! The benchmark's smoke run, inside the normal test suite so its code cannot rot: a
//! 10k-message synthetic store built through the real recorders, checked row for row against
//! what the generator says it produced (exact values, fixed by the seed), and one pass of the
//! benchmark's own measurements over it. No duration is ever asserted.

#[path = "../benches/support/mod.rs"]
mod support;

use std::path::PathBuf;
use std::sync::LazyLock;

use discord_manager_core::business::bookmarks::list::{ListBookmarks, list_bookmarks};
use discord_manager_core::business::kernel::budget::ANSWER_BYTES;
use discord_manager_core::business::mentions::list::{ListMentions, list_mentions};
use discord_manager_core::business::messages::catch_up::{CatchUp, catch_up};
use discord_manager_store::Store;
use discord_manager_synthetic::stand_in_meanings::made_up_base;
use discord_manager_synthetic::{OWNER_ID, Plan, Produced};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId, UserId};
use rusqlite::{Connection, OpenFlags};

const SEED: u64 = 20_261_129;

struct Built {
    _folder: tempfile::TempDir,
    path: PathBuf,
    produced: Produced,
}

/// One 10k store for every test of this file, built once.
static TEN_THOUSAND: LazyLock<Built> = LazyLock::new(|| {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("synthetic.sqlite3");
    let store = Store::open(&path).expect("the store opens");
    let (produced, _timing) = discord_manager_synthetic::build(&store, &Plan::new(10_000, SEED))
        .expect("the generator runs");
    Built {
        _folder: folder,
        path,
        produced,
    }
});

fn count(connection: &Connection, sql: &str) -> u64 {
    connection
        .query_row(sql, [], |row| row.get::<_, i64>(0))
        .unwrap_or_else(|error| panic!("{sql}: {error}")) as u64
}

fn read_only(path: &PathBuf) -> Connection {
    Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).expect("the store opens")
}

#[test]
fn the_seed_fixes_what_the_generator_produces() {
    // The payloads' size follows the clock's instants; it is checked for its order only: about
    // a kilobyte a message, as Discord's gateway sends a plain message with its author and member.
    let payload_bytes = TEN_THOUSAND.produced.message_payload_bytes;
    assert!(
        (9_000_000..12_000_000).contains(&payload_bytes),
        "{payload_bytes} bytes of payloads for 10,000 messages"
    );
    let produced = Produced {
        first_arrival: None,
        last_arrival: None,
        message_payload_bytes: 0,
        ..TEN_THOUSAND.produced.clone()
    };
    assert_eq!(
        produced,
        Produced {
            busiest_readable_channel: ChannelId::parse("1400000000000004071"),
            guilds: 5,
            channels: 500,
            threads: 50,
            no_view_channels: 30,
            no_history_channels: 25,
            messages: 10_000,
            message_payload_bytes: 0,
            authors: 1_460,
            messages_by_owner: 100,
            replies: 1_176,
            owner_mentions: 208,
            owner_mentions_readable: 192,
            owner_user_mentions: 177,
            messages_edited: 482,
            edits: 524,
            deletions: 111,
            messages_with_reactions: 998,
            reaction_events: 3_716,
            bookmarks_added: 120,
            bookmarks_resolved: 40,
            events: 14_407,
            transactions: 225,
            first_arrival: None,
            last_arrival: None,
        }
    );
}

#[test]
fn the_store_holds_exactly_what_the_generator_produced() {
    let built = &*TEN_THOUSAND;
    let produced = &built.produced;
    let db = read_only(&built.path);
    assert_eq!(
        count(&db, "SELECT count(*) FROM messages"),
        produced.messages
    );
    assert_eq!(
        count(&db, "SELECT count(DISTINCT author_id) FROM messages"),
        produced.authors
    );
    assert_eq!(
        count(
            &db,
            &format!("SELECT count(*) FROM messages WHERE author_id = '{OWNER_ID}'")
        ),
        produced.messages_by_owner
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM messages WHERE reply_to_message_id IS NOT NULL"
        ),
        produced.replies
    );
    assert_eq!(
        count(&db, "SELECT count(*) FROM message_edits"),
        produced.edits
    );
    assert_eq!(
        count(&db, "SELECT count(DISTINCT message_id) FROM message_edits"),
        produced.messages_edited
    );
    assert_eq!(
        count(&db, "SELECT count(*) FROM message_deletions"),
        produced.deletions
    );
    assert_eq!(
        count(&db, "SELECT count(*) FROM reaction_events"),
        produced.reaction_events
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(DISTINCT message_id) FROM reaction_events"
        ),
        produced.messages_with_reactions
    );
    assert_eq!(
        count(
            &db,
            &format!(
                "SELECT count(*) FROM message_mentions WHERE kind = 'user' AND target_id = '{OWNER_ID}'"
            )
        ),
        produced.owner_user_mentions
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM bookmark_events WHERE kind = 'added'"
        ),
        produced.bookmarks_added
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM bookmark_events WHERE kind = 'resolved'"
        ),
        produced.bookmarks_resolved
    );
    let latest = "SELECT access FROM channel_events
                  WHERE seq IN (SELECT max(seq) FROM channel_events GROUP BY channel_id)";
    assert_eq!(
        count(&db, &format!("SELECT count(*) FROM ({latest})")),
        produced.channels
    );
    assert_eq!(
        count(
            &db,
            &format!("SELECT count(*) FROM ({latest}) WHERE access = 'no_view'")
        ),
        produced.no_view_channels
    );
    assert_eq!(
        count(
            &db,
            &format!("SELECT count(*) FROM ({latest}) WHERE access = 'no_history'")
        ),
        produced.no_history_channels
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(DISTINCT channel_id) FROM channel_events WHERE kind = 'public_thread'"
        ),
        produced.threads
    );
}

#[test]
fn the_capabilities_read_back_what_the_generator_produced() {
    let built = &*TEN_THOUSAND;
    let produced = &built.produced;
    let store = Store::open(&built.path).expect("the store opens");
    let context = support::owner_context();
    let since = produced.first_arrival.expect("history has a first arrival");

    // Every mention, page by page: each answer fits an assistant's context.
    let mut mentions = Vec::new();
    let mut cursor = None;
    loop {
        let page = list_mentions(
            &store,
            ListMentions {
                since: cursor.is_none().then_some(since),
                limit: Some(500),
                cursor: cursor.take(),
            },
            &context,
        )
        .expect("mentions_list answers");
        mentions.extend(page.mentions);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(mentions.len() as u64, produced.owner_mentions_readable);
    assert!(
        mentions
            .iter()
            .all(|mention| mention.message.body.mentions_owner)
    );

    let mut bookmarks = Vec::new();
    let mut cursor = None;
    loop {
        let page = list_bookmarks(
            &store,
            ListBookmarks {
                cursor: cursor.take(),
                limit: Some(500),
            },
            &context,
        )
        .expect("bookmarks_list answers");
        bookmarks.extend(page.bookmarks);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(
        bookmarks.len() as u64,
        produced.bookmarks_added - produced.bookmarks_resolved
    );

    let caught_up = catch_up(
        &store,
        CatchUp {
            cursor: None,
            since: Some(since),
            channel_id: None,
            limit: Some(500),
            from_read_markers: None,
        },
        &context,
    )
    .expect("messages_catch_up answers");
    assert_eq!(
        caught_up.skipped_channels.len() as u64 + caught_up.skipped_left_out,
        produced.no_view_channels + produced.no_history_channels
    );
}

#[test]
fn the_same_seed_builds_the_same_history_and_another_seed_does_not() {
    let end = Instant::parse("2026-11-29T12:00:00Z").expect("an instant");
    let history =
        |seed: u64| {
            let folder = tempfile::tempdir().expect("a temporary folder");
            let path = folder.path().join("small.sqlite3");
            let store = Store::open(&path).expect("the store opens");
            let plan = Plan {
                end,
                ..Plan::new(1_000, seed)
            };
            let (produced, _) =
                discord_manager_synthetic::build(&store, &plan).expect("the generator runs");
            drop(store);
            let db = read_only(&path);
            let rows: Vec<(MessageId, ChannelId, UserId, i64)> = db
            .prepare(
                "SELECT message_id, channel_id, author_id, created_at FROM messages ORDER BY seq",
            )
            .unwrap()
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
            (produced, rows)
        };
    let (first, first_rows) = history(7);
    let (again, again_rows) = history(7);
    let (other, other_rows) = history(8);
    assert_eq!(first, again);
    assert_eq!(first_rows, again_rows);
    assert_eq!(first_rows.len(), 1_000);
    assert_ne!(first_rows, other_rows);
    assert_ne!(first.owner_mentions, other.owner_mentions);
}

#[test]
fn history_arrives_at_a_steady_rate_up_to_the_planned_end() {
    let end = Instant::parse("2026-11-29T12:00:00Z").expect("an instant");
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("steady.sqlite3");
    let store = Store::open(&path).expect("the store opens");
    // 1,000 messages at 2,000 a day: twelve hours of history, one message every 43.2 s.
    let plan = Plan {
        end,
        ..Plan::new(1_000, 3)
    };
    let (produced, _) =
        discord_manager_synthetic::build(&store, &plan).expect("the generator runs");
    let start = end.minus_seconds(12 * 3_600);
    // READY arrives two hours before the first message, the last follow-up at the end.
    assert_eq!(produced.first_arrival, Some(start.minus_seconds(7_200)));
    assert_eq!(produced.last_arrival, Some(end));
    drop(store);
    let db = read_only(&path);
    // The store keeps an instant as its microseconds.
    let arrivals = |sql: &str| -> Instant {
        Instant::from_micros(db.query_row(sql, [], |row| row.get(0)).unwrap())
    };
    let first = arrivals("SELECT min(created_at) FROM messages");
    let last = arrivals("SELECT max(created_at) FROM messages");
    // Each message arrives within the first half of its 43.2 s slot.
    assert!(first >= start && first < start.plus_micros(21_600_000));
    let last_slot = start.plus_micros(999 * 43_200_000);
    assert!(last >= last_slot && last < last_slot.plus_micros(21_600_000));
    // Half the messages arrived in the last six hours (the slot boundary falls between two).
    let since = end.minus_seconds(6 * 3_600).as_micros();
    assert_eq!(
        count(
            &db,
            &format!("SELECT count(*) FROM messages WHERE created_at >= {since}")
        ),
        500
    );
}

#[test]
fn the_benchmark_measures_every_reader_and_its_floor_copies_every_row() {
    let built = &*TEN_THOUSAND;
    let produced = &built.produced;
    let last = produced.last_arrival.expect("history has a last arrival");
    // The sample plays its one attachment into the store it measures: a copy, so the built
    // store the other tests count stays exactly what the generator produced.
    let measured = tempfile::tempdir().expect("a temporary folder");
    let copy = measured.path().join("measured.sqlite3");
    std::fs::copy(&built.path, &copy).expect("the built store copies");
    let wal = format!("{}-wal", built.path.display());
    if std::path::Path::new(&wal).exists() {
        std::fs::copy(&wal, format!("{}-wal", copy.display())).expect("its log copies");
    }
    // Search by meaning's stand-in vectors, as the benchmark writes them (made-up bases here:
    // embedding the evaluation set's lines would only slow the test).
    let bases: Vec<Vec<f32>> = (0..4).map(made_up_base).collect();
    let (written, _) = support::search_modes::write_vectors(&copy, &bases).unwrap();
    assert_eq!(written as u64, produced.messages);
    assert_eq!(
        support::search_modes::write_vectors(&copy, &bases)
            .unwrap()
            .0,
        0
    );
    let services = support::services(&copy);
    let runtime = support::runtime();
    let once = support::Repeat {
        warmup: 1,
        min: 2,
        max: 2,
        budget: std::time::Duration::ZERO,
    };
    let first = produced.first_arrival.expect("history has a first arrival");
    let sample = support::sample(
        &runtime,
        &services,
        produced
            .busiest_readable_channel
            .as_ref()
            .expect("a readable channel"),
        first,
        last,
    )
    .expect("the store has what the readers' examples point at");
    let readers = support::defaults(&sample);
    // Every capability of the registry that only reads is measured, in registry order, and
    // only those: a capability that writes would change the store under the next figure.
    let tools: Vec<&str> = readers.iter().map(|(tool, _)| *tool).collect();
    let reading: Vec<&str> = discord_manager_core::registry::capabilities()
        .iter()
        .filter(|capability| capability.effect.read_only())
        .map(|capability| capability.name)
        .collect();
    assert_eq!(tools, reading);
    assert!(tools.contains(&"messages_catch_up") && !tools.contains(&"bookmarks_add"));
    for (tool, arguments) in &readers {
        let samples = support::measure(once, || {
            support::call_unrendered(&runtime, &services, tool, arguments)
        })
        .unwrap_or_else(|error| panic!("{tool}: {error}"));
        assert_eq!(samples.len(), 2, "{tool}");
        let answer = support::call(&runtime, &services, tool, arguments).unwrap();
        assert!(answer.is_object(), "{tool}");
    }
    let catch_up = readers
        .iter()
        .find(|(tool, _)| *tool == "messages_catch_up")
        .unwrap();
    let day = support::call(&runtime, &services, "messages_catch_up", &catch_up.1).unwrap();
    assert!(
        !day["channels"].as_array().unwrap().is_empty(),
        "the last day has messages"
    );
    let search = readers
        .iter()
        .find(|(tool, _)| *tool == "messages_search")
        .unwrap();
    let found = support::call(&runtime, &services, "messages_search", &search.1).unwrap();
    assert!(
        !found["results"].as_array().unwrap().is_empty(),
        "the searched word is in the store"
    );

    // Search in each mode, as the benchmark measures it: every question answered with a full
    // page by meaning and by both (every readable message has a vector); by words, the
    // owner's questions share no message's every word.
    let questions = support::search_modes::questions().unwrap();
    assert!(questions.len() >= 100, "{}", questions.len());
    let modes = support::search_modes::measure(&runtime, &services, once, &questions).unwrap();
    for mode in ["meaning", "both"] {
        assert_eq!(
            modes[mode]["questions"], 4,
            "{mode}: first call, warm-up and two"
        );
        assert_eq!(modes[mode]["results"], 40, "{mode}");
        assert_eq!(modes[mode]["samples"], 2, "{mode}");
    }
    assert_eq!(modes["words"]["results"], 0);

    // attachments_get on the kept screenshot, as the benchmark measures it: read from the
    // cache, decoded, downscaled to 1568 × 522 (1568 pixels on its longest side) and served as
    // a PNG.
    let screenshot = runtime
        .block_on(support::attachments::play_kept_screenshot(
            &services.store,
            produced
                .busiest_readable_channel
                .as_ref()
                .expect("a readable channel"),
        ))
        .unwrap();
    let (reader, arguments) = support::attachments::image_reader(&screenshot);
    assert_eq!(reader, "attachments_get (image)");
    let shown = support::call(&runtime, &services, "attachments_get", &arguments).unwrap();
    assert_eq!(shown["state"], "kept");
    assert_eq!(shown["contentType"], "image/png");
    assert_eq!(
        shown["image"],
        serde_json::json!({"width": 3000, "height": 1000, "servedWidth": 1568,
                           "servedHeight": 522, "servedType": "image/png"})
    );
    let png = support::attachments::screenshot_png();
    assert_eq!(shown["size"], png.len());
    let (media_type, served_bytes) =
        support::attachments::served_image(&runtime, &services, &arguments)
            .unwrap()
            .expect("the image is shown to a model");
    assert_eq!(media_type, "image/png");
    assert!(
        served_bytes > 0 && served_bytes < png.len(),
        "{served_bytes}"
    );

    // Every reader's answer is sized with its largest inputs too, and each fits the budget.
    let largest = support::largest_inputs(&sample);
    let mut sized: Vec<&str> = largest.iter().map(|(tool, _)| *tool).collect();
    sized.dedup();
    assert_eq!(sized, tools, "every reader has its largest inputs");
    for (tool, arguments) in &largest {
        let answer = support::answer(&runtime, &services, tool, arguments)
            .unwrap_or_else(|error| panic!("{tool} {arguments}: {error}"));
        assert_eq!(
            answer.json_bytes,
            answer.structured.to_string().len(),
            "{tool}"
        );
        assert!(answer.text_bytes > 0, "{tool} has a text block");
        assert_eq!(answer.tokens(), answer.bytes().div_ceil(4));
        assert!(
            answer.bytes() <= ANSWER_BYTES,
            "{tool} {arguments}: {} bytes",
            answer.bytes()
        );
    }

    // Paging through the last day reads every message of its window once.
    let since = last.minus_seconds(86_400);
    let read = support::page_through(&runtime, &services, &since.to_iso()).unwrap();
    // Counted in the store paged through, the sample's message with the rest.
    let db = read_only(&copy);
    let readable_in_window = count(
        &db,
        &format!(
            "SELECT count(*) FROM messages m WHERE created_at >= {} AND (
               SELECT access FROM channel_events e WHERE e.channel_id = m.channel_id
               ORDER BY seq DESC LIMIT 1) = 'readable'",
            since.as_micros()
        ),
    );
    assert!(read.pages > 1, "one day takes several pages");
    assert_eq!(read.message_ids.len() as u64, readable_in_window);
    let mut distinct = read.message_ids.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), read.message_ids.len(), "no message twice");
    assert!(read.largest_page_bytes <= ANSWER_BYTES);

    // The floor copies the built store, as the generator produced it.
    let db = read_only(&built.path);
    let folder = tempfile::tempdir().expect("a temporary folder");
    let floor = support::floor(
        &built.path,
        &folder.path().join("floor.sqlite3"),
        produced.transactions,
    )
    .expect("the floor runs");
    let mut expected = Vec::new();
    for (table, _) in &floor.tables {
        expected.push((
            table.clone(),
            count(&db, &format!("SELECT count(*) FROM {table}")),
        ));
    }
    assert_eq!(floor.tables, expected);
    assert!(
        expected
            .iter()
            .any(|(table, rows)| table == "messages" && *rows == produced.messages)
    );
    assert_eq!(
        floor.rows,
        expected.iter().map(|(_, rows)| rows).sum::<u64>()
    );
    assert_eq!(floor.transactions, produced.transactions);
    // The floor fills the full-text index exactly as the store does; a schema with another
    // full-text table needs the floor taught to fill it too. The files' index and the index of
    // Chinese and Japanese words stay empty in a generated history (no kept file, no text in
    // those languages), so there is nothing for the floor to write in them.
    assert_eq!(
        floor.virtual_tables,
        ["cjk_text", "file_text", "message_text"]
    );
    assert_eq!(count(&db, "SELECT count(*) FROM file_text"), 0);
    assert_eq!(count(&db, "SELECT count(*) FROM cjk_text"), 0);
    assert_eq!(floor.text_rows, floor.text_rows_in_source);
    assert_eq!(floor.text_rows, produced.messages + produced.edits);
}

#[test]
fn the_attachment_mix_is_fixed_by_its_seed_and_the_cache_keeps_what_the_default_policy_keeps() {
    // 10k messages: the mix's files, fixed by the seed, all within the 1 GiB total cap.
    let small = support::attachments::attachment_cache(10_000, SEED);
    assert_eq!(
        small,
        serde_json::json!({
            "messages": 10_000, "messagesWithFiles": 397, "files": 484, "bytes": 1_171_064_670u64,
            "keptWithoutTotalCap": {"files": 384, "bytes": 313_017_165},
            "keptWithinTotalCap": {"files": 384, "bytes": 313_017_165, "totalCapBytes": 1_073_741_824u64,
                                   "fileCapBytes": 8_388_608, "firstSkippedAtMessage": null},
        })
    );
    // 1M messages: the total cap is reached on the way, and the cache stops just under it.
    let large = support::attachments::attachment_cache(1_000_000, SEED);
    let within = &large["keptWithinTotalCap"];
    let cap = within["totalCapBytes"].as_u64().unwrap();
    let kept = within["bytes"].as_u64().unwrap();
    assert!(kept <= cap && kept > cap - 8_388_608, "{kept} of {cap}");
    assert!(
        within["firstSkippedAtMessage"]
            .as_u64()
            .is_some_and(|at| at < 1_000_000)
    );
    assert!(large["keptWithoutTotalCap"]["bytes"].as_u64().unwrap() > cap);
    // Every message with files carries one to four: Discord allows ten.
    let (messages, files) = (
        large["messagesWithFiles"].as_u64().unwrap(),
        large["files"].as_u64().unwrap(),
    );
    assert!(
        files >= messages && files <= 4 * messages,
        "{files} files, {messages} messages"
    );
}
