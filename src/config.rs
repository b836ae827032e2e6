//! The owner's configuration: environment variables, also read from `.env` in the working
//! directory (a variable already set in the environment wins). `.env.example` documents each.
//!
//! The bot token is held in [`Token`], which never prints itself.

use std::fmt;
use std::path::PathBuf;

use crate::business::model::DiscordId;
use crate::error::{Error, Result};

/// The bot token. Its `Debug` and `Display` never show it.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// The token itself, for the one place that sends it to Discord.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

#[derive(Debug, Clone, Default)]
pub struct Config {
    pub token: Option<Token>,
    pub owner_id: Option<String>,
    /// Empty: every guild the bot is in.
    pub guild_ids: Vec<String>,
    pub db_path: Option<PathBuf>,
    pub read_only: bool,
    pub send_channel_ids: Option<Vec<String>>,
    pub api_base: Option<String>,
    /// `DISCORD_MANAGER_ALLOW_DMS=1`: direct-message channels are in scope (off by default).
    pub allow_dms: bool,
    /// `DISCORD_MANAGER_LINK_PREVIEWS=1`: the bot's posts let Discord show link previews (off
    /// by default, so Discord fetches no URL an assistant wrote).
    pub link_previews: bool,
}

impl Config {
    /// Reads `.env` (if present) and then the process environment.
    pub fn from_env() -> Result<Config> {
        // A missing .env is normal; a malformed one is the owner's to fix.
        match dotenvy::dotenv() {
            Ok(_) => {}
            Err(error) if error.not_found() => {}
            Err(dotenvy::Error::LineParse(_, line)) => {
                return Err(Error::config(format!(
                    "The .env file cannot be read near character {line}: write one NAME=value per line"
                )));
            }
            Err(error) => {
                return Err(Error::config(format!(
                    "The .env file cannot be read: {error}"
                )));
            }
        }
        Config::from_lookup(|name| std::env::var(name).ok())
    }

    /// Builds the configuration from any variable source (the environment, or a test's map).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Config> {
        let value = |name: &str| {
            lookup(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        Ok(Config {
            token: value("DISCORD_TOKEN").map(Token),
            owner_id: value("DISCORD_OWNER_ID")
                .map(|id| discord_id("DISCORD_OWNER_ID", &id))
                .transpose()?,
            guild_ids: value("DISCORD_GUILD_IDS")
                .map(|ids| id_list("DISCORD_GUILD_IDS", &ids))
                .transpose()?
                .unwrap_or_default(),
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
            api_base: value("DISCORD_API_BASE").map(|base| base.trim_end_matches('/').to_string()),
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
        })
    }
}

/// An off-by-default switch: unset, `0` or `false` is off; `1` or `true` turns `meaning` on.
fn switch(variable: &str, value: Option<String>, meaning: &str) -> Result<bool> {
    match value.as_deref() {
        None | Some("0") | Some("false") => Ok(false),
        Some("1") | Some("true") => Ok(true),
        Some(other) => Err(Error::config(format!(
            "{variable} must be 1 ({meaning}) or 0; got {other:?}"
        ))),
    }
}

fn discord_id(variable: &str, text: &str) -> Result<String> {
    DiscordId::parse(text)
        .map(|id| id.as_str().to_string())
        .ok_or_else(|| {
            Error::config(format!(
                "{variable} must be a Discord id (a string of digits); got {text:?}"
            ))
        })
}

fn id_list(variable: &str, text: &str) -> Result<Vec<String>> {
    text.split(',')
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(|id| {
            DiscordId::parse(id)
                .map(|id| id.as_str().to_string())
                .ok_or_else(|| {
                    Error::config(format!(
                        "{variable} must be Discord ids separated by commas; {id:?} is not one"
                    ))
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Result<Config> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|name| map.get(name).cloned())
    }

    #[test]
    fn reads_every_variable_of_the_contract() {
        let config = config(&[
            ("DISCORD_TOKEN", "secret-token"),
            ("DISCORD_OWNER_ID", "123456789012345678"),
            ("DISCORD_GUILD_IDS", "111, 222"),
            ("DISCORD_MANAGER_DB", "/tmp/x.sqlite3"),
            ("DISCORD_MANAGER_READ_ONLY", "1"),
            ("DISCORD_MANAGER_SEND_CHANNELS", "333"),
            ("DISCORD_API_BASE", "http://127.0.0.1:8080/"),
        ])
        .unwrap();
        assert_eq!(
            config.token.as_ref().map(Token::expose),
            Some("secret-token")
        );
        assert_eq!(config.owner_id.as_deref(), Some("123456789012345678"));
        assert_eq!(config.guild_ids, vec!["111", "222"]);
        assert_eq!(config.db_path, Some(PathBuf::from("/tmp/x.sqlite3")));
        assert!(config.read_only);
        assert_eq!(config.send_channel_ids, Some(vec!["333".to_string()]));
        assert_eq!(config.api_base.as_deref(), Some("http://127.0.0.1:8080"));
    }

    #[test]
    fn direct_messages_and_link_previews_are_off_unless_turned_on() {
        let default = config(&[]).unwrap();
        assert!(!default.allow_dms);
        assert!(!default.link_previews);
        let on = config(&[
            ("DISCORD_MANAGER_ALLOW_DMS", "1"),
            ("DISCORD_MANAGER_LINK_PREVIEWS", "true"),
        ])
        .unwrap();
        assert!(on.allow_dms);
        assert!(on.link_previews);
        let off = config(&[("DISCORD_MANAGER_ALLOW_DMS", "0")]).unwrap();
        assert!(!off.allow_dms);
        let error = config(&[("DISCORD_MANAGER_LINK_PREVIEWS", "yes")]).unwrap_err();
        assert_eq!(
            error.message(),
            "DISCORD_MANAGER_LINK_PREVIEWS must be 1 (link previews on the bot's posts) or 0; \
             got \"yes\""
        );
    }

    #[test]
    fn never_shows_the_token_when_printed() {
        let config = config(&[("DISCORD_TOKEN", "secret-token")]).unwrap();
        assert!(!format!("{config:?}").contains("secret-token"));
    }

    #[test]
    fn names_the_variable_that_is_wrong() {
        let error = config(&[("DISCORD_GUILD_IDS", "111,abc")]).unwrap_err();
        assert_eq!(
            error.message(),
            "DISCORD_GUILD_IDS must be Discord ids separated by commas; \"abc\" is not one"
        );
        let error = config(&[("DISCORD_MANAGER_READ_ONLY", "yes")]).unwrap_err();
        assert_eq!(
            error.message(),
            "DISCORD_MANAGER_READ_ONLY must be 1 (sending denied) or 0"
        );
    }
}
