//! The shapes every capability shares: Discord ids at the boundary, and the message as any
//! result shows it. Field names are camelCase on both surfaces.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize};

use super::untrusted::{scrub, scrubbed};
use crate::instant::Instant;
use crate::store::{MessageRecord, ReactionCount};

/// A Discord id (a snowflake), always written as a string of digits: JSON numbers cannot hold
/// every snowflake exactly.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct DiscordId(String);

impl DiscordId {
    pub fn parse(text: &str) -> Option<DiscordId> {
        let valid = !text.is_empty()
            && text.len() <= 20
            && text.bytes().all(|byte| byte.is_ascii_digit())
            && text.parse::<u64>().is_ok_and(|id| id > 0);
        valid.then(|| DiscordId(text.to_string()))
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for DiscordId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for DiscordId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = Cow::<str>::deserialize(deserializer)?;
        DiscordId::parse(&text).ok_or_else(|| serde::de::Error::custom("not a Discord id"))
    }
}

impl JsonSchema for DiscordId {
    fn schema_name() -> Cow<'static, str> {
        "DiscordId".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "pattern": "^[0-9]{1,20}$" })
    }
}

/// A reaction on a message: the emoji (a Unicode emoji, or `<:name:id>` for a custom one)
/// and how many users currently react with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Reaction {
    pub emoji: String,
    pub count: u64,
}

/// A message as any result shows it: its current content, with flags for what happened to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub message_id: String,
    pub channel_id: String,
    /// Null for a direct message.
    pub guild_id: Option<String>,
    pub author_id: String,
    pub author_name: String,
    /// The content as it is now (after the latest edit); kept even when the message was deleted.
    pub content: String,
    /// When the store recorded the message (the arrival clock that `since` compares against).
    pub created_at: Instant,
    /// Discord's own timestamp of the message.
    pub sent_at: Instant,
    /// Discord's timestamp of the latest edit; null if never edited.
    pub edited_at: Option<Instant>,
    pub deleted: bool,
    /// The message this one replies to; null if it is not a reply.
    pub reply_to_message_id: Option<String>,
    pub reactions: Vec<Reaction>,
    /// Whether the message mentions the owner: directly, through a role the owner holds,
    /// with @everyone or @here, or by replying to the owner.
    pub mentions_owner: bool,
    /// Who wrote it: `owner`, `thisBot` (this product's bot), `bot` (another bot or app),
    /// `webhook` (whatever name it shows, the owner's included) or `person`.
    pub author_kind: AuthorKind,
}

/// Who wrote a message, from what Discord says about its author rather than the name shown,
/// which a webhook picks freely.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum AuthorKind {
    /// The owner's own account.
    Owner,
    /// This product's bot (what the owner or an assistant sent through it).
    ThisBot,
    /// Another bot account or application.
    Bot,
    /// A webhook, whatever name and avatar it shows.
    Webhook,
    /// Anyone else: a person in a guild, or a stranger in a direct message.
    Person,
}

/// What the business layer knows of the owner when it shapes a message.
#[derive(Debug, Clone, Default)]
pub(crate) struct OwnerView {
    pub user_id: Option<String>,
    pub role_ids: Vec<String>,
    /// This product's bot user, as learned from Discord.
    pub bot_user_id: Option<String>,
}

impl OwnerView {
    /// Who wrote `message`. A webhook's message is a webhook's, checked first: its author id
    /// is the webhook's own, but its name may be anyone's, the owner's included.
    pub(crate) fn author_kind(&self, message: &MessageRecord) -> AuthorKind {
        let provenance = &message.provenance;
        if provenance.webhook_id.is_some() {
            return AuthorKind::Webhook;
        }
        if self.user_id.as_ref() == Some(&message.author_id) {
            return AuthorKind::Owner;
        }
        if self.bot_user_id.as_ref() == Some(&message.author_id) {
            return AuthorKind::ThisBot;
        }
        if provenance.author_bot == Some(true) || provenance.application_id.is_some() {
            return AuthorKind::Bot;
        }
        AuthorKind::Person
    }

    pub(crate) fn is_mentioned_by(&self, message: &MessageRecord) -> bool {
        let Some(owner) = &self.user_id else {
            return false;
        };
        if &message.author_id == owner {
            return false;
        }
        message.mention_everyone
            || message.mentioned_user_ids.contains(owner)
            || message.reply_to_author_id.as_ref() == Some(owner)
            || message
                .mentioned_role_ids
                .iter()
                .any(|role| self.role_ids.contains(role))
    }
}

impl Message {
    pub(crate) fn from_record(record: &MessageRecord, owner: &OwnerView) -> Message {
        Message {
            message_id: record.message_id.clone(),
            channel_id: record.channel_id.clone(),
            guild_id: record.guild_id.clone(),
            author_id: record.author_id.clone(),
            author_name: scrub(&record.author_name).into_owned(),
            content: scrub(record.current_content()).into_owned(),
            created_at: record.created_at,
            sent_at: record.sent_at,
            edited_at: record.edited_at(),
            deleted: record.deleted,
            reply_to_message_id: record.reply_to_message_id.clone(),
            reactions: record.reactions.iter().map(Reaction::from).collect(),
            mentions_owner: owner.is_mentioned_by(record),
            author_kind: owner.author_kind(record),
        }
    }
}

impl Message {
    /// [`Message::from_record`] taking the record, so its strings move instead of being
    /// copied: a catch-up shapes ~1,500 messages it has no further use for.
    pub(crate) fn from_owned_record(record: MessageRecord, owner: &OwnerView) -> Message {
        let mentions_owner = owner.is_mentioned_by(&record);
        let author_kind = owner.author_kind(&record);
        let edited_at = record.edited_at();
        let MessageRecord {
            message_id,
            channel_id,
            guild_id,
            author_id,
            author_name,
            original_content,
            created_at,
            sent_at,
            reply_to_message_id,
            mut edits,
            deleted,
            reactions,
            ..
        } = record;
        Message {
            message_id,
            channel_id,
            guild_id,
            author_id,
            author_name: scrubbed(author_name),
            content: scrubbed(edits.pop().map_or(original_content, |edit| edit.content)),
            created_at,
            sent_at,
            edited_at,
            deleted,
            reply_to_message_id,
            reactions: reactions
                .into_iter()
                .map(|count| Reaction {
                    emoji: count.emoji,
                    count: count.count,
                })
                .collect(),
            mentions_owner,
            author_kind,
        }
    }
}

impl From<&ReactionCount> for Reaction {
    fn from(count: &ReactionCount) -> Reaction {
        Reaction {
            emoji: count.emoji.clone(),
            count: count.count,
        }
    }
}

/// A point in a channel's history: a message id, or an instant (Discord's time of sending).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryPoint {
    Message(DiscordId),
    Instant(Instant),
}

impl<'de> Deserialize<'de> for HistoryPoint {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = Cow::<str>::deserialize(deserializer)?;
        DiscordId::parse(&text)
            .map(HistoryPoint::Message)
            .or_else(|| Instant::parse(&text).map(HistoryPoint::Instant))
            .ok_or_else(|| serde::de::Error::custom("not a message id or an instant"))
    }
}

impl JsonSchema for HistoryPoint {
    fn schema_name() -> Cow<'static, str> {
        "HistoryPoint".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "type": "string", "format": crate::business::input::MESSAGE_OR_INSTANT })
    }
}

/// One earlier or later version of a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Edit {
    /// The content after this edit.
    pub content: String,
    /// Discord's timestamp of the edit.
    pub edited_at: Instant,
    /// When the store recorded the edit.
    pub created_at: Instant,
}

/// A message with everything that happened to it: every version and the deletion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageWithHistory {
    #[serde(flatten)]
    pub message: Message,
    /// The content as first sent, before any edit.
    pub original_content: String,
    /// Every edit in Discord's order; empty if never edited.
    pub edits: Vec<Edit>,
    /// When the store recorded the deletion; null if not deleted.
    pub deleted_at: Option<Instant>,
}

impl MessageWithHistory {
    pub(crate) fn from_record(record: &MessageRecord, owner: &OwnerView) -> MessageWithHistory {
        MessageWithHistory {
            message: Message::from_record(record, owner),
            original_content: scrub(&record.original_content).into_owned(),
            edits: record
                .edits
                .iter()
                .map(|edit| Edit {
                    content: scrub(&edit.content).into_owned(),
                    edited_at: edit.edited_at,
                    created_at: edit.created_at,
                })
                .collect(),
            deleted_at: record.deleted_at,
        }
    }
}
