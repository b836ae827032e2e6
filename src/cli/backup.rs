//! `discord-manager backup PATH`: a consistent, verified copy of the store while `ingest` runs
//! (`Store::backup_to`), recorded in the store for `doctor`. A progress bar goes to stderr when
//! it is a terminal (indicatif decides); the copy's path and its messages are printed when it
//! is done.

use std::io::Write;
use std::path::Path;

use discord_manager_store::{BackupProgress, Store};
use discord_manager_vocabulary::error::{Error, Result};

/// Backs up the store at `store_path` to `destination`; answers what to print.
pub fn run(store_path: &Path, destination: &Path) -> Result<String> {
    if !store_path.is_file() {
        return Err(Error::config(format!(
            "There is no store at {} to back up: check --db or DISCORD_MANAGER_DB",
            store_path.display()
        )));
    }
    let store = Store::open(store_path)?;
    let bar =
        indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
    bar.set_style(
        indicatif::ProgressStyle::with_template("Backing up [{bar:30}] {pos} of {len} pages")
            .expect("a template")
            .progress_chars("#>-"),
    );
    let result = store.backup_to(destination, |progress: BackupProgress| {
        bar.set_length(progress.total_pages);
        bar.set_position(progress.copied_pages);
    });
    bar.finish_and_clear();
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
