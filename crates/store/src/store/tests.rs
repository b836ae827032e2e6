//! Unit tests of `store`, kept beside it so the production file reads on its own.

use std::process::Command;

use discord_manager_vocabulary::snowflake::{ChannelId, MessageId};
use rusqlite::params;

use super::testing::{HISTORY_TABLES, SEARCH_TABLES, fresh_id, shared_store};
use super::*;
use crate::store::NewEdit;
use crate::store::ReactionChange;

#[test]
fn a_file_that_is_not_a_store_is_refused_in_the_owners_words_and_left_untouched() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("notes.txt");
    std::fs::write(&path, "shopping list: milk, eggs, a longer line of text\n").unwrap();
    let error = Store::open(&path)
        .err()
        .expect("a text file is not a store");
    assert_eq!(
        error.kind(),
        discord_manager_vocabulary::error::ErrorKind::Config
    );
    assert_eq!(
        error.message(),
        format!(
            "{} is not a discord-manager store (it is not an SQLite database): check --db \
             or DISCORD_MANAGER_DB",
            path.display()
        )
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "shopping list: milk, eggs, a longer line of text\n"
    );
}

#[test]
fn every_table_of_the_schema_is_covered_by_the_append_only_test() {
    let store = shared_store();
    let connection = store.lock();
    let mut statement = connection
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .unwrap();
    let tables: Vec<String> = statement
        .query_map([], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut expected: Vec<String> = HISTORY_TABLES.iter().map(|t| t.to_string()).collect();
    // The counters: the clock's high-water mark and each channel's running message total,
    // guarded by triggers that let them only move forward.
    expected.extend(["clock".to_string(), "channel_message_totals".to_string()]);
    expected.extend(SEARCH_TABLES.iter().map(|t| t.to_string()));
    // Derived, not recorded: search by meaning's one current vector per message, replaced
    // when the message's text changes (migrations/0022_message_meanings.sql).
    expected.push("message_meanings".to_string());
    // And each model's running count of them, kept as they are written
    // (migrations/0023_meaning_totals.sql).
    expected.push("meaning_totals".to_string());
    // And where the embedding pass has walked to, and the scan's codes block by block
    // (migrations/0029_meaning_walks_and_blocks.sql).
    expected.extend(["meaning_walks".to_string(), "meaning_blocks".to_string()]);
    // And the centre of each model's vectors (migrations/0037_meaning_centres.sql).
    expected.push("meaning_centres".to_string());
    expected.sort();
    assert_eq!(
        tables, expected,
        "a new table needs append-only triggers and a place here"
    );
}

#[test]
fn the_connection_keeps_4_mib_of_pages_and_plans_without_looking_at_bound_values() {
    let store = shared_store();
    let connection = store.lock();
    let cache: i64 = connection
        .query_row("PRAGMA cache_size", [], |row| row.get(0))
        .unwrap();
    assert_eq!(cache, -4096);
    assert!(
        connection
            .db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG)
            .unwrap()
    );
}

#[test]
fn the_clock_never_moves_back() {
    let store = shared_store();
    let connection = store.lock();
    let error = connection
        .execute("UPDATE clock SET last_micros = 1", [])
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("the arrival clock only moves forward"),
        "{error}"
    );
    let error = connection.execute("DELETE FROM clock", []).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("the arrival clock is never deleted"),
        "{error}"
    );
}

#[test]
fn stamps_within_one_transaction_are_consecutive_microseconds() {
    let store = shared_store();
    let (first, second) = store
        .write(|writer| Ok((writer.stamp(), writer.stamp())))
        .unwrap();
    assert_eq!(second, first.plus_micros(1));
    let third = store.write(|writer| Ok(writer.stamp())).unwrap();
    assert!(third > second);
}

#[test]
fn a_later_commit_never_gets_an_earlier_instant_even_if_the_wall_clock_is_behind() {
    let folder = tempfile::tempdir().unwrap();
    let store = Store::open(&folder.path().join("clock.sqlite3")).unwrap();
    let ahead = Instant::now().plus_seconds(3600);
    store
        .lock()
        .execute("UPDATE clock SET last_micros = ?1", [ahead.as_micros()])
        .unwrap();
    let stamped = store.write(|writer| Ok(writer.stamp())).unwrap();
    assert_eq!(stamped, ahead.plus_micros(1));
}

#[test]
fn a_failed_write_leaves_nothing_behind() {
    let store = shared_store();
    let message_id: MessageId = fresh_id();
    let result: Result<()> = store.write(|writer| {
        writer.record_reaction(&ReactionChange::Add {
            message_id,
            channel_id: "1".parse().unwrap(),
            user_id: "2".parse().unwrap(),
            emoji: "👍".into(),
        })?;
        Err(Error::input("refused halfway"))
    });
    assert_eq!(result.unwrap_err().message(), "refused halfway");
    let count: i64 = store
        .lock()
        .query_row(
            "SELECT count(*) FROM reaction_events WHERE message_id = ?1",
            [&message_id],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(count, 0);
}

#[cfg(unix)]
#[test]
fn the_store_file_is_private_to_its_owner() {
    use std::os::unix::fs::PermissionsExt;
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("private.sqlite3");
    Store::open(&path).unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

/// Not a test on its own: the child half of the two-process clock test below, which runs
/// this binary twice with `CLOCK_CHILD_STORE` set.
#[test]
fn clock_writer_child() {
    let Ok(path) = std::env::var("CLOCK_CHILD_STORE") else {
        return;
    };
    // Each writer's message ids start with its own digit: 1 for "a", 2 for "b".
    let tag = std::env::var("CLOCK_CHILD_TAG").unwrap();
    let (mine, other) = if tag == "a" { (1, 2) } else { (2, 1) };
    let store = Store::open(std::path::Path::new(&path)).unwrap();
    // Write until the other process has been seen writing, and then once more: so the two
    // processes' commits provably interleave, without any sleep.
    let mut saw_other = false;
    for round in 0.. {
        assert!(round < 1_000_000, "the other writer never appeared");
        store
            .write(|writer| {
                for user in 0..2 {
                    writer.record_reaction(&ReactionChange::Add {
                        message_id: format!("{mine}000{round}").parse().unwrap(),
                        channel_id: "1".parse().unwrap(),
                        user_id: (user + 1).to_string().parse().unwrap(),
                        emoji: "👍".into(),
                    })?;
                }
                Ok(())
            })
            .unwrap();
        if saw_other && round >= 300 {
            break;
        }
        saw_other = store
            .lock()
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM reaction_events WHERE message_id LIKE ?1)",
                [format!("{other}000%")],
                |row| row.get(0),
            )
            .unwrap();
    }
}

#[test]
fn the_arrival_clock_is_strictly_increasing_across_two_writing_processes() {
    let _forks = super::no_forks_meanwhile();
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("two-writers.sqlite3");
    Store::open(&path).unwrap();
    let children: Vec<_> = ["a", "b"]
        .iter()
        .map(|tag| {
            Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "store::tests::clock_writer_child",
                    "--test-threads=1",
                    "--quiet",
                ])
                .env("CLOCK_CHILD_STORE", &path)
                .env("CLOCK_CHILD_TAG", tag)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success());
    }
    let store = Store::open(&path).unwrap();
    let connection = store.lock();
    let mut statement = connection
        .prepare("SELECT CAST(message_id AS TEXT), created_at FROM reaction_events ORDER BY seq")
        .unwrap();
    let rows: Vec<(String, Instant)> = statement
        .query_map(params![], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(rows.len() >= 2 * 300 * 2, "{} rows", rows.len());
    for pair in rows.windows(2) {
        assert!(
            pair[0].1 < pair[1].1,
            "commit order and clock order disagree: {pair:?}"
        );
    }
    // Both processes really wrote concurrently: their commits interleave (a, b, a at least).
    let switches = rows
        .windows(2)
        .filter(|pair| pair[0].0[..1] != pair[1].0[..1])
        .count();
    assert!(
        switches >= 2,
        "the two writers never interleaved; the test proved nothing"
    );
}

/// A store of its own: these tests move the clock an hour ahead of the wall clock, which
/// would shift every "now"-relative window of tests sharing the unit-test store.
fn private_store() -> (tempfile::TempDir, Store) {
    let folder = tempfile::tempdir().unwrap();
    let store = Store::open(&folder.path().join("clock.sqlite3")).unwrap();
    (folder, store)
}

#[test]
fn advancing_the_clock_makes_the_next_stamp_that_instant() {
    let (_folder, store) = private_store();
    let (first, target, advanced, next) = store
        .write(|writer| {
            let first = writer.stamp();
            let target = first.plus_seconds(3600);
            writer.advance_clock_to(target);
            let advanced = writer.stamp();
            Ok((first, target, advanced, writer.stamp()))
        })
        .unwrap();
    assert!(target > first);
    assert_eq!(advanced, target);
    assert_eq!(next, target.plus_micros(1));
}

#[test]
fn advancing_the_clock_to_an_earlier_or_equal_instant_changes_nothing() {
    let (_folder, store) = private_store();
    let stamps = store
        .write(|writer| {
            let first = writer.stamp();
            // The next instant is first + 1 µs: advancing to it exactly, or to anything
            // earlier, leaves it where it is.
            writer.advance_clock_to(first.plus_micros(1));
            let second = writer.stamp();
            writer.advance_clock_to(first);
            let third = writer.stamp();
            writer.advance_clock_to(Instant::from_micros(0));
            Ok([first, second, third, writer.stamp()])
        })
        .unwrap();
    let first = stamps[0];
    assert_eq!(
        stamps,
        [
            first,
            first.plus_micros(1),
            first.plus_micros(2),
            first.plus_micros(3)
        ]
    );
}

#[test]
fn a_write_at_an_earlier_instant_starts_there_on_a_fresh_store() {
    let (_folder, store) = private_store();
    let past = Instant::parse("2025-01-01T00:00:00Z").unwrap();
    let stamps = store
        .write_at(past, |writer| Ok([writer.stamp(), writer.stamp()]))
        .unwrap();
    assert_eq!(stamps, [past, past.plus_micros(1)]);
}

#[test]
fn a_write_at_never_starts_before_the_last_instant_handed_out() {
    let (_folder, store) = private_store();
    let past = Instant::parse("2025-01-01T00:00:00Z").unwrap();
    let last = store
        .write_at(past.plus_seconds(60), |writer| Ok(writer.stamp()))
        .unwrap();
    // An instant before the last one handed out, and the last one itself: both continue
    // just after it.
    let before = store.write_at(past, |writer| Ok(writer.stamp())).unwrap();
    assert_eq!(before, last.plus_micros(1));
    let same = store.write_at(before, |writer| Ok(writer.stamp())).unwrap();
    assert_eq!(same, before.plus_micros(1));
    // One microsecond after the next instant is taken as it is.
    let ahead = same.plus_micros(2);
    let taken = store.write_at(ahead, |writer| Ok(writer.stamp())).unwrap();
    assert_eq!(taken, ahead);
}

#[test]
fn an_instant_given_back_is_handed_out_again_but_only_the_last_one() {
    let (_folder, store) = private_store();
    let stamps = store
        .write(|writer| {
            let first = writer.stamp();
            let second = writer.stamp();
            writer.unstamp(first); // not the last one: nothing happens
            let third = writer.stamp();
            writer.unstamp(third);
            Ok([first, second, third, writer.stamp()])
        })
        .unwrap();
    let first = stamps[0];
    assert_eq!(
        stamps,
        [
            first,
            first.plus_micros(1),
            first.plus_micros(2),
            first.plus_micros(2)
        ]
    );
}

#[test]
fn a_transaction_that_only_replays_known_rows_leaves_the_clock_where_it_was() {
    let (_folder, store) = private_store();
    let message = crate::store::messages::tests::new_message("1", "7", "hi");
    let mut edit = NewEdit {
        message_id: message.message_id,
        channel_id: "1".parse().unwrap(),
        content: "hi!".into(),
        edited_at: Instant::parse("2026-11-29T11:00:00Z").unwrap(),
        mentioned_user_ids: vec!["8".parse().unwrap()],
        mentioned_role_ids: Vec::new(),
        imported: false,
    };
    let recorded = |edit: &NewEdit| {
        store
            .write(|writer| {
                Ok([
                    writer.insert_message(&message)?,
                    writer.insert_edit(edit)?,
                    writer.insert_deletion(&message.message_id, &"1".parse().unwrap(), false)?,
                ])
            })
            .unwrap()
    };
    assert_eq!(recorded(&edit), [true, true, true]);
    let clock = |store: &Store| store.read(|reader| reader.clock_now()).unwrap();
    let before = clock(&store);
    assert_eq!(recorded(&edit), [false, false, false]);
    assert_eq!(clock(&store), before);
    // Mutation check of the equality above: one new row in the same replay moves it.
    edit.edited_at = edit.edited_at.plus_seconds(1);
    // Its mention of user 8 was known, and its instant was given back: the clock ends at
    // the edit's own instant.
    assert_eq!(recorded(&edit), [false, true, false]);
    let after = clock(&store);
    assert!(after > before);
    let newest_edit = store
        .read(|reader| reader.message(&message.message_id))
        .unwrap()
        .unwrap()
        .edits
        .last()
        .map(|edit| edit.created_at);
    assert_eq!(newest_edit, Some(after));
}

#[test]
fn a_later_transaction_continues_after_an_advanced_clock() {
    let (_folder, store) = private_store();
    let ahead = Instant::now().plus_seconds(3600);
    let last = store
        .write(|writer| {
            writer.advance_clock_to(ahead);
            Ok(writer.stamp())
        })
        .unwrap();
    assert_eq!(last, ahead);
    // The wall clock is an hour behind the store's clock now; the next commit still
    // comes after everything handed out.
    let next = store.write(|writer| Ok(writer.stamp())).unwrap();
    assert_eq!(next, ahead.plus_micros(1));
}

/// Imported history (origin `import`, and the edit recorded with it) is in no reader of news;
/// the last day of it (`import-recent`) is in every one, like a backfilled message. Each reader
/// is asked on its own, so dropping the term from any one of them fails here.
#[test]
fn imported_history_is_in_no_reader_of_news_and_its_last_day_is_in_every_one() {
    use crate::store::messages::tests::new_message;
    let store = shared_store();
    let channel: ChannelId = fresh_id();
    let before = store.read(|reader| reader.clock_now()).unwrap();
    let mut history = new_message(channel, "7", "a week before the install");
    history.origin = Origin::Import;
    history.mention_everyone = true;
    let mut recent = new_message(channel, "7", "an hour before the install");
    recent.origin = Origin::ImportRecent;
    recent.mention_everyone = true;
    let edit = |message: &NewMessage, imported| NewEdit {
        message_id: message.message_id,
        channel_id: channel,
        content: format!("{} (edited)", message.content),
        edited_at: Instant::parse("2026-11-29T11:00:00Z").unwrap(),
        mentioned_user_ids: Vec::new(),
        mentioned_role_ids: Vec::new(),
        imported,
    };
    store
        .write(|writer| {
            writer.insert_message(&history)?;
            writer.insert_edit(&edit(&history, true))?;
            writer.insert_message(&recent)?;
            writer.insert_edit(&edit(&recent, false))?;
            Ok(())
        })
        .unwrap();
    let only_recent = vec![recent.message_id];
    let ids = |records: Vec<MessageRecord>| -> Vec<MessageId> {
        records
            .into_iter()
            .filter(|record| record.channel_id == channel)
            .map(|record| record.message_id)
            .collect()
    };
    store
        .read(|reader| {
            let channels = [&channel];
            assert_eq!(
                ids(reader.messages_arrived_from(&channels, before, 10)?),
                only_recent
            );
            assert_eq!(
                ids(reader.channel_messages_since(&channel, before, 10)?),
                only_recent
            );
            let pages = reader.channels_messages_since(&channels, before, 10)?;
            assert_eq!(ids(pages.into_iter().flatten().collect()), only_recent);
            let starts = std::collections::HashMap::from([(channel, before)]);
            assert_eq!(
                ids(reader.messages_arrived_from_starts(&starts, before, 10)?),
                only_recent
            );
            assert_eq!(
                ids(reader.hydrate_mentions(reader.mention_candidates_since(
                    &"8".parse().unwrap(),
                    &[],
                    before,
                    500
                )?)?),
                only_recent
            );
            let counts = reader.arrivals_by_channel(before, Some(before))?;
            assert_eq!(counts.window.get(&channel), Some(&1));
            assert_eq!(counts.after.get(&channel), Some(&1));
            assert_eq!(reader.channel_arrivals(&channel, before)?.1, 1);
            let activity = reader.channel_activity_after(&channel, before)?;
            assert_eq!((activity.messages, activity.edits), (1, 1));
            let everywhere = reader.activity_after(before)?;
            assert_eq!(
                (everywhere[&channel].messages, everywhere[&channel].edits),
                (1, 1)
            );
            let window =
                reader.channels_window(&channels, before, Instant::now().plus_seconds(60), 3)?;
            assert_eq!(window[0].messages, 1);
            // History is not news, but it is history: both are in the channel's record.
            assert!(reader.has_message(&history.message_id)?);
            Ok(())
        })
        .unwrap();
}

// The vocabulary's ids as SQLite binds and reads them (its `sqlite` feature, which the store
// enables): TEXT of their digits, a value that is not an id refused in the owner's words.

/// A bare SQLite table with a TEXT column, as the store's id columns are.
fn text_column() -> rusqlite::Connection {
    let connection = rusqlite::Connection::open_in_memory().unwrap();
    connection.execute_batch("CREATE TABLE t (x TEXT)").unwrap();
    connection
}

#[test]
fn an_id_is_stored_as_text_of_its_digits_and_read_back() {
    let connection = text_column();
    let id = ChannelId::parse("1189078123456789012").unwrap();
    connection
        .execute("INSERT INTO t (x) VALUES (?1)", [&id])
        .unwrap();
    let (kind, text): (String, String) = connection
        .query_row("SELECT typeof(x), x FROM t", [], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .unwrap();
    assert_eq!(
        (kind.as_str(), text.as_str()),
        ("text", "1189078123456789012")
    );
    let back: ChannelId = connection
        .query_row("SELECT x FROM t", [], |row| row.get(0))
        .unwrap();
    assert_eq!(back, id);
    // A bound id finds the row a bound text of the same digits finds.
    let found: i64 = connection
        .query_row(
            "SELECT count(*) FROM t WHERE x = ?1",
            ["1189078123456789012"],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(found, 1);
    let absent: Option<ChannelId> = connection
        .query_row("SELECT NULL", [], |row| row.get(0))
        .unwrap();
    assert_eq!(absent, None);
}

#[test]
fn a_stored_value_that_is_not_an_id_reads_as_an_owner_worded_error() {
    let connection = text_column();
    for corrupt in ["general", "0", ""] {
        connection.execute("DELETE FROM t", []).unwrap();
        connection
            .execute("INSERT INTO t (x) VALUES (?1)", [corrupt])
            .unwrap();
        let failure = connection
            .query_row("SELECT x FROM t", [], |row| row.get::<_, MessageId>(0))
            .unwrap_err();
        let error = discord_manager_vocabulary::error::Error::from(failure);
        assert_eq!(
            error.kind(),
            discord_manager_vocabulary::error::ErrorKind::Internal
        );
        assert_eq!(
            error.message(),
            format!(
                "The store is damaged: it holds {corrupt:?} where a message id belongs, \
                 and that is not a Discord id"
            )
        );
        assert_eq!(
            error.hints(),
            ["Restore the store from a backup, or run `doctor` to see what else is wrong"]
        );
    }
}

mod read_limits {
    use discord_manager_vocabulary::error::ErrorKind;

    use crate::store::*;

    /// A read that takes a few thousand progress steps (a million-row recursive count).
    fn long_count(store: &Store) -> Result<i64> {
        store.read(|reader| {
            Ok(reader.connection.query_row(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
                 SELECT count(*) FROM n",
                [],
                |row| row.get(0),
            )?)
        })
    }

    fn store_with(steps: Option<u64>) -> (tempfile::TempDir, Store) {
        let folder = tempfile::tempdir().unwrap();
        let mut store = Store::open(&folder.path().join("store.sqlite3")).unwrap();
        store.set_read_limit(ReadLimit {
            deadline: READ_DEADLINE,
            steps,
        });
        (folder, store)
    }

    #[test]
    fn a_read_past_its_limit_is_stopped_with_an_owner_worded_error() {
        let (_folder, store) = store_with(Some(50));
        let error = long_count(&store).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Input);
        assert_eq!(
            error.message(),
            "This took too long (more than 10 s) and was stopped: narrow the query (a shorter \
             window, one channel, a longer word to search for, a smaller limit)"
        );
        // The connection is sound afterwards, and a short read within the limit answers.
        assert!(store.read(|reader| reader.is_empty()).unwrap());
        // The other side of the limit: with room for the whole count it completes.
        let (_folder, roomy) = store_with(Some(1_000_000));
        assert_eq!(long_count(&roomy).unwrap(), 1_000_000);
    }

    #[test]
    fn a_cancelled_call_stops_its_query_and_no_other_handles() {
        let (_folder, store) = store_with(None);
        // Cancelled before the read: it does not start.
        let before = store.cancelled_by(Arc::new(AtomicBool::new(true)));
        assert_eq!(long_count(&before).unwrap_err(), cancelled_error());
        // Cancelled while its query runs: the query is interrupted.
        let cancelled = Arc::new(AtomicBool::new(false));
        let during = store.cancelled_by(Arc::clone(&cancelled));
        let error = during
            .read(|reader| {
                cancelled.store(true, Ordering::Relaxed);
                Ok(reader.connection.query_row(
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
                     SELECT count(*) FROM n",
                    [],
                    |row| row.get::<_, i64>(0),
                )?)
            })
            .unwrap_err();
        assert_eq!(error, cancelled_error());
        // The store itself, and a handle whose call goes on, read to the end.
        let running = store.cancelled_by(Arc::new(AtomicBool::new(false)));
        assert_eq!(long_count(&running).unwrap(), 1_000_000);
        assert_eq!(long_count(&store).unwrap(), 1_000_000);
    }
}

/// File modes and permissions: Unix only.
#[cfg(unix)]
mod file_modes {
    use std::os::unix::fs::PermissionsExt;

    use discord_manager_vocabulary::error::ErrorKind;

    use crate::store::*;

    /// Writes something: the application's owner, as the recorders would.
    fn record_owner(store: &Store, id: &str) -> Result<bool> {
        let owner = Identity {
            owner_user_id: Some(id.parse().unwrap()),
            ..Identity::default()
        };
        store.write(|writer| writer.record_identity(&owner, IdentitySource::Seed))
    }

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn opening_a_store_makes_it_and_its_wal_and_shm_private() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("store.sqlite3");
        drop(Store::open(&path).unwrap());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let store = Store::open(&path).unwrap();
        store.write(|writer| writer.reader().is_empty()).unwrap();
        assert_eq!(mode(&path), 0o600);
        for suffix in ["-wal", "-shm"] {
            let companion = folder.path().join(format!("store.sqlite3{suffix}"));
            assert_eq!(mode(&companion), 0o600, "{suffix}");
        }
        // -wal and -shm left readable by an earlier version are made private too.
        drop(store);
        let store = Store::open(&path).unwrap();
        let wal = folder.path().join("store.sqlite3-wal");
        std::fs::set_permissions(&wal, std::fs::Permissions::from_mode(0o644)).unwrap();
        drop(Store::open(&path).unwrap());
        drop(store);
        if wal.exists() {
            assert_eq!(mode(&wal), 0o600);
        }
    }

    #[test]
    fn the_folders_made_for_a_store_are_private_and_a_folder_that_exists_is_left_alone() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::set_permissions(folder.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = folder.path().join("data/discord-manager/store.sqlite3");
        drop(Store::open(&path).unwrap());
        assert_eq!(mode(&folder.path().join("data")), 0o700);
        assert_eq!(mode(&folder.path().join("data/discord-manager")), 0o700);
        assert_eq!(mode(folder.path()), 0o755);
    }

    #[test]
    fn an_sqlite_uri_or_memory_database_is_refused_as_a_path() {
        for text in [
            "file::memory:",
            "file:store.sqlite3?mode=memory",
            ":memory:",
            "",
        ] {
            let refusal = Store::open(Path::new(text)).err().unwrap();
            assert_eq!(refusal.kind(), ErrorKind::Config, "{text}");
            assert!(
                refusal
                    .message()
                    .contains("is an SQLite URI or an in-memory database"),
                "{}",
                refusal.message()
            );
        }
        // A file whose name merely contains `file:` further on is a file.
        let folder = tempfile::tempdir().unwrap();
        assert!(Store::open(&folder.path().join("my-file:store.sqlite3")).is_ok());
    }

    /// A store on a read-only file, in a read-only folder, still answers reads; a write fails
    /// with the reason.
    #[test]
    fn a_read_only_store_is_opened_for_reading() {
        let folder = tempfile::tempdir().unwrap();
        let inner = folder.path().join("ro");
        std::fs::create_dir(&inner).unwrap();
        let path = inner.join("store.sqlite3");
        {
            let store = Store::open(&path).unwrap();
            record_owner(&store, "1000000000000000009").unwrap();
        }
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o400)).unwrap();
        std::fs::set_permissions(&inner, std::fs::Permissions::from_mode(0o500)).unwrap();
        // Root may write anything: the test only means something for another user.
        let writable_anyway = std::fs::OpenOptions::new().append(true).open(&path).is_ok();
        let opened = Store::open(&path);
        let answer = opened.as_ref().map(|store| {
            store
                .read(|reader| reader.identity())
                .unwrap()
                .owner_user_id
        });
        std::fs::set_permissions(&inner, std::fs::Permissions::from_mode(0o700)).unwrap();
        if writable_anyway {
            return;
        }
        assert_eq!(
            answer.unwrap(),
            Some("1000000000000000009".parse().unwrap())
        );
        let store = opened.unwrap();
        assert!(store.write(|writer| writer.reader().is_empty()).is_err());
        assert!(Store::open_writable(&path).is_err());
    }

    /// Where SQLite cannot open the store's write-ahead log (here its name is taken by a
    /// folder, which even root cannot write over, as on a read-only or full disk), the store is
    /// read all the same, and a write fails.
    #[test]
    fn a_store_that_cannot_be_opened_for_writing_is_still_read() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("store.sqlite3");
        let owner = |store: Store, id: &str| record_owner(&store, id);
        owner(Store::open(&path).unwrap(), "1000000000000000009").unwrap();
        std::fs::create_dir(folder.path().join("store.sqlite3-wal")).unwrap();
        let refusal = Store::open_writable(&path).err().unwrap();
        assert_eq!(refusal.kind(), ErrorKind::Config);
        let store = Store::open(&path).unwrap();
        assert_eq!(
            store
                .read(|reader| reader.identity())
                .unwrap()
                .owner_user_id
                .as_ref()
                .map(|id| id.to_string()),
            Some("1000000000000000009".to_string())
        );
        assert!(owner(store, "1000000000000000008").is_err());
    }
}
