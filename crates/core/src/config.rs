//! The owner's configuration: environment variables, also read from files the owner chose.
//! Where a variable is set in more than one place, the first of these wins:
//!
//! 1. the process environment;
//! 2. the env file the process environment names in `DISCORD_MANAGER_ENV_FILE`, if any;
//! 3. the owner's config file, `$XDG_CONFIG_HOME/discord-manager/config.env` (by default
//!    `~/.config/discord-manager/config.env`).
//!
//! **Nothing in the working directory is read.** An MCP client starts the server inside
//! whatever project the owner opened, so a cloned repository's `.env` would otherwise loosen
//! every protection and redirect the token (ARCHITECTURE.md, "Configuration comes only from
//! the owner"). Both files must be readable by their owner only (0600): each may hold the token.
//!
//! `.env.example` documents each variable. The bot token is held in [`Token`], which never
//! prints itself, and no configuration error repeats a value it was given: any of them may be
//! a token pasted into the wrong variable.

use std::collections::HashMap;
use std::fmt;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::snowflake::{ChannelId, GuildId, UserId, days_before};

mod attachments;
mod keywords;
mod push;
pub use attachments::{AttachmentPolicy, FileKind, SkipReason, TOTAL_CAP_VARIABLE};
pub use keywords::{Keywords, MAX_KEYWORDS};
pub use push::{PUSH_VARIABLE, PushKinds};

/// How much history before the store began `ingest` imports for each channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportWindow {
    /// No import.
    Off,
    /// Messages sent up to this many days before the channel's beginning.
    Days(u32),
    /// Everything Discord still has.
    All,
}

/// The window's largest number of days: a century is everything Discord has.
const MAX_DAYS: u32 = 36_500;

impl ImportWindow {
    /// The import `ingest` makes unless told otherwise.
    pub const DEFAULT: ImportWindow = ImportWindow::Days(7);

    /// `all`, `0` (off) or a whole number of days from 1 to 36500; None for anything else.
    pub fn parse(text: &str) -> Option<ImportWindow> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("all") {
            return Some(ImportWindow::All);
        }
        match text.parse::<u32>().ok()? {
            0 => Some(ImportWindow::Off),
            days if days <= MAX_DAYS => Some(ImportWindow::Days(days)),
            _ => None,
        }
    }

    /// What a value of this setting must be, for an error naming the setting.
    pub fn wanted() -> &'static str {
        "a whole number of days from 0 (no import) to 36500, or all"
    }

    /// The lowest message id inside the window of a channel that begins after `beginning`;
    /// None when nothing is imported.
    pub fn start(self, beginning: u64) -> Option<u64> {
        match self {
            ImportWindow::Off => None,
            ImportWindow::Days(days) => Some(days_before(beginning, u64::from(days))),
            ImportWindow::All => Some(0),
        }
    }
}

/// The bot token. Its `Debug` and `Display` never show it.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// The token itself, for the one place that sends it to Discord.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// A token of Discord's shape: three non-empty dot-separated parts of letters, digits, `-`
    /// and `_` (a bot token never has anything else). Anything else is refused here, as a
    /// configuration error, instead of reaching Discord as a request it refuses.
    pub fn parse(text: &str) -> Result<Token> {
        let text = text.strip_prefix("Bot ").unwrap_or(text);
        let well_formed_part = |part: &str| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_')
        };
        let parts: Vec<&str> = text.split('.').collect();
        if parts.len() == 3 && parts.iter().all(|part| well_formed_part(part)) {
            Ok(Token(text.to_string()))
        } else {
            Err(Error::config(
                "DISCORD_TOKEN is not a bot token: a token is three parts separated by dots, \
                 made of letters, digits, - and _ only (copy it again from the Developer Portal \
                 → your application → Bot → Reset Token; the value is not shown here)",
            ))
        }
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

/// The guilds in the owner's scope (`DISCORD_GUILD_IDS`): those listed, or every guild the bot
/// is in when none are. The one statement of that rule: the daemon's recording and repairs,
/// every capability's owner context and `doctor` ask it here.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GuildScope {
    /// Empty: every guild.
    listed: Vec<GuildId>,
}

impl GuildScope {
    /// Every guild the bot is in.
    pub fn every_guild() -> GuildScope {
        GuildScope::default()
    }

    /// Only these guilds (none listed: every guild).
    pub fn only(guild_ids: Vec<GuildId>) -> GuildScope {
        GuildScope { listed: guild_ids }
    }

    /// Whether guild `guild_id` is in scope.
    pub fn includes(&self, guild_id: &GuildId) -> bool {
        self.listed.is_empty() || self.listed.iter().any(|id| id == guild_id)
    }

    /// The guilds listed; empty when every guild is in scope.
    pub fn listed(&self) -> &[GuildId] {
        &self.listed
    }
}

#[derive(Debug, Clone, Default)]
pub struct Config {
    pub token: Option<Token>,
    pub owner_id: Option<UserId>,
    pub guild_scope: GuildScope,
    pub db_path: Option<PathBuf>,
    pub read_only: bool,
    pub send_channel_ids: Option<Vec<ChannelId>>,
    pub api_base: Option<String>,
    /// `DISCORD_MANAGER_ALLOW_DMS=1`: direct-message channels are in scope (off by default).
    pub allow_dms: bool,
    /// `DISCORD_MANAGER_LINK_PREVIEWS=1`: the bot's posts let Discord show link previews (off
    /// by default, so Discord fetches no URL an assistant wrote).
    pub link_previews: bool,
    /// `DISCORD_MANAGER_CONFIRM_POSTS=1`: an assistant's every post, reply, edit and schedule
    /// waits for the owner's yes in the MCP client's form, in the listed channels too (off by
    /// default).
    pub confirm_posts: bool,
    /// `DISCORD_MANAGER_COMPRESS_STORE=1`: the store's pages are written compressed, within
    /// 1.2× of what its history weighs, at a cost to ingest and to reading (off by default;
    /// docs/performance.md, "Store size").
    pub compress_store: bool,
    /// `DISCORD_MANAGER_IMPORT_DAYS`: how much history from before the store began `ingest`
    /// imports (None: unset, the default).
    pub import_window: Option<ImportWindow>,
    /// `DISCORD_MANAGER_KEYWORDS`: the words and phrases the briefing looks for (none by
    /// default).
    pub keywords: Keywords,
    /// `DISCORD_MANAGER_ATTACHMENT*`: what `ingest` keeps of attachments' files (images,
    /// text-like files and voice messages up to 8 MiB each within 1 GiB, by default).
    pub attachments: AttachmentPolicy,
    /// `DISCORD_MANAGER_MEANING`: `on` (the default) embeds every message for search by
    /// meaning; `off` embeds none, and a search by meaning is refused.
    pub meaning: bool,
    /// `DISCORD_MANAGER_PUSH`: what the MCP server pushes into the session as it arrives
    /// (every kind that needs the owner, by default).
    pub push: PushKinds,
}

/// The switch of search by meaning.
pub const MEANING_VARIABLE: &str = "DISCORD_MANAGER_MEANING";

/// Discord's own API base, the one base that is not on this machine.
const DISCORD_API: &str = "https://discord.com";

impl Config {
    /// Reads the environment, then the env file it names, then the owner's config file.
    pub fn from_env() -> Result<Config> {
        Config::from_sources(&Sources::read()?)
    }

    /// The configuration `sources` hold, for a caller that also asks them where each value
    /// came from (`doctor`), so the files are read once.
    pub fn from_sources(sources: &Sources) -> Result<Config> {
        Config::from_lookup(|name| sources.value(name).map(|(value, _)| value))
    }

    /// Builds the configuration from any variable source (the environment, or a test's map).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Config> {
        let value = |name: &str| {
            lookup(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        Ok(Config {
            token: value("DISCORD_TOKEN")
                .map(|token| Token::parse(&token))
                .transpose()?,
            owner_id: value("DISCORD_OWNER_ID")
                .map(|id| discord_id("DISCORD_OWNER_ID", &id))
                .transpose()?,
            guild_scope: GuildScope::only(
                value("DISCORD_GUILD_IDS")
                    .map(|ids| id_list("DISCORD_GUILD_IDS", &ids))
                    .transpose()?
                    .unwrap_or_default(),
            ),
            db_path: value("DISCORD_MANAGER_DB").map(PathBuf::from),
            read_only: match value("DISCORD_MANAGER_READ_ONLY").as_deref() {
                None | Some("0") | Some("false") => false,
                Some("1") | Some("true") => true,
                Some(_) => {
                    return Err(Error::config(
                        "DISCORD_MANAGER_READ_ONLY must be 1 (sending denied) or 0",
                    ));
                }
            },
            send_channel_ids: value("DISCORD_MANAGER_SEND_CHANNELS")
                .map(|ids| id_list("DISCORD_MANAGER_SEND_CHANNELS", &ids))
                .transpose()?,
            api_base: value("DISCORD_API_BASE")
                .map(|base| api_base(&base))
                .transpose()?,
            allow_dms: switch(
                "DISCORD_MANAGER_ALLOW_DMS",
                value("DISCORD_MANAGER_ALLOW_DMS"),
                "direct messages in scope",
            )?,
            link_previews: switch(
                "DISCORD_MANAGER_LINK_PREVIEWS",
                value("DISCORD_MANAGER_LINK_PREVIEWS"),
                "link previews on the bot's posts",
            )?,
            confirm_posts: switch(
                "DISCORD_MANAGER_CONFIRM_POSTS",
                value("DISCORD_MANAGER_CONFIRM_POSTS"),
                "the owner confirms each of an assistant's posts",
            )?,
            compress_store: switch(
                "DISCORD_MANAGER_COMPRESS_STORE",
                value("DISCORD_MANAGER_COMPRESS_STORE"),
                "the store's pages compressed",
            )?,
            import_window: value("DISCORD_MANAGER_IMPORT_DAYS")
                .map(|days| {
                    ImportWindow::parse(&days).ok_or_else(|| {
                        Error::config(format!(
                            "DISCORD_MANAGER_IMPORT_DAYS must be {}",
                            ImportWindow::wanted()
                        ))
                    })
                })
                .transpose()?,
            keywords: value("DISCORD_MANAGER_KEYWORDS")
                .map(|text| Keywords::parse(&text))
                .transpose()?
                .unwrap_or_default(),
            attachments: AttachmentPolicy::from_values(value)?,
            push: value(PUSH_VARIABLE)
                .map(|text| PushKinds::parse(&text))
                .transpose()?
                .unwrap_or_default(),
            meaning: match value(MEANING_VARIABLE).as_deref() {
                None | Some("on" | "1") => true,
                Some("off" | "0") => false,
                Some(_) => {
                    return Err(Error::config(format!(
                        "{MEANING_VARIABLE} must be on (messages are embedded for search by \
                         meaning, the default) or off"
                    )));
                }
            },
        })
    }
}

/// The variable naming the one env file read besides the config file. It is read from the
/// process environment only: no file can name another.
pub const ENV_FILE_VARIABLE: &str = "DISCORD_MANAGER_ENV_FILE";

/// Where a variable's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The process environment.
    Environment,
    /// The env file `DISCORD_MANAGER_ENV_FILE` names.
    EnvFile(PathBuf),
    /// The owner's config file.
    ConfigFile(PathBuf),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Environment => f.write_str("the environment"),
            Origin::EnvFile(path) => write!(f, "the env file {}", path.display()),
            Origin::ConfigFile(path) => write!(f, "the config file {}", path.display()),
        }
    }
}

/// Every place the configuration is read from, in the order they win.
#[derive(Debug, Default)]
pub struct Sources {
    env_file: Option<(PathBuf, HashMap<String, String>)>,
    config_file: Option<(PathBuf, HashMap<String, String>)>,
}

impl Sources {
    /// Reads the env file the environment names (refused when missing or readable by others)
    /// and the owner's config file (none when it does not exist).
    pub fn read() -> Result<Sources> {
        let env_file = match std::env::var_os(ENV_FILE_VARIABLE).filter(|path| !path.is_empty()) {
            Some(path) => {
                let path = PathBuf::from(path);
                if !path.is_file() {
                    return Err(Error::config(format!(
                        "{ENV_FILE_VARIABLE} names {}, which is not a file: name an existing \
                         env file, or unset {ENV_FILE_VARIABLE}",
                        path.display()
                    )));
                }
                let variables = read_private_file(&path, "env file")?;
                Some((path, variables))
            }
            None => None,
        };
        let config_file = match config_file_path() {
            Some(path) => {
                let variables = read_private_file(&path, "config file")?;
                Some((path, variables))
            }
            None => None,
        };
        Ok(Sources {
            env_file,
            config_file,
        })
    }

    /// The value of `name` (empty counts as unset) and where it came from.
    pub fn value(&self, name: &str) -> Option<(String, Origin)> {
        let set = |value: &str| !value.trim().is_empty();
        if let Ok(value) = std::env::var(name)
            && set(&value)
        {
            return Some((value, Origin::Environment));
        }
        let from = |file: &Option<(PathBuf, HashMap<String, String>)>| {
            let (path, variables) = file.as_ref()?;
            let value = variables.get(name).filter(|value| set(value))?;
            Some((value.clone(), path.clone()))
        };
        if let Some((value, path)) = from(&self.env_file) {
            return Some((value, Origin::EnvFile(path)));
        }
        from(&self.config_file).map(|(value, path)| (value, Origin::ConfigFile(path)))
    }

    /// Where `name` is set, if anywhere.
    pub fn origin(&self, name: &str) -> Option<Origin> {
        self.value(name).map(|(_, origin)| origin)
    }

    /// The env file read, if one is named.
    pub fn env_file(&self) -> Option<&Path> {
        self.env_file.as_ref().map(|(path, _)| path.as_path())
    }
}

/// Which of `names` are also set where they win over the config file: the process
/// environment, or the env file it names.
pub fn set_elsewhere<'a>(names: &[&'a str]) -> Vec<(&'a str, Origin)> {
    let sources = Sources {
        config_file: None,
        ..Sources::read().unwrap_or_default()
    };
    names
        .iter()
        .filter_map(|name| Some((*name, sources.origin(name)?)))
        .collect()
}

/// The `DISCORD_` variables a `.env` in the working directory sets, which are never read: for
/// `doctor` to say so to an owner who expected them to be.
pub fn ignored_dot_env_variables() -> Vec<String> {
    let mut names: Vec<String> = read_variables(Path::new(".env"), ".env", Reach::NotThroughALink)
        .unwrap_or_default()
        .into_keys()
        .filter(|name| name.starts_with("DISCORD_"))
        .collect();
    names.sort();
    names
}

/// `$XDG_CONFIG_HOME/discord-manager/config.env`, or under `~/.config` without it; None
/// without either.
pub fn config_file_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|path| path.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(base.join("discord-manager").join("config.env"))
}

/// Sets `settings` in the config file at `path`, creating it (and its folder, private to the
/// owner) if needed. Every other line is kept as it was; a variable set twice keeps its first
/// line, with the new value. The file is written whole beside the old one with mode 0600 and
/// renamed over it, so no reader ever sees half of it and no one else may ever read it.
pub fn write_config_file(path: &Path, settings: &[(&str, String)]) -> Result<()> {
    let cannot_write = |what: &str| {
        Error::config(format!(
            "Cannot write the config file {}: {what}",
            path.display()
        ))
    };
    let existing = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(_) => return Err(cannot_write("it exists but cannot be read")),
    };
    let text = with_settings(&existing, settings);
    let folder = match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => Path::new("."),
    };
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(folder)
        .map_err(|_| cannot_write("its folder cannot be created"))?;
    // Staged in a file created exclusively under a fresh name (the owner's only, 0600 on
    // Unix), never a path someone could plant in advance; then renamed over the old one.
    let written = tempfile::Builder::new()
        .prefix(".config.env-")
        .tempfile_in(folder)
        .and_then(|mut staging| {
            use std::io::Write;
            staging.write_all(text.as_bytes())?;
            staging.as_file().sync_all()?;
            staging.persist(path).map_err(|error| error.error)?;
            Ok(())
        });
    written.map_err(|_| cannot_write("check the folder's permissions and free space"))
}

/// `existing` (`NAME=value` lines) with each of `settings` replacing its first line, later
/// lines for it dropped, and the ones not there yet appended.
fn with_settings(existing: &str, settings: &[(&str, String)]) -> String {
    let name_of = |line: &str| {
        let line = line.trim_start();
        let line = line.strip_prefix("export ").unwrap_or(line);
        line.split_once('=')
            .map(|(name, _)| name.trim().to_string())
    };
    let mut written: Vec<&str> = Vec::new();
    let mut text = String::new();
    for line in existing.lines() {
        match name_of(line).and_then(|name| settings.iter().find(|(set, _)| *set == name)) {
            Some((name, _)) if written.contains(name) => {}
            Some((name, value)) => {
                let _ = writeln!(text, "{name}={value}");
                written.push(*name);
            }
            None => {
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    for (name, value) in settings {
        if !written.contains(name) {
            let _ = writeln!(text, "{name}={value}");
        }
    }
    text
}

/// The variables of the config file or the env file at `path` (`what` names which), without
/// touching the process environment; none when there is no such file. Either may hold the
/// token for every directory, so it is refused while anyone but its owner may read it.
#[cfg_attr(not(unix), allow(unused_variables))]
fn read_private_file(path: &Path, what: &str) -> Result<HashMap<String, String>> {
    #[cfg(unix)]
    if let Ok(metadata) = std::fs::metadata(path) {
        use std::os::unix::fs::PermissionsExt;
        let mode = metadata.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(Error::config(format!(
                "The {what} {} may be read by others (mode {mode:04o}): make it the \
                 owner's only with `chmod 600 {}`",
                path.display(),
                path.display()
            )));
        }
    }
    read_variables(path, &path.display().to_string(), Reach::FollowingLinks)
}

/// The most bytes a settings file (the config file, the env file, a `.env`) is read to: a
/// hundred times what one holds, and little enough that a name pointing at a device or a huge
/// file costs nothing.
const MOST_SETTINGS_BYTES: u64 = 64 * 1024;

/// How a settings file may be reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Through symbolic links: the owner's own files (a dotfile manager links them).
    FollowingLinks,
    /// Only as a file itself: a file a directory the owner happens to be in holds.
    NotThroughALink,
}

/// The variables of the settings file at `path` (`name` says which, in errors); none when
/// there is no such file. Only a regular file of at most [`MOST_SETTINGS_BYTES`] is read: a
/// device (`/dev/zero`), a pipe (which would wait for a writer for ever), a folder or a huge
/// file is refused unread, and with [`Reach::NotThroughALink`] so is a symbolic link.
fn read_variables(path: &Path, name: &str, reach: Reach) -> Result<HashMap<String, String>> {
    let cannot = |why: &str| Error::config(format!("The file {name} is not read: {why}"));
    let metadata = match reach {
        Reach::FollowingLinks => std::fs::metadata(path),
        Reach::NotThroughALink => std::fs::symlink_metadata(path),
    };
    let metadata = match metadata {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(HashMap::new()),
        Err(_) => return Err(cannot("check that it exists and is readable")),
    };
    if metadata.file_type().is_symlink() {
        return Err(cannot("it is a symbolic link"));
    }
    if !metadata.is_file() {
        return Err(cannot(
            "it is not a regular file (a device, a pipe or a folder): write one NAME=value per \
             line in a plain file",
        ));
    }
    let too_large = || {
        cannot(&format!(
            "it is larger than a settings file may be ({MOST_SETTINGS_BYTES} bytes)"
        ))
    };
    if metadata.len() > MOST_SETTINGS_BYTES {
        return Err(too_large());
    }
    let mut text = Vec::new();
    let read = std::fs::File::open(path).and_then(|file| {
        // The file opened is checked again: it may have been replaced since.
        if !file.metadata()?.is_file() {
            return Err(std::io::Error::other("not a regular file"));
        }
        std::io::Read::read_to_end(
            &mut std::io::Read::take(file, MOST_SETTINGS_BYTES + 1),
            &mut text,
        )
    });
    if read.is_err() {
        return Err(cannot("check that it exists and is readable"));
    }
    if text.len() as u64 > MOST_SETTINGS_BYTES {
        return Err(too_large());
    }
    let entries = dotenvy::from_read_iter(text.as_slice());
    let mut variables = HashMap::new();
    for entry in entries {
        match entry {
            Ok((key, value)) => {
                variables.insert(key, value);
            }
            // dotenvy's own words quote the line, which may hold the token: say where only.
            Err(dotenvy::Error::LineParse(_, at)) => {
                return Err(Error::config(format!(
                    "The file {name} cannot be read near character {at}: write one NAME=value \
                     per line"
                )));
            }
            Err(_) => {
                return Err(Error::config(format!(
                    "The file {name} cannot be read: write one NAME=value per line"
                )));
            }
        }
    }
    Ok(variables)
}

/// The API base: Discord's own, or a fake Discord on this machine (over plain http, which is
/// acceptable only on loopback: anywhere else the token would cross a network in the clear,
/// or go to a host that is not Discord at all).
fn api_base(text: &str) -> Result<String> {
    let base = text.trim_end_matches('/');
    let local = ["http://127.0.0.1", "http://localhost"]
        .iter()
        .find_map(|host| base.strip_prefix(host))
        .is_some_and(|rest| {
            rest.is_empty()
                || rest.strip_prefix(':').is_some_and(|port| {
                    !port.is_empty()
                        && port.len() <= 5
                        && port.bytes().all(|byte| byte.is_ascii_digit())
                        && port
                            .parse::<u32>()
                            .is_ok_and(|port| (1..=65_535).contains(&port))
                })
        });
    if base == DISCORD_API || local {
        Ok(base.to_string())
    } else {
        Err(Error::config(
            "DISCORD_API_BASE must be https://discord.com, or a fake Discord on this machine: \
             http://127.0.0.1 or http://localhost, with an optional :port and nothing else \
             (the value is not shown here: leave DISCORD_API_BASE unset for Discord itself)",
        ))
    }
}

/// An off-by-default switch: unset, `0` or `false` is off; `1` or `true` turns `meaning` on.
fn switch(variable: &str, value: Option<String>, meaning: &str) -> Result<bool> {
    match value.as_deref() {
        None | Some("0") | Some("false") => Ok(false),
        Some("1") | Some("true") => Ok(true),
        Some(_) => Err(Error::config(format!(
            "{variable} must be 1 ({meaning}) or 0"
        ))),
    }
}

fn discord_id<Id: FromStr>(variable: &str, text: &str) -> Result<Id> {
    text.parse().map_err(|_| {
        Error::config(format!(
            "{variable} must be a Discord id (a string of digits such as \
                 \"1189078123456789012\"); the value is not one and is not shown here"
        ))
    })
}

fn id_list<Id: FromStr>(variable: &str, text: &str) -> Result<Vec<Id>> {
    text.split(',')
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .enumerate()
        .map(|(index, id)| {
            id.parse().map_err(|_| {
                Error::config(format!(
                    "{variable} must be Discord ids separated by commas; entry {} is not one \
                         (it is not shown here)",
                    index + 1
                ))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
