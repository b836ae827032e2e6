//! The scripted feed: the format of `seed/` and of the test suite's fake Discord.
//!
//! A feed is JSON Lines. A line is a gateway dispatch exactly as Discord sends it,
//! `{"t": "MESSAGE_CREATE", "d": {…}}`, an owner action played through a capability,
//! `{"tool": "bookmarks_add", "arguments": {…}}`, or a run of one of the daemon's jobs,
//! `{"job": "schedules_send_due"}`, or (the seed only) the bytes of an attachment as the
//! fetcher would have kept them, `{"kept": {"attachmentId": "…", "base64": "…"}}`. Blank lines and lines starting with `//` are skipped. Any
//! string of the form `@now`, `@now-2h`, `@now-1d3h20m` or `@now+2h` becomes the ISO-8601
//! instant that far before (or after) the moment the feed is read, so a feed never goes stale.

use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::AttachmentId;
use serde_json::Value;
use serenity::model::event::Event;

/// One line of a feed.
#[derive(Debug, Clone)]
pub enum FeedLine {
    /// A gateway dispatch: its type (`t`) and the whole payload (`{"t", "d"}`).
    Dispatch {
        line: usize,
        kind: String,
        payload: Value,
    },
    /// An owner action: a capability's tool name and its arguments.
    Action {
        line: usize,
        tool: String,
        arguments: Value,
    },
    /// A run of one of the daemon's jobs, by name.
    Job { line: usize, job: String },
    /// The bytes of an attachment already recorded, as the daemon's fetcher would have kept
    /// them from Discord's CDN (the seed has no CDN): `{"kept": {"attachmentId", "base64"}}`.
    Kept {
        line: usize,
        attachment_id: AttachmentId,
        base64: String,
    },
}

/// Reads a feed, resolving `@now…` instants against `now`.
pub fn parse_feed(text: &str, now: Instant) -> Result<Vec<FeedLine>> {
    let mut lines = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let raw = raw.trim();
        if raw.is_empty() || raw.starts_with("//") {
            continue;
        }
        let mut value: Value = serde_json::from_str(raw).map_err(|error| {
            Error::internal(format!("Feed line {line} is not JSON")).with_source(error)
        })?;
        resolve_instants(&mut value, now)?;
        if let Some(kind) = value.get("t").and_then(Value::as_str) {
            lines.push(FeedLine::Dispatch {
                line,
                kind: kind.to_string(),
                payload: value,
            });
        } else if let Some(tool) = value.get("tool").and_then(Value::as_str) {
            let arguments = value.get("arguments").cloned().unwrap_or(Value::Null);
            lines.push(FeedLine::Action {
                line,
                tool: tool.to_string(),
                arguments,
            });
        } else if let Some(job) = value.get("job").and_then(Value::as_str) {
            lines.push(FeedLine::Job {
                line,
                job: job.to_string(),
            });
        } else if let Some(kept) = value.get("kept") {
            let field = |name: &str| {
                kept.get(name)
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .ok_or_else(|| {
                        Error::internal(format!(
                            "Feed line {line}'s \"kept\" has no string {name:?}"
                        ))
                    })
            };
            let attachment_id = field("attachmentId")?;
            let attachment_id = AttachmentId::parse(&attachment_id).ok_or_else(|| {
                Error::internal(format!(
                    "Feed line {line}'s \"kept\" has an \"attachmentId\" that is not a Discord id"
                ))
            })?;
            lines.push(FeedLine::Kept {
                line,
                attachment_id,
                base64: field("base64")?,
            });
        } else {
            return Err(Error::internal(format!(
                "Feed line {line} is neither a dispatch (\"t\"), an action (\"tool\"), a job (\"job\") nor a kept file (\"kept\")"
            )));
        }
    }
    Ok(lines)
}

/// Turns a dispatch payload into serenity's event, exactly as the gateway client would.
/// serenity turns a payload it cannot parse into `Event::Unknown` without a word; for the
/// kinds the store records, that is an error here, with serde's reason for the feed's author.
pub fn decode_dispatch(line: usize, payload: &Value) -> Result<Event> {
    let invalid = |reason: String| {
        Error::internal(format!(
            "Feed line {line} is not a valid Discord dispatch: {reason}"
        ))
    };
    let event: Event =
        serde_json::from_value(payload.clone()).map_err(|error| invalid(error.to_string()))?;
    let Event::Unknown(unknown) = &event else {
        return Ok(event);
    };
    if let Some(repaired) = repair_unparsed(&unknown.kind, &unknown.value) {
        return Ok(repaired);
    }
    match why_unparsed(&unknown.kind, &unknown.value) {
        Some(reason) => Err(invalid(reason)),
        None => Ok(event),
    }
}

/// Parses a dispatch that serenity 0.12.5 turned into `Event::Unknown` although Discord sent
/// it as documented. Today: MESSAGE_REACTION_REMOVE_EMOJI, which Discord sends without the
/// `burst` and `type` fields serenity's `Reaction` requires. The live gateway's raw-event
/// path calls this too, so both see the event.
pub fn repair_unparsed(kind: &str, data: &Value) -> Option<Event> {
    if kind != "MESSAGE_REACTION_REMOVE_EMOJI" {
        return None;
    }
    let mut data = data.as_object()?.clone();
    data.entry("burst").or_insert(Value::Bool(false));
    data.entry("type").or_insert(Value::from(0));
    let payload = serde_json::json!({"t": kind, "d": data});
    match serde_json::from_value::<Event>(payload) {
        Ok(Event::Unknown(_)) | Err(_) => None,
        Ok(event) => Some(event),
    }
}

/// serde's reason a dispatch of a recorded kind did not parse; None for kinds not recorded.
pub fn why_unparsed(kind: &str, data: &Value) -> Option<String> {
    use serenity::model::event as e;
    fn reason<T: serde::de::DeserializeOwned>(data: &Value) -> Option<String> {
        serde_json::from_value::<T>(data.clone())
            .err()
            .map(|error| error.to_string())
    }
    match kind {
        "READY" => reason::<e::ReadyEvent>(data),
        "GUILD_CREATE" => reason::<e::GuildCreateEvent>(data),
        "GUILD_UPDATE" => reason::<e::GuildUpdateEvent>(data),
        "GUILD_DELETE" => reason::<e::GuildDeleteEvent>(data),
        "GUILD_ROLE_CREATE" => reason::<e::GuildRoleCreateEvent>(data),
        "GUILD_ROLE_UPDATE" => reason::<e::GuildRoleUpdateEvent>(data),
        "GUILD_ROLE_DELETE" => reason::<e::GuildRoleDeleteEvent>(data),
        "GUILD_MEMBER_UPDATE" => reason::<e::GuildMemberUpdateEvent>(data),
        "CHANNEL_CREATE" => reason::<e::ChannelCreateEvent>(data),
        "CHANNEL_UPDATE" => reason::<e::ChannelUpdateEvent>(data),
        "CHANNEL_DELETE" => reason::<e::ChannelDeleteEvent>(data),
        "THREAD_CREATE" => reason::<e::ThreadCreateEvent>(data),
        "THREAD_UPDATE" => reason::<e::ThreadUpdateEvent>(data),
        "THREAD_DELETE" => reason::<e::ThreadDeleteEvent>(data),
        "THREAD_LIST_SYNC" => reason::<e::ThreadListSyncEvent>(data),
        "MESSAGE_CREATE" => reason::<e::MessageCreateEvent>(data),
        "MESSAGE_UPDATE" => reason::<e::MessageUpdateEvent>(data),
        "MESSAGE_DELETE" => reason::<e::MessageDeleteEvent>(data),
        "MESSAGE_DELETE_BULK" => reason::<e::MessageDeleteBulkEvent>(data),
        "MESSAGE_REACTION_ADD" => reason::<e::ReactionAddEvent>(data),
        "MESSAGE_REACTION_REMOVE" => reason::<e::ReactionRemoveEvent>(data),
        "MESSAGE_REACTION_REMOVE_ALL" => reason::<e::ReactionRemoveAllEvent>(data),
        "MESSAGE_REACTION_REMOVE_EMOJI" => reason::<e::ReactionRemoveEmojiEvent>(data),
        _ => None,
    }
}

fn resolve_instants(value: &mut Value, now: Instant) -> Result<()> {
    match value {
        Value::String(text) if text.starts_with("@now") => {
            let offset = parse_offset(&text[4..]).ok_or_else(|| {
                Error::internal(format!(
                    "Feed instant {text:?} is not @now, @now-<1d2h3m4s> or @now+<1d2h3m4s>"
                ))
            })?;
            *text = now.plus_seconds(offset).to_iso();
        }
        Value::Array(items) => {
            for item in items {
                resolve_instants(item, now)?;
            }
        }
        Value::Object(fields) => {
            for item in fields.values_mut() {
                resolve_instants(item, now)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// `""` → 0, `"-1d2h3m4s"` → minus that many seconds, `"+2h"` → plus that many.
fn parse_offset(text: &str) -> Option<i64> {
    if text.is_empty() {
        return Some(0);
    }
    let (sign, mut rest) = if let Some(rest) = text.strip_prefix('-') {
        (-1, rest)
    } else {
        (1, text.strip_prefix('+')?)
    };
    if rest.is_empty() {
        return None;
    }
    let mut seconds = 0;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !c.is_ascii_digit())?;
        let amount: i64 = rest[..digits].parse().ok()?;
        let unit = match rest[digits..].chars().next()? {
            'd' => 86_400,
            'h' => 3_600,
            'm' => 60,
            's' => 1,
            _ => return None,
        };
        seconds += amount * unit;
        rest = &rest[digits + 1..];
    }
    Some(sign * seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_relative_instants_against_now() {
        let now = Instant::parse("2026-11-29T12:00:00Z").unwrap();
        let lines = parse_feed(
            "// a comment\n\n{\"t\":\"X\",\"d\":{\"at\":\"@now-1d2h3m4s\",\"then\":\"@now\",\"later\":\"@now+2h\"}}",
            now,
        )
        .unwrap();
        let FeedLine::Dispatch { line, payload, .. } = &lines[0] else {
            panic!("a dispatch")
        };
        assert_eq!(*line, 3);
        assert_eq!(payload["d"]["at"], "2026-11-28T09:56:56.000000Z");
        assert_eq!(payload["d"]["then"], "2026-11-29T12:00:00.000000Z");
        assert_eq!(payload["d"]["later"], "2026-11-29T14:00:00.000000Z");
    }

    #[test]
    fn names_the_line_that_is_wrong() {
        let now = Instant::now();
        let error = parse_feed("{\"t\":\"X\",\"d\":{}}\n{\"x\":1}", now).unwrap_err();
        assert_eq!(
            error.message(),
            "Feed line 2 is neither a dispatch (\"t\"), an action (\"tool\"), a job (\"job\") nor a kept file (\"kept\")"
        );
        let error = parse_feed("{\"t\":\"X\",\"d\":\"@now-3y\"}", now).unwrap_err();
        assert_eq!(
            error.message(),
            "Feed instant \"@now-3y\" is not @now, @now-<1d2h3m4s> or @now+<1d2h3m4s>"
        );
    }
}
