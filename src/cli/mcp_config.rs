//! `discord-manager mcp config <client>`: the entry an MCP client needs to start this server,
//! printed, or merged into the client's own configuration file with `--write`.
//!
//! The entry names this very binary and this store by absolute path, since a client starts the
//! server from whatever directory it likes. It carries no token: the server reads the owner's
//! configuration itself (environment, the env file it names, the config file), so a client's file never holds
//! a secret. Merging keeps every other server the file lists and writes this server's entry
//! whole: an existing discord-manager entry is replaced, never merged, since a cloned
//! project's `.mcp.json` may have been planted with an `env` that loosens the owner's
//! protections (a send list, link previews, direct messages). What it replaces is shown, and
//! an entry whose `env` sets anything beside the store's path is replaced only with `--force`
//! (it may be the owner's own protections, or a stranger's loosening: the owner decides). A
//! file that is not a JSON object is refused and left as it was.
//!
//! The file is the owner's: it may hold other servers' secrets. It is replaced in one rename
//! from a temporary file created exclusively beside it (never a path someone could plant in
//! advance), with the mode the file had; a symbolic link in its place is refused rather than
//! followed or replaced.

use std::path::{Path, PathBuf};

use discord_manager_vocabulary::error::{Error, Result};
use serde_json::{Map, Value, json};

/// The name the server is listed under in every client.
const SERVER_NAME: &str = "discord-manager";

/// The MCP clients whose configuration this writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    /// A project's `.mcp.json` (Claude Code and others), in the working directory.
    Project,
    /// Claude Desktop's `claude_desktop_config.json`.
    ClaudeDesktop,
    /// Cursor's `~/.cursor/mcp.json`.
    Cursor,
    /// VS Code's `.vscode/mcp.json`, in the working directory.
    VsCode,
}

impl Client {
    /// The names `mcp config` takes.
    pub const NAMES: [&'static str; 4] = ["project", "claude-desktop", "cursor", "vscode"];

    pub fn from_name(name: &str) -> Option<Client> {
        match name {
            "project" => Some(Client::Project),
            "claude-desktop" => Some(Client::ClaudeDesktop),
            "cursor" => Some(Client::Cursor),
            "vscode" => Some(Client::VsCode),
            _ => None,
        }
    }

    /// Where the client reads its servers from: relative to the working directory for a
    /// project's files, in the user's folders for an application's.
    pub fn default_path(self) -> Result<PathBuf> {
        let home = || {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .ok_or_else(|| Error::config("HOME is not set: give the file with --file"))
        };
        Ok(match self {
            Client::Project => PathBuf::from(".mcp.json"),
            Client::VsCode => Path::new(".vscode").join("mcp.json"),
            Client::Cursor => home()?.join(".cursor").join("mcp.json"),
            Client::ClaudeDesktop => {
                let folder = if cfg!(target_os = "macos") {
                    home()?.join("Library").join("Application Support")
                } else if cfg!(windows) {
                    std::env::var_os("APPDATA")
                        .map(PathBuf::from)
                        .ok_or_else(|| {
                            Error::config("APPDATA is not set: give the file with --file")
                        })?
                } else {
                    std::env::var_os("XDG_CONFIG_HOME")
                        .map(PathBuf::from)
                        .filter(|path| path.is_absolute())
                        .map_or_else(|| home().map(|home| home.join(".config")), Ok)?
                };
                folder.join("Claude").join("claude_desktop_config.json")
            }
        })
    }

    /// The key under which the client lists its servers.
    fn servers_key(self) -> &'static str {
        match self {
            Client::VsCode => "servers",
            _ => "mcpServers",
        }
    }
}

/// This server's entry: the binary, `mcp`, and the store it serves.
pub fn server_entry(client: Client, binary: &Path, store: &Path) -> Value {
    let mut entry = json!({
        "command": binary.display().to_string(),
        "args": ["mcp"],
        "env": {"DISCORD_MANAGER_DB": store.display().to_string()},
    });
    if client == Client::VsCode {
        entry["type"] = json!("stdio");
    }
    entry
}

/// A whole configuration holding only this server.
pub fn config(client: Client, entry: Value) -> Value {
    json!({ client.servers_key(): { SERVER_NAME: entry } })
}

/// What merging did to an existing discord-manager entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replaced {
    /// There was none: the entry was added.
    Nothing,
    /// It was the same as this one.
    Same,
    /// It differed, and was replaced whole: the old entry, as it was.
    Entry(Value),
}

/// The variables an entry's `env` sets beside the store's path, which replacing it would drop.
fn variables_beside_the_store(entry: &Value) -> Vec<String> {
    let mut names: Vec<String> = entry
        .get("env")
        .and_then(Value::as_object)
        .map(|env| {
            env.keys()
                .filter(|name| name.as_str() != "DISCORD_MANAGER_DB")
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// `existing` with this server's entry set whole, every other key and server kept, and what
/// it replaced. An existing entry whose `env` sets anything beside the store's path is
/// refused, naming the variables, unless `force`.
pub fn merged(
    client: Client,
    existing: Value,
    entry: Value,
    force: bool,
) -> Result<(Value, Replaced)> {
    let Value::Object(mut root) = existing else {
        return Err(Error::config(
            "The client's configuration file is not a JSON object: fix or move it, then run \
             this again (it was left as it was)",
        ));
    };
    let servers = root
        .entry(client.servers_key())
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(servers) = servers else {
        return Err(Error::config(format!(
            "`{}` in the client's configuration file is not a JSON object: fix it, then run \
             this again (the file was left as it was)",
            client.servers_key()
        )));
    };
    let replaced = match servers.get(SERVER_NAME) {
        None => Replaced::Nothing,
        Some(old) if *old == entry => Replaced::Same,
        Some(old) => {
            let variables = variables_beside_the_store(old);
            if !variables.is_empty() && !force {
                return Err(Error::conflict(format!(
                    "The file already lists a discord-manager server whose env sets {}: \
                     replacing the entry drops them, and a cloned project's file may have been \
                     planted to loosen your protections. Check them (your own settings belong \
                     in your config file, which `setup` writes), then run this again with \
                     --force to replace the entry whole (nothing was written)",
                    variables.join(", ")
                )));
            }
            Replaced::Entry(old.clone())
        }
    };
    servers.insert(SERVER_NAME.to_string(), entry);
    Ok((Value::Object(root), replaced))
}

/// Writes this server's entry whole into the file at `path` (created with its folder if
/// missing; see [`merged`] for an existing entry) and answers what was written and what it
/// replaced. The file is replaced in one rename, so a client never reads half of it.
pub fn write(client: Client, path: &Path, entry: Value, force: bool) -> Result<(Value, Replaced)> {
    let existing = match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Value::Object(Map::new()),
        Ok(text) => serde_json::from_str(&text).map_err(|_| {
            Error::config(format!(
                "{} is not valid JSON: fix or move it, then run this again (it was left as it \
                 was)",
                path.display()
            ))
        })?,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Value::Object(Map::new()),
        Err(_) => {
            return Err(Error::config(format!(
                "{} cannot be read: check its permissions",
                path.display()
            )));
        }
    };
    let (updated, replaced) = merged(client, existing, entry, force)?;
    if replaced == Replaced::Same {
        return Ok((updated, replaced));
    }
    let mut text = serde_json::to_string_pretty(&updated)
        .map_err(|_| Error::internal("Cannot write the client's configuration as JSON"))?;
    text.push('\n');
    replace_file(path, text.as_bytes())?;
    Ok((updated, replaced))
}

/// An entry as the owner is shown it: its JSON, every `env` value of a variable whose name
/// says it is a secret (a token, a key, a password) hidden.
pub fn shown_entry(entry: &Value) -> String {
    let mut shown = entry.clone();
    if let Some(env) = shown.get_mut("env").and_then(Value::as_object_mut) {
        for (name, value) in env.iter_mut() {
            let upper = name.to_ascii_uppercase();
            if ["TOKEN", "SECRET", "KEY", "PASSWORD"]
                .iter()
                .any(|word| upper.contains(word))
            {
                *value = json!("(hidden)");
            }
        }
    }
    serde_json::to_string_pretty(&shown).unwrap_or_default()
}

/// Replaces the file at `path` with `bytes` in one rename, from a temporary file created
/// exclusively in the same folder (so no planted path is followed), with the mode the file
/// had (0600 for a new one). A symbolic link at `path` is refused.
fn replace_file(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let cannot_write = || {
        Error::config(format!(
            "{} cannot be written: check the folder's permissions",
            path.display()
        ))
    };
    let previous = match std::fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => {
            return Err(Error::config(format!(
                "{} is a symbolic link: give the file it points to with --file (it was left \
                 as it was)",
                path.display()
            )));
        }
        Ok(metadata) => Some(metadata.permissions()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(_) => return Err(cannot_write()),
    };
    let folder = match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(folder).map_err(|_| cannot_write())?;
    let mut staging = tempfile::Builder::new()
        .prefix(".discord-manager-")
        .suffix(".tmp")
        .tempfile_in(folder)
        .map_err(|_| cannot_write())?;
    if let Some(permissions) = previous {
        staging
            .as_file()
            .set_permissions(permissions)
            .map_err(|_| cannot_write())?;
    }
    staging
        .write_all(bytes)
        .and_then(|()| staging.as_file().sync_all())
        .map_err(|_| cannot_write())?;
    staging.persist(path).map_err(|_| cannot_write())?;
    Ok(())
}

#[cfg(test)]
mod tests;
