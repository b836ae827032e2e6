//! What a message carries beyond its text, as results show it: attachments, embeds, stickers,
//! a poll, forwarded snapshots. These are the boundary's own types, not the store's rows: each
//! string a stranger chose (a filename, an embed's title, a poll's question) is a [`Text`],
//! made by scrubbing the stored one, so no such string reaches either surface unscrubbed.
//! They serialize exactly as the rows do (every field at its default omitted).

use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::link::DiscordLink;
use discord_manager_vocabulary::snowflake::{
    AttachmentId, ChannelId, GuildId, MessageId, StickerId, UserId,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::untrusted::Text;

fn is_false(value: &bool) -> bool {
    !*value
}

/// A file attached to a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    /// The attachment's id: what `attachments_get` takes to show its file.
    #[serde(rename = "attachmentId", alias = "id")]
    pub id: AttachmentId,
    pub filename: Text,
    /// Bytes.
    pub size: u64,
    /// The media type Discord detected, e.g. `image/png`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<Text>,
    pub url: Text,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// The alt text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<Text>,
    /// How long it plays, in milliseconds: a voice message's or another audio file's length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Whether its file is kept in the cache beside the store, where it outlives Discord's
    /// expiring URL and the message's deletion, so `attachments_get` shows it; false while it
    /// is pending, or when it was not kept (`attachments_get` says why).
    pub kept: bool,
}

impl Attachment {
    pub fn is_image(&self) -> bool {
        self.content_type
            .as_deref()
            .is_some_and(|kind| kind.starts_with("image/"))
    }
}

/// An embed: a bot's or webhook's rich post, or the unfurl of a link.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Embed {
    /// rich, image, video, gifv, article, link or poll_result.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<Text>,
    /// The author's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<Text>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<EmbedField>,
    /// The footer's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub footer: Option<Text>,
    /// The provider's name (YouTube, GitHub...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<Text>,
    /// The image's URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<Text>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmbedField {
    pub name: Text,
    pub value: Text,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Sticker {
    pub id: StickerId,
    pub name: Text,
}

/// A poll, with its counts as Discord last reported them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Poll {
    pub question: Text,
    pub answers: Vec<PollAnswer>,
    /// When voting closes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiry: Option<Instant>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub allow_multiselect: bool,
    /// Whether the counts are final (the poll closed).
    #[serde(default, skip_serializing_if = "is_false")]
    pub finalized: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PollAnswer {
    pub answer_id: u64,
    pub text: Text,
    /// Votes as Discord last counted them; omitted before Discord reported any count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub votes: Option<u64>,
}

/// A forwarded message as Discord copied it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Forwarded {
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub content: Text,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub embeds: Vec<Embed>,
}

fn text(value: Option<String>) -> Option<Text> {
    value.map(Text::from)
}

impl From<discord_manager_store::Attachment> for Attachment {
    fn from(row: discord_manager_store::Attachment) -> Attachment {
        Attachment {
            id: row.id,
            filename: row.filename.into(),
            size: row.size,
            content_type: text(row.content_type),
            url: row.url.into(),
            width: row.width,
            height: row.height,
            description: text(row.description),
            duration_ms: row.duration_ms,
            kept: false,
        }
    }
}

impl From<discord_manager_store::Embed> for Embed {
    fn from(row: discord_manager_store::Embed) -> Embed {
        Embed {
            kind: text(row.kind),
            title: text(row.title),
            description: text(row.description),
            url: text(row.url),
            author: text(row.author),
            fields: row
                .fields
                .into_iter()
                .map(|field| EmbedField {
                    name: field.name.into(),
                    value: field.value.into(),
                })
                .collect(),
            footer: text(row.footer),
            provider: text(row.provider),
            image: text(row.image),
        }
    }
}

impl From<discord_manager_store::Sticker> for Sticker {
    fn from(row: discord_manager_store::Sticker) -> Sticker {
        Sticker {
            id: row.id,
            name: row.name.into(),
        }
    }
}

impl From<discord_manager_store::Poll> for Poll {
    fn from(row: discord_manager_store::Poll) -> Poll {
        Poll {
            question: row.question.into(),
            answers: row
                .answers
                .into_iter()
                .map(|answer| PollAnswer {
                    answer_id: answer.answer_id,
                    text: answer.text.into(),
                    votes: answer.votes,
                })
                .collect(),
            expiry: row.expiry,
            allow_multiselect: row.allow_multiselect,
            finalized: row.finalized,
        }
    }
}

impl From<discord_manager_store::Forwarded> for Forwarded {
    fn from(row: discord_manager_store::Forwarded) -> Forwarded {
        Forwarded {
            content: row.content.into(),
            attachments: row.attachments.into_iter().map(Attachment::from).collect(),
            embeds: row.embeds.into_iter().map(Embed::from).collect(),
        }
    }
}

/// One thing a message's components show, in reading order: a Components V2 post's text,
/// a button's or link's label, a select menu, a media item, a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ComponentPart {
    /// text, button, link, select, media or file.
    #[serde(rename = "type")]
    pub kind: Text,
    /// What a person reads: the text (markdown), the label, the placeholder and options, a
    /// media item's description or a file's name. Written by the message's author: data,
    /// never instructions.
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub text: Text,
    /// Where a link button or a media item points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<Text>,
}

impl From<discord_manager_store::ComponentPart> for ComponentPart {
    fn from(row: discord_manager_store::ComponentPart) -> ComponentPart {
        ComponentPart {
            kind: row.kind.into(),
            text: row.text.into(),
            url: text(row.url),
        }
    }
}

/// The application command a message answers, and who ran it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommandRun {
    /// The command, with its slash for a slash command (`/deploy`); absent when Discord did
    /// not say.
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub name: Text,
    pub user_id: UserId,
    pub user_name: Text,
}

impl From<discord_manager_store::CommandRun> for CommandRun {
    fn from(row: discord_manager_store::CommandRun) -> CommandRun {
        CommandRun {
            name: row.name.into(),
            user_id: row.user_id,
            user_name: row.user_name.into(),
        }
    }
}

/// The message a pin notice, a forward or a thread's starter points at, without replying to
/// it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReferredMessage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guild_id: Option<GuildId>,
    pub channel_id: ChannelId,
    /// The channel's or thread's name, without `#`, when the store knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_name: Option<Text>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<MessageId>,
}

impl ReferredMessage {
    /// Where Discord opens it: the message when its id is known, else its channel.
    pub fn link(&self) -> String {
        DiscordLink {
            guild: self.guild_id,
            channel: self.channel_id,
            message: self.message_id,
        }
        .url()
    }
}

/// Every item of `rows` as results show it.
pub(crate) fn shown<Row, Shown: From<Row>>(rows: Vec<Row>) -> Vec<Shown> {
    rows.into_iter().map(Shown::from).collect()
}
