//! With a working bot (a token Discord accepts, the Message Content intent on, every channel
//! readable), `ingest` running on the store and a backup taken while it runs, `doctor` passes
//! every check, one line each, and exits 0; `--json` reports the same checks, in the
//! documented fields.

use serde::Deserialize;

use crate::support::Store;
use crate::support::fake_discord::{BOT, FakeDiscord, GUILD};
use crate::support::live::Daemon;

/// The Message Content intent of a bot in fewer than 100 guilds.
const MESSAGE_CONTENT_LIMITED: u64 = 1 << 19;
/// The demo guild's role the bot holds.
const BOTS_ROLE: &str = "1300000000000000002";
const ADMINISTRATOR: u64 = 1 << 3;

/// `doctor --json`, as docs/operations.md documents it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Report {
    passed: bool,
    checks: Vec<Check>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Check {
    check: String,
    #[serde(default)]
    guild_id: Option<String>,
    status: String,
    detail: String,
    #[serde(default)]
    fix: Option<String>,
}

pub async fn spec() {
    let fake = FakeDiscord::start();
    fake.set_application_flags(MESSAGE_CONTENT_LIMITED);
    fake.set_role_permissions(GUILD, BOTS_ROLE, ADMINISTRATOR);
    let store = Store::without_owner().sending_to(&fake);
    let daemon = Daemon::start(&fake, &store);
    daemon.wait_until_caught_up(1);
    let backup = store.folder().join("backup.sqlite3");
    store
        .cli()
        .run_with(&["backup", backup.to_str().unwrap()], "", &[])
        .code(0)
        .stderr("");

    let assert = store.cli().run_with(&["doctor"], "", &[]).code(0).stderr("");
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    let lines: Vec<&str> = stdout.lines().collect();
    let tools = discord_manager_core::registry::capabilities().len();
    let exactly = [
        "ok    config: read from the environment and no config file".to_string(),
        format!(
            "ok    protections: read-only off (default); an assistant posts nowhere (default); \
             direct messages off (default); link previews off (default); the owner confirms each \
             post off (default); pushed into the session all (default); guilds in scope every \
             guild the bot is in (default); API base {} (the environment); token set (the \
             environment); store {} (the environment)",
            fake.api_base(),
            store.path().display()
        ),
        format!("ok    token: Discord accepts it: the bot keeper ({BOT})"),
        "ok    message-content: the Message Content intent is on".to_string(),
        format!("ok    guilds: every guild the bot is in is in scope: Lighthouse Labs ({GUILD})"),
        "ok    channels: Lighthouse Labs: the bot can read all 5 channels".to_string(),
    ];
    assert_eq!(lines[..6], exactly, "{stdout}");
    // The rest carry sizes, ages and a pid: their fixed part, then the value.
    assert!(
        lines[6].starts_with(&format!(
            "ok    store: {} is writable, mode 0600, WAL ",
            store.path().display()
        )),
        "{stdout}"
    );
    assert_eq!(
        lines[7],
        "ok    integrity: SQLite's quick_check finds the store sound"
    );
    assert_eq!(
        lines[8],
        format!("ok    ingest: `discord-manager ingest` is recording (pid {})", daemon.pid())
    );
    assert!(
        lines[9].starts_with("ok    freshness: the daemon's last sign of life ("),
        "{stdout}"
    );
    assert!(
        lines[10].starts_with(&format!(
            "ok    backup: the last backup, {} (",
            backup.display()
        )),
        "{stdout}"
    );
    // The daemon made the attachment folder as it started; nothing is kept in it yet.
    assert!(
        lines[11].starts_with(&format!(
            "ok    attachments: {}.attachments: 0 files, 0 B, mode 0700; ",
            store.path().display()
        )),
        "{stdout}"
    );
    assert!(lines[11].ends_with(" free on its filesystem"), "{stdout}");
    assert!(
        lines[12].starts_with("ok    clock: this machine's clock is "),
        "{stdout}"
    );
    assert_eq!(
        lines[13],
        format!("ok    mcp: the server starts on this store and lists its {tools} tools")
    );
    assert_eq!(lines[14..], ["Every check passed."]);
    assert!(!stdout.contains(fake.token()), "the token is never printed");

    let json = store.cli().run_with(&["doctor", "--json"], "", &[]).code(0);
    let report: Report = serde_json::from_slice(&json.get_output().stdout).unwrap();
    assert!(report.passed);
    let names: Vec<&str> = report.checks.iter().map(|check| check.check.as_str()).collect();
    assert_eq!(
        names,
        [
            "config",
            "protections",
            "token",
            "message-content",
            "guilds",
            "channels",
            "store",
            "integrity",
            "ingest",
            "freshness",
            "backup",
            "attachments",
            "clock",
            "mcp"
        ]
    );
    for check in &report.checks {
        assert_eq!(check.status, "ok", "{check:?}");
        assert_eq!(check.fix, None, "{check:?}");
        assert!(!check.detail.is_empty(), "{check:?}");
    }
    assert_eq!(report.checks[5].guild_id.as_deref(), Some(GUILD));
    assert_eq!(report.checks[0].guild_id, None);
    daemon.stop();
}
