//! The command line as a whole process: exit codes by error kind, errors on stderr in the
//! owner's words, global options anywhere, a closed pipe ending quietly.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use assert_cmd::Command;

fn seeded() -> (tempfile::TempDir, PathBuf) {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("demo.sqlite3");
    cli().args(["seed", "--db"]).arg(&path).assert().success();
    (folder, path)
}

/// `discord-manager` over an emptied environment.
fn cli() -> Command {
    let mut command = Command::cargo_bin("discord-manager").unwrap();
    command.env_clear();
    command
}

/// `discord-manager --db <db>` over an emptied environment.
fn on(db: &Path) -> Command {
    let mut command = cli();
    command.arg("--db").arg(db);
    command
}

/// Runs `command` with `args`, which must fail with exit `code` and print nothing on stdout;
/// answers what it printed on stderr.
fn refused(mut command: Command, args: &[&str], code: i32) -> String {
    let assert = command.args(args).assert().failure().code(code).stdout("");
    String::from_utf8(assert.get_output().stderr.clone()).unwrap()
}

#[test]
fn an_input_error_names_the_field_on_stderr_and_exits_2() {
    let (_folder, db) = seeded();
    // Global options may also follow the command.
    assert_eq!(
        refused(
            cli(),
            &["catch-up", "--limit", "abc", "--db", db.to_str().unwrap()],
            2
        ),
        "error: `limit` must be a whole number from 1 to 500; got \"abc\"\n"
    );
}

#[test]
fn not_found_exits_3_and_conflict_exits_4() {
    let (_folder, db) = seeded();
    assert_eq!(
        refused(on(&db), &["bookmarks", "add", "1999999999999999999"], 3),
        "error: `messageId`: no stored message has id 1999999999999999999\n"
    );
    // The demo resolved its bookmark of message …02 already.
    assert_eq!(
        refused(on(&db), &["bookmarks", "resolve", "1500000000000000002"], 4),
        "error: That bookmark is already resolved\n"
    );
}

#[test]
fn global_options_work_before_and_after_the_command() {
    let (_folder, db) = seeded();
    let before = cli()
        .arg("--json")
        .arg("--db")
        .arg(&db)
        .args(["channels", "list", "--since", "2000-01-01T00:00:00Z"])
        .output()
        .unwrap();
    let after = cli()
        .args([
            "channels",
            "list",
            "--since",
            "2000-01-01T00:00:00Z",
            "--json",
            "--db",
        ])
        .arg(&db)
        .output()
        .unwrap();
    assert!(before.status.success());
    let before: serde_json::Value = serde_json::from_slice(&before.stdout).unwrap();
    let after: serde_json::Value = serde_json::from_slice(&after.stdout).unwrap();
    assert_eq!(before, after);
    // Five channels and a forum; a thread and the forum's post are nested under their parents.
    let channels = before["channels"].as_array().unwrap();
    assert_eq!(channels.len(), 6);
    let threads: usize = channels
        .iter()
        .map(|channel| channel["threads"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(threads, 2);
}

#[test]
fn a_positional_main_argument_and_its_option_are_the_same_field() {
    let (_folder, db) = seeded();
    let positional = on(&db)
        .args(["bookmarks", "add", "1500000000000000001", "--json"])
        .output()
        .unwrap();
    assert!(positional.status.success());
    assert_eq!(
        refused(
            on(&db),
            &["bookmarks", "add", "--message-id", "1500000000000000001"],
            4
        ),
        "error: That message is already bookmarked\n"
    );
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let (_folder, db) = seeded();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("discord-manager"))
        .env_clear()
        .arg("--db")
        .arg(&db)
        .args(["catch-up", "--json"])
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8(output.stderr).unwrap(), "");
}

#[test]
fn errors_carry_no_colour_when_not_on_a_terminal_or_with_no_color() {
    let (_folder, db) = seeded();
    let mut command = on(&db);
    command.env("NO_COLOR", "1");
    assert_eq!(
        refused(command, &["catch-up", "--limit", "0"], 2),
        "error: `limit` must be a whole number from 1 to 500; got 0\n"
    );
}

#[test]
fn a_malformed_configuration_variable_is_named() {
    let (_folder, db) = seeded();
    let mut command = on(&db);
    command.env("DISCORD_OWNER_ID", "me");
    assert_eq!(
        refused(command, &["catch-up"], 6),
        "error: DISCORD_OWNER_ID must be a Discord id (a string of digits such as \"1189078123456789012\"); the value is not one and is not shown here\n"
    );
}

/// A `.env` in the working directory is never read (a cloned project's would loosen every
/// protection); the env file the environment names in `DISCORD_MANAGER_ENV_FILE` is, once it is
/// the owner's only.
#[cfg(unix)]
#[test]
fn a_dot_env_in_the_working_directory_is_never_read_but_the_env_file_named_in_the_environment_is() {
    use std::os::unix::fs::PermissionsExt;
    let (folder, db) = seeded();
    let dot_env = folder.path().join(".env");
    std::fs::write(&dot_env, "DISCORD_OWNER_ID=not-an-id\n").unwrap();
    on(&db)
        .current_dir(folder.path())
        .arg("catch-up")
        .assert()
        .success();
    let named = || {
        let mut command = on(&db);
        command
            .current_dir(folder.path())
            .env("DISCORD_MANAGER_ENV_FILE", &dot_env);
        command
    };
    // Named, it is read only once no one else may read it.
    std::fs::set_permissions(&dot_env, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(
        refused(named(), &["catch-up"], 6),
        format!(
            "error: The env file {0} may be read by others (mode 0644): make it the owner's \
             only with `chmod 600 {0}`\n",
            dot_env.display()
        )
    );
    std::fs::set_permissions(&dot_env, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(
        refused(named(), &["catch-up"], 6),
        "error: DISCORD_OWNER_ID must be a Discord id (a string of digits such as \"1189078123456789012\"); the value is not one and is not shown here\n"
    );
    // The environment wins over it.
    named()
        .env("DISCORD_OWNER_ID", "1000000000000000001")
        .arg("catch-up")
        .assert()
        .success();
    // A name that is no file is the owner's mistake, said as such.
    let absent = folder.path().join("absent.env");
    let mut command = on(&db);
    command.env("DISCORD_MANAGER_ENV_FILE", &absent);
    assert_eq!(
        refused(command, &["catch-up"], 6),
        format!(
            "error: DISCORD_MANAGER_ENV_FILE names {}, which is not a file: name an existing env \
             file, or unset DISCORD_MANAGER_ENV_FILE\n",
            absent.display()
        )
    );
}

#[test]
fn sending_and_scheduling_are_denied_with_exit_5_before_anything_is_written() {
    let (_folder, db) = seeded();
    assert_eq!(
        refused(
            on(&db),
            &["send", "hello", "--channel-id", "1400000000000000001"],
            5
        ),
        "error: Sending needs the bot's token: set DISCORD_TOKEN\n"
    );
    let in_an_hour = discord_manager_vocabulary::instant::Instant::now()
        .plus_seconds(3600)
        .to_iso();
    let mut read_only = on(&db);
    read_only
        .env("DISCORD_TOKEN", "secret-token.never.shown")
        .env("DISCORD_MANAGER_READ_ONLY", "1");
    let schedule = [
        "schedules",
        "add",
        "later",
        "--channel-id",
        "1400000000000000001",
        "--send-at",
        &in_an_hour,
    ];
    assert_eq!(
        refused(read_only, &schedule, 5),
        "error: Sending is turned off: DISCORD_MANAGER_READ_ONLY is 1\n"
    );
    // The demo's four scheduled messages, and no fifth.
    let listed = on(&db)
        .args(["schedules", "list", "--json"])
        .output()
        .unwrap();
    let listed: serde_json::Value = serde_json::from_slice(&listed.stdout).unwrap();
    let contents: Vec<&str> = listed["schedules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|schedule| schedule["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents.len(), 4);
    assert!(!contents.contains(&"later"));
}

#[test]
fn cancelling_a_cancelled_schedule_is_a_conflict_and_an_unknown_one_is_not_found() {
    let (_folder, db) = seeded();
    assert_eq!(
        refused(on(&db), &["schedules", "cancel", "4"], 4),
        "error: Scheduled message 4 is already cancelled\n"
    );
    assert_eq!(
        refused(on(&db), &["schedules", "cancel", "99"], 3),
        "error: `scheduleId`: no scheduled message has id 99\n"
    );
}

/// The environment wins over the env file it names, which wins over the owner's config file;
/// the config file is refused while others may read it.
#[cfg(unix)]
#[test]
fn the_environment_wins_over_the_named_env_file_which_wins_over_the_config_file() {
    use std::os::unix::fs::PermissionsExt;
    let (folder, db) = seeded();
    let work = folder.path().join("work");
    let config_home = folder.path().join("config");
    let config_file = config_home.join("discord-manager").join("config.env");
    let env_file = folder.path().join("owner.env");
    std::fs::create_dir_all(config_file.parent().unwrap()).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(&config_file, "DISCORD_MANAGER_READ_ONLY=maybe\n").unwrap();
    std::fs::set_permissions(&config_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let run = || {
        let mut command = on(&db);
        command
            .current_dir(&work)
            .env("XDG_CONFIG_HOME", &config_home);
        command
    };
    // The config file alone is read.
    assert_eq!(
        refused(run(), &["status"], 6),
        "error: DISCORD_MANAGER_READ_ONLY must be 1 (sending denied) or 0\n"
    );
    // A .env in the working directory changes nothing.
    std::fs::write(work.join(".env"), "DISCORD_MANAGER_READ_ONLY=0\n").unwrap();
    assert_eq!(
        refused(run(), &["status"], 6),
        "error: DISCORD_MANAGER_READ_ONLY must be 1 (sending denied) or 0\n"
    );
    // The named env file wins over the config file.
    std::fs::write(&env_file, "DISCORD_MANAGER_READ_ONLY=0\n").unwrap();
    std::fs::set_permissions(&env_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    run()
        .env("DISCORD_MANAGER_ENV_FILE", &env_file)
        .args(["status"])
        .assert()
        .success();
    // The environment wins over the env file.
    std::fs::write(&env_file, "DISCORD_MANAGER_READ_ONLY=maybe\n").unwrap();
    run()
        .env("DISCORD_MANAGER_ENV_FILE", &env_file)
        .env("DISCORD_MANAGER_READ_ONLY", "0")
        .args(["status"])
        .assert()
        .success();
    // A config file others may read is refused, whatever it holds.
    std::fs::write(&config_file, "DISCORD_MANAGER_READ_ONLY=0\n").unwrap();
    std::fs::set_permissions(&config_file, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(
        refused(run(), &["status"], 6),
        format!(
            "error: The config file {0} may be read by others (mode 0644): make it the owner's \
             only with `chmod 600 {0}`\n",
            config_file.display()
        )
    );
}

/// A malformed token or an API base that is not Discord nor loopback is the owner's
/// configuration to fix (exit 6), said without the value, before any request.
#[test]
fn a_malformed_token_or_a_foreign_api_base_is_a_configuration_error() {
    let (_folder, db) = seeded();
    let mut command = on(&db);
    command.env("DISCORD_TOKEN", "secret token with spaces");
    let stderr = refused(command, &["status"], 6);
    assert!(
        stderr.starts_with("error: DISCORD_TOKEN is not a bot token"),
        "{stderr}"
    );
    assert!(!stderr.contains("secret token"), "{stderr}");

    let mut command = on(&db);
    command
        .env("DISCORD_TOKEN", "secret-token.never.shown")
        .env("DISCORD_API_BASE", "http://attacker.example:8080");
    let stderr = refused(command, &["status"], 6);
    assert!(
        stderr.starts_with("error: DISCORD_API_BASE must be https://discord.com"),
        "{stderr}"
    );
    assert!(!stderr.contains("attacker"), "{stderr}");
}

/// A store that cannot be written (here SQLite cannot open its write-ahead log, whose name a
/// folder takes, as on a read-only or full disk; even root cannot write over that) is still
/// read: reading commands answer from it, and a write says why it cannot be done (exit 8).
#[test]
fn a_store_that_cannot_be_written_is_still_read() {
    let (folder, db) = seeded();
    std::fs::create_dir(folder.path().join("demo.sqlite3-wal")).unwrap();
    let assert = on(&db).args(["--json", "status"]).assert().success();
    let status: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert!(status["messageCount"].as_u64().unwrap() > 0, "{status}");
    let stderr = refused(on(&db), &["bookmarks", "add", "1500000000000000001"], 8);
    assert!(
        stderr.starts_with("error: The store cannot be written: it is read-only"),
        "{stderr}"
    );
}

/// A filter that may be true, false or absent over MCP may be all three on the command line:
/// `--mentions-owner` (or `--mentions-owner true`), `--mentions-owner false`, and leaving it
/// out; a word that is neither is refused by the same words as over MCP.
#[test]
fn a_three_way_filter_can_be_true_false_or_left_out_on_the_command_line() {
    let (_folder, db) = seeded();
    let found = |extra: &[&str]| -> Vec<String> {
        let output = on(&db)
            .env("DISCORD_OWNER_ID", "1000000000000000001")
            .args(["search", "the", "--json"])
            .args(extra)
            .output()
            .unwrap();
        assert!(output.status.success(), "{extra:?}: {output:?}");
        let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let mut ids: Vec<String> = value["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|result| result["message"]["messageId"].as_str().unwrap().to_string())
            .collect();
        ids.sort();
        ids
    };
    let every = found(&[]);
    let mentioning = found(&["--mentions-owner"]);
    let not_mentioning = found(&["--mentions-owner", "false"]);
    assert_eq!(found(&["--mentions-owner", "true"]), mentioning);
    assert_eq!(
        mentioning,
        [
            "1500000000000000002",
            "1500000000000000004",
            "1500000000000000012",
            "1500000000000000013",
            "1500000000000000014"
        ]
    );
    assert!(!not_mentioning.is_empty());
    let mut both = [mentioning, not_mentioning].concat();
    both.sort();
    assert_eq!(both, every, "true and false split everything between them");
    let mut command = on(&db);
    command.env("DISCORD_OWNER_ID", "1000000000000000001");
    assert_eq!(
        refused(command, &["search", "the", "--mentions-owner", "maybe"], 2),
        "error: `mentionsOwner` must be true or false; got \"maybe\"\n"
    );
}
