//! Numbered SQL migrations from `migrations/`, applied under SQLite's write lock: all in one
//! IMMEDIATE transaction for a new store, one transaction each for a store with history.
//!
//! A shipped migration is never edited; a schema change is a new numbered file added to
//! [`MIGRATIONS`]. A unit test keeps this list and the folder in step. The schema version is
//! SQLite's `user_version`: the number of migrations applied.
//!
//! Several processes may open a new store at the same moment (`ingest` and a command started
//! together). [`migrate`] therefore takes SQLite's write lock first (`BEGIN IMMEDIATE`, waiting
//! out the others within the busy timeout), reads the version again inside that transaction and
//! applies only what is still missing: one process migrates, the others wait and then find the
//! store current. A store whose version is beyond this binary's is refused, never misread.

use std::path::Path;

use discord_manager_vocabulary::error::{Error, Result};
use rusqlite::{Connection, TransactionBehavior};

/// Every migration, in order; the file name's number is its position.
const MIGRATIONS: &[(&str, &str)] = &[
    (
        "0001_initial.sql",
        include_str!("../../../../migrations/0001_initial.sql"),
    ),
    (
        "0002_search_and_history.sql",
        include_str!("../../../../migrations/0002_search_and_history.sql"),
    ),
    (
        "0003_gateway_state.sql",
        include_str!("../../../../migrations/0003_gateway_state.sql"),
    ),
    (
        "0004_schedules.sql",
        include_str!("../../../../migrations/0004_schedules.sql"),
    ),
    (
        "0005_member_roles_by_user.sql",
        include_str!("../../../../migrations/0005_member_roles_by_user.sql"),
    ),
    (
        "0006_activity_by_arrival.sql",
        include_str!("../../../../migrations/0006_activity_by_arrival.sql"),
    ),
    (
        "0007_provenance_and_assistant_sends.sql",
        include_str!("../../../../migrations/0007_provenance_and_assistant_sends.sql"),
    ),
    (
        "0008_discord_clock_and_anchors.sql",
        include_str!("../../../../migrations/0008_discord_clock_and_anchors.sql"),
    ),
    (
        "0009_message_extras.sql",
        include_str!("../../../../migrations/0009_message_extras.sql"),
    ),
    (
        "0010_forum_tags.sql",
        include_str!("../../../../migrations/0010_forum_tags.sql"),
    ),
    (
        "0011_poll_votes.sql",
        include_str!("../../../../migrations/0011_poll_votes.sql"),
    ),
    (
        "0012_mention_dismissals.sql",
        include_str!("../../../../migrations/0012_mention_dismissals.sql"),
    ),
    (
        "0013_read_markers.sql",
        include_str!("../../../../migrations/0013_read_markers.sql"),
    ),
    (
        "0014_bookmark_due_times.sql",
        include_str!("../../../../migrations/0014_bookmark_due_times.sql"),
    ),
    (
        "0015_history_import.sql",
        include_str!("../../../../migrations/0015_history_import.sql"),
    ),
    (
        "0016_backups.sql",
        include_str!("../../../../migrations/0016_backups.sql"),
    ),
    (
        "0017_assistant_reactions.sql",
        include_str!("../../../../migrations/0017_assistant_reactions.sql"),
    ),
    (
        "0018_channel_news_counts_from_the_index.sql",
        include_str!("../../../../migrations/0018_channel_news_counts_from_the_index.sql"),
    ),
    (
        "0019_channel_message_totals.sql",
        include_str!("../../../../migrations/0019_channel_message_totals.sql"),
    ),
    (
        "0020_attachments.sql",
        include_str!("../../../../migrations/0020_attachments.sql"),
    ),
    (
        "0021_attachment_text_in_search.sql",
        include_str!("../../../../migrations/0021_attachment_text_in_search.sql"),
    ),
    (
        "0022_message_meanings.sql",
        include_str!("../../../../migrations/0022_message_meanings.sql"),
    ),
    (
        "0023_meaning_totals.sql",
        include_str!("../../../../migrations/0023_meaning_totals.sql"),
    ),
    (
        "0024_message_payloads.sql",
        include_str!("../../../../migrations/0024_message_payloads.sql"),
    ),
    (
        "0025_payload_readings.sql",
        include_str!("../../../../migrations/0025_payload_readings.sql"),
    ),
    (
        "0026_push_deliveries.sql",
        include_str!("../../../../migrations/0026_push_deliveries.sql"),
    ),
    (
        "0027_file_text.sql",
        include_str!("../../../../migrations/0027_file_text.sql"),
    ),
    (
        "0028_cjk_text.sql",
        include_str!("../../../../migrations/0028_cjk_text.sql"),
    ),
    (
        "0029_meaning_walks_and_blocks.sql",
        include_str!("../../../../migrations/0029_meaning_walks_and_blocks.sql"),
    ),
    (
        "0030_message_ids_as_numbers.sql",
        include_str!("../../../../migrations/0030_message_ids_as_numbers.sql"),
    ),
    (
        "0031_payload_ids_as_numbers.sql",
        include_str!("../../../../migrations/0031_payload_ids_as_numbers.sql"),
    ),
    (
        "0032_event_ids_as_numbers.sql",
        include_str!("../../../../migrations/0032_event_ids_as_numbers.sql"),
    ),
    (
        "0033_text_ids_as_numbers.sql",
        include_str!("../../../../migrations/0033_text_ids_as_numbers.sql"),
    ),
    (
        "0034_meanings_keyed_by_message.sql",
        include_str!("../../../../migrations/0034_meanings_keyed_by_message.sql"),
    ),
    (
        "0035_instants_as_numbers.sql",
        include_str!("../../../../migrations/0035_instants_as_numbers.sql"),
    ),
    (
        "0036_message_text_without_its_copy.sql",
        include_str!("../../../../migrations/0036_message_text_without_its_copy.sql"),
    ),
    (
        "0037_meaning_centres.sql",
        include_str!("../../../../migrations/0037_meaning_centres.sql"),
    ),
];

/// The schema version this binary writes and reads: the number of migrations it knows.
pub(super) const LATEST: i64 = MIGRATIONS.len() as i64;

/// The refusal of a store a newer discord-manager wrote: its schema may mean what this binary
/// cannot read, or would write wrongly.
pub(super) fn newer_store(path: &Path, version: i64) -> Error {
    Error::config(format!(
        "The store at {} was written by a newer discord-manager (schema {version}; this binary \
         knows up to {LATEST}): upgrade discord-manager to use it",
        path.display()
    ))
}

/// The schema version and `application_id` of the store, as this connection sees them.
fn version_and_id(connection: &Connection) -> rusqlite::Result<(i64, i64)> {
    const VERSION_AND_ID: &str = "SELECT (SELECT user_version FROM pragma_user_version),
            (SELECT application_id FROM pragma_application_id)";
    connection.query_row(VERSION_AND_ID, [], |row| Ok((row.get(0)?, row.get(1)?)))
}

/// Brings the store up to date and gives it `application_id` if it has none, holding the write
/// lock: see the module's documentation. A current, stamped store (every open but the first)
/// takes no write lock at all.
///
/// A new store gets every migration in one transaction. A store that already has a schema gets
/// each missing migration in a transaction of its own, so a long one (the rebuild of a table of
/// a million messages) stopped midway keeps the ones before it, and the next open goes on from
/// where it stopped.
pub(super) fn migrate(connection: &mut Connection, path: &Path, application_id: i64) -> Result<()> {
    let (version, id) = version_and_id(connection)?;
    if version > LATEST {
        return Err(newer_store(path, version));
    }
    if version == LATEST && id != 0 {
        return Ok(());
    }
    // 0028 writes each text as the index of Chinese and Japanese words reads it.
    super::cjk::register_grams(connection).map_err(|error| super::unusable_store(path, error))?;
    // 0035 reads each instant the store wrote as text.
    register_instant_micros(connection).map_err(|error| super::unusable_store(path, error))?;
    while !migrate_step(connection, path, application_id)? {}
    Ok(())
}

/// `instant_micros(value)`, for `0035_instants_as_numbers.sql`: an instant the store wrote as
/// text, read by the product's own parser, as its microseconds since 1970; NULL stays NULL and a
/// number (or its digits, as a TEXT column keeps a number) stays as it is. Anything else fails the migration, naming what the store held, so
/// that no row is turned into another instant or left as text.
pub(super) fn register_instant_micros(connection: &Connection) -> rusqlite::Result<()> {
    use discord_manager_vocabulary::instant::Instant;
    use rusqlite::functions::FunctionFlags;
    use rusqlite::types::ValueRef;
    connection.create_scalar_function(
        "instant_micros",
        1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |context| match context.get_raw(0) {
            ValueRef::Null => Ok(None),
            ValueRef::Integer(micros) => Ok(Some(micros)),
            ValueRef::Text(bytes) => {
                let text = String::from_utf8_lossy(bytes);
                // A number in a TEXT column reads back as its digits (SQLite's TEXT affinity):
                // never an instant's text, which always has its dashes, so it is the number.
                let digits = text.parse::<i64>().ok().filter(|_| !text.starts_with('+'));
                digits
                    .or_else(|| Instant::parse(&text).map(Instant::as_micros))
                    .map(Some)
                    .ok_or_else(|| {
                        rusqlite::Error::UserFunctionError(
                            format!("the store holds {text:?} where an instant belongs").into(),
                        )
                    })
            }
            ValueRef::Real(_) | ValueRef::Blob(_) => Err(rusqlite::Error::UserFunctionError(
                "the store holds a number with a fraction or bytes where an instant belongs".into(),
            )),
        },
    )
}

/// One transaction of [`migrate`]: every migration for a new store, the next one for a store
/// with a schema. True when the store is current and stamped.
fn migrate_step(connection: &mut Connection, path: &Path, application_id: i64) -> Result<bool> {
    let transaction = connection
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|error| match error.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy) => Error::internal(format!(
                "The store at {} stayed locked by another process for {} s while this one \
                 waited to bring it up to date: try again",
                path.display(),
                super::BUSY_TIMEOUT.as_secs()
            )),
            _ => super::unusable_store(path, error),
        })?;
    // Another process may have migrated while this one waited for the lock.
    let (version, id) = version_and_id(&transaction)?;
    if version > LATEST {
        return Err(newer_store(path, version));
    }
    if version == LATEST && id != 0 {
        return Ok(true);
    }
    let applied = usize::try_from(version).unwrap_or(0);
    let until = if applied == 0 {
        MIGRATIONS.len()
    } else {
        (applied + 1).min(MIGRATIONS.len())
    };
    for (name, sql) in &MIGRATIONS[applied..until] {
        transaction.execute_batch(sql).map_err(|error| {
            Error::internal(format!(
                "Cannot bring the store at {} up to date ({name})",
                path.display()
            ))
            .with_source(error)
        })?;
    }
    if until > applied {
        transaction.pragma_update(None, "user_version", until as i64)?;
    }
    if id == 0 {
        transaction.pragma_update(None, "application_id", application_id)?;
    }
    transaction.commit()?;
    Ok(until == MIGRATIONS.len())
}

/// For a store opened read-only: its schema must already be this version's, since it cannot be
/// brought up to date.
pub(super) fn check_current(connection: &Connection, path: &Path) -> Result<()> {
    const USER_VERSION: &str = "PRAGMA user_version";
    let version: i64 = connection
        .query_row(USER_VERSION, [], |row| row.get(0))
        .map_err(|_| {
            Error::config(format!(
                "The store at {} cannot be read: check the file and its folder",
                path.display()
            ))
        })?;
    if version < LATEST {
        return Err(Error::config(format!(
            "The store at {} cannot be written (read-only, or its disk is full) and was made \
             by an older discord-manager: it must be written once to be brought up to date",
            path.display()
        )));
    }
    if version > LATEST {
        return Err(newer_store(path, version));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
