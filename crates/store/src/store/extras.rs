//! What Discord sends about a message beyond its text (attachments, embeds, stickers, a poll,
//! forwarded snapshots, type, flags, pinned state), kept append-only as one compact JSON row
//! per version (see `migrations/0009_message_extras.sql`), the words of it that search
//! indexes, and the poll votes the gateway delivers (`migrations/0011_poll_votes.sql`).
//!
//! The shapes here are the ones results show, so a row is read back and handed on without a
//! second model: every field at its default is omitted, in the store and in results alike.

use std::collections::HashMap;

use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{
    AttachmentId, ChannelId, GuildId, MessageId, StickerId, UserId,
};
use rusqlite::{OptionalExtension, named_params};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::text_index::IndexedText;
use super::{Reader, Writer};

fn is_zero(value: &u64) -> bool {
    *value == 0
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// Everything about a message beyond its text, author, time and reply target.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageExtras {
    /// Discord's message type; omitted for a default message or a reply (0 and 19: a reply
    /// shows `replyToMessageId`). E.g. 6 a pin notice, 7 a member joined, 46 a poll result.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub kind: u64,
    /// Discord's message flags (bits: 2 embeds suppressed, 5 has a thread, 13 voice message...;
    /// the bits the gateway library knows); omitted when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub flags: u64,
    /// Whether the message is pinned in its channel; omitted when not.
    #[serde(default, skip_serializing_if = "is_false")]
    pub pinned: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub embeds: Vec<Embed>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stickers: Vec<Sticker>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll: Option<Poll>,
    /// The message(s) this one forwards, as Discord copied them when it was forwarded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forwarded: Vec<Forwarded>,
    /// What its components show a person, in reading order: the text of a Components V2 post
    /// (every TextDisplay, Sections and Containers included), button and link labels, select
    /// menus, media and files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub components: Vec<ComponentPart>,
    /// The application command this message answers, and who ran it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandRun>,
    /// The message a pin notice, a forward, a thread's starter or a crosspost points at (a
    /// reply's target is `reply_to_message_id` instead): never an answer to its author.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refers_to: Option<ReferredMessage>,
}

/// One thing a message's components show, in reading order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ComponentPart {
    /// text (a TextDisplay's markdown), button, link (a button that opens `url`), select (a
    /// menu's placeholder and options), media (an image or video of a gallery or thumbnail)
    /// or file.
    #[serde(rename = "type")]
    pub kind: String,
    /// What a person reads: the text, the label, the placeholder and options, a media's
    /// description or a file's name.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Where a link button or a media item points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// The application command a message answers: `/deploy`, run by `user_name`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommandRun {
    /// The command as its user typed it, with its slash for a slash command (`/deploy`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    pub user_id: UserId,
    pub user_name: String,
}

/// The message another points at without replying to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReferredMessage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guild_id: Option<GuildId>,
    pub channel_id: ChannelId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<MessageId>,
}

/// A file attached to a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    pub id: AttachmentId,
    pub filename: String,
    /// Bytes.
    pub size: u64,
    /// The media type Discord detected, e.g. `image/png`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// The alt text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// How long a voice message or other audio plays, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
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
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The author's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<EmbedField>,
    /// The footer's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub footer: Option<String>,
    /// The provider's name (YouTube, GitHub...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The image's URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmbedField {
    pub name: String,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Sticker {
    pub id: StickerId,
    pub name: String,
}

/// A poll, with its counts as Discord last reported them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Poll {
    pub question: String,
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
    pub text: String,
    /// Votes as Discord last counted them; omitted before Discord reported any count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub votes: Option<u64>,
}

/// A forwarded message as Discord copied it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Forwarded {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub content: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub embeds: Vec<Embed>,
}

impl MessageExtras {
    /// Nothing beyond the text: such a message has no row.
    pub fn is_plain(&self) -> bool {
        *self == MessageExtras::default()
    }

    /// Whether the message shows an image: an image attachment, or an image embed.
    pub fn has_image(&self) -> bool {
        self.attachments.iter().any(Attachment::is_image)
            || self.embeds.iter().any(|embed| {
                embed.image.is_some() || matches!(embed.kind.as_deref(), Some("image" | "gifv"))
            })
    }

    /// The words search indexes besides the content: embed titles, descriptions, fields,
    /// authors and footers; attachment filenames and alt text; sticker names; the poll's
    /// question and answers; what a forwarded message said; what its components show (a
    /// Components V2 post's whole text); the command it answers.
    pub fn searchable_text(&self) -> String {
        let mut words: Vec<&str> = Vec::new();
        let embeds = self.embeds.iter().chain(
            self.forwarded
                .iter()
                .flat_map(|forwarded| &forwarded.embeds),
        );
        for embed in embeds {
            words.extend(
                [
                    &embed.title,
                    &embed.description,
                    &embed.author,
                    &embed.footer,
                ]
                .into_iter()
                .flatten()
                .map(String::as_str),
            );
            for field in &embed.fields {
                words.push(&field.name);
                words.push(&field.value);
            }
        }
        let attachments = self.attachments.iter().chain(
            self.forwarded
                .iter()
                .flat_map(|forwarded| &forwarded.attachments),
        );
        for attachment in attachments {
            words.push(&attachment.filename);
            words.extend(attachment.description.as_deref());
        }
        words.extend(self.stickers.iter().map(|sticker| sticker.name.as_str()));
        if let Some(poll) = &self.poll {
            words.push(&poll.question);
            words.extend(poll.answers.iter().map(|answer| answer.text.as_str()));
        }
        words.extend(
            self.forwarded
                .iter()
                .map(|forwarded| forwarded.content.as_str()),
        );
        words.extend(self.components.iter().map(|part| part.text.as_str()));
        if let Some(command) = &self.command {
            words.push(&command.name);
        }
        words.retain(|word| !word.trim().is_empty());
        words.join("\n")
    }
}

impl Reader<'_> {
    /// A message's extras as they are now; the default when it has none.
    pub fn message_extras(&self, message_id: &MessageId) -> Result<MessageExtras> {
        const CURRENT_EXTRAS: &str = "SELECT extras FROM message_extras
             WHERE message_id = :message_id ORDER BY seq DESC LIMIT 1";
        let text: Option<String> = self
            .connection
            .prepare_cached(CURRENT_EXTRAS)?
            .query_row(named_params! {":message_id": message_id}, |row| row.get(0))
            .optional()?;
        text.map_or(Ok(MessageExtras::default()), |text| parse_extras(&text))
    }

    /// The current extras of each message of `ids_json` (a JSON array of their ids) that has
    /// any, by message id.
    pub(super) fn extras_of(&self, ids_json: &str) -> Result<HashMap<MessageId, MessageExtras>> {
        const EXTRAS_OF_MESSAGES: &str = "SELECT x.message_id, x.extras
             FROM json_each(:message_ids) AS j JOIN message_extras AS x ON x.message_id = j.value
             ORDER BY x.seq";
        let mut statement = self.connection.prepare_cached(EXTRAS_OF_MESSAGES)?;
        let mut rows = statement.query(named_params! {":message_ids": ids_json})?;
        let mut found = HashMap::new();
        while let Some(row) = rows.next()? {
            let id: MessageId = row.get(0)?;
            let text: String = row.get(1)?;
            // Oldest first: the newest version is the one left in the map.
            found.insert(id, parse_extras(&text)?);
        }
        Ok(found)
    }
}

impl Reader<'_> {
    /// For each message of `ids_json` (a JSON array of their ids) with votes the gateway
    /// delivered: answer id → how many users' newest vote for it is cast.
    pub(super) fn poll_votes_of(
        &self,
        ids_json: &str,
    ) -> Result<HashMap<MessageId, HashMap<u64, u64>>> {
        const VOTES_CAST_PER_ANSWER: &str = "SELECT v.message_id, v.answer_id, count(*)
             FROM json_each(:message_ids) AS j
             JOIN poll_vote_events AS v ON v.message_id = j.value
             WHERE v.voted = 1
               AND v.seq = (SELECT max(w.seq) FROM poll_vote_events AS w
                            WHERE w.message_id = v.message_id AND w.user_id = v.user_id
                              AND w.answer_id = v.answer_id)
             GROUP BY v.message_id, v.answer_id";
        let mut statement = self.connection.prepare_cached(VOTES_CAST_PER_ANSWER)?;
        let mut rows = statement.query(named_params! {":message_ids": ids_json})?;
        let mut found: HashMap<MessageId, HashMap<u64, u64>> = HashMap::new();
        while let Some(row) = rows.next()? {
            let id: MessageId = row.get(0)?;
            let answer: i64 = row.get(1)?;
            let count: i64 = row.get(2)?;
            found
                .entry(id)
                .or_default()
                .insert(answer.max(0) as u64, count.max(0) as u64);
        }
        Ok(found)
    }

    /// Whether a user's vote for an answer is cast now, as far as the gateway told.
    fn poll_vote(
        &self,
        message_id: &MessageId,
        user_id: &UserId,
        answer_id: u64,
    ) -> Result<Option<bool>> {
        const NEWEST_VOTE: &str = "SELECT voted FROM poll_vote_events
             WHERE message_id = :message_id AND user_id = :user_id AND answer_id = :answer_id
             ORDER BY seq DESC LIMIT 1";
        Ok(self
            .connection
            .prepare_cached(NEWEST_VOTE)?
            .query_row(
                named_params! {
                    ":message_id": message_id,
                    ":user_id": user_id,
                    ":answer_id": answer_id as i64,
                },
                |row| row.get(0),
            )
            .optional()?)
    }
}

/// One change of a user's vote on a poll.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PollVote {
    pub message_id: MessageId,
    pub channel_id: ChannelId,
    pub user_id: UserId,
    pub answer_id: u64,
    /// true: cast; false: taken back.
    pub voted: bool,
}

impl Writer<'_> {
    /// Records a vote change unless the user's vote for that answer is already so (a replay).
    /// Returns whether a row was written.
    pub fn record_poll_vote(&mut self, vote: &PollVote) -> Result<bool> {
        let now = self
            .reader()
            .poll_vote(&vote.message_id, &vote.user_id, vote.answer_id)?;
        // Taking back a vote the store never saw cast changes no count: nothing to record.
        if now.unwrap_or(false) == vote.voted {
            return Ok(false);
        }
        const INSERT_POLL_VOTE_EVENT: &str = "INSERT INTO poll_vote_events
                 (created_at, message_id, channel_id, user_id, answer_id, voted)
             VALUES (:created_at, :message_id, :channel_id, :user_id, :answer_id, :voted)";
        let created_at = self.stamp();
        self.transaction
            .prepare_cached(INSERT_POLL_VOTE_EVENT)?
            .execute(named_params! {
                ":created_at": created_at,
                ":message_id": vote.message_id,
                ":channel_id": vote.channel_id,
                ":user_id": vote.user_id,
                ":answer_id": vote.answer_id as i64,
                ":voted": vote.voted,
            })?;
        Ok(true)
    }
}

fn parse_extras(text: &str) -> Result<MessageExtras> {
    serde_json::from_str(text).map_err(|error| {
        Error::internal(format!(
            "A message's stored attachments and embeds cannot be read back: {error}"
        ))
    })
}

impl Writer<'_> {
    /// Records a message's extras when they differ from what the store holds (nothing for a
    /// plain message never seen otherwise, nothing for a replay), and indexes their new words
    /// for search. Returns whether a row was written.
    pub fn record_extras(
        &mut self,
        message_id: &MessageId,
        channel_id: &ChannelId,
        extras: &MessageExtras,
    ) -> Result<bool> {
        // Each attachment as last seen, for the fetcher (a replay writes nothing), a forwarded
        // snapshot's too: the forward is often the only copy the bot can read.
        if !extras.attachments.is_empty() {
            self.record_attachments(message_id, channel_id, &extras.attachments)?;
        }
        for forwarded in &extras.forwarded {
            if !forwarded.attachments.is_empty() {
                self.record_attachments(message_id, channel_id, &forwarded.attachments)?;
            }
        }
        let current = self.reader().message_extras(message_id)?;
        if current == *extras {
            return Ok(false);
        }
        let json = serde_json::to_string(extras).map_err(|error| {
            Error::internal("Cannot encode a message's extras").with_source(error)
        })?;
        const INSERT_EXTRAS: &str = "INSERT INTO message_extras (created_at, message_id,
                 channel_id, extras)
             VALUES (:created_at, :message_id, :channel_id, :extras)";
        let created_at = self.stamp();
        self.transaction
            .prepare_cached(INSERT_EXTRAS)?
            .execute(named_params! {
                ":created_at": created_at,
                ":message_id": message_id,
                ":channel_id": channel_id,
                ":extras": json,
            })?;
        let words = extras.searchable_text();
        if words != current.searchable_text() {
            self.index_text(message_id, &words, IndexedText::Later)?;
        }
        Ok(true)
    }
}
