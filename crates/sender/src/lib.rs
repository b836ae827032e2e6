//! The port to Discord: what the core asks of Discord (post, edit, delete, react as the bot)
//! as the [`DiscordSender`] trait, and the plain types a request and its answer carry.
//!
//! The core knows no HTTP client and no serenity: it talks to Discord through
//! [`DiscordSender`], which the Discord crate implements against Discord's REST API and the
//! playback crate's stand-ins implement for the demo and the tests. The port sits below all
//! of them, so each names the one trait: a stand-in built in another crate is the same
//! `DiscordSender` the core's tests hand to a capability.
//!
//! How a request is gated, retried and given its nonce is the core's (its outbox); this crate
//! holds only what crosses the port.
//!
//! - [`emoji`]: an emoji the bot reacts with, checked as the owner writes it.

pub mod emoji;

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId};
use serde_json::Value;

use crate::emoji::Emoji;

/// Discord's message flag SUPPRESS_EMBEDS (`1 << 2`): no link preview is built for the message,
/// so Discord's preview fetcher never requests a URL in it.
pub const SUPPRESS_EMBEDS: u64 = 1 << 2;

/// One message to post.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingMessage {
    pub channel_id: ChannelId,
    pub content: String,
    /// Post it as a reply to this message (which must still exist).
    pub reply_to_message_id: Option<MessageId>,
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
    pub message_id: MessageId,
    /// Why the store could not record Discord's answer, when it could not. Discord did act
    /// (the gateway's echo records it), so this is never a reason to ask again.
    pub unrecorded: Option<String>,
}

impl Delivered {
    /// Discord acted on `message_id`, and recording its answer went as `recorded` says.
    pub fn of(message_id: &MessageId, recorded: Result<()>) -> Delivered {
        Delivered {
            message_id: *message_id,
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
    pub channel_id: ChannelId,
    pub message_id: MessageId,
    /// The message's whole new content.
    pub content: String,
    /// Set [`SUPPRESS_EMBEDS`] on it: true unless the owner turned link previews on, so an
    /// edit cannot give a message posted before (or by other software) a preview.
    pub suppress_embeds: bool,
}

/// One of the bot's own messages, to delete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageToDelete {
    pub channel_id: ChannelId,
    pub message_id: MessageId,
}

/// The bot's own reaction on a message, to add or remove.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotReaction {
    pub channel_id: ChannelId,
    pub message_id: MessageId,
    pub emoji: Emoji,
}

/// Where an adapter records Discord's answers: the gateway's recorders, each for the answer to
/// one kind of request. The ingest crate's `sent::StoreRecorder` records them in the store; an
/// adapter (the Discord crate's REST sender, the playback crate's demo Discord) is built with
/// one and calls it after each request Discord did, so every adapter records alike and the
/// port names no store.
pub trait AnswerRecorder: Send + Sync {
    /// Records a created message (Discord's answer to a post).
    fn sent(&self, answer: &Value) -> Result<()>;
    /// Records an edited message (Discord's answer to an edit).
    fn edited(&self, answer: &Value) -> Result<()>;
    /// Records a deletion of `message_id` in `channel_id`.
    fn deleted(&self, channel_id: &ChannelId, message_id: &MessageId) -> Result<()>;
    /// Records the bot's reaction `emoji` (Discord's emoji object) on `message_id`, added or
    /// (`added` false) removed.
    fn reacted(
        &self,
        channel_id: &ChannelId,
        message_id: &MessageId,
        emoji: &Value,
        added: bool,
    ) -> Result<()>;
}

/// Acts on Discord as the bot. Each method is one request and no retry (the caller retries);
/// on success the implementation records Discord's answer through the [`AnswerRecorder`] it was
/// built with and says what it recorded, so the business layer never records anything itself.
pub trait DiscordSender: Send + Sync {
    /// `POST /channels/{channel_id}/messages` with `content`, `nonce`, `enforce_nonce: true`,
    /// `flags: SUPPRESS_EMBEDS` when asked, and for a reply `message_reference: {message_id,
    /// fail_if_not_exists: true}`. Records the message Discord created (the caller retries
    /// with the same nonce, so a repeat answers and records that same message).
    fn post_message<'a>(&'a self, message: &'a OutgoingMessage) -> Delivery<'a>;

    /// `PATCH /channels/{channel_id}/messages/{message_id}` with the new `content`, the same
    /// mention rules as a post and `flags: SUPPRESS_EMBEDS` when asked; records Discord's edited
    /// message as an edit.
    fn edit_message<'a>(&'a self, edit: &'a MessageEdit) -> Delivery<'a>;

    /// `DELETE /channels/{channel_id}/messages/{message_id}`; records the deletion. A message
    /// Discord no longer knows (404, Unknown Message) is already deleted: done, not a failure.
    fn delete_message<'a>(&'a self, target: &'a MessageToDelete) -> Delivery<'a>;

    /// `PUT` (`add`) or `DELETE` `/channels/{channel_id}/messages/{message_id}/reactions/
    /// {emoji}/@me`; records the bot's reaction added or removed.
    fn react<'a>(&'a self, reaction: &'a BotReaction, add: bool) -> Delivery<'a>;
}
