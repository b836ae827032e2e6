//! Discord's links to a channel or a message, the form the owner copies from Discord ("Copy
//! Message Link"): read as an input, and written for every message of an answer.
//!
//! Accepted, exactly: `https://discord.com/channels/<server>/<channel>` and
//! `https://discord.com/channels/<server>/<channel>/<message>`, on `discord.com`,
//! `ptb.discord.com` or `canary.discord.com`, with `@me` in place of the server for a direct
//! message. Refused, each with its reason in the owner's words: `http://`, any other host
//! (`discordapp.com`, Discord's old address, among them: Discord itself copies links on
//! `discord.com`, and one accepted address is one less thing to doubt), a query string or a
//! fragment, a path with parts missing or extra, and a part that is not an id.
//!
//! Parsing knows nothing of any store: whether the server is one the store holds, and whether
//! a channel's link was given where a message is wanted, are for the caller to judge.

use std::fmt;

use super::{ChannelId, GuildId, MessageId};

/// The hosts Discord copies links on: the stable client, its public test build and canary.
pub const HOSTS: [&str; 3] = ["discord.com", "ptb.discord.com", "canary.discord.com"];

/// The JSON Schema `pattern` of a field that takes an id or a link to a channel or to a
/// message (a channel's field: a message's link names its channel).
pub const ID_OR_LINK_PATTERN: &str = "^([0-9]{1,20}|https://((ptb|canary)\\.)?discord\\.com/channels/([0-9]{1,20}|@me)/[0-9]{1,20}(/[0-9]{1,20})?)$";

/// The JSON Schema `pattern` of a field that takes a message's id or a link to the message.
pub const MESSAGE_ID_OR_LINK_PATTERN: &str = "^([0-9]{1,20}|https://((ptb|canary)\\.)?discord\\.com/channels/([0-9]{1,20}|@me)/[0-9]{1,20}/[0-9]{1,20})$";

/// The JSON Schema `format` of a channel's field that also takes a link.
pub const CHANNEL_ID_OR_LINK: &str = "channel-id-or-link";

/// The JSON Schema `format` of a message's field that also takes a link.
pub const MESSAGE_ID_OR_LINK: &str = "message-id-or-link";

/// A link to a channel, or to a message in it, as Discord writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscordLink {
    /// The server; none for a direct message (`@me`).
    pub guild: Option<GuildId>,
    pub channel: ChannelId,
    /// The message; none for a link to the channel.
    pub message: Option<MessageId>,
}

impl DiscordLink {
    /// The link as Discord's stable client writes it (on `discord.com`, whatever host it was
    /// read from).
    pub fn url(&self) -> String {
        let guild = GuildPart(self.guild.as_ref());
        match &self.message {
            Some(message) => format!(
                "https://discord.com/channels/{guild}/{}/{message}",
                self.channel
            ),
            None => format!("https://discord.com/channels/{guild}/{}", self.channel),
        }
    }
}

/// Where Discord opens `message` of `channel` (in `guild`, or a direct message when none).
pub fn message_link(guild: Option<&GuildId>, channel: &ChannelId, message: &MessageId) -> String {
    let guild = GuildPart(guild);
    format!("https://discord.com/channels/{guild}/{channel}/{message}")
}

/// A link's guild part: the guild's id, or `@me` for a direct message.
struct GuildPart<'a>(Option<&'a GuildId>);

impl std::fmt::Display for GuildPart<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(guild) => write!(f, "{guild}"),
            None => f.write_str("@me"),
        }
    }
}

/// Why a text is not a Discord link, in the owner's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotALink {
    /// It starts `http://`: Discord's links are `https://`.
    NotHttps,
    /// It is not a web address at all.
    NotAnAddress,
    /// `discordapp.com`, Discord's old address.
    OldHost,
    /// Another host.
    OtherHost(String),
    /// A `?` or `#` part.
    QueryOrFragment,
    /// The path is not `/channels/<server>/<channel>[/<message>]`.
    Path,
    /// A part of the path that should be an id (the server may also be `@me`) and is not.
    NotAnId { part: &'static str, text: String },
}

impl fmt::Display for NotALink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotALink::NotHttps => f.write_str("Discord's links start with https://, not http://"),
            NotALink::NotAnAddress => {
                f.write_str("it is neither an id nor a link starting with https://")
            }
            NotALink::OldHost => f.write_str(
                "discordapp.com is Discord's old address; copy the link again from Discord, or \
                 write discord.com in its place",
            ),
            NotALink::OtherHost(host) => write!(
                f,
                "the link is to {host}, not to Discord (discord.com, ptb.discord.com or \
                 canary.discord.com)"
            ),
            NotALink::QueryOrFragment => f.write_str(
                "a Discord link has no ?… or #… part; leave out everything from the ? or #",
            ),
            NotALink::Path => f.write_str(
                "a Discord link's path is /channels/<server>/<channel> or \
                 /channels/<server>/<channel>/<message>",
            ),
            NotALink::NotAnId { part, text } => {
                let shown: String = text.chars().take(24).collect();
                let also = if *part == "server" { " or @me" } else { "" };
                write!(
                    f,
                    "the link's {part} is \"{shown}\", not an id (a string of 1 to 20 digits{also})"
                )
            }
        }
    }
}

impl std::error::Error for NotALink {}

/// Whether `text` is meant as a link rather than an id: it has a scheme, a slash or a dot.
/// Such a text is refused with [`parse_discord_link`]'s reason when it is not a good one.
pub fn looks_like_a_link(text: &str) -> bool {
    text.contains("://") || text.contains('/') || text.contains('.')
}

/// The link written in `text`, or why it is not one.
pub fn parse_discord_link(text: &str) -> Result<DiscordLink, NotALink> {
    let rest = match text.split_once("://") {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("https") => rest,
        Some((scheme, _)) if scheme.eq_ignore_ascii_case("http") => {
            return Err(NotALink::NotHttps);
        }
        _ => return Err(NotALink::NotAnAddress),
    };
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host = host.to_ascii_lowercase();
    if !HOSTS.contains(&host.as_str()) {
        return Err(
            if host == "discordapp.com" || host.ends_with(".discordapp.com") {
                NotALink::OldHost
            } else {
                NotALink::OtherHost(host.chars().take(40).collect())
            },
        );
    }
    if path.contains(['?', '#']) {
        return Err(NotALink::QueryOrFragment);
    }
    let parts: Vec<&str> = path.split('/').collect();
    let (guild, channel, message) = match parts.as_slice() {
        ["channels", guild, channel] => (*guild, *channel, None),
        ["channels", guild, channel, message] => (*guild, *channel, Some(*message)),
        _ => return Err(NotALink::Path),
    };
    let guild = match guild {
        "@me" => None,
        digits => Some(part("server", digits, GuildId::parse)?),
    };
    let channel = part("channel", channel, ChannelId::parse)?;
    let message = match message {
        Some(digits) => Some(part("message", digits, MessageId::parse)?),
        None => None,
    };
    Ok(DiscordLink {
        guild,
        channel,
        message,
    })
}

/// The id a part of a link's path holds, or why it holds none.
fn part<T>(part: &'static str, text: &str, parse: fn(&str) -> Option<T>) -> Result<T, NotALink> {
    parse(text).ok_or_else(|| NotALink::NotAnId {
        part,
        text: text.to_string(),
    })
}

#[cfg(test)]
mod tests;
