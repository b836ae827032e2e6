//! `discord-manager doctor`: is everything in place for the assistant to work? A checklist,
//! one line per check, each failure with its fix, in the order a newcomer meets them: the
//! configuration; the token and the Message Content intent; the guilds in scope against the
//! guilds the bot is in; per guild in scope, the channels the bot cannot read and why; the
//! store (writable, private, its WAL) and its integrity (SQLite's `quick_check`); whether an
//! `ingest` holds it and how fresh it is; how old its last backup is; the attachment cache's
//! folder (private, and room left on its filesystem for what it may still keep); this machine's clock
//! against Discord's; and the MCP server, started as an MCP client starts it.
//!
//! It exits 0 when no check failed (a warning is worth reading, not a failure) and 1 when one
//! did; `--json` prints the [`Report`]. Discord is asked over REST only; the token is never
//! printed.

use std::fmt::{self, Write as _};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use discord_manager_attachments::{Cache, ContentHash};
use discord_manager_core::config::{Config, TOTAL_CAP_VARIABLE, Token};
use discord_manager_discord::bot_check::{
    self, BotProfile, bot_settings_url, guild_readability, invite_url, privileged_intents,
};
use discord_manager_discord::daemon::CLOCK_WARNING_MS;
use discord_manager_discord::rest::{Rest, RestError};
use discord_manager_store::{GatewayEventKind, IngestHolder, PageCompression, Store};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::GuildId;
use serde::{Deserialize, Serialize};

/// What `doctor --json` prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Whether no check failed (warnings allowed): the exit code is 0 exactly when it is true.
    pub passed: bool,
    pub checks: Vec<Check>,
}

/// One line of the checklist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    /// Which check: `config`, `protections`, `token`, `message-content`, `guilds`, `channels`
    /// (one per guild in scope), `store`, `integrity`, `ingest`, `freshness`, `backup`,
    /// `attachments`, `clock` or `mcp`.
    pub check: String,
    /// Absent except for `channels`: the guild the line is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guild_id: Option<GuildId>,
    pub status: Status,
    /// What was found, in the owner's words.
    pub detail: String,
    /// What to do about it; absent when there is nothing to do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    /// Worth reading, not a failure (a channel the owner may have meant the bot not to read).
    Warn,
    Fail,
    /// Not checked: an earlier check it depends on failed.
    Skipped,
}

impl Check {
    fn new(check: &str, status: Status, detail: impl Into<String>) -> Check {
        Check {
            check: check.to_string(),
            guild_id: None,
            status,
            detail: detail.into(),
            fix: None,
        }
    }

    fn fix(mut self, fix: impl Into<String>) -> Check {
        self.fix = Some(fix.into());
        self
    }

    fn skipped(check: &str, because: &str) -> Check {
        Check::new(check, Status::Skipped, format!("not checked: {because}"))
    }

    /// The checklist line: `ok    token: Discord accepts it…`, a failure's fix after it.
    fn line(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Check {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mark = match self.status {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
            Status::Skipped => "skip",
        };
        write!(out, "{mark:<5} {}: {}", self.check, self.detail)?;
        if let Some(fix) = &self.fix {
            write!(out, ". Fix: {fix}")?;
        }
        Ok(())
    }
}

impl Report {
    /// The checklist, one line per check, and how it ended.
    pub fn render(&self) -> String {
        let mut text: String = self
            .checks
            .iter()
            .map(|check| check.line() + "\n")
            .collect();
        let failed = self
            .checks
            .iter()
            .filter(|check| check.status == Status::Fail)
            .count();
        text.push_str(&match failed {
            0 => "Every check passed.\n".to_string(),
            1 => "1 check failed.\n".to_string(),
            n => format!("{n} checks failed.\n"),
        });
        text
    }
}

/// Runs every check on the store at `store_path` (None: from the configuration).
pub fn run(store_path: Option<PathBuf>) -> Report {
    let mut checks = Vec::new();
    let config =
        match discord_manager_core::config::Sources::read()
            .and_then(|sources| Ok((Config::from_sources(&sources)?, sources)))
        {
            Ok((config, sources)) => {
                checks.push(Check::new("config", Status::Ok, config_detail(&sources)));
                checks.push(protections_check(&config, &sources));
                Some(config)
            }
            Err(error) => {
                checks.push(Check::new("config", Status::Fail, error.message()).fix(
                    "correct the variable or file named, or run `discord-manager setup` again",
                ));
                checks.push(Check::skipped(
                    "protections",
                    "the configuration cannot be read",
                ));
                None
            }
        };
    let clock = match &config {
        Some(config) => discord_checks(config, &mut checks),
        None => {
            for check in ["token", "message-content", "guilds"] {
                checks.push(Check::skipped(check, "the configuration cannot be read"));
            }
            None
        }
    };
    let path = store_path
        .or_else(|| config.as_ref().and_then(|config| config.db_path.clone()))
        .map_or_else(discord_manager_store::default_path, Ok);
    match &path {
        Ok(path) => {
            let compress = config.as_ref().is_some_and(|config| config.compress_store);
            checks.extend(store_checks(path, compress));
            let policy = config
                .as_ref()
                .map(|config| config.attachments)
                .unwrap_or_default();
            let folder = Cache::folder_of(path);
            checks.push(attachments_check(
                &folder,
                inspect_cache(&folder),
                free_space(cache_filesystem(&folder, path)),
                policy.total_cap,
            ));
        }
        Err(error) => {
            checks.push(Check::new("store", Status::Fail, error.message()));
            checks.push(Check::skipped("attachments", "there is no store path"));
        }
    }
    checks.push(clock.unwrap_or_else(|| Check::skipped("clock", "Discord did not answer")));
    checks.push(match &path {
        // The server would create a missing store: the doctor leaves that to ingest.
        Ok(path) if path.is_file() => mcp_check(path),
        _ => Check::skipped("mcp", "there is no store to serve yet"),
    });
    Report {
        passed: checks.iter().all(|check| check.status != Status::Fail),
        checks,
    }
}

/// Where the configuration came from, without any of its values.
fn config_detail(sources: &discord_manager_core::config::Sources) -> String {
    let file = discord_manager_core::config::config_file_path()
        .filter(|path| path.exists())
        .map_or_else(
            || "no config file".to_string(),
            |path| format!("the config file {}", path.display()),
        );
    match sources.env_file() {
        Some(env_file) => format!(
            "read from the environment, the env file {} ({} names it) and {file}",
            env_file.display(),
            discord_manager_core::config::ENV_FILE_VARIABLE
        ),
        None => format!("read from the environment and {file}"),
    }
}

/// Each protection as it stands and which source set it (never a value that could be a
/// secret); a warning when a `.env` in the working directory sets variables, since none of
/// them is read.
fn protections_check(config: &Config, sources: &discord_manager_core::config::Sources) -> Check {
    let origin = |name: &str| {
        sources
            .origin(name)
            .map_or_else(|| "default".to_string(), |origin| origin.to_string())
    };
    let on_off = |on: bool| if on { "on" } else { "off" };
    let send_list = match &config.send_channel_ids {
        None => "nowhere".to_string(),
        Some(ids) => format!("only in {}", written(ids)),
    };
    let scope = match config.guild_scope.listed() {
        [] => "every guild the bot is in".to_string(),
        listed => written(listed),
    };
    let settings = [
        (
            "read-only",
            on_off(config.read_only).to_string(),
            "DISCORD_MANAGER_READ_ONLY",
        ),
        (
            "an assistant posts",
            send_list,
            "DISCORD_MANAGER_SEND_CHANNELS",
        ),
        (
            "direct messages",
            on_off(config.allow_dms).to_string(),
            "DISCORD_MANAGER_ALLOW_DMS",
        ),
        (
            "link previews",
            on_off(config.link_previews).to_string(),
            "DISCORD_MANAGER_LINK_PREVIEWS",
        ),
        (
            "the owner confirms each post",
            on_off(config.confirm_posts).to_string(),
            "DISCORD_MANAGER_CONFIRM_POSTS",
        ),
        (
            "pushed into the session",
            config.push.describe(),
            discord_manager_core::config::PUSH_VARIABLE,
        ),
        ("guilds in scope", scope, "DISCORD_GUILD_IDS"),
        (
            "API base",
            config
                .api_base
                .clone()
                .unwrap_or_else(|| "https://discord.com".to_string()),
            "DISCORD_API_BASE",
        ),
        (
            "token",
            if config.token.is_some() {
                "set"
            } else {
                "unset"
            }
            .to_string(),
            "DISCORD_TOKEN",
        ),
        (
            "store",
            config.db_path.as_ref().map_or_else(
                || "the default path".to_string(),
                |path| path.display().to_string(),
            ),
            "DISCORD_MANAGER_DB",
        ),
    ];
    let detail = settings
        .iter()
        .map(|(what, value, variable)| format!("{what} {value} ({})", origin(variable)))
        .collect::<Vec<_>>()
        .join("; ");
    let ignored = discord_manager_core::config::ignored_dot_env_variables();
    if ignored.is_empty() {
        Check::new("protections", Status::Ok, detail)
    } else {
        Check::new(
            "protections",
            Status::Warn,
            format!(
                "{detail}; the .env in this directory sets {} and is not read: no file in the \
                 working directory is",
                ignored.join(", ")
            ),
        )
        .fix(format!(
            "to use it, name it in the environment: {}=/path/to/.env (owner-only, mode 0600), or \
             move its lines into the config file",
            discord_manager_core::config::ENV_FILE_VARIABLE
        ))
    }
}

/// The checks that ask Discord: the token, the intent, the guilds and their channels. Answers
/// the clock check, read from the `Date` of those same answers.
fn discord_checks(config: &Config, checks: &mut Vec<Check>) -> Option<Check> {
    let skip_rest = |checks: &mut Vec<Check>, because: &str| {
        for check in ["message-content", "guilds"] {
            checks.push(Check::skipped(check, because));
        }
    };
    let Some(token) = &config.token else {
        checks.push(
            Check::new("token", Status::Fail, "no bot token is configured")
                .fix("run `discord-manager setup`"),
        );
        skip_rest(checks, "there is no token");
        return None;
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    let (rest, runtime) = match (rest_client(token, config), runtime) {
        (Ok(rest), Ok(runtime)) => (rest, runtime),
        _ => {
            checks.push(Check::new(
                "token",
                Status::Fail,
                "the HTTP client cannot be started on this machine",
            ));
            skip_rest(checks, "Discord cannot be asked");
            return None;
        }
    };
    runtime.block_on(async {
        match bot_check::bot_profile(&rest).await {
            Ok(profile) => {
                checks.push(Check::new(
                    "token",
                    Status::Ok,
                    format!(
                        "Discord accepts it: the bot {} ({})",
                        profile.user_name, profile.user_id
                    ),
                ));
                checks.push(message_content_check(&profile));
                checks.push(guilds_check(config, &profile));
                for guild in profile
                    .guilds
                    .iter()
                    .filter(|guild| config.guild_scope.includes(&guild.id))
                {
                    checks.push(channels_check(&rest, &guild.id, &guild.name, &profile).await);
                }
            }
            Err(error) => {
                checks.push(token_failure(&error));
                skip_rest(checks, "the token was not accepted");
            }
        }
    });
    rest.discord_clock()
        .map(|reading| clock_check(reading.host_ahead_ms()))
}

fn rest_client(token: &Token, config: &Config) -> discord_manager_vocabulary::error::Result<Rest> {
    bot_check::rest_for_a_check(token, config.api_base.as_deref())
}

fn token_failure(error: &RestError) -> Check {
    match error {
        RestError::Unauthorized => Check::new(
            "token",
            Status::Fail,
            "Discord rejected the token (401 Unauthorized)",
        )
        .fix(
            "copy a new one from the Developer Portal → your application → Bot → Reset Token, \
             then run `discord-manager setup`",
        ),
        other => Check::new("token", Status::Fail, other.describe())
            .fix("check that this machine reaches discord.com, then run doctor again"),
    }
}

fn message_content_check(profile: &BotProfile) -> Check {
    let [message_content, ..] = privileged_intents(profile.application.flags);
    if message_content.enabled {
        Check::new(
            "message-content",
            Status::Ok,
            "the Message Content intent is on",
        )
    } else {
        Check::new(
            "message-content",
            Status::Fail,
            format!("the Message Content intent is off: {}", message_content.why),
        )
        .fix(format!(
            "switch on Message Content Intent under Bot → Privileged Gateway Intents at {}, \
             save, then restart ingest",
            bot_settings_url(&profile.application.id)
        ))
    }
}

/// The guilds in scope against the guilds the bot is in: a guild in scope the bot is not in
/// fails; a guild the bot is in but out of scope is named, as the owner chose it.
fn guilds_check(config: &Config, profile: &BotProfile) -> Check {
    let named = |guilds: Vec<String>| guilds.join(", ");
    if profile.guilds.is_empty() {
        return Check::new("guilds", Status::Fail, "the bot is in no guild").fix(format!(
            "invite it: {}",
            invite_url(&profile.application.id)
        ));
    }
    let (in_scope, out_of_scope): (Vec<_>, Vec<_>) = profile
        .guilds
        .iter()
        .partition(|guild| config.guild_scope.includes(&guild.id));
    let shown = |guilds: Vec<&discord_manager_discord::rest::GuildSummary>| {
        named(
            guilds
                .into_iter()
                .map(|guild| format!("{} ({})", guild.name, guild.id))
                .collect(),
        )
    };
    let missing: Vec<GuildId> = config
        .guild_scope
        .listed()
        .iter()
        .filter(|id| !profile.guilds.iter().any(|guild| guild.id == **id))
        .cloned()
        .collect();
    let mut detail = if config.guild_scope.listed().is_empty() {
        format!("every guild the bot is in is in scope: {}", shown(in_scope))
    } else {
        format!("in scope: {}", shown(in_scope))
    };
    if !out_of_scope.is_empty() {
        let _ = write!(
            detail,
            "; out of scope (not in DISCORD_GUILD_IDS): {}",
            shown(out_of_scope)
        );
    }
    if missing.is_empty() {
        return Check::new("guilds", Status::Ok, detail);
    }
    let _ = write!(
        detail,
        "; in DISCORD_GUILD_IDS but the bot is not in: {}",
        named(missing.iter().map(GuildId::to_string).collect())
    );
    Check::new("guilds", Status::Fail, detail).fix(format!(
        "invite the bot there ({}) or take the id out of DISCORD_GUILD_IDS",
        invite_url(&profile.application.id)
    ))
}

async fn channels_check(
    rest: &Rest,
    guild_id: &GuildId,
    name: &str,
    profile: &BotProfile,
) -> Check {
    let mut check = match guild_readability(rest, guild_id, &profile.user_id).await {
        Ok(readability) if readability.unreadable.is_empty() => Check::new(
            "channels",
            Status::Ok,
            format!(
                "{name}: the bot can read all {} channels",
                readability.channels
            ),
        ),
        Ok(readability) => {
            let each: Vec<String> = readability
                .unreadable
                .iter()
                .map(|channel| format!("#{} ({}): {}", channel.name, channel.id, channel.reason))
                .collect();
            Check::new(
                "channels",
                Status::Warn,
                format!(
                    "{name}: the bot cannot read {} of {} channels: {}",
                    readability.unreadable.len(),
                    readability.channels,
                    each.join("; ")
                ),
            )
            .fix(
                "if it should read them, allow View Channel and Read Message History for the \
                 bot's role in each channel's permissions",
            )
        }
        Err(error) => Check::new(
            "channels",
            Status::Fail,
            format!("{name}: {}", error.describe()),
        )
        .fix("check that the bot is still in the guild, then run doctor again"),
    };
    check.guild_id = Some(*guild_id);
    check
}

fn clock_check(host_ahead_ms: i64) -> Check {
    let seconds = host_ahead_ms.abs() as f64 / 1_000.0;
    let direction = if host_ahead_ms > 0 {
        "ahead of"
    } else {
        "behind"
    };
    let detail = format!("this machine's clock is {seconds:.0} s {direction} Discord's");
    if host_ahead_ms.abs() <= CLOCK_WARNING_MS {
        Check::new("clock", Status::Ok, detail)
    } else {
        Check::new("clock", Status::Fail, detail).fix(
            "set the clock from the network (NTP; e.g. `timedatectl set-ntp true`): time \
             windows and schedules follow this machine's clock",
        )
    }
}

/// How long a connected daemon may go without a sign of life before the store counts as
/// stale: it records one every 30 s while connected.
const STALE_AFTER_SECONDS: i64 = 120;

/// A WAL this large means a reader keeps a transaction open (or checkpoints cannot run).
const WAL_WARNING_BYTES: u64 = 256 * 1024 * 1024;

/// The store, whether an `ingest` holds it, and how fresh it is.
fn store_checks(path: &Path, compress: bool) -> Vec<Check> {
    if !path.is_file() {
        return vec![
            Check::new(
                "store",
                Status::Fail,
                format!("there is no store at {} yet", path.display()),
            )
            .fix("start `discord-manager ingest`, which creates it"),
            Check::skipped("integrity", "there is no store"),
            Check::skipped("ingest", "there is no store"),
            Check::skipped("freshness", "there is no store"),
            Check::skipped("backup", "there is no store"),
        ];
    }
    // Opened as every other process opens it, so what it folds from the WAL is written the
    // same way.
    let pages = if compress {
        PageCompression::On
    } else {
        PageCompression::Off
    };
    let (store_check, store) = match Store::open_writable_as(path, pages) {
        Ok(store) => (writable_check(path), Ok(store)),
        Err(error) => (
            Check::new(
                "store",
                Status::Fail,
                format!("the store cannot be written: {}", error.message()),
            )
            .fix(
                "free some disk space, or give this user write access to the store, its \
                 -wal and -shm files and their folder (ingest stops with exit 8 until then)",
            ),
            Store::open(path),
        ),
    };
    let mut checks = vec![store_check];
    match store {
        Ok(store) => {
            checks.push(integrity_check(store.quick_check()));
            let holder = store.ingest_holder();
            let running = matches!(holder, Ok(IngestHolder::Running { .. }));
            checks.push(ingest_check(holder));
            checks.push(freshness_check(&store, running));
            checks.push(backup_check(
                store.read(|reader| reader.latest_backup()),
                Instant::now(),
            ));
        }
        Err(error) => {
            let because = format!("the store cannot be read: {}", error.message());
            for check in ["integrity", "ingest", "freshness", "backup"] {
                checks.push(Check::skipped(check, &because));
            }
        }
    }
    checks
}

/// A writable store: private to its owner, with a WAL of a sane size.
fn writable_check(path: &Path) -> Check {
    #[cfg(unix)]
    let mode = {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path)
            .map(|metadata| metadata.permissions().mode() & 0o777)
            .unwrap_or(0)
    };
    // Elsewhere access is the folder's ACL: the mode shown is that of a private file.
    #[cfg(not(unix))]
    let mode = 0o600;
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    let wal_bytes = std::fs::metadata(&wal).map_or(0, |metadata| metadata.len());
    let mut detail = format!(
        "{} is writable, mode {mode:04o}, WAL {}",
        path.display(),
        size(wal_bytes)
    );
    // A store whose pages are compressed (DISCORD_MANAGER_COMPRESS_STORE) holds fewer blocks
    // than its length: say what it takes.
    #[cfg(unix)]
    if let Ok(metadata) = std::fs::metadata(path) {
        let held = std::os::unix::fs::MetadataExt::blocks(&metadata).saturating_mul(512);
        if held.saturating_mul(4) < metadata.len().saturating_mul(3) {
            let _ = write!(
                detail,
                "; its pages compressed, {} on disk for a file of {}",
                size(held),
                size(metadata.len())
            );
        }
    }
    if mode & 0o077 != 0 {
        Check::new("store", Status::Fail, detail).fix(format!(
            "make it yours only: `chmod 600 {}`",
            path.display()
        ))
    } else if wal_bytes > WAL_WARNING_BYTES {
        Check::new("store", Status::Warn, detail).fix(
            "a process keeps a read open on the store, so its WAL cannot be checkpointed: \
             stop the other programs reading it",
        )
    } else {
        Check::new("store", Status::Ok, detail)
    }
}

/// SQLite's `quick_check` over the whole file.
fn integrity_check(found: discord_manager_vocabulary::error::Result<Vec<String>>) -> Check {
    let restore = "stop ingest, copy your newest backup over the store and start ingest again \
                   (docs/operations.md, \"Backup and restore\"); ingest backfills what came \
                   after it";
    match found {
        Ok(problems) if problems.is_empty() => Check::new(
            "integrity",
            Status::Ok,
            "SQLite's quick_check finds the store sound",
        ),
        Ok(problems) => Check::new(
            "integrity",
            Status::Fail,
            format!(
                "SQLite's quick_check finds the store damaged: {}",
                problems.join("; ")
            ),
        )
        .fix(restore),
        Err(error) => Check::new(
            "integrity",
            Status::Fail,
            format!(
                "SQLite's quick_check could not read the store: {}",
                error.message()
            ),
        )
        .fix(restore),
    }
}

/// A backup older than this is worth a warning.
const BACKUP_WARNING_DAYS: i64 = 7;

/// How old the newest backup `discord-manager backup` recorded is.
fn backup_check(
    latest: discord_manager_vocabulary::error::Result<Option<discord_manager_store::BackupRecord>>,
    now: Instant,
) -> Check {
    let fix = "take one: `discord-manager backup PATH` (a file that does not exist yet)";
    match latest {
        Ok(None) => Check::new(
            "backup",
            Status::Warn,
            "no backup of this store was taken yet",
        )
        .fix(fix),
        Ok(Some(backup)) => {
            let detail = format!(
                "the last backup, {} ({} messages), was taken {} ago",
                backup.path,
                backup.messages,
                age(now, backup.created_at)
            );
            let seconds = (now.as_micros() - backup.created_at.as_micros()) / 1_000_000;
            if seconds > BACKUP_WARNING_DAYS * 86_400 {
                Check::new("backup", Status::Warn, detail).fix(fix)
            } else {
                Check::new("backup", Status::Ok, detail)
            }
        }
        Err(error) => Check::new("backup", Status::Fail, error.message()),
    }
}

fn ingest_check(holder: discord_manager_vocabulary::error::Result<IngestHolder>) -> Check {
    match holder {
        Ok(IngestHolder::Running { pid }) => Check::new(
            "ingest",
            Status::Ok,
            match pid {
                Some(pid) => format!("`discord-manager ingest` is recording (pid {pid})"),
                None => "`discord-manager ingest` is recording".to_string(),
            },
        ),
        Ok(IngestHolder::Nobody) => Check::new(
            "ingest",
            Status::Fail,
            "no `discord-manager ingest` is recording into this store",
        )
        .fix("start `discord-manager ingest` under systemd or in a container (docs/operations.md)"),
        Err(error) => Check::new("ingest", Status::Fail, error.message()),
    }
}

/// How fresh the store is: the daemon's last sign of life (it records one while connected)
/// and the newest message, edit, deletion or reaction it recorded.
fn freshness_check(store: &Store, running: bool) -> Check {
    let read = store.read(|reader| {
        Ok((
            reader.latest_gateway_event()?,
            reader.newest_gateway_event()?,
        ))
    });
    let (latest, newest) = match read {
        Ok(found) => found,
        Err(error) => return Check::new("freshness", Status::Fail, error.message()),
    };
    let now = Instant::now();
    let newest = newest.map_or_else(
        || "no message was recorded yet".to_string(),
        |at| {
            format!(
                "the newest message, edit or reaction arrived {} ago",
                age(now, at)
            )
        },
    );
    let Some(event) = latest else {
        return Check::new(
            "freshness",
            Status::Warn,
            format!("the daemon never connected with this store; {newest}"),
        )
        .fix("start `discord-manager ingest`");
    };
    let seconds = (now.as_micros() - event.created_at.as_micros()) / 1_000_000;
    let seen = format!(
        "the daemon's last sign of life ({}) was {} ago; {newest}",
        event.kind.as_str(),
        age(now, event.created_at)
    );
    match event.kind {
        GatewayEventKind::Stop if !running => {
            Check::new("freshness", Status::Warn, seen).fix("start `discord-manager ingest`")
        }
        _ if seconds <= STALE_AFTER_SECONDS => Check::new("freshness", Status::Ok, seen),
        _ if running => Check::new("freshness", Status::Fail, seen).fix(
            "the daemon runs but is not connected: read its log (stderr, or `journalctl --user \
             -u discord-manager`)",
        ),
        _ => Check::new("freshness", Status::Warn, seen).fix("start `discord-manager ingest`"),
    }
}

/// How long ago `at` was, roughly, in the largest unit that fits.
fn age(now: Instant, at: Instant) -> String {
    let seconds = ((now.as_micros() - at.as_micros()) / 1_000_000).max(0);
    match seconds {
        0..120 => format!("{seconds} s"),
        120..7_200 => format!("{} min", seconds / 60),
        7_200..172_800 => format!("{} h", seconds / 3_600),
        _ => format!("{} days", seconds / 86_400),
    }
}

fn size(bytes: u64) -> String {
    match bytes {
        0..1_024 => format!("{bytes} B"),
        1_024..1_048_576 => format!("{:.1} KiB", bytes as f64 / 1_024.0),
        _ => format!("{:.1} MiB", bytes as f64 / 1_048_576.0),
    }
}

/// What the attachment cache's folder holds, as far as its modes and size go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct CacheFolder {
    /// The folder's mode (on Unix; 0700 elsewhere, where access is the folder's ACL).
    mode: u32,
    /// Kept files (named by their hash) and their bytes.
    files: u64,
    bytes: u64,
    /// Kept files others may read or write, by name.
    open_files: Vec<String>,
}

/// The cache folder as it is: None when it is not made yet.
fn inspect_cache(folder: &Path) -> std::io::Result<Option<CacheFolder>> {
    let metadata = match std::fs::metadata(folder) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error),
    };
    let mut found = CacheFolder {
        mode: mode_of(&metadata),
        ..CacheFolder::default()
    };
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if ContentHash::parse(&name).is_none() {
            continue;
        }
        let metadata = entry.metadata()?;
        found.files += 1;
        found.bytes += metadata.len();
        if mode_of(&metadata) & 0o077 != 0 {
            found.open_files.push(name);
        }
    }
    Ok(Some(found))
}

/// A file's permission bits on Unix; elsewhere those of a private file or folder.
fn mode_of(metadata: &std::fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        metadata.permissions().mode() & 0o777
    }
    #[cfg(not(unix))]
    {
        if metadata.is_dir() { 0o700 } else { 0o600 }
    }
}

/// Where the cache's free space is read: its own folder once made (linked or mounted elsewhere,
/// it has a filesystem of its own), before that the store's folder, which will hold it.
fn cache_filesystem<'a>(folder: &'a Path, store: &'a Path) -> &'a Path {
    if folder.is_dir() {
        folder
    } else {
        store.parent().unwrap_or(Path::new("."))
    }
}

/// The bytes an unprivileged user may still write on the filesystem holding `path` (None where
/// it is not checked: not Unix, or the filesystem would not say).
/// Ids as the owner reads a list of them: their digits, comma-separated.
fn written<T: std::fmt::Display>(ids: &[T]) -> String {
    ids.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn free_space(path: &Path) -> Option<u64> {
    #[cfg(unix)]
    {
        let path = if path.as_os_str().is_empty() {
            Path::new(".")
        } else {
            path
        };
        rustix::fs::statvfs(path)
            .ok()
            .map(|stats| stats.f_bavail.saturating_mul(stats.f_frsize))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// The attachment cache's folder: private (0700, its files 0600), and room on its filesystem
/// for what it may still keep (the total cap less what it holds), or a warning.
fn attachments_check(
    folder: &Path,
    found: std::io::Result<Option<CacheFolder>>,
    free: Option<u64>,
    total_cap: u64,
) -> Check {
    let shown = folder.display();
    let found = match found {
        Ok(found) => found,
        Err(error) => {
            return Check::new(
                "attachments",
                Status::Fail,
                format!("{shown} cannot be read: {error}"),
            )
            .fix(format!("give this user access to {shown}"));
        }
    };
    let kept = found.as_ref().map_or(0, |found| found.bytes);
    let room = total_cap.saturating_sub(kept);
    let free_text = match free {
        Some(free) => format!("{} free on its filesystem", size(free)),
        None => "free space not checked on this platform".to_string(),
    };
    let detail = match &found {
        None => format!(
            "{shown} is not made yet (ingest makes it, 0700, as it keeps the first file); {free_text}"
        ),
        Some(found) => format!(
            "{shown}: {} files, {}, mode {:04o}; {free_text}",
            found.files,
            size(found.bytes),
            found.mode
        ),
    };
    if let Some(found) = &found {
        if found.mode & 0o077 != 0 {
            return Check::new("attachments", Status::Fail, detail)
                .fix(format!("make it yours only: `chmod 700 {shown}`"));
        }
        if let Some(first) = found.open_files.first() {
            return Check::new(
                "attachments",
                Status::Fail,
                format!(
                    "{detail}; {} files others may read, such as {first}",
                    found.open_files.len()
                ),
            )
            .fix(format!("make them yours only: `chmod 600 {shown}/*`"));
        }
    }
    match free {
        Some(free) if free < room => Check::new("attachments", Status::Warn, detail).fix(format!(
            "the cache may still grow by {} (its total cap, {}, less what it holds): free some \
             space, or lower {TOTAL_CAP_VARIABLE}",
            size(room),
            size(total_cap)
        )),
        _ => Check::new("attachments", Status::Ok, detail),
    }
}

/// How long the MCP server may take to start and list its tools.
const MCP_PATIENCE: Duration = Duration::from_secs(20);

/// Starts this binary's MCP server on the store, as a client would, and lists its tools.
fn mcp_check(path: &Path) -> Check {
    let expected = discord_manager_core::registry::capabilities().len();
    match list_tools(path) {
        Ok(count) if count == expected => Check::new(
            "mcp",
            Status::Ok,
            format!("the server starts on this store and lists its {count} tools"),
        ),
        Ok(count) => Check::new(
            "mcp",
            Status::Fail,
            format!("the server lists {count} tools instead of {expected}"),
        ),
        Err(why) => Check::new("mcp", Status::Fail, why)
            .fix("run `discord-manager mcp` by hand to see its error"),
    }
}

/// `initialize`, `notifications/initialized` and `tools/list` over the server's stdio: the
/// number of tools it lists, or why there is none.
fn list_tools(path: &Path) -> Result<usize, String> {
    let binary =
        std::env::current_exe().map_err(|_| "cannot tell where this binary is".to_string())?;
    let mut child = Command::new(binary)
        .arg("--db")
        .arg(path)
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("the server cannot be started: {error}"))?;
    let requests = serde_json::json!([
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-03-26", "capabilities": {},
            "clientInfo": {"name": "discord-manager doctor", "version": env!("CARGO_PKG_VERSION")}
        }},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    ]);
    let mut stdin = child.stdin.take().expect("stdin was piped");
    for request in requests.as_array().expect("an array") {
        let _ = writeln!(stdin, "{request}");
    }
    let stdout = child.stdout.take().expect("stdout was piped");
    let (lines, answers) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(|line| line.ok()) {
            if lines.send(line).is_err() {
                return;
            }
        }
    });
    let deadline = std::time::Instant::now() + MCP_PATIENCE;
    let listed = loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match answers.recv_timeout(left) {
            Ok(line) => {
                let answer: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
                if answer["id"] == 2 {
                    break answer["result"]["tools"]
                        .as_array()
                        .map(Vec::len)
                        .ok_or_else(|| "the server answered tools/list without tools".to_string());
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                break Err(format!(
                    "the server did not list its tools within {} s",
                    MCP_PATIENCE.as_secs()
                ));
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                break Err("the server ended before listing its tools".to_string());
            }
        }
    };
    drop(stdin);
    let _ = child.kill();
    let output = child.wait_with_output();
    listed.map_err(|why| {
        let said = output
            .ok()
            .and_then(|output| {
                String::from_utf8_lossy(&output.stderr)
                    .lines()
                    .rfind(|line| !line.trim().is_empty())
                    .map(str::to_string)
            })
            .map_or_else(String::new, |line| format!(" (it said: {line})"));
        format!("{why}{said}")
    })
}

#[cfg(test)]
mod tests;
