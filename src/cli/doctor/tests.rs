//! Unit tests of `doctor`, kept beside it so the production file reads on its own.

use super::*;

const MIB: u64 = 1024 * 1024;

fn cache(mode: u32, open_files: &[&str]) -> std::io::Result<Option<CacheFolder>> {
    Ok(Some(CacheFolder {
        mode,
        files: 3,
        bytes: 100 * MIB,
        open_files: open_files.iter().map(|name| name.to_string()).collect(),
    }))
}

#[cfg(unix)]
#[test]
fn the_caches_free_space_is_read_on_its_own_filesystem_once_it_is_made() {
    let folder = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let store = folder.path().join("store.sqlite3");
    let cache = Cache::folder_of(&store);
    // Not made yet: the store's folder will hold it.
    assert_eq!(cache_filesystem(&cache, &store), folder.path());
    // Made as a link to another filesystem (a disk of its own): read there.
    std::os::unix::fs::symlink(elsewhere.path(), &cache).unwrap();
    assert_eq!(cache_filesystem(&cache, &store), cache.as_path());
}

#[test]
fn the_attachments_check_wants_a_private_folder_and_room_for_what_the_cache_may_still_keep() {
    let folder = Path::new("/data/store.sqlite3.attachments");
    let check = |found, free| attachments_check(folder, found, free, 1024 * MIB);
    // 924 MiB may still come (1 GiB less the 100 MiB kept): free space at it is enough...
    let at = check(cache(0o700, &[]), Some(924 * MIB));
    assert_eq!(at.status, Status::Ok);
    assert_eq!(
        at.detail,
        "/data/store.sqlite3.attachments: 3 files, 100.0 MiB, mode 0700; 924.0 MiB free on \
         its filesystem"
    );
    // ...a byte less is a warning, with the fix.
    let short = check(cache(0o700, &[]), Some(924 * MIB - 1));
    assert_eq!(short.status, Status::Warn);
    assert_eq!(
        short.fix.as_deref(),
        Some(
            "the cache may still grow by 924.0 MiB (its total cap, 1024.0 MiB, less what it \
             holds): free some space, or lower DISCORD_MANAGER_ATTACHMENT_TOTAL_MB"
        )
    );
    // A folder others may enter, or a file others may read, fails with its chmod.
    let open = check(cache(0o755, &[]), Some(10_000 * MIB));
    assert_eq!(open.status, Status::Fail);
    assert_eq!(
        open.fix.as_deref(),
        Some("make it yours only: `chmod 700 /data/store.sqlite3.attachments`")
    );
    let readable = check(cache(0o700, &["ab12"]), Some(10_000 * MIB));
    assert_eq!(readable.status, Status::Fail);
    assert!(
        readable
            .detail
            .ends_with("1 files others may read, such as ab12")
    );
    assert_eq!(
        readable.fix.as_deref(),
        Some("make them yours only: `chmod 600 /data/store.sqlite3.attachments/*`")
    );
    // Not made yet: fine, and the whole cap must fit.
    let none = check(Ok(None), Some(1024 * MIB));
    assert_eq!(none.status, Status::Ok);
    assert!(none.detail.contains("is not made yet"), "{}", none.detail);
    assert_eq!(check(Ok(None), Some(1024 * MIB - 1)).status, Status::Warn);
    // Where free space cannot be read, the line says it was not checked.
    let unknown = check(cache(0o700, &[]), None);
    assert_eq!(unknown.status, Status::Ok);
    assert!(
        unknown
            .detail
            .ends_with("free space not checked on this platform")
    );
}

#[cfg(unix)]
#[test]
fn the_cache_folder_is_read_for_its_modes_its_kept_files_and_free_space() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    let store = root.path().join("store.sqlite3");
    let folder = Cache::folder_of(&store);
    assert_eq!(inspect_cache(&folder).unwrap(), None);
    let cache = Cache::open(&store).unwrap();
    let kept = cache.keep(&b"twelve bytes"[..], 1024).unwrap();
    // A temporary file is not a kept file.
    std::fs::write(folder.join(".partial-x"), b"half").unwrap();
    let found = inspect_cache(&folder).unwrap().unwrap();
    assert_eq!(
        found,
        CacheFolder {
            mode: 0o700,
            files: 1,
            bytes: 12,
            open_files: vec![]
        }
    );
    std::fs::set_permissions(
        cache.path(&kept.hash),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let found = inspect_cache(&folder).unwrap().unwrap();
    assert_eq!(found.open_files, vec![kept.hash.to_string()]);
    assert!(free_space(root.path()).is_some_and(|free| free > 0));
}

#[test]
fn the_clock_passes_up_to_five_seconds_off_either_way_and_fails_past_them() {
    for (ahead_ms, status, detail) in [
        (
            0,
            Status::Ok,
            "this machine's clock is 0 s behind Discord's",
        ),
        (
            5_000,
            Status::Ok,
            "this machine's clock is 5 s ahead of Discord's",
        ),
        (
            -5_000,
            Status::Ok,
            "this machine's clock is 5 s behind Discord's",
        ),
        (
            5_001,
            Status::Fail,
            "this machine's clock is 5 s ahead of Discord's",
        ),
        (
            -5_001,
            Status::Fail,
            "this machine's clock is 5 s behind Discord's",
        ),
        (
            -300_000,
            Status::Fail,
            "this machine's clock is 300 s behind Discord's",
        ),
    ] {
        let check = clock_check(ahead_ms);
        assert_eq!(
            (check.status, check.detail.as_str()),
            (status, detail),
            "{ahead_ms}"
        );
        assert_eq!(check.fix.is_some(), status == Status::Fail, "{ahead_ms}");
    }
}

#[test]
fn a_line_is_its_mark_the_check_what_was_found_and_the_fix() {
    let failed = Check::new("token", Status::Fail, "Discord rejected the token")
        .fix("run `discord-manager setup`");
    assert_eq!(
        failed.line(),
        "FAIL  token: Discord rejected the token. Fix: run `discord-manager setup`"
    );
    assert_eq!(
        Check::new("clock", Status::Ok, "in time").line(),
        "ok    clock: in time"
    );
    assert_eq!(
        Check::skipped("guilds", "there is no token").line(),
        "skip  guilds: not checked: there is no token"
    );
    let report = Report {
        passed: false,
        checks: vec![failed, Check::new("store", Status::Warn, "big")],
    };
    assert_eq!(
        report.render(),
        "FAIL  token: Discord rejected the token. Fix: run `discord-manager setup`\n\
         warn  store: big\n\
         1 check failed.\n"
    );
}

#[test]
fn the_backup_check_warns_without_a_backup_or_past_a_week_and_names_the_last_one() {
    let now = Instant::now();
    let backup = |days: i64| {
        Ok(Some(discord_manager_store::BackupRecord {
            created_at: now.minus_seconds(days * 86_400),
            path: "/backups/store.sqlite3".to_string(),
            messages: 42,
            bytes: 4096,
        }))
    };
    let line = |check: Check| check.line();
    assert_eq!(
        line(backup_check(Ok(None), now)),
        "warn  backup: no backup of this store was taken yet. Fix: take one: \
         `discord-manager backup PATH` (a file that does not exist yet)"
    );
    assert_eq!(
        line(backup_check(backup(7), now)),
        "ok    backup: the last backup, /backups/store.sqlite3 (42 messages), was taken 7 \
         days ago"
    );
    assert_eq!(
        line(backup_check(backup(8), now)),
        "warn  backup: the last backup, /backups/store.sqlite3 (42 messages), was taken 8 \
         days ago. Fix: take one: `discord-manager backup PATH` (a file that does not exist \
         yet)"
    );
    assert_eq!(
        line(integrity_check(Ok(vec![
            "*** in database main ***".to_string()
        ]))),
        "FAIL  integrity: SQLite's quick_check finds the store damaged: *** in database \
         main ***. Fix: stop ingest, copy your newest backup over the store and start \
         ingest again (docs/operations.md, \"Backup and restore\"); ingest backfills what \
         came after it"
    );
    assert_eq!(
        line(integrity_check(Ok(Vec::new()))),
        "ok    integrity: SQLite's quick_check finds the store sound"
    );
}

#[test]
fn an_age_is_told_in_the_largest_unit_that_fits() {
    let now = Instant::now();
    let ago = |seconds: i64| age(now, now.minus_seconds(seconds));
    assert_eq!(ago(0), "0 s");
    assert_eq!(ago(119), "119 s");
    assert_eq!(ago(120), "2 min");
    assert_eq!(ago(7_199), "119 min");
    assert_eq!(ago(7_200), "2 h");
    assert_eq!(ago(172_799), "47 h");
    assert_eq!(ago(172_800), "2 days");
    // A clock that went back shows no negative age.
    assert_eq!(age(now.minus_seconds(5), now), "0 s");
}
