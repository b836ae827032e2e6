//! What the MCP server pushes into the assistant's session as it arrives
//! (`DISCORD_MANAGER_PUSH`): the kinds of item that need the owner, or none.
//!
//! The value lists kinds, separated by commas: `mentions` (the owner or a role they hold,
//! named), `replies` (to one of the owner's messages), `dms` (a direct message to the bot,
//! when direct messages are in scope), `keywords` (a hit on `DISCORD_MANAGER_KEYWORDS`); `all`
//! for every one (the default), `off` for none.

use discord_manager_vocabulary::error::{Error, Result};

/// The variable.
pub const PUSH_VARIABLE: &str = "DISCORD_MANAGER_PUSH";

/// The kinds of item pushed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PushKinds {
    pub mentions: bool,
    pub replies: bool,
    pub direct_messages: bool,
    pub keywords: bool,
}

impl Default for PushKinds {
    /// Every kind.
    fn default() -> PushKinds {
        PushKinds {
            mentions: true,
            replies: true,
            direct_messages: true,
            keywords: true,
        }
    }
}

impl PushKinds {
    /// Nothing is pushed.
    pub const OFF: PushKinds = PushKinds {
        mentions: false,
        replies: false,
        direct_messages: false,
        keywords: false,
    };

    /// The kinds a `DISCORD_MANAGER_PUSH` value names; refused, naming the entry, for a word
    /// that is not a kind, or `off` beside a kind.
    pub fn parse(text: &str) -> Result<PushKinds> {
        let wanted = || {
            Error::config(format!(
                "{PUSH_VARIABLE} must list the kinds to push, separated by commas: mentions, \
                 replies, dms, keywords (or all, the default), or be off"
            ))
        };
        let entries: Vec<String> = text
            .split(',')
            .map(|entry| entry.trim().to_ascii_lowercase())
            .filter(|entry| !entry.is_empty())
            .collect();
        match entries.as_slice() {
            [] => return Err(wanted()),
            [only] if only == "off" || only == "0" => return Ok(PushKinds::OFF),
            [only] if only == "all" || only == "on" || only == "1" => {
                return Ok(PushKinds::default());
            }
            _ => {}
        }
        let mut kinds = PushKinds::OFF;
        for entry in &entries {
            match entry.as_str() {
                "mentions" => kinds.mentions = true,
                "replies" => kinds.replies = true,
                "dms" => kinds.direct_messages = true,
                "keywords" => kinds.keywords = true,
                _ => return Err(wanted()),
            }
        }
        Ok(kinds)
    }

    /// Whether anything is pushed.
    pub fn any(self) -> bool {
        self != PushKinds::OFF
    }

    /// The value that names these kinds (`off` for none), as `doctor` shows it.
    pub fn describe(self) -> String {
        if self == PushKinds::default() {
            return "all".to_string();
        }
        let named: Vec<&str> = [
            (self.mentions, "mentions"),
            (self.replies, "replies"),
            (self.direct_messages, "dms"),
            (self.keywords, "keywords"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
        if named.is_empty() {
            "off".to_string()
        } else {
            named.join(",")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_names_kinds_all_or_off_and_refuses_anything_else() {
        assert_eq!(PushKinds::parse("all").unwrap(), PushKinds::default());
        assert_eq!(PushKinds::parse("off").unwrap(), PushKinds::OFF);
        let some = PushKinds::parse(" Mentions, dms ").unwrap();
        assert_eq!(
            some,
            PushKinds {
                mentions: true,
                direct_messages: true,
                ..PushKinds::OFF
            }
        );
        assert_eq!(some.describe(), "mentions,dms");
        assert_eq!(PushKinds::OFF.describe(), "off");
        assert_eq!(PushKinds::default().describe(), "all");
        let refused = "DISCORD_MANAGER_PUSH must list the kinds to push, separated by commas: \
                       mentions, replies, dms, keywords (or all, the default), or be off";
        for wrong in ["", "mention", "off,mentions", "everyone"] {
            assert_eq!(
                PushKinds::parse(wrong).unwrap_err().message(),
                refused,
                "{wrong:?}"
            );
        }
    }
}
