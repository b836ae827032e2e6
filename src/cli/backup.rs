//! `discord-manager backup PATH`: a consistent, verified copy of the store while `ingest` runs
//! (`Store::backup_to`), recorded in the store for `doctor`. A progress line goes to stderr when
//! it is a terminal; the copy's path and its messages are printed when it is done.

use std::io::{IsTerminal, Write};
use std::path::Path;

use crate::error::{Error, Result};
use crate::store::{BackupProgress, Store};

/// Backs up the store at `store_path` to `destination`; answers what to print.
pub fn run(store_path: &Path, destination: &Path) -> Result<String> {
    if !store_path.is_file() {
        return Err(Error::config(format!(
            "There is no store at {} to back up: check --db or DISCORD_MANAGER_DB",
            store_path.display()
        )));
    }
    let store = Store::open(store_path)?;
    let terminal = std::io::stderr().is_terminal();
    let mut shown = false;
    let result = store.backup_to(destination, |progress: BackupProgress| {
        if terminal && progress.total_pages > 0 {
            let percent = progress.copied_pages * 100 / progress.total_pages;
            let _ = write!(
                std::io::stderr(),
                "\rBacking up: {percent:>3}% ({} of {} pages)",
                progress.copied_pages,
                progress.total_pages
            );
            shown = true;
        }
    });
    if shown {
        let _ = writeln!(std::io::stderr());
    }
    let summary = result?;
    if let Err(error) = store.record_backup(&summary) {
        let _ = writeln!(
            std::io::stderr(),
            "warning: the backup is made, but the store cannot record it, so `doctor` will not \
             see it: {}",
            error.message()
        );
    }
    Ok(format!(
        "Backed up {} to {}: {} messages, {} bytes, checked with SQLite's integrity_check.\n",
        store_path.display(),
        summary.path.display(),
        summary.messages,
        summary.bytes
    ))
}
