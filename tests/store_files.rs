//! The store's file as the owner meets it through the real binary: another program's database
//! is refused and left exactly as it was, `seed --replace` waits for nobody to have the store
//! open, processes started together on a new store all open it, the data folder is private,
//! and `backup` makes a verified private copy without ever overwriting a file.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};

use assert_cmd::Command;

fn binary() -> PathBuf {
    assert_cmd::cargo::cargo_bin("discord-manager")
}

/// `discord-manager --db <db> <args…>` in an empty environment.
fn on(db: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    Command::new(binary())
        .env_clear()
        .arg("--db")
        .arg(db)
        .args(args)
        .assert()
}

fn stderr(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&assert.get_output().stderr).into_owned()
}

fn stdout(assert: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&assert.get_output().stdout).into_owned()
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Everything about a folder a program could change: each file's name, bytes and mode.
fn folder_state(folder: &Path) -> Vec<(String, Vec<u8>, u32)> {
    let mut files: Vec<_> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            #[cfg(unix)]
            let mode = mode(&entry.path());
            #[cfg(not(unix))]
            let mode = 0;
            let name = entry.file_name().into_string().unwrap();
            (name, std::fs::read(entry.path()).unwrap(), mode)
        })
        .collect();
    files.sort();
    files
}

#[test]
fn another_programs_sqlite_file_is_refused_by_every_command_and_left_exactly_as_it_was() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("photos.db");
    let connection = rusqlite::Connection::open(&path).unwrap();
    connection
        .execute_batch(
            "CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT);
             INSERT INTO photos (name) VALUES ('beach.jpg');",
        )
        .unwrap();
    drop(connection);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let before = folder_state(folder.path());
    let backup = folder.path().join("copy.sqlite3");
    let backup_arg = backup.to_str().unwrap();
    for args in [
        &["status"][..],
        &["catch-up"],
        &["seed"],
        &["seed", "--replace"],
        &["backup", backup_arg],
    ] {
        let refused = on(&path, args).failure().code(6);
        assert_eq!(
            stderr(&refused),
            format!(
                "error: {} is not a discord-manager store (it is another program's SQLite \
                 database, and is left as it is): check --db or DISCORD_MANAGER_DB\n",
                path.display()
            ),
            "{args:?}"
        );
        assert_eq!(
            folder_state(folder.path()),
            before,
            "{args:?} changed the folder"
        );
    }
}

/// Starts `discord-manager mcp` on the store and waits for its answer to `initialize`: from
/// then on it has the store open.
fn mcp_server(db: &Path) -> Child {
    let mut child = std::process::Command::new(binary())
        .env_clear()
        .arg("--db")
        .arg(db)
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let request = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {},
        "clientInfo": {"name": "store_files", "version": "1"}}});
    writeln!(child.stdin.as_mut().unwrap(), "{request}").unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("\"id\":1"), "{line}");
    child
}

#[test]
fn seed_replace_is_refused_while_an_mcp_server_has_the_store_open() {
    let folder = tempfile::tempdir().unwrap();
    let db = folder.path().join("demo.sqlite3");
    on(&db, &["seed"]).success();
    let mut server = mcp_server(&db);
    let refused = on(&db, &["seed", "--replace"]).failure().code(4);
    assert_eq!(
        stderr(&refused),
        format!(
            "error: The store at {} is open in another discord-manager process (an `mcp` \
             server, `ingest`, or a command reading it): stop it before replacing the store, or \
             what it writes later would be lost with the deleted file\n",
            db.display()
        )
    );
    assert!(db.is_file(), "the store is still there");
    drop(server.stdin.take());
    server.wait().unwrap();
    on(&db, &["seed", "--replace"]).success();
}

/// Several commands started at the same moment on a store that does not exist yet all
/// succeed: one creates and migrates it, the others wait and use it. Thirty rounds, `ingest`
/// among them: it opens and migrates the store before it needs Discord, so without a token it
/// ends with the token's refusal (exit 6), never a migration's error.
#[test]
fn commands_started_together_on_a_new_store_all_succeed() {
    for round in 0..30 {
        let folder = tempfile::tempdir().unwrap();
        let db = folder.path().join("new.sqlite3");
        let ingest = std::process::Command::new(binary())
            .env_clear()
            .arg("--db")
            .arg(&db)
            .arg("ingest")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let children: Vec<Child> = [&["status"][..], &["catch-up"], &["mentions", "list"]]
            .iter()
            .map(|args| {
                std::process::Command::new(binary())
                    .env_clear()
                    .env("DISCORD_OWNER_ID", "1000000000000000009")
                    .arg("--db")
                    .arg(&db)
                    .args(*args)
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let output = child.wait_with_output().unwrap();
            assert!(
                output.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let ingest = ingest.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&ingest.stderr);
        assert_eq!(ingest.status.code(), Some(6), "round {round}: {stderr}");
        assert!(
            stderr.contains("ingest needs the bot token"),
            "round {round}: {stderr}"
        );
    }
}

#[cfg(unix)]
#[test]
fn the_default_data_folder_is_created_private() {
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("data");
    Command::new(binary())
        .env_clear()
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", &data)
        .current_dir(home.path())
        .arg("status")
        .assert()
        .success();
    assert!(data.join("discord-manager/store.sqlite3").is_file());
    assert_eq!(mode(&data), 0o700);
    assert_eq!(mode(&data.join("discord-manager")), 0o700);
}

#[test]
fn backup_writes_a_private_verified_copy_and_never_overwrites_a_file() {
    let folder = tempfile::tempdir().unwrap();
    let db = folder.path().join("demo.sqlite3");
    on(&db, &["seed"]).success();
    let messages: i64 = rusqlite::Connection::open(&db)
        .unwrap()
        .query_row("SELECT count(*) FROM messages", [], |row| row.get(0))
        .unwrap();
    assert!(messages > 10, "{messages}");
    let copy = folder.path().join("copy.sqlite3");
    let done = on(&db, &["backup", copy.to_str().unwrap()])
        .success()
        .stderr("");
    let bytes = std::fs::metadata(&copy).unwrap().len();
    // The demo seed keeps two files (the incident's latency graph and its timeline): the
    // backup copies both, under the same names, beside the copy.
    let kept_folder = folder.path().join("demo.sqlite3.attachments");
    let mut kept: Vec<(std::ffi::OsString, Vec<u8>)> = std::fs::read_dir(&kept_folder)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            (entry.file_name(), std::fs::read(entry.path()).unwrap())
        })
        .collect();
    kept.sort();
    assert_eq!(kept.len(), 2, "{kept_folder:?}");
    let kept_bytes: usize = kept.iter().map(|(_, content)| content.len()).sum();
    let copied_folder = folder.path().join("copy.sqlite3.attachments");
    assert_eq!(
        stdout(&done),
        format!(
            "Backed up {} to {}: {messages} messages, {bytes} bytes, checked with SQLite's \
             integrity_check.\nCopied 2 kept attachment files, {kept_bytes} bytes, to {}.\n",
            db.display(),
            copy.display(),
            copied_folder.display()
        )
    );
    for (name, content) in &kept {
        let copied = copied_folder.join(name);
        assert_eq!(&std::fs::read(&copied).unwrap(), content, "{copied:?}");
        #[cfg(unix)]
        assert_eq!(mode(&copied), 0o600);
    }
    #[cfg(unix)]
    assert_eq!(mode(&copy), 0o600);
    #[cfg(unix)]
    assert_eq!(mode(&copied_folder), 0o700);
    let check: String = rusqlite::Connection::open(&copy)
        .unwrap()
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");

    // An existing path is refused and left alone, with nothing else left behind.
    let first = std::fs::read(&copy).unwrap();
    let refused = on(&db, &["backup", copy.to_str().unwrap()])
        .failure()
        .code(4);
    assert_eq!(
        stderr(&refused),
        format!(
            "error: {} already exists: a backup never overwrites a file, so give a path that \
             does not exist yet\n",
            copy.display()
        )
    );
    assert_eq!(std::fs::read(&copy).unwrap(), first);
    assert!(
        !std::fs::read_dir(folder.path()).unwrap().any(|entry| entry
            .unwrap()
            .file_name()
            .to_string_lossy()
            .contains("partial")),
        "a temporary copy was left behind"
    );
    // No store there: nothing to back up, and no store is made.
    let missing = folder.path().join("missing.sqlite3");
    let refused = on(&missing, &["backup", "elsewhere.sqlite3"])
        .failure()
        .code(6);
    assert_eq!(
        stderr(&refused),
        format!(
            "error: There is no store at {} to back up: check --db or DISCORD_MANAGER_DB\n",
            missing.display()
        )
    );
    assert!(!missing.exists());
}
