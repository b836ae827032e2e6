//! `discord-manager backup PATH`: a consistent, verified copy of the store while `ingest` runs
//! (`Store::backup_to`), recorded in the store for `doctor`. A progress bar goes to stderr when
//! it is a terminal (indicatif decides); the copy's path and its messages are printed when it
//! is done.
//!
//! The attachment cache is copied beside the backup, `<backup>.attachments/`: every file the
//! store's record says is kept (read after the copy, so a file kept during it is there too),
//! under the same SHA-256 names, each written whole under a temporary name and renamed, 0600
//! in a 0700 folder. Temporary files of a download in progress are never copied. Restoring is
//! the two together: the store's copy at the store's path, the folder beside it as
//! `<store>.attachments/`.

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

use discord_manager_attachments::{Cache, ContentHash};
use discord_manager_store::{BackupProgress, PageCompression, Store};
use discord_manager_vocabulary::error::{Error, Result};

/// Backs up the store at `store_path` to `destination`; answers what to print.
pub fn run(store_path: &Path, destination: &Path, pages: PageCompression) -> Result<String> {
    if !store_path.is_file() {
        return Err(Error::config(format!(
            "There is no store at {} to back up: check --db or DISCORD_MANAGER_DB",
            store_path.display()
        )));
    }
    let store = Store::open_as(store_path, pages)?;
    let files_destination = Cache::folder_of(destination);
    // A destination that exists is refused by the store's backup, in its own words; only a
    // free path whose attachments folder is taken is refused here.
    if destination.symlink_metadata().is_err() && files_destination.symlink_metadata().is_ok() {
        return Err(Error::conflict(format!(
            "{} already exists: a backup never overwrites a file, and its attachment files go \
             there, so give a path whose .attachments folder does not exist yet",
            files_destination.display()
        )));
    }
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
    let mut report = format!(
        "Backed up {} to {}: {} messages, {} bytes, checked with SQLite's integrity_check.\n",
        store_path.display(),
        summary.path.display(),
        summary.messages,
        summary.bytes
    );
    let hashes = store.read(|reader| reader.kept_hashes())?;
    let copied = copy_kept_files(
        &Cache::folder_of(store_path),
        &Cache::folder_of(&summary.path),
        &hashes,
    )
    .map_err(|error| {
        Error::config(format!(
            "The store is backed up to {}, but its attachment files could not be copied \
             beside it: {error}. Free some space or fix the folder's access, then back up \
             again to a new path",
            summary.path.display()
        ))
    })?;
    let _ = write!(report, "{copied}");
    Ok(report)
}

/// What was copied of the attachment cache.
struct Copied {
    folder: PathBuf,
    files: u64,
    bytes: u64,
    /// Files the record says are kept that were not in the cache.
    missing: u64,
}

impl std::fmt::Display for Copied {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.files == 0 && self.missing == 0 {
            return writeln!(f, "No attachment file is kept yet: none to copy.");
        }
        writeln!(
            f,
            "Copied {} kept attachment files, {} bytes, to {}.",
            self.files,
            self.bytes,
            self.folder.display()
        )?;
        if self.missing > 0 {
            writeln!(
                f,
                "{} files the store records as kept were not in its attachment folder: not \
                 copied (run `discord-manager doctor`).",
                self.missing
            )?;
        }
        Ok(())
    }
}

/// Copies the kept files `hashes` from the cache folder `from` into `to` (made 0700), each
/// whole under a temporary name and renamed to its hash (0600).
fn copy_kept_files(from: &Path, to: &Path, hashes: &[String]) -> std::io::Result<Copied> {
    let mut copied = Copied {
        folder: to.to_path_buf(),
        files: 0,
        bytes: 0,
        missing: 0,
    };
    if hashes.is_empty() {
        return Ok(copied);
    }
    // Only Unix has a mode to give the folder.
    #[cfg_attr(not(unix), allow(unused_mut))]
    let mut folder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut folder, 0o700);
    folder.create(to)?;
    for hash in hashes.iter().filter_map(|hash| ContentHash::parse(hash)) {
        let mut source = match std::fs::File::open(from.join(hash.as_str())) {
            Ok(source) => source,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                copied.missing += 1;
                continue;
            }
            Err(error) => return Err(error),
        };
        // A temporary file is 0600 where modes exist.
        let mut copy = tempfile::Builder::new()
            .prefix(".partial-")
            .tempfile_in(to)?;
        copied.bytes += std::io::copy(&mut source, &mut copy)?;
        copy.as_file().sync_all()?;
        copy.persist(to.join(hash.as_str()))
            .map_err(|error| error.error)?;
        copied.files += 1;
    }
    Ok(copied)
}

#[cfg(test)]
mod tests {
    use super::*;
    use discord_manager_store::AttachmentOutcome;

    #[test]
    fn a_backup_copies_every_file_recorded_kept_beside_it_privately_and_nothing_else() {
        let root = tempfile::tempdir().unwrap();
        let store_path = root.path().join("store.sqlite3");
        let store = Store::open_writable(&store_path).unwrap();
        let cache = Cache::open(&store_path).unwrap();
        let kept = cache.keep(&b"a kept log"[..], 1024).unwrap();
        // In the folder but never recorded kept (a download whose record was cut short), and a
        // download in progress: neither is copied.
        let unrecorded = cache.keep(&b"not in the record"[..], 1024).unwrap();
        std::fs::write(Cache::folder_of(&store_path).join(".partial-abc"), b"half").unwrap();
        let absent = format!("{:0>64}", "ab");
        store
            .write(|writer| {
                for (id, hash) in [("1", kept.hash.to_string()), ("2", absent.clone())] {
                    writer.record_attachment_outcome(
                        &id.parse().unwrap(),
                        &AttachmentOutcome::Fetched { hash, bytes: 10 },
                    )?;
                }
                Ok(())
            })
            .unwrap();
        drop(store);
        let backup = root.path().join("backup.sqlite3");
        let said = run(&store_path, &backup, PageCompression::Off).unwrap();
        let folder = root.path().join("backup.sqlite3.attachments");
        assert!(
            said.contains(&format!(
                "Copied 1 kept attachment files, 10 bytes, to {}.\n",
                folder.display()
            )),
            "{said}"
        );
        assert!(
            said.contains("1 files the store records as kept were not in its attachment folder"),
            "{said}"
        );
        let mut names: Vec<String> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, vec![kept.hash.to_string()]);
        assert_ne!(names[0], unrecorded.hash.to_string());
        assert_eq!(
            std::fs::read(folder.join(kept.hash.as_str())).unwrap(),
            b"a kept log"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&folder), 0o700);
            assert_eq!(mode(&folder.join(kept.hash.as_str())), 0o600);
        }
        // A second backup whose folder is taken is refused before anything is written.
        let again = root.path().join("again.sqlite3");
        std::fs::create_dir(root.path().join("again.sqlite3.attachments")).unwrap();
        let refused = run(&store_path, &again, PageCompression::Off).unwrap_err();
        assert!(
            refused
                .message()
                .contains("again.sqlite3.attachments already exists")
        );
        assert!(!again.exists());
    }
}
