//! Numbered SQL migrations from `migrations/`, applied with `rusqlite_migration`.
//!
//! A shipped migration is never edited; a schema change is a new numbered file added to
//! [`MIGRATIONS`]. A unit test keeps this list and the folder in step.

use std::path::Path;

use rusqlite::Connection;
use rusqlite_migration::{M, Migrations};

use crate::error::{Error, Result};

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
];

pub(super) fn migrate(connection: &mut Connection, path: &Path) -> Result<()> {
    let migrations = Migrations::new(MIGRATIONS.iter().map(|(_, sql)| M::up(sql)).collect());
    migrations
        .to_latest(connection)
        .map_err(|error| match error {
            rusqlite_migration::Error::MigrationDefinition(
                rusqlite_migration::MigrationDefinitionError::DatabaseTooFarAhead,
            ) => Error::config(format!(
                "The store at {} was written by a newer discord-manager; upgrade to read it",
                path.display()
            )),
            other => Error::internal(format!(
                "Cannot bring the store at {} up to date: {other}",
                path.display()
            )),
        })
}

/// For a store opened read-only: its schema must already be this version's, since it cannot be
/// brought up to date.
pub(super) fn check_current(connection: &Connection, path: &Path) -> Result<()> {
    let version: i64 = connection
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(|error| {
            Error::config(format!(
                "The store at {} cannot be read: {error}",
                path.display()
            ))
        })?;
    let latest = MIGRATIONS.len() as i64;
    if version < latest {
        return Err(Error::config(format!(
            "The store at {} cannot be written (read-only, or its disk is full) and was made \
             by an older discord-manager: it must be written once to be brought up to date",
            path.display()
        )));
    }
    if version > latest {
        return Err(Error::config(format!(
            "The store at {} was written by a newer discord-manager; upgrade to read it",
            path.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_in_the_migrations_folder_is_listed_in_order() {
        // The workspace keeps its migrations at the repository root, two folders up.
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../migrations");
        let mut files: Vec<String> = std::fs::read_dir(folder)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .filter(|name| name.ends_with(".sql"))
            .collect();
        files.sort();
        let listed: Vec<&str> = MIGRATIONS.iter().map(|(name, _)| *name).collect();
        assert_eq!(files, listed);
        for (position, name) in listed.iter().enumerate() {
            assert!(
                name.starts_with(&format!("{:04}_", position + 1)),
                "{name} is out of order"
            );
        }
    }

    #[test]
    fn the_migrations_are_valid() {
        let migrations = Migrations::new(MIGRATIONS.iter().map(|(_, sql)| M::up(sql)).collect());
        migrations.validate().unwrap();
    }
}
