//! Backups: a copy taken while another connection writes a burst of messages is sound and
//! holds every message committed before it began; an existing path is never overwritten.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use discord_manager_vocabulary::error::ErrorKind;
use discord_manager_vocabulary::snowflake::MessageId;
use rusqlite::Connection;

use crate::store::Store;
use crate::store::messages::tests::new_message;

fn message_ids(path: &std::path::Path) -> Vec<MessageId> {
    let connection = Connection::open(path).unwrap();
    let mut statement = connection
        .prepare("SELECT message_id FROM messages ORDER BY seq")
        .unwrap();
    statement
        .query_map([], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn a_backup_taken_during_a_burst_of_writes_is_sound_and_holds_every_message_committed_before_it() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.sqlite3");
    let store = Store::open(&path).unwrap();
    // The writer: its own connection, one message a transaction, each id noted once committed.
    let committed = Arc::new(Mutex::new(Vec::<MessageId>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let finished = Arc::new(AtomicBool::new(false));
    let writer = {
        let (path, committed, stop) = (path.clone(), Arc::clone(&committed), Arc::clone(&stop));
        let finished = Arc::clone(&finished);
        std::thread::spawn(move || {
            let store = Store::open(&path).unwrap();
            while !stop.load(Ordering::Relaxed) && committed.lock().unwrap().len() < 5_000 {
                let message = new_message("1400000000000000001", "7", "a burst of news");
                store
                    .write(|writer| writer.insert_message(&message))
                    .unwrap();
                committed.lock().unwrap().push(message.message_id);
            }
            finished.store(true, Ordering::Relaxed);
        })
    };
    let count = || committed.lock().unwrap().len();
    while count() < 300 {
        std::thread::yield_now();
    }
    let before: Vec<MessageId> = committed.lock().unwrap().clone();
    let destination = folder.path().join("backup.sqlite3");
    let mut steps = 0;
    let summary = store
        .backup_in_steps(&destination, 1, |_| {
            steps += 1;
            // The writer commits between every two steps: a backup that read each step from
            // the newest state would start over at each commit, and end only once the writer
            // stopped, holding everything.
            let target = count() + 1;
            while count() < target && !finished.load(Ordering::Relaxed) {
                std::thread::yield_now();
            }
        })
        .unwrap();
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    let all = committed.lock().unwrap().clone();

    let copy = Connection::open(&destination).unwrap();
    let check: String = copy
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    drop(copy);
    let copied = message_ids(&destination);
    // One moment's state: exactly the first messages committed, every one from before the
    // backup began among them, none of those committed while it ran.
    assert_eq!(copied[..], all[..copied.len()]);
    assert!(copied.len() >= before.len());
    assert_eq!(copied[..before.len()], before[..]);
    assert!(
        copied.len() < all.len(),
        "the copy holds all {} messages, those committed while it ran too: it is not the moment \
         the backup began",
        all.len()
    );
    assert!(steps > 10, "{steps} steps");
    assert_eq!(summary.messages, copied.len() as u64);
    assert_eq!(summary.path, destination);
    assert_eq!(
        summary.bytes,
        std::fs::metadata(&destination).unwrap().len()
    );
}

#[test]
fn a_backup_is_private_recorded_and_never_overwrites_a_file() {
    let folder = tempfile::tempdir().unwrap();
    let store = Store::open(&folder.path().join("store.sqlite3")).unwrap();
    assert_eq!(store.read(|reader| reader.latest_backup()).unwrap(), None);
    let destination = folder.path().join("copy.sqlite3");
    let summary = store.backup_to(&destination, |_| {}).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&destination)
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let at = store.record_backup(&summary).unwrap();
    let record = store
        .read(|reader| reader.latest_backup())
        .unwrap()
        .unwrap();
    assert_eq!(
        (record.created_at, record.path.as_str(), record.messages),
        (at, destination.to_str().unwrap(), 0)
    );
    // The copy is a store: it opens, and holds no row of its own backup.
    let restored = Store::open(&destination).unwrap();
    assert_eq!(
        restored.read(|reader| reader.latest_backup()).unwrap(),
        None
    );
    drop(restored);

    let taken = folder.path().join("taken.txt");
    std::fs::write(&taken, "keep me").unwrap();
    let refusal = store.backup_to(&taken, |_| {}).unwrap_err();
    assert_eq!(refusal.kind(), ErrorKind::Conflict);
    assert_eq!(
        refusal.message(),
        format!(
            "{} already exists: a backup never overwrites a file, so give a path that does not \
             exist yet",
            taken.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&taken).unwrap(), "keep me");
    // No temporary copy is left behind, and nothing at a path in a missing folder.
    let missing = folder.path().join("no-such-folder/copy.sqlite3");
    let refusal = store.backup_to(&missing, |_| {}).unwrap_err();
    assert_eq!(refusal.kind(), ErrorKind::Config);
    let mut names: Vec<String> = std::fs::read_dir(folder.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| !name.starts_with("store.sqlite3"))
        .collect();
    names.sort();
    // (The copy's open lock is from opening it above.)
    assert_eq!(
        names,
        ["copy.sqlite3", "copy.sqlite3.open-lock", "taken.txt"]
    );
}
