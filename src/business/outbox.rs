//! Sending as the owner's bot: the port through which the business layer posts to Discord, the
//! checks every message passes before any request, and how a failed request is retried.
//!
//! The business layer knows no HTTP client and no serenity: it talks to Discord through
//! [`DiscordSender`], which the Discord adapter implements (and tests and the demo seed replace
//! with a stand-in that records requests). Every retry of one message carries the same nonce
//! with `enforce_nonce`, so if an earlier attempt did reach Discord, Discord answers with that
//! message instead of creating a second one.

use std::future::Future;
use std::hash::{BuildHasher, RandomState};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::OwnerContext;
use super::channels::shown;
use super::context::Source;
use super::emoji::Emoji;
use super::model::DiscordId;
use crate::error::{Error, ErrorKind, Result};
use crate::instant::Instant;
use crate::permissions::{SendAccess, send_access};
use crate::store::{ChannelRecord, Reader, Store};

/// The most characters a bot may send in one message.
pub const MAX_CONTENT_CHARACTERS: usize = 2000;

/// Discord's message flag SUPPRESS_EMBEDS (`1 << 2`): no link preview is built for the message,
/// so Discord's preview fetcher never requests a URL in it.
pub const SUPPRESS_EMBEDS: u64 = 1 << 2;

/// How many posts an assistant (MCP) may start per minute, sends, edits and schedules together
/// (an edit puts new text before people, as a post does).
/// Enough for a conversation; too few to spray a channel or drain history message by message.
pub const ASSISTANT_POSTS_PER_MINUTE: u64 = 5;

/// One message to post.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingMessage {
    pub channel_id: String,
    pub content: String,
    /// Post it as a reply to this message (which must still exist).
    pub reply_to_message_id: Option<String>,
    /// Discord's nonce: the same on every attempt at this message.
    pub nonce: String,
    /// Post it with [`SUPPRESS_EMBEDS`]: true unless the owner turned link previews on.
    pub suppress_embeds: bool,
}

/// Why Discord did not create the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendFailure {
    /// 429: Discord asks to wait this long before trying again. Nothing was created.
    RateLimited { retry_after: Duration },
    /// 4xx other than 429 (403 missing permissions, 404 unknown channel, 400 invalid, 401 bad
    /// token): retrying would not help. `code` and `message` are Discord's JSON error.
    Refused {
        status: u16,
        code: Option<u64>,
        message: String,
    },
    /// 5xx, a timeout, or no connection: Discord may or may not have created it.
    Unavailable { reason: String },
}

/// What the store holds after Discord did what was asked: the message acted on (for a post,
/// the one Discord created), recorded by the adapter from Discord's own answer through the
/// gateway's recorders, so the gateway's later echo of it writes nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivered {
    pub message_id: String,
    /// Why the store could not record Discord's answer, when it could not. Discord did act
    /// (the gateway's echo records it), so this is never a reason to ask again.
    pub unrecorded: Option<String>,
}

impl Delivered {
    /// Discord acted on `message_id`, and recording its answer went as `recorded` says.
    pub fn of(message_id: impl Into<String>, recorded: Result<()>) -> Delivered {
        Delivered {
            message_id: message_id.into(),
            unrecorded: recorded.err().map(|error| error.message().to_string()),
        }
    }
}

/// The answer to one request: what the store recorded of Discord's answer, or why Discord did
/// not act.
pub type Delivery<'a> =
    Pin<Box<dyn Future<Output = std::result::Result<Delivered, SendFailure>> + Send + 'a>>;

/// An edit of one of the bot's own messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageEdit {
    pub channel_id: String,
    pub message_id: String,
    /// The message's whole new content.
    pub content: String,
}

/// One of the bot's own messages, to delete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageToDelete {
    pub channel_id: String,
    pub message_id: String,
}

/// The bot's own reaction on a message, to add or remove.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotReaction {
    pub channel_id: String,
    pub message_id: String,
    pub emoji: Emoji,
}

/// Acts on Discord as the bot. Each method is one request and no retry (the caller retries);
/// on success the implementation records Discord's answer in `store` through the gateway's
/// recorders and says what it recorded, so the business layer never records anything itself.
pub trait DiscordSender: Send + Sync {
    /// `POST /channels/{channel_id}/messages` with `content`, `nonce`, `enforce_nonce: true`,
    /// `flags: SUPPRESS_EMBEDS` when asked, and for a reply `message_reference: {message_id,
    /// fail_if_not_exists: true}`. Records the message Discord created (the caller retries
    /// with the same nonce, so a repeat answers and records that same message).
    fn post_message<'a>(&'a self, store: &'a Store, message: &'a OutgoingMessage) -> Delivery<'a>;

    /// `PATCH /channels/{channel_id}/messages/{message_id}` with the new `content` (and the
    /// same mention rules as a post); records Discord's edited message as an edit.
    fn edit_message<'a>(&'a self, store: &'a Store, edit: &'a MessageEdit) -> Delivery<'a>;

    /// `DELETE /channels/{channel_id}/messages/{message_id}`; records the deletion. A message
    /// Discord no longer knows (404, Unknown Message) is already deleted: done, not a failure.
    fn delete_message<'a>(&'a self, store: &'a Store, target: &'a MessageToDelete) -> Delivery<'a>;

    /// `PUT` (`add`) or `DELETE` `/channels/{channel_id}/messages/{message_id}/reactions/
    /// {emoji}/@me`; records the bot's reaction added or removed.
    fn react<'a>(&'a self, store: &'a Store, reaction: &'a BotReaction, add: bool) -> Delivery<'a>;
}

/// A new nonce: at most 25 characters (Discord's limit), unique per message.
pub(crate) fn new_nonce() -> String {
    static SEQUENCE: AtomicU64 = AtomicU64::new(0);
    let micros = Instant::now().as_micros();
    let random = RandomState::new().hash_one((micros, SEQUENCE.fetch_add(1, Ordering::Relaxed)));
    format!("{random:016x}{:08x}", micros as u32)
}

/// The most of a wait Discord asks for that is taken at its word: anything longer is held at
/// this ceiling (and then refused by whoever would wait it), so no answer, `1e20` included,
/// can overflow a `Duration` or park a task for years.
pub const RETRY_AFTER_CEILING: Duration = Duration::from_secs(60 * 60);

/// A wait Discord asked for, in words: its seconds, or "an hour or more" at the ceiling (a
/// wait clamped there may have been anything from an hour to 1e20 seconds).
pub(crate) fn asked_wait(wait: Duration) -> String {
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
        let backoff = self
            .first_backoff
            .saturating_mul(1 << attempt.saturating_sub(1).min(20))
            .min(self.max_wait);
        match failure {
            SendFailure::Refused { .. } => None,
            _ if attempt >= self.attempts => None,
            SendFailure::RateLimited { retry_after } if *retry_after > self.max_wait => None,
            SendFailure::RateLimited { retry_after } => Some(backoff.max(*retry_after)),
            SendFailure::Unavailable { .. } => Some(backoff),
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
                        format!("Discord does not know channel {channel}")
                    }
                    404 if *code == Some(10008) => {
                        "Discord does not know the message it replies to".to_string()
                    }
                    404 => format!(
                        "Discord does not know channel {channel} or the message it replies to"
                    ),
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

    /// Where it is refused: "Sending to general", "Reacting in general".
    fn in_channel(self, name: &str) -> String {
        match self {
            Action::Send => format!("Sending to {name}"),
            other => format!("{} in {name}", other.doing()),
        }
    }
}

/// The capability gate of a post.
pub(crate) fn check_may_send(context: &OwnerContext) -> Result<()> {
    check_may_act(context, Action::Send)
}

/// The capability gate: a token is configured, read-only mode is off, and an assistant (MCP)
/// acts only where the owner listed channels for it.
pub(crate) fn check_may_act(context: &OwnerContext, action: Action) -> Result<()> {
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
    if context.source == Source::Mcp && context.send_channel_ids.is_none() {
        return Err(Error::denied(format!(
            "An assistant may not {}: no channel is allowed for it. To allow some, list \
             their ids in DISCORD_MANAGER_SEND_CHANNELS (comma-separated) and restart the MCP \
             server; `discord-manager {}` from the terminal is not limited by it",
            action.verb(),
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
    let recent = reader.assistant_posts_since(now.minus_seconds(60))?;
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
/// DISCORD_MANAGER_SEND_CHANNELS when that is set (a thread is within its channel).
pub(crate) fn check_channel(
    reader: &Reader<'_>,
    context: &OwnerContext,
    channel_id: &str,
    action: Action,
) -> Result<ChannelRecord> {
    let channel = match reader.channel(channel_id)?.map(shown) {
        None => {
            return Err(Error::not_found(format!(
                "No channel with id {channel_id} is in the store"
            )));
        }
        Some(channel) if channel.removed => {
            return Err(Error::not_found(format!(
                "Channel {} ({channel_id}) was deleted",
                channel.name
            )));
        }
        Some(channel) if !context.in_scope(channel.guild_id.as_deref()) => {
            return Err(Error::denied(
                context.out_of_scope_reason(channel.guild_id.as_deref(), channel_id),
            ));
        }
        Some(channel) => channel,
    };
    if let Some(allowed) = &context.send_channel_ids {
        let listed = |id: &str| allowed.iter().any(|allowed| allowed == id);
        if !listed(&channel.channel_id) && !channel.parent_id.as_deref().is_some_and(listed) {
            return Err(Error::denied(format!(
                "{} is denied: it is not in DISCORD_MANAGER_SEND_CHANNELS",
                action.in_channel(&channel.name)
            )));
        }
    }
    Ok(channel)
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
    let guild = match channel.guild_id.as_deref() {
        Some(guild_id) => reader.guild(guild_id)?,
        None => None,
    };
    if guild.as_ref().is_some_and(|guild| guild.removed) {
        return Err(Error::denied(format!(
            "The bot cannot {} in {}: it is no longer in that guild",
            action.base(),
            channel.name
        )));
    }
    let overwrites = match (thread, channel.parent_id.as_deref()) {
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
        bot.as_deref(),
        thread,
    ))
}

/// Every check a message passes before any request, in the order the owner can act on them:
/// the capability gate, the content, the channel (stored, in scope, allowed by
/// DISCORD_MANAGER_SEND_CHANNELS, one that takes messages, where the bot may send), and the
/// message it replies to (stored in that channel, not deleted). Answers the channel.
pub(crate) fn check_sendable(
    reader: &Reader<'_>,
    context: &OwnerContext,
    channel_id: &DiscordId,
    content: &str,
    reply_to: Option<&DiscordId>,
) -> Result<ChannelRecord> {
    check_may_send(context)?;
    check_content(content)?;
    let channel = check_channel(reader, context, channel_id.as_str(), Action::Send)?;
    let name = &channel.name;
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
        match reader.message(reply_to.as_str())? {
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
                    "No stored message of channel {name} has id {reply_to}"
                )));
            }
        }
    }
    Ok(channel)
}

/// Posts one message, retrying by `policy` with the same nonce; on giving up, the owner-worded
/// error (kind `Discord`). Answers what the store recorded of the message Discord created.
pub(crate) async fn post_with_retries(
    sender: &dyn DiscordSender,
    store: &Store,
    message: &OutgoingMessage,
    policy: &RetryPolicy,
    channel_name: &str,
) -> Result<Delivered> {
    deliver_with_retries(
        policy,
        || sender.post_message(store, message),
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

/// `messages_send` (`business::messages::send_message`) over the real store, with a recording
/// stand-in for Discord: every refusal is checked with its exact message, with no request made
/// and no row written.
#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::ErrorKind;
    use crate::business::messages::{SendMessage, send_message};
    use crate::business::model::Message;
    use crate::ingest::Recorded;
    use crate::store::Store;
    use crate::test_fixtures::{
        Answer, BOT_ID, SEND, SEND_IN_THREADS, ScriptedDiscord, VIEW, World, dispatch, new_id,
    };

    fn id(text: &str) -> DiscordId {
        DiscordId::parse(text).unwrap()
    }

    fn input(channel: &str, content: &str, reply_to: Option<&str>) -> SendMessage {
        SendMessage {
            channel_id: id(channel),
            content: content.to_string(),
            reply_to_message_id: reply_to.map(id),
        }
    }

    async fn send(
        world: &World,
        discord: &ScriptedDiscord,
        context: &OwnerContext,
        input: SendMessage,
    ) -> Result<Message> {
        send_message(
            &world.store,
            input,
            context,
            Some(discord as &dyn DiscordSender),
        )
        .await
    }

    /// Every stored message of a channel whose content is `content`.
    fn stored(store: &Store, channel: &str, content: &str) -> usize {
        store
            .read(|reader| reader.channel_messages_since(channel, Instant::from_micros(0), 500))
            .unwrap()
            .iter()
            .filter(|message| message.original_content == content)
            .count()
    }

    /// Refused with exactly this message and kind; nothing was requested and nothing stored.
    async fn assert_refused(
        world: &World,
        context: &OwnerContext,
        input: SendMessage,
        kind: ErrorKind,
        message: &str,
    ) {
        let discord = ScriptedDiscord::new(&world.store, vec![]);
        let channel = input.channel_id.to_string();
        let content = input.content.clone();
        let error = send(world, &discord, context, input).await.unwrap_err();
        assert_eq!(error.message(), message);
        assert_eq!(error.kind(), kind, "{message}");
        assert_eq!(discord.requests().len(), 0, "no request for: {message}");
        assert_eq!(stored(&world.store, &channel, &content), 0);
    }

    #[tokio::test]
    async fn sends_a_reply_and_records_it_once_even_when_the_gateway_echoes_it() {
        let world = World::new();
        let channel = world.channel("general");
        let asked = world.post(&channel, &world.owner_id, "who has the keys?", json!({}));
        let discord = ScriptedDiscord::new(&world.store, vec![]);
        let sent = send(
            &world,
            &discord,
            &world.sending_context(),
            input(&channel, "I do", Some(&asked)),
        )
        .await
        .unwrap();
        assert_eq!(sent.body.author_id, BOT_ID);
        assert_eq!(sent.body.content, "I do");
        assert_eq!(sent.channel_id, channel);
        assert_eq!(sent.guild_id.as_deref(), Some(world.guild_id.as_str()));
        assert_eq!(
            sent.body.reply_to_message_id.as_deref(),
            Some(asked.as_str())
        );
        assert_eq!(
            sent.body.author_kind,
            crate::business::model::AuthorKind::ThisBot
        );
        let requests = discord.requests();
        assert_eq!(requests.len(), 1);
        assert_eq!(
            requests[0].message,
            OutgoingMessage {
                channel_id: channel.clone(),
                content: "I do".into(),
                reply_to_message_id: Some(asked.clone()),
                nonce: requests[0].message.nonce.clone(),
                suppress_embeds: true,
            }
        );
        assert!(requests[0].message.nonce.len() <= 25);
        // The gateway delivers the same message, as Discord created it (embeds suppressed): a
        // replay.
        let echo = world.message_payload(
            &sent.body.message_id,
            &channel,
            BOT_ID,
            "I do",
            json!({"flags": 4}),
        );
        assert_eq!(
            dispatch(&world.store, "MESSAGE_CREATE", echo),
            Recorded::AlreadyKnown
        );
        assert_eq!(stored(&world.store, &channel, "I do"), 1);
        let origin = world
            .store
            .read(|reader| reader.message(&sent.body.message_id))
            .unwrap()
            .unwrap();
        assert_eq!(origin.created_at, sent.body.created_at);
    }

    #[tokio::test]
    async fn content_of_2000_characters_is_sent_and_2001_is_refused() {
        let world = World::new();
        let channel = world.channel("general");
        let discord = ScriptedDiscord::new(&world.store, vec![]);
        let longest = "é".repeat(2000);
        send(
            &world,
            &discord,
            &world.sending_context(),
            input(&channel, &longest, None),
        )
        .await
        .unwrap();
        assert_refused(
            &world,
            &world.sending_context(),
            input(&channel, &"é".repeat(2001), None),
            ErrorKind::Input,
            "`content` must be text of 1 to 2000 characters; got text of 2001 characters",
        )
        .await;
    }

    #[tokio::test]
    async fn the_capability_gate_refuses_before_anything_else() {
        let world = World::new();
        let channel = world.channel("general");
        let content = format!("gate {}", new_id());
        assert_refused(
            &world,
            &world.context(),
            input(&channel, &content, None),
            ErrorKind::Denied,
            "Sending needs the bot's token: set DISCORD_TOKEN",
        )
        .await;
        let read_only = OwnerContext {
            read_only: true,
            ..world.sending_context()
        };
        assert_refused(
            &world,
            &read_only,
            input(&channel, &content, None),
            ErrorKind::Denied,
            "Sending is turned off: DISCORD_MANAGER_READ_ONLY is 1",
        )
        .await;
        // The gate comes first: even blank content in an unknown channel reads as denied.
        assert_refused(
            &world,
            &read_only,
            input(&new_id(), "   ", None),
            ErrorKind::Denied,
            "Sending is turned off: DISCORD_MANAGER_READ_ONLY is 1",
        )
        .await;
    }

    #[tokio::test]
    async fn blank_content_is_refused() {
        let world = World::new();
        let channel = world.channel("general");
        assert_refused(
            &world,
            &world.sending_context(),
            input(&channel, " \n\t ", None),
            ErrorKind::Input,
            "`content` must not be blank: Discord refuses a message of only spaces",
        )
        .await;
    }

    #[tokio::test]
    async fn the_channel_must_be_stored_alive_and_in_scope() {
        let world = World::new();
        let context = world.sending_context();
        let missing = new_id();
        assert_refused(
            &world,
            &context,
            input(&missing, "hello", None),
            ErrorKind::NotFound,
            &format!("No channel with id {missing} is in the store"),
        )
        .await;
        let gone = world.channel("gone");
        dispatch(
            &world.store,
            "CHANNEL_DELETE",
            world.channel_payload(&gone, "gone", 0, None, json!([])),
        );
        assert_refused(
            &world,
            &context,
            input(&gone, "hello", None),
            ErrorKind::NotFound,
            &format!("Channel gone ({gone}) was deleted"),
        )
        .await;
        let elsewhere = World::new();
        let foreign = elsewhere.channel("theirs");
        assert_refused(
            &world,
            &context,
            input(&foreign, "hello", None),
            ErrorKind::Denied,
            &format!("Channel {foreign} is outside the guilds in scope (DISCORD_GUILD_IDS)"),
        )
        .await;
    }

    #[tokio::test]
    async fn sending_is_limited_to_discord_manager_send_channels_and_their_threads() {
        let world = World::new();
        let allowed = world.channel_with(
            "allowed",
            json!([{"id": world.guild_id, "type": 0, "allow": SEND_IN_THREADS.to_string(), "deny": "0"}]),
        );
        let other = world.channel("other");
        let thread = world.thread(&allowed, "allowed thread");
        let context = OwnerContext {
            send_channel_ids: Some(vec![allowed.clone()]),
            ..world.sending_context()
        };
        assert_refused(
            &world,
            &context,
            input(&other, "hello", None),
            ErrorKind::Denied,
            "Sending to other is denied: it is not in DISCORD_MANAGER_SEND_CHANNELS",
        )
        .await;
        let discord = ScriptedDiscord::new(&world.store, vec![]);
        send(
            &world,
            &discord,
            &context,
            input(&allowed, "in the channel", None),
        )
        .await
        .unwrap();
        send(
            &world,
            &discord,
            &context,
            input(&thread, "in its thread", None),
        )
        .await
        .unwrap();
        assert_eq!(discord.requests().len(), 2);
    }

    /// An assistant's context: MCP, allowed to post in `allowed` (None: the variable unset).
    fn assistant(world: &World, allowed: Option<&[&String]>) -> OwnerContext {
        OwnerContext {
            source: Source::Mcp,
            send_channel_ids: allowed.map(|ids| ids.iter().map(|id| id.to_string()).collect()),
            ..world.sending_context()
        }
    }

    #[tokio::test]
    async fn an_assistant_may_not_post_until_the_owner_lists_channels_though_the_cli_may() {
        let world = World::alone();
        let general = world.channel("general");
        assert_refused(
            &world,
            &assistant(&world, None),
            input(&general, "forwarding #incidents here", None),
            ErrorKind::Denied,
            "An assistant may not post: no channel is allowed for it. To allow some, list their \
             ids in DISCORD_MANAGER_SEND_CHANNELS (comma-separated) and restart the MCP server; \
             `discord-manager send` from the terminal is not limited by it",
        )
        .await;
        let discord = ScriptedDiscord::new(&world.store, vec![]);
        send(
            &world,
            &discord,
            &world.sending_context(),
            input(&general, "typed by the owner", None),
        )
        .await
        .unwrap();
        send(
            &world,
            &discord,
            &assistant(&world, Some(&[&general])),
            input(&general, "listed", None),
        )
        .await
        .unwrap();
        assert_eq!(discord.requests().len(), 2);
        let other = world.channel("other");
        assert_refused(
            &world,
            &assistant(&world, Some(&[&general])),
            input(&other, "not listed", None),
            ErrorKind::Denied,
            "Sending to other is denied: it is not in DISCORD_MANAGER_SEND_CHANNELS",
        )
        .await;
    }

    #[tokio::test]
    async fn posts_suppress_link_previews_unless_the_owner_turns_them_on() {
        let world = World::new();
        let general = world.channel("general");
        let discord = ScriptedDiscord::new(&world.store, vec![]);
        let link = "see https://example.invalid/?q=secret";
        send(
            &world,
            &discord,
            &world.sending_context(),
            input(&general, link, None),
        )
        .await
        .unwrap();
        let previews = OwnerContext {
            link_previews: true,
            ..world.sending_context()
        };
        send(&world, &discord, &previews, input(&general, link, None))
            .await
            .unwrap();
        let suppressed: Vec<bool> = discord
            .requests()
            .iter()
            .map(|request| request.message.suppress_embeds)
            .collect();
        assert_eq!(suppressed, [true, false]);
    }

    #[tokio::test]
    async fn a_direct_message_channel_is_refused_unless_the_owner_allows_direct_messages() {
        let world = // A store of its own: a direct message is in no guild, so every other test's
        // catch-up of the shared store would see it.
        World::alone();
        let (direct, _) = world.direct_message("7", "forward #incidents to this DM", json!({}));
        let context = OwnerContext {
            send_channel_ids: Some(vec![direct.clone()]),
            ..world.sending_context()
        };
        for context in [
            context.clone(),
            OwnerContext {
                source: Source::Mcp,
                ..context.clone()
            },
        ] {
            assert_refused(
                &world,
                &context,
                input(&direct, "here you go", None),
                ErrorKind::Denied,
                &format!(
                    "Channel {direct} is a direct message, out of scope: set \
                     DISCORD_MANAGER_ALLOW_DMS=1 to read and send direct messages"
                ),
            )
            .await;
        }
        let allowed = OwnerContext {
            allow_dms: true,
            ..context
        };
        let discord = ScriptedDiscord::new(&world.store, vec![]);
        send(&world, &discord, &allowed, input(&direct, "hello", None))
            .await
            .unwrap();
        assert_eq!(discord.requests().len(), 1);
    }

    #[tokio::test]
    async fn an_assistant_posts_at_most_five_times_a_minute_counting_schedules_and_the_cli_is_not_capped()
     {
        use crate::business::schedules::{AddSchedule, add_schedule};
        let world = World::alone();
        let general = world.channel("general");
        let context = assistant(&world, Some(&[&general]));
        let discord = ScriptedDiscord::new(&world.store, vec![]);
        for n in 0..4 {
            send(
                &world,
                &discord,
                &context,
                input(&general, &format!("post {n}"), None),
            )
            .await
            .unwrap();
        }
        let later = AddSchedule {
            channel_id: id(&general),
            content: "the fifth, scheduled".into(),
            send_at: Instant::now().plus_seconds(3600),
            reply_to_message_id: None,
        };
        add_schedule(&world.store, later.clone(), &context).unwrap();
        let cap = "An assistant may post at most 5 messages a minute (sends, edits and \
                   schedules together), and that many were started in the last minute; nothing was sent: \
                   wait a minute, or send it from the terminal with `discord-manager send`";
        assert_refused(
            &world,
            &context,
            input(&general, "the sixth", None),
            ErrorKind::Denied,
            cap,
        )
        .await;
        let error = add_schedule(&world.store, later, &context).unwrap_err();
        assert_eq!(error.message(), cap);
        send(
            &world,
            &discord,
            &world.sending_context(),
            input(&general, "the owner's", None),
        )
        .await
        .unwrap();
        assert_eq!(discord.requests().len(), 5);
    }

    #[test]
    fn the_cap_counts_the_minute_before_now_inclusively() {
        let world = World::alone();
        let general = world.channel("general");
        let context = assistant(&world, Some(&[&general]));
        let mut first = None;
        for _ in 0..ASSISTANT_POSTS_PER_MINUTE {
            let at = world
                .store
                .write(|writer| writer.record_assistant_send(&general))
                .unwrap();
            first.get_or_insert(at);
        }
        let first = first.unwrap();
        let check = |now: Instant| {
            world
                .store
                .read(|reader| check_assistant_rate(reader, &context, now))
        };
        assert_eq!(
            check(first.plus_seconds(60)).unwrap_err().kind(),
            ErrorKind::Denied
        );
        assert!(check(first.plus_seconds(60).plus_micros(1)).is_ok());
        let owner = world.sending_context();
        assert!(
            world
                .store
                .read(|reader| check_assistant_rate(reader, &owner, first))
                .is_ok()
        );
    }

    #[tokio::test]
    async fn a_channel_that_takes_no_messages_is_refused() {
        let world = World::new();
        let category = new_id();
        dispatch(
            &world.store,
            "CHANNEL_CREATE",
            world.channel_payload(&category, "projects", 4, None, json!([])),
        );
        assert_refused(
            &world,
            &world.sending_context(),
            input(&category, "hello", None),
            ErrorKind::Input,
            "`channelId` names projects, a category: messages go to a text channel or a thread",
        )
        .await;
    }

    #[tokio::test]
    async fn the_bot_must_be_allowed_to_send_there() {
        let world = World::new();
        let context = world.sending_context();
        let everyone = |allow: u64, deny: u64| json!([{"id": world.guild_id, "type": 0, "allow": allow.to_string(), "deny": deny.to_string()}]);
        let hidden = world.channel_with("hidden", everyone(SEND, VIEW));
        assert_refused(
            &world,
            &context,
            input(&hidden, "hello", None),
            ErrorKind::Denied,
            "The bot cannot send in hidden: it cannot view the channel (View Channel is denied)",
        )
        .await;
        let muted = world.channel_with("muted", everyone(0, SEND));
        assert_refused(
            &world,
            &context,
            input(&muted, "hello", None),
            ErrorKind::Denied,
            "The bot cannot send in muted: Send Messages is denied",
        )
        .await;
        // The test guild grants Send Messages but not Send Messages in Threads.
        let parent = world.channel("general");
        let thread = world.thread(&parent, "rollout");
        assert_refused(
            &world,
            &context,
            input(&thread, "hello", None),
            ErrorKind::Denied,
            "The bot cannot send in rollout: Send Messages in Threads is denied",
        )
        .await;
        dispatch(&world.store, "GUILD_DELETE", json!({"id": world.guild_id}));
        assert_refused(
            &world,
            &context,
            input(&parent, "hello", None),
            ErrorKind::Denied,
            "The bot cannot send in general: it is no longer in that guild",
        )
        .await;
    }

    #[tokio::test]
    async fn the_reply_target_must_be_a_stored_live_message_of_that_channel() {
        let world = World::new();
        let context = world.sending_context();
        let general = world.channel("general");
        let other = world.channel("other");
        let elsewhere = world.post(&other, "7", "over there", json!({}));
        assert_refused(
            &world,
            &context,
            input(&general, "hello", Some(&elsewhere)),
            ErrorKind::NotFound,
            &format!("No stored message of channel general has id {elsewhere}"),
        )
        .await;
        let missing = new_id();
        assert_refused(
            &world,
            &context,
            input(&general, "hello", Some(&missing)),
            ErrorKind::NotFound,
            &format!("No stored message of channel general has id {missing}"),
        )
        .await;
        let deleted = world.post(&general, "7", "soon gone", json!({}));
        world.delete(&general, &deleted);
        assert_refused(
            &world,
            &context,
            input(&general, "hello", Some(&deleted)),
            ErrorKind::Conflict,
            &format!("Message {deleted} was deleted: a reply needs a message that still exists"),
        )
        .await;
    }

    #[tokio::test]
    async fn without_a_discord_client_a_checked_send_says_so() {
        let world = World::new();
        let channel = world.channel("general");
        let error = send_message(
            &world.store,
            input(&channel, "hello", None),
            &world.sending_context(),
            None,
        )
        .await
        .unwrap_err();
        assert_eq!(
            error.message(),
            "Sending is not available: no Discord client was set up for it"
        );
        assert_eq!(stored(&world.store, &channel, "hello"), 0);
    }

    async fn refused_by_discord(status: u16, code: u64, message: &str) -> (World, Error, usize) {
        let world = World::new();
        let channel = world.channel("general");
        let discord = ScriptedDiscord::new(
            &world.store,
            vec![Answer::Fail(SendFailure::Refused {
                status,
                code: Some(code),
                message: message.into(),
            })],
        );
        let error = send(
            &world,
            &discord,
            &world.sending_context(),
            input(&channel, "x", None),
        )
        .await
        .unwrap_err();
        assert_eq!(stored(&world.store, &channel, "x"), 0);
        (world, error, discord.requests().len())
    }

    #[tokio::test]
    async fn discords_refusals_become_owner_worded_errors_without_a_retry() {
        let (_, error, requests) = refused_by_discord(403, 50013, "Missing Permissions").await;
        assert_eq!(
            error.message(),
            "Discord refused to let the bot post in general: Missing Permissions (403, code 50013); nothing was sent"
        );
        assert_eq!(error.kind(), ErrorKind::Discord);
        assert_eq!(error.kind().exit_code(), 7);
        assert_eq!(requests, 1);
        let (_, error, requests) = refused_by_discord(404, 10003, "Unknown Channel").await;
        assert_eq!(
            error.message(),
            "Discord does not know channel general: Unknown Channel (404, code 10003); nothing was sent"
        );
        assert_eq!(requests, 1);
        let (_, error, _) = refused_by_discord(404, 10008, "Unknown Message").await;
        assert_eq!(
            error.message(),
            "Discord does not know the message it replies to: Unknown Message (404, code 10008); nothing was sent"
        );
        let (_, error, _) = refused_by_discord(404, 0, "404: Not Found").await;
        assert_eq!(
            error.message(),
            "Discord does not know channel general or the message it replies to: 404: Not Found (404, code 0); nothing was sent"
        );
        let (_, error, _) = refused_by_discord(401, 0, "401: Unauthorized").await;
        assert_eq!(
            error.message(),
            "Discord rejected the bot token (401): check DISCORD_TOKEN; nothing was sent"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_429_is_retried_after_retry_after_with_the_same_nonce_and_posts_one_message() {
        let world = World::new();
        let channel = world.channel("general");
        let discord = ScriptedDiscord::new(
            &world.store,
            vec![Answer::Fail(SendFailure::RateLimited {
                retry_after: Duration::from_secs(2),
            })],
        );
        let sent = send(
            &world,
            &discord,
            &world.sending_context(),
            input(&channel, "once", None),
        )
        .await
        .unwrap();
        let requests = discord.requests();
        assert_eq!(requests.len(), 2);
        assert_eq!(requests[0].at, Duration::ZERO);
        // retry_after (2 s) is longer than the first backoff (1 s): Discord's wait wins.
        assert_eq!(requests[1].at, Duration::from_secs(2));
        assert_eq!(requests[0].message, requests[1].message, "the same nonce");
        assert_eq!(discord.created(), 1);
        assert_eq!(stored(&world.store, &channel, "once"), 1);
        assert_eq!(sent.body.content, "once");
    }

    #[tokio::test(start_paused = true)]
    async fn rate_limiting_gives_up_after_three_attempts_or_at_once_when_asked_to_wait_too_long() {
        let world = World::new();
        let channel = world.channel("general");
        let limited = |seconds: f64| {
            Answer::Fail(SendFailure::RateLimited {
                retry_after: Duration::from_secs_f64(seconds),
            })
        };
        let discord =
            ScriptedDiscord::new(&world.store, vec![limited(1.5), limited(1.5), limited(1.5)]);
        let error = send(
            &world,
            &discord,
            &world.sending_context(),
            input(&channel, "a", None),
        )
        .await
        .unwrap_err();
        assert_eq!(
            error.message(),
            "Discord rate limited the bot on all 3 attempts; nothing was sent: try again later"
        );
        let at: Vec<Duration> = discord.requests().iter().map(|r| r.at).collect();
        // Waits: max(1 s backoff, 1.5 s), then max(2 s backoff, 1.5 s).
        assert_eq!(
            at,
            vec![
                Duration::ZERO,
                Duration::from_millis(1500),
                Duration::from_millis(3500)
            ]
        );
        let discord = ScriptedDiscord::new(&world.store, vec![limited(10.0), Answer::Create]);
        send(
            &world,
            &discord,
            &world.sending_context(),
            input(&channel, "b", None),
        )
        .await
        .unwrap();
        assert_eq!(
            discord.requests()[1].at,
            Duration::from_secs(10),
            "exactly the cap waits"
        );
        let discord = ScriptedDiscord::new(&world.store, vec![limited(10.001)]);
        let error = send(
            &world,
            &discord,
            &world.sending_context(),
            input(&channel, "c", None),
        )
        .await
        .unwrap_err();
        assert_eq!(
            error.message(),
            "Discord is rate limiting the bot and asked to wait 11 s, more than the 10 s a send may wait; nothing was sent: try again later"
        );
        assert_eq!(discord.requests().len(), 1);
        assert_eq!(stored(&world.store, &channel, "c"), 0);

        // Discord's 1e20 s, held at the ceiling by the REST client, is said as what it is.
        let discord = ScriptedDiscord::new(
            &world.store,
            vec![Answer::Fail(SendFailure::RateLimited {
                retry_after: RETRY_AFTER_CEILING,
            })],
        );
        let error = send(
            &world,
            &discord,
            &world.sending_context(),
            input(&channel, "d", None),
        )
        .await
        .unwrap_err();
        assert_eq!(
            error.message(),
            "Discord is rate limiting the bot and asked to wait an hour or more, more than the 10 s a send may wait; nothing was sent: try again later"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn an_unavailable_discord_is_retried_with_backoff_and_then_reported() {
        let world = World::new();
        let channel = world.channel("general");
        let unavailable = || {
            Answer::Fail(SendFailure::Unavailable {
                reason: "503 Service Unavailable".into(),
            })
        };
        let discord = ScriptedDiscord::new(
            &world.store,
            vec![unavailable(), unavailable(), unavailable()],
        );
        let started = tokio::time::Instant::now();
        let error = send(
            &world,
            &discord,
            &world.sending_context(),
            input(&channel, "x", None),
        )
        .await
        .unwrap_err();
        assert_eq!(
            error.message(),
            "Discord did not confirm the message after 3 attempts (503 Service Unavailable): check general before sending it again"
        );
        assert_eq!(error.kind(), ErrorKind::Discord);
        assert_eq!(started.elapsed(), Duration::from_secs(3), "1 s, then 2 s");
        let requests = discord.requests();
        assert_eq!(requests.len(), 3);
        assert!(requests.iter().all(|r| r.message == requests[0].message));
    }

    #[test]
    fn nonces_fit_discords_limit_and_differ() {
        let nonces: std::collections::BTreeSet<String> = (0..1000).map(|_| new_nonce()).collect();
        assert_eq!(nonces.len(), 1000);
        assert!(nonces.iter().all(|nonce| nonce.len() <= 25));
    }

    #[tokio::test]
    async fn the_surfaces_refuse_with_the_same_words() {
        // Through the registry (what the CLI and MCP both call), the schema speaks first.
        let world = World::new();
        let channel = world.channel("general");
        let services = crate::registry::Services {
            store: Arc::clone(&world.store),
            context: world.context(),
            sender: None,
        };
        let capability = crate::registry::find("messages_send").unwrap();
        let error = capability
            .call(json!({"channelId": channel, "content": "hi"}), &services)
            .await
            .err()
            .unwrap();
        assert_eq!(
            error.message(),
            "Sending needs the bot's token: set DISCORD_TOKEN"
        );
        let error = capability
            .call(json!({"channelId": channel, "content": ""}), &services)
            .await
            .err()
            .unwrap();
        assert_eq!(
            error.message(),
            "`content` must be text of 1 to 2000 characters; got \"\""
        );
    }
}
