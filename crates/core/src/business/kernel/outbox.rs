//! Sending as the owner's bot: the checks every message passes before any request, and how a
//! failed request is retried.
//!
//! The business layer knows no HTTP client and no serenity: it talks to Discord through the
//! sender crate's [`DiscordSender`] port, which the Discord adapter implements (and tests and
//! the demo seed replace with a stand-in that records requests). Every retry of one message
//! carries the same nonce with `enforce_nonce`, so if an earlier attempt did reach Discord,
//! Discord answers with that message instead of creating a second one.

use std::hash::{BuildHasher, RandomState};
use std::time::Duration;

use discord_manager_sender::{Delivered, Delivery, DiscordSender, OutgoingMessage, SendFailure};
use discord_manager_store::{ChannelRecord, Reader};
use discord_manager_vocabulary::error::{Error, ErrorKind, Result};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::permissions::{SendAccess, send_access};
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId};

use super::approval::{AskReason, Clearance, Consent};
use super::context::Source;
use super::names::{named, shown};
use crate::backoff::Backoff;
use crate::business::OwnerContext;

/// The most characters a bot may send in one message.
pub const MAX_CONTENT_CHARACTERS: usize = 2000;

/// How many posts an assistant (MCP) may start per minute, sends, edits and schedules together
/// (an edit puts new text before people, as a post does).
/// Enough for a conversation; too few to spray a channel or drain history message by message.
pub const ASSISTANT_POSTS_PER_MINUTE: u64 = 5;

/// How many reactions an assistant (MCP) may add or take back per minute, counted apart from
/// its posts: enough to acknowledge a conversation, too few to spell much with letter and
/// keycap emoji (a reaction carries no other text of the assistant's choosing).
pub const ASSISTANT_REACTIONS_PER_MINUTE: u64 = 5;

/// A new nonce: at most 25 characters (Discord's limit), unique per message.
pub(crate) fn new_nonce() -> String {
    let micros = Instant::now().as_micros();
    // `RandomState::new` makes a hasher with new random keys each time (the standard
    // library's contract): two nonces made in the same microsecond differ by their keys, with
    // no counter shared by the process.
    let random = RandomState::new().hash_one(micros);
    format!("{random:016x}{:08x}", micros as u32)
}

/// The most of a wait Discord asks for that is taken at its word: anything longer is held at
/// this ceiling (and then refused by whoever would wait it), so no answer, `1e20` included,
/// can overflow a `Duration` or park a task for years.
pub const RETRY_AFTER_CEILING: Duration = Duration::from_secs(60 * 60);

/// A wait Discord asked for, in words: its seconds, or "an hour or more" at the ceiling (a
/// wait clamped there may have been anything from an hour to 1e20 seconds).
pub fn asked_wait(wait: Duration) -> String {
    if wait >= RETRY_AFTER_CEILING {
        "an hour or more".to_string()
    } else {
        format!("{} s", wait.as_secs_f64().ceil())
    }
}

/// How a failed post is retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts at one message, the first included.
    pub attempts: u32,
    /// The wait after the first failed attempt; each later wait doubles.
    pub first_backoff: Duration,
    /// No wait is longer: a 429 asking for more gives up instead of waiting.
    pub max_wait: Duration,
}

impl RetryPolicy {
    /// The wait before the next attempt after attempt number `attempt` (1 is the first) failed
    /// this way; None when it is time to give up. A 429 waits at least its `retry_after`.
    pub fn wait_after(&self, attempt: u32, failure: &SendFailure) -> Option<Duration> {
        let backoff = self.backoff().after(attempt);
        match failure {
            SendFailure::Refused { .. } => None,
            _ if attempt >= self.attempts => None,
            SendFailure::RateLimited { retry_after } if *retry_after > self.max_wait => None,
            SendFailure::RateLimited { retry_after } => Some(backoff.max(*retry_after)),
            SendFailure::Unavailable { .. } => Some(backoff),
        }
    }

    /// Our own wait after failed attempts: doubling from `first_backoff`, held at `max_wait`.
    fn backoff(&self) -> Backoff {
        Backoff {
            first: self.first_backoff,
            longest: self.max_wait,
        }
    }

    /// What went wrong with one attempt, briefly, for the record of a retry.
    pub(crate) fn describe(failure: &SendFailure) -> String {
        match failure {
            SendFailure::RateLimited { retry_after } => format!(
                "Discord rate limited the bot for {} s",
                retry_after.as_secs_f64()
            ),
            SendFailure::Refused {
                status,
                code,
                message,
            } => {
                let code = code
                    .map(|code| format!(", code {code}"))
                    .unwrap_or_default();
                format!("Discord refused it: {message} ({status}{code})")
            }
            SendFailure::Unavailable { reason } => format!("Discord did not answer: {reason}"),
        }
    }

    /// Why a message was given up after `attempts` attempts ended with `failure`, in the
    /// owner's words; `channel` names where it was going.
    pub(crate) fn gave_up(&self, failure: &SendFailure, attempts: u32, channel: &str) -> String {
        match failure {
            SendFailure::RateLimited { retry_after } if *retry_after > self.max_wait => format!(
                "Discord is rate limiting the bot and asked to wait {}, more than the {} s a \
                 send may wait; nothing was sent: try again later",
                asked_wait(*retry_after),
                self.max_wait.as_secs()
            ),
            SendFailure::RateLimited { .. } => format!(
                "Discord rate limited the bot on all {attempts} attempts; nothing was sent: try \
                 again later"
            ),
            SendFailure::Refused { status: 401, .. } => {
                "Discord rejected the bot token (401): check DISCORD_TOKEN; nothing was sent"
                    .to_string()
            }
            SendFailure::Refused {
                status,
                code,
                message,
            } => {
                let code_text = code
                    .map(|code| format!(", code {code}"))
                    .unwrap_or_default();
                let what = match status {
                    403 => format!("Discord refused to let the bot post in {channel}"),
                    // Discord's codes: 10003 Unknown Channel, 10008 Unknown Message.
                    404 if *code == Some(10003) => {
                        format!("Discord does not know {channel}")
                    }
                    404 if *code == Some(10008) => {
                        "Discord does not know the message it replies to".to_string()
                    }
                    404 => format!("Discord does not know {channel} or the message it replies to"),
                    _ => "Discord refused the message".to_string(),
                };
                format!("{what}: {message} ({status}{code_text}); nothing was sent")
            }
            SendFailure::Unavailable { reason } => format!(
                "Discord did not confirm the message after {attempts} attempts ({reason}): check \
                 {channel} before sending it again"
            ),
        }
    }
}

/// What the bot is asked to do on Discord, for the words of a refusal: every action passes the
/// same gates as a post.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Send,
    Edit,
    Delete,
    React,
}

impl Action {
    /// Whether it puts an assistant's text before people (a post, a reply, a schedule, an
    /// edit): what the owner may approve outside the list, and confirms with
    /// DISCORD_MANAGER_CONFIRM_POSTS=1.
    fn is_post(self) -> bool {
        matches!(self, Action::Send | Action::Edit)
    }

    /// The action as the subject of a sentence: "Sending is turned off".
    fn doing(self) -> &'static str {
        match self {
            Action::Send => "Sending",
            Action::Edit => "Editing",
            Action::Delete => "Deleting",
            Action::React => "Reacting",
        }
    }

    /// What an assistant may not do: "An assistant may not post".
    fn verb(self) -> &'static str {
        match self {
            Action::Send => "post",
            Action::Edit => "edit the bot's messages",
            Action::Delete => "delete the bot's messages",
            Action::React => "react to messages",
        }
    }

    /// The CLI command the owner runs instead.
    fn command(self) -> &'static str {
        match self {
            Action::Send => "send",
            Action::Edit => "edit",
            Action::Delete => "delete",
            Action::React => "reactions add",
        }
    }

    /// The bare verb: "The bot cannot send in general".
    fn base(self) -> &'static str {
        match self {
            Action::Send => "send",
            Action::Edit => "edit",
            Action::Delete => "delete",
            Action::React => "react",
        }
    }

    /// Where it is refused: "Sending to channel 1400…", "Reacting in thread 1400…".
    fn in_channel(self, channel: &ChannelRecord) -> String {
        let named = named(channel);
        match self {
            Action::Send => format!("Sending to {named}"),
            other => format!("{} in {named}", other.doing()),
        }
    }
}

/// The capability gate of a post.
pub(crate) fn check_may_send(context: &OwnerContext, consent: Consent) -> Result<()> {
    check_may_act(context, Action::Send, consent)
}

/// The capability gate: a token is configured, read-only mode is off, and an assistant (MCP)
/// acts only where the owner listed channels for it, or posts where the owner approves it
/// (asked later, by [`check_channel`], once every other check has passed).
pub(crate) fn check_may_act(
    context: &OwnerContext,
    action: Action,
    consent: Consent,
) -> Result<()> {
    let doing = action.doing();
    if !context.token_configured {
        return Err(Error::denied(format!(
            "{doing} needs the bot's token: set DISCORD_TOKEN"
        )));
    }
    if context.read_only {
        return Err(Error::denied(format!(
            "{doing} is turned off: DISCORD_MANAGER_READ_ONLY is 1"
        )));
    }
    if context.source == Source::Mcp
        && context.send_channel_ids.is_none()
        && !approvable(context, action, consent)
    {
        return Err(Error::denied(format!(
            "An assistant may not {}: no channel is allowed for it",
            action.verb(),
        ))
        .with_hint(
            "To allow some, list their ids in DISCORD_MANAGER_SEND_CHANNELS (comma-separated) \
             and restart the MCP server",
        )
        .with_hint(format!(
            "`discord-manager {}` from the terminal is not limited by it",
            action.command()
        )));
    }
    Ok(())
}

/// The cap on an assistant's posts: at most [`ASSISTANT_POSTS_PER_MINUTE`] sends, edits and schedules
/// through MCP in the minute before `now`, counted from the store so it holds across MCP
/// servers. The owner's CLI is not capped.
pub(crate) fn check_assistant_rate(
    reader: &Reader<'_>,
    context: &OwnerContext,
    now: Instant,
) -> Result<()> {
    if context.source != Source::Mcp {
        return Ok(());
    }
    let recent = reader.assistant_posts_since(now.minus_seconds(60), Source::Mcp.as_str())?;
    if recent >= ASSISTANT_POSTS_PER_MINUTE {
        return Err(Error::denied(format!(
            "An assistant may post at most {ASSISTANT_POSTS_PER_MINUTE} messages a minute \
             (sends, edits and schedules together), and that many were started in the last minute; \
             nothing was sent: wait a minute, or send it from the terminal with \
             `discord-manager send`"
        )));
    }
    Ok(())
}

/// The cap on an assistant's reactions: at most [`ASSISTANT_REACTIONS_PER_MINUTE`] added or
/// taken back through MCP in the minute before `now`, counted from the store so it holds across
/// MCP servers. The owner's CLI is not capped.
pub(crate) fn check_assistant_reaction_rate(
    reader: &Reader<'_>,
    context: &OwnerContext,
    now: Instant,
) -> Result<()> {
    if context.source != Source::Mcp {
        return Ok(());
    }
    if reader.assistant_reactions_since(now.minus_seconds(60))? >= ASSISTANT_REACTIONS_PER_MINUTE {
        return Err(Error::denied(format!(
            "An assistant may react at most {ASSISTANT_REACTIONS_PER_MINUTE} times a minute \
             (adding and taking back together), and that many were made in the last minute; \
             nothing was sent: wait a minute, or react from the terminal with \
             `discord-manager reactions add`"
        )));
    }
    Ok(())
}

/// The cap on an assistant's posts as they go out: a scheduled message an assistant added is
/// checked again when it is due, so messages queued over hours for one minute cannot all post
/// in it. Answers whether it may go now (else it waits, still pending, for the minute to pass).
pub(crate) fn assistant_may_post_now(reader: &Reader<'_>, now: Instant) -> Result<bool> {
    Ok(reader.assistant_sends_since(now.minus_seconds(60))? < ASSISTANT_POSTS_PER_MINUTE)
}

/// Content Discord accepts from a bot: 1 to 2000 characters, not only blanks.
pub(crate) fn check_content(content: &str) -> Result<()> {
    let length = content.chars().count();
    if length == 0 || length > MAX_CONTENT_CHARACTERS {
        return Err(Error::input(format!(
            "`content` must be text of 1 to {MAX_CONTENT_CHARACTERS} characters; got text of \
             {length} characters"
        )));
    }
    if content.trim().is_empty() {
        return Err(Error::input(
            "`content` must not be blank: Discord refuses a message of only spaces",
        ));
    }
    Ok(())
}

/// The channel an action goes to, checked: stored, not deleted, in scope, and allowed by
/// DISCORD_MANAGER_SEND_CHANNELS when that is set (a thread is within its channel). An
/// assistant's post the owner can approve is not refused for the list: it is answered
/// [`Clearance::AskOwner`], as is every post of one with DISCORD_MANAGER_CONFIRM_POSTS=1.
/// `field` is the input that named the channel, for a refusal to name.
pub(crate) fn check_channel(
    reader: &Reader<'_>,
    context: &OwnerContext,
    channel_id: &ChannelId,
    field: &str,
    action: Action,
    consent: Consent,
) -> Result<(ChannelRecord, Clearance)> {
    let channel = match reader.channel(channel_id)?.map(shown) {
        None => {
            return Err(Error::not_found(format!(
                "`{field}`: no channel with id {channel_id} is in the store"
            )));
        }
        Some(channel) if channel.removed => {
            return Err(Error::not_found(format!(
                "`{field}`: {} was deleted",
                named(&channel)
            )));
        }
        Some(channel) if !context.in_scope(channel.guild_id.as_ref()) => {
            return Err(Error::denied(
                context.out_of_scope_reason(channel.guild_id.as_ref(), channel_id),
            ));
        }
        Some(channel) => channel,
    };
    if let Some(allowed) = &context.send_channel_ids {
        let listed = |id: &ChannelId| allowed.contains(id);
        // A thread is within its channel; a channel is not within its category, which the
        // owner may fill with channels created later.
        let parent_listed = channel.parent_id.as_ref().is_some_and(listed);
        let within = listed(&channel.channel_id) || (parent_listed && channel.kind.is_thread());
        if !within && approvable(context, action, consent) {
            return Ok((channel, asked(consent, AskReason::Unlisted)));
        }
        if !within {
            let category = match channel.parent_id.as_ref() {
                Some(parent) if parent_listed => format!(
                    " (its category {parent} is, but a category allows none of its channels: \
                     list each channel's id)"
                ),
                _ => String::new(),
            };
            return Err(Error::denied(format!(
                "{} is denied: it is not in DISCORD_MANAGER_SEND_CHANNELS{category}",
                action.in_channel(&channel)
            )));
        }
    } else if context.source == Source::Mcp && approvable(context, action, consent) {
        // No list: an assistant's post reaches here only when the owner can approve it.
        return Ok((channel, asked(consent, AskReason::Unlisted)));
    }
    if context.source == Source::Mcp && context.confirm_posts && action.is_post() {
        if consent == Consent::Approved || context.can_ask_owner() {
            return Ok((channel, asked(consent, AskReason::ConfirmPosts)));
        }
        return Err(Error::denied(format!(
            "{} needs the owner's yes (DISCORD_MANAGER_CONFIRM_POSTS is 1), and this MCP client \
             cannot ask them: it shows no forms (MCP elicitation); nothing was sent",
            action.in_channel(&channel)
        )));
    }
    Ok((channel, Clearance::Allowed))
}

/// Whether an assistant's `action` may go out on the owner's word instead of the list: a post
/// or an edit (what puts an assistant's text before people) the owner approved, or can be
/// asked about. Reactions and deletions are never asked about: they stay within the list.
fn approvable(context: &OwnerContext, action: Action, consent: Consent) -> bool {
    action.is_post() && (consent == Consent::Approved || context.can_ask_owner())
}

/// A post the owner is asked about for `reason`, unless they already approved it.
fn asked(consent: Consent, reason: AskReason) -> Clearance {
    match consent {
        Consent::Approved => Clearance::Allowed,
        Consent::NotAsked => Clearance::AskOwner(reason),
    }
}

/// Whether the bot can view `channel` (what every action on one of its messages needs; Discord
/// checks the rest, such as Add Reactions, and its refusal comes back in the owner's words).
pub(crate) fn bot_can_view(
    reader: &Reader<'_>,
    channel: &ChannelRecord,
    action: Action,
) -> Result<bool> {
    Ok(bot_access(reader, channel, action)? != SendAccess::NoView)
}

/// What the bot may do in `channel` by its guild's roles and the channel's overwrites (a
/// thread's are its parent's); refused outright when the bot is no longer in that guild.
fn bot_access(reader: &Reader<'_>, channel: &ChannelRecord, action: Action) -> Result<SendAccess> {
    let thread = channel.kind.is_thread();
    let guild = match channel.guild_id.as_ref() {
        Some(guild_id) => reader.guild(guild_id)?,
        None => None,
    };
    if guild.as_ref().is_some_and(|guild| guild.removed) {
        return Err(Error::denied(format!(
            "The bot cannot {} in {}: it is no longer in that guild",
            action.base(),
            named(channel)
        )));
    }
    let overwrites = match (thread, channel.parent_id.as_ref()) {
        (true, Some(parent)) => reader
            .channel(parent)?
            .map(|parent| parent.overwrites)
            .unwrap_or_default(),
        _ => channel.overwrites.clone(),
    };
    let bot = reader.identity()?.bot_user_id;
    Ok(send_access(
        guild.as_ref(),
        &overwrites,
        bot.as_ref(),
        thread,
    ))
}

/// Every check a message passes before any request, in the order the owner can act on them:
/// the capability gate, the content, the channel (stored, in scope, allowed by
/// DISCORD_MANAGER_SEND_CHANNELS, one that takes messages, where the bot may send), and the
/// message it replies to (stored in that channel, not deleted). Answers the channel, and
/// whether the owner is to be asked first.
pub(crate) fn check_sendable(
    reader: &Reader<'_>,
    context: &OwnerContext,
    channel_id: &ChannelId,
    content: &str,
    reply_to: Option<&MessageId>,
    consent: Consent,
) -> Result<(ChannelRecord, Clearance)> {
    check_may_send(context, consent)?;
    check_content(content)?;
    let (channel, clearance) = check_channel(
        reader,
        context,
        channel_id,
        "channelId",
        Action::Send,
        consent,
    )?;
    let name = named(&channel);
    if !channel.kind.holds_messages() {
        return Err(Error::input(format!(
            "`channelId` names {name}, a {}: messages go to a text channel or a thread",
            channel.kind
        )));
    }
    let lacking = match bot_access(reader, &channel, Action::Send)? {
        SendAccess::Allowed => None,
        SendAccess::NoView => Some("it cannot view the channel (View Channel is denied)"),
        SendAccess::NoSend => Some("Send Messages is denied"),
        SendAccess::NoSendInThreads => Some("Send Messages in Threads is denied"),
    };
    if let Some(lacking) = lacking {
        return Err(Error::denied(format!(
            "The bot cannot send in {name}: {lacking}"
        )));
    }
    if let Some(reply_to) = reply_to {
        match reader.message(reply_to)? {
            Some(message) if message.channel_id == channel.channel_id => {
                if message.deleted {
                    return Err(Error::conflict(format!(
                        "Message {reply_to} was deleted: a reply needs a message that still \
                         exists"
                    )));
                }
            }
            _ => {
                return Err(Error::not_found(format!(
                    "`replyToMessageId`: no stored message of {name} has id {reply_to}"
                )));
            }
        }
    }
    Ok((channel, clearance))
}

/// Posts one message, retrying by `policy` with the same nonce; on giving up, the owner-worded
/// error (kind `Discord`). Answers what the store recorded of the message Discord created.
pub(crate) async fn post_with_retries(
    sender: &dyn DiscordSender,
    message: &OutgoingMessage,
    policy: &RetryPolicy,
    channel_name: &str,
) -> Result<Delivered> {
    deliver_with_retries(
        policy,
        || sender.post_message(message),
        |failure, attempts| policy.gave_up(failure, attempts, channel_name),
    )
    .await
}

/// Makes one request by `attempt` until it succeeds or `policy` gives up; then the error, in
/// the words `gave_up` finds for the last failure and the number of attempts (kind `Discord`).
pub(crate) async fn deliver_with_retries<'a>(
    policy: &RetryPolicy,
    attempt: impl Fn() -> Delivery<'a>,
    gave_up: impl Fn(&SendFailure, u32) -> String,
) -> Result<Delivered> {
    let mut attempts = 0;
    loop {
        attempts += 1;
        match attempt().await {
            Ok(delivered) => return Ok(delivered),
            Err(failure) => match policy.wait_after(attempts, &failure) {
                Some(wait) => tokio::time::sleep(wait).await,
                None => return Err(Error::new(ErrorKind::Discord, gave_up(&failure, attempts))),
            },
        }
    }
}

#[cfg(test)]
mod tests;
