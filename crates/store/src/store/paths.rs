//! Where the store lives when neither `--db` nor `DISCORD_MANAGER_DB` says.

use std::path::PathBuf;

use discord_manager_vocabulary::error::{Error, Result};

/// `$XDG_DATA_HOME/discord-manager/store.sqlite3` (or the platform's equivalent).
pub fn default_path() -> Result<PathBuf> {
    directories::ProjectDirs::from("", "", "discord-manager")
        .map(|dirs| dirs.data_dir().join("store.sqlite3"))
        .ok_or_else(|| {
            Error::config("Cannot find a data folder for the store (no home directory)")
                .with_hint("Set DISCORD_MANAGER_DB or pass --db")
        })
}
