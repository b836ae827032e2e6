//! A Discord link where an input takes a channel's or a message's id: refused when it is not
//! one, in the owner's words and naming the field, and otherwise resolved to the id against
//! the store, for the CLI and the MCP server alike, before the input is built.
//!
//! A field whose schema `format` is `channel-id-or-link` takes a link to the channel or to a
//! message in it (its channel is taken); one whose format is `message-id-or-link` takes a
//! link to the message, and a channel's link there is refused; so does an anchor that takes a
//! message's id or an instant (`message-id-or-date-time`, history's `before`, `after` and
//! `around`). The link's server must be one
//! the store holds, and a channel the store knows must be in the server the link names (a
//! direct message's under `@me`). Where one call takes a channel and a message's link, the
//! two must agree. Nothing is read from the store unless a link was given, and a refusal
//! changes nothing.

use discord_manager_store::Store;
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::snowflake::link::{
    CHANNEL_ID_OR_LINK, DiscordLink, MESSAGE_ID_OR_LINK, NotALink, looks_like_a_link,
    parse_discord_link,
};
use discord_manager_vocabulary::snowflake::{ChannelId, GuildId, is_discord_id};
use serde_json::{Map, Value};

use crate::business::kernel::model::MESSAGE_OR_INSTANT;

/// What a field of `format` wants, in the owner's words; none for a field that takes no link.
pub(super) fn expected(format: &str) -> Option<&'static str> {
    match format {
        CHANNEL_ID_OR_LINK => Some(
            "a channel id (a string of digits such as \"1189078123456789012\") or a Discord link \
             to the channel or to a message in it (https://discord.com/channels/<server>/\
             <channel>)",
        ),
        MESSAGE_ID_OR_LINK => Some(
            "a message id (a string of digits such as \"1189078123456789012\") or a Discord link \
             to the message (https://discord.com/channels/<server>/<channel>/<message>)",
        ),
        _ => None,
    }
}

/// Whether `text` fits a field of `format` (an id, or a link of the kind it takes); none for a
/// field that takes no link.
pub(super) fn fits(format: &str, text: &str) -> Option<bool> {
    expected(format)?;
    Some(is_discord_id(text) || link_for(format, text).is_ok())
}

/// Why `text`, meant as a link, does not fit the field `name` of `format`: the link's own
/// fault, or a channel's link where a message is wanted. None when it is no link at all (the
/// caller says what the field wants) or when it fits.
pub(super) fn refusal(name: &str, format: &str, text: &str) -> Option<Error> {
    let wanted = expected(format)?;
    if is_discord_id(text) || !looks_like_a_link(text) {
        return None;
    }
    let reason = match link_for(format, text) {
        Ok(_) => return None,
        Err(Refused::NotALink(reason)) => reason.to_string(),
        Err(Refused::ChannelLink) => "that link is to a channel, not to a message: copy the \
                                      message's own link (Copy Message Link)"
            .to_string(),
    };
    Some(Error::input(format!("`{name}` must be {wanted}; {reason}")))
}

/// Whether `text` is a link to a message: what `history`'s anchors (a message's id or an
/// instant) take besides.
pub(super) fn is_message_link(text: &str) -> bool {
    link_for(MESSAGE_ID_OR_LINK, text).is_ok()
}

/// Why `text`, given to an anchor `name` that wants `wanted` (a message's id or an instant)
/// and written as a link (it has `://`), is not a link to a message; none when it is one or is
/// no link.
pub(super) fn anchor_refusal(name: &str, text: &str, wanted: &str) -> Option<Error> {
    if !text.contains("://") {
        return None;
    }
    let reason = match link_for(MESSAGE_ID_OR_LINK, text) {
        Ok(_) => return None,
        Err(Refused::NotALink(reason)) => reason.to_string(),
        Err(Refused::ChannelLink) => "that link is to a channel, not to a message".to_string(),
    };
    Some(Error::input(format!("`{name}` must be {wanted}; {reason}")))
}

enum Refused {
    NotALink(NotALink),
    ChannelLink,
}

fn link_for(format: &str, text: &str) -> std::result::Result<DiscordLink, Refused> {
    let link = parse_discord_link(text).map_err(Refused::NotALink)?;
    if format == MESSAGE_ID_OR_LINK && link.message.is_none() {
        return Err(Refused::ChannelLink);
    }
    Ok(link)
}

/// One link given, by the field it was given in.
struct Given {
    field: String,
    format: &'static str,
    link: DiscordLink,
}

/// The fields with every link replaced by the id it stands for: a channel's field by the
/// channel's id, a message's by the message's. `schema` is the capability's input schema and
/// `fields` what [`super::check_input`] accepted. Refused, naming the field, when the link's
/// server is not in the store or the store has its channel elsewhere; refused naming both
/// fields when a channel given and a message's link disagree.
pub fn resolve_links(
    schema: &Map<String, Value>,
    mut fields: Map<String, Value>,
    store: &Store,
) -> Result<Map<String, Value>> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(fields);
    };
    let mut given: Vec<Given> = Vec::new();
    for (name, value) in &fields {
        let Some(text) = value.as_str().filter(|text| !is_discord_id(text)) else {
            continue;
        };
        let format = match properties
            .get(name)
            .and_then(|property| property.get("format"))
            .and_then(Value::as_str)
        {
            Some(CHANNEL_ID_OR_LINK) => CHANNEL_ID_OR_LINK,
            Some(MESSAGE_ID_OR_LINK) => MESSAGE_ID_OR_LINK,
            // An anchor's link is a message's; an instant is left as it is.
            Some(MESSAGE_OR_INSTANT) if text.contains("://") => MESSAGE_ID_OR_LINK,
            _ => continue,
        };
        match link_for(format, text) {
            Ok(link) => given.push(Given {
                field: name.clone(),
                format,
                link,
            }),
            // check_input refuses these first; a caller that skipped it is refused here.
            Err(_) => {
                return Err(refusal(name, format, text).unwrap_or_else(|| {
                    Error::input(format!(
                        "`{name}` must be {}",
                        expected(format).unwrap_or_default()
                    ))
                }));
            }
        }
    }
    if given.is_empty() {
        return Ok(fields);
    }
    store.read(|reader| {
        for Given { field, link, .. } in &given {
            if let Some(guild) = &link.guild
                && reader.guild(guild)?.is_none()
            {
                return Err(Error::input(format!(
                    "`{field}`: that link is to server {guild}, which this store does not \
                     hold; only links to the servers the bot is in (see `channels list`) are \
                     taken"
                )));
            }
            if let Some(channel) = reader.channel(&link.channel)?
                && channel.guild_id != link.guild
            {
                return Err(Error::input(format!(
                    "`{field}`: that link puts channel {} in {}, but the store has it in {}; \
                     copy the link again from Discord",
                    link.channel,
                    server(link.guild.as_ref()),
                    server(channel.guild_id.as_ref()),
                )));
            }
        }
        Ok(())
    })?;
    for Given {
        field,
        format,
        link,
    } in &given
    {
        let id = match (*format, &link.message) {
            (MESSAGE_ID_OR_LINK, Some(message)) => message.to_string(),
            _ => link.channel.to_string(),
        };
        fields.insert(field.clone(), Value::String(id));
    }
    agree(properties, &fields, &given)?;
    Ok(fields)
}

/// A server as the owner reads it in a refusal.
fn server(guild: Option<&GuildId>) -> String {
    match guild {
        Some(guild) => format!("server {guild}"),
        None => "a direct message (@me)".to_string(),
    }
}

/// Refuses, naming both fields, a channel given (by id or link) that is not the channel of a
/// message's link given beside it.
fn agree(
    properties: &Map<String, Value>,
    fields: &Map<String, Value>,
    given: &[Given],
) -> Result<()> {
    let channels = fields.iter().filter(|(name, _)| {
        properties
            .get(*name)
            .and_then(|property| property.get("format"))
            .and_then(Value::as_str)
            == Some(CHANNEL_ID_OR_LINK)
    });
    for (channel_field, value) in channels {
        let Some(channel) = value.as_str().and_then(ChannelId::parse) else {
            continue;
        };
        for message in given
            .iter()
            .filter(|given| given.format == MESSAGE_ID_OR_LINK)
        {
            if message.link.channel != channel {
                return Err(Error::input(format!(
                    "`{channel_field}` is channel {channel}, but `{}` is a link to a message in \
                     channel {}: give the channel the message is in, or leave the link out",
                    message.field, message.link.channel
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
