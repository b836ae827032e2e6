//! The specs' own reading of the tools' results. Each type refuses fields it does not know
//! (`deny_unknown_fields`): when a reader gains a field, every spec decoding that reader fails
//! until the field is added here and asserted, so no field ships unpinned on a surface.
//! Instants stay text: a spec compares the product's exact spelling.

use serde::Deserialize;

/// A message where a result spans channels (mentions, search, bookmarks, a sent message).
/// Fields at their default may be absent (`#[serde(default)]`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Message {
    pub channel_id: String,
    pub channel_name: String,
    #[serde(default)]
    pub guild_id: Option<String>,
    pub message_id: String,
    /// Where Discord opens it: `https://discord.com/channels/<server or @me>/<channel>/<message>`.
    pub link: String,
    pub author_id: String,
    pub author_name: String,
    pub content: String,
    pub created_at: String,
    pub sent_at: String,
    #[serde(default)]
    pub edited_at: Option<String>,
    #[serde(default)]
    pub deleted: bool,
    #[serde(default)]
    pub reply_to_message_id: Option<String>,
    #[serde(default)]
    pub reactions: Vec<Reaction>,
    #[serde(default)]
    pub mentions_owner: bool,
    /// `owner`, `thisBot`, `bot`, `webhook` or `person`.
    pub author_kind: String,
    /// Absent when empty (as are the embeds, stickers, poll, forwards and pinned).
    #[serde(default)]
    pub attachments: Vec<Attachment>,
    #[serde(default)]
    pub embeds: Vec<Embed>,
    #[serde(default)]
    pub stickers: Vec<Sticker>,
    #[serde(default)]
    pub poll: Option<serde_json::Value>,
    #[serde(default)]
    pub forwarded: Vec<serde_json::Value>,
    #[serde(default)]
    pub pinned: bool,
    /// What happened, for a notice Discord wrote itself.
    #[serde(default)]
    pub event: Option<String>,
    #[serde(default)]
    pub components: Vec<serde_json::Value>,
    #[serde(default)]
    pub command: Option<serde_json::Value>,
    #[serde(default)]
    pub refers_to: Option<serde_json::Value>,
    #[serde(default)]
    pub voice_message: bool,
}

/// A message inside a group that states its channel (a catch-up page, a digest's channel).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PageMessage {
    pub message_id: String,
    /// Where Discord opens it: `https://discord.com/channels/<server or @me>/<channel>/<message>`.
    pub link: String,
    pub author_id: String,
    pub author_name: String,
    pub content: String,
    pub created_at: String,
    pub sent_at: String,
    #[serde(default)]
    pub edited_at: Option<String>,
    #[serde(default)]
    pub deleted: bool,
    #[serde(default)]
    pub reply_to_message_id: Option<String>,
    #[serde(default)]
    pub reactions: Vec<Reaction>,
    #[serde(default)]
    pub mentions_owner: bool,
    /// `owner`, `thisBot`, `bot`, `webhook` or `person`.
    pub author_kind: String,
    /// Absent when empty (as are the embeds, stickers, poll, forwards and pinned).
    #[serde(default)]
    pub attachments: Vec<Attachment>,
    #[serde(default)]
    pub embeds: Vec<Embed>,
    #[serde(default)]
    pub stickers: Vec<Sticker>,
    #[serde(default)]
    pub poll: Option<serde_json::Value>,
    #[serde(default)]
    pub forwarded: Vec<serde_json::Value>,
    #[serde(default)]
    pub pinned: bool,
    #[serde(default)]
    pub event: Option<String>,
    #[serde(default)]
    pub components: Vec<serde_json::Value>,
    #[serde(default)]
    pub command: Option<serde_json::Value>,
    #[serde(default)]
    pub refers_to: Option<serde_json::Value>,
    #[serde(default)]
    pub voice_message: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Attachment {
    #[serde(rename = "attachmentId")]
    pub id: String,
    pub filename: String,
    pub size: u64,
    pub content_type: Option<String>,
    pub url: String,
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub description: Option<String>,
    #[serde(default)]
    pub duration_ms: Option<u64>,
    pub kept: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Embed {
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    pub url: Option<String>,
    pub author: Option<String>,
    #[serde(default)]
    pub fields: Vec<EmbedField>,
    pub footer: Option<String>,
    pub provider: Option<String>,
    pub image: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EmbedField {
    pub name: String,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Sticker {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Reaction {
    pub emoji: String,
    pub count: u64,
}

/// `messages_catch_up`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CaughtUp {
    pub since: String,
    pub channels: Vec<ChannelMessages>,
    pub overview: Vec<ChannelNews>,
    #[serde(default)]
    pub overview_left_out: u64,
    #[serde(default)]
    pub skipped_channels: Vec<SkippedChannel>,
    #[serde(default)]
    pub skipped_left_out: u64,
    #[serde(default)]
    pub remaining: u64,
    #[serde(default)]
    pub next_cursor: Option<String>,
    pub watermark: String,
}

impl CaughtUp {
    /// The messages of one channel, in the order returned; empty if the channel is absent.
    pub fn messages_in(&self, channel_id: &str) -> Vec<&PageMessage> {
        self.channels
            .iter()
            .filter(|channel| channel.channel_id == channel_id)
            .flat_map(|channel| &channel.messages)
            .collect()
    }

    /// The ids of one channel's messages, in the order returned; empty if the channel is absent.
    pub fn ids_in(&self, channel_id: &str) -> Vec<&str> {
        self.messages_in(channel_id)
            .into_iter()
            .map(|message| message.message_id.as_str())
            .collect()
    }

    /// The page of one channel; fails the spec if the channel is not listed.
    pub fn channel(&self, channel_id: &str) -> &ChannelMessages {
        self.channels
            .iter()
            .find(|channel| channel.channel_id == channel_id)
            .unwrap_or_else(|| panic!("channel {channel_id} is listed: {self:#?}"))
    }

    /// Every returned message id, channel by channel.
    pub fn message_ids(&self) -> Vec<&str> {
        self.channels
            .iter()
            .flat_map(|channel| &channel.messages)
            .map(|message| message.message_id.as_str())
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ChannelMessages {
    pub channel_id: String,
    pub channel_name: String,
    #[serde(default)]
    pub guild_id: Option<String>,
    pub messages: Vec<PageMessage>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ChannelNews {
    pub channel_id: String,
    pub channel_name: String,
    pub messages: u64,
    #[serde(default)]
    pub remaining: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SkippedChannel {
    pub channel_id: String,
    pub channel_name: String,
    pub reason: String,
}

/// `channels_list`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ChannelList {
    pub since: String,
    pub channels: Vec<ChannelSummary>,
    #[serde(default)]
    pub next_cursor: Option<String>,
}

impl ChannelList {
    /// The one summary of `channel_id`; fails the spec if it is missing or repeated.
    pub fn channel(&self, channel_id: &str) -> &ChannelSummary {
        let found: Vec<&ChannelSummary> = self
            .channels
            .iter()
            .filter(|channel| channel.channel_id == channel_id)
            .collect();
        assert_eq!(
            found.len(),
            1,
            "channel {channel_id} is listed once: {self:#?}"
        );
        found[0]
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ChannelSummary {
    pub channel_id: String,
    #[serde(default)]
    pub guild_id: Option<String>,
    pub name: String,
    pub kind: String,
    #[serde(default)]
    pub parent_id: Option<String>,
    pub readable: bool,
    #[serde(default)]
    pub unreadable_reason: Option<String>,
    #[serde(default)]
    pub newest_arrival: Option<String>,
    #[serde(default)]
    pub new_since: u64,
    /// A forum's tags or a forum post's; absent when none.
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub read_through: Option<String>,
    #[serde(default)]
    pub unread: u64,
    /// A channel repeated from the previous page to go on with its threads.
    #[serde(default)]
    pub continued: bool,
    /// Its threads or forum posts on this page; absent when none.
    #[serde(default)]
    pub threads: Vec<ThreadSummary>,
}

/// A thread or forum post in `channels_list`, under its channel.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ThreadSummary {
    pub channel_id: String,
    pub name: String,
    pub kind: String,
    pub readable: bool,
    #[serde(default)]
    pub unreadable_reason: Option<String>,
    #[serde(default)]
    pub newest_arrival: Option<String>,
    #[serde(default)]
    pub new_since: u64,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub read_through: Option<String>,
    #[serde(default)]
    pub unread: u64,
}

/// `channels_mark_read`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MarkedRead {
    pub through: String,
    pub channels: Vec<MarkedChannel>,
    #[serde(default)]
    pub channels_left_out: u64,
    pub source: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MarkedChannel {
    pub channel_id: String,
    pub channel_name: String,
}

/// A mention: the message's fields (as [`Message`]; serde cannot flatten under
/// `deny_unknown_fields`), and why it closed.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Mention {
    pub channel_id: String,
    pub channel_name: String,
    #[serde(default)]
    pub guild_id: Option<String>,
    pub message_id: String,
    /// Where Discord opens it: `https://discord.com/channels/<server or @me>/<channel>/<message>`.
    pub link: String,
    pub author_id: String,
    pub author_name: String,
    pub content: String,
    pub created_at: String,
    pub sent_at: String,
    #[serde(default)]
    pub edited_at: Option<String>,
    #[serde(default)]
    pub deleted: bool,
    #[serde(default)]
    pub reply_to_message_id: Option<String>,
    #[serde(default)]
    pub reactions: Vec<Reaction>,
    #[serde(default)]
    pub mentions_owner: bool,
    pub author_kind: String,
    /// `dismissed`, `replied`, `reacted` or `wroteAfter`; absent while it awaits a reply.
    #[serde(default)]
    pub closed: Option<String>,
}

/// `mentions_dismiss`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DismissedMention {
    pub mention: Mention,
    #[serde(default)]
    pub note: Option<String>,
    pub dismissed_at: String,
    pub source: String,
}

/// `mentions_list` and `mentions_awaiting_reply`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Mentions {
    pub mentions: Vec<Mention>,
    #[serde(default)]
    pub next_cursor: Option<String>,
}

/// One entry of `bookmarks_list`, and what `bookmarks_add` answers.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Bookmark {
    pub message_id: String,
    #[serde(default)]
    pub note: Option<String>,
    pub source: String,
    pub bookmarked_at: String,
    pub content_when_bookmarked: String,
    pub message: Message,
    #[serde(default)]
    pub due_at: Option<String>,
    #[serde(default)]
    pub overdue: bool,
}

/// `bookmarks_list`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Bookmarks {
    pub bookmarks: Vec<Bookmark>,
    #[serde(default)]
    pub next_cursor: Option<String>,
}

impl Bookmarks {
    /// The open bookmarks of `message_id` (a message has at most one).
    pub fn of(&self, message_id: &str) -> Vec<&Bookmark> {
        self.bookmarks
            .iter()
            .filter(|bookmark| bookmark.message_id == message_id)
            .collect()
    }
}

/// `bookmarks_resolve`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResolvedBookmark {
    pub message_id: String,
    #[serde(default)]
    pub note: Option<String>,
    pub resolved_at: String,
    pub source: String,
}

/// `activity_wait`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Activity {
    pub total: u64,
    pub channels: Vec<ChannelActivity>,
    #[serde(default)]
    pub channels_left_out: u64,
    pub cutoff: String,
}

impl Activity {
    /// The counts of `channel_id`; fails the spec if the channel is not listed exactly once.
    pub fn channel(&self, channel_id: &str) -> &ChannelActivity {
        let found: Vec<&ChannelActivity> = self
            .channels
            .iter()
            .filter(|channel| channel.channel_id == channel_id)
            .collect();
        assert_eq!(
            found.len(),
            1,
            "channel {channel_id} is listed once: {self:#?}"
        );
        found[0]
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ChannelActivity {
    pub channel_id: String,
    pub channel_name: String,
    #[serde(default)]
    pub messages: u64,
    #[serde(default)]
    pub edits: u64,
    #[serde(default)]
    pub deletions: u64,
    #[serde(default)]
    pub reactions: u64,
}

/// `messages_history`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct History {
    pub channel_id: String,
    pub channel_name: String,
    pub messages: Vec<HistoryMessage>,
    #[serde(default)]
    pub older_cursor: Option<String>,
    #[serde(default)]
    pub newer_cursor: Option<String>,
}

impl History {
    /// The ids of the page's messages, in the order returned.
    pub fn ids(&self) -> Vec<&str> {
        self.messages
            .iter()
            .map(|message| message.message_id.as_str())
            .collect()
    }

    /// The one message of the page with this id; fails the spec if it is missing.
    pub fn message(&self, message_id: &str) -> &HistoryMessage {
        self.messages
            .iter()
            .find(|message| message.message_id == message_id)
            .unwrap_or_else(|| panic!("message {message_id} is on the page: {self:#?}"))
    }
}

/// A message as `messages_history` shows it: every field of [`PageMessage`], and its history.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HistoryMessage {
    pub message_id: String,
    /// Where Discord opens it: `https://discord.com/channels/<server or @me>/<channel>/<message>`.
    pub link: String,
    pub author_id: String,
    pub author_name: String,
    pub content: String,
    pub created_at: String,
    pub sent_at: String,
    #[serde(default)]
    pub edited_at: Option<String>,
    #[serde(default)]
    pub deleted: bool,
    #[serde(default)]
    pub reply_to_message_id: Option<String>,
    #[serde(default)]
    pub reactions: Vec<Reaction>,
    #[serde(default)]
    pub mentions_owner: bool,
    pub author_kind: String,
    /// Absent when empty (as are the embeds, stickers, poll, forwards and pinned).
    #[serde(default)]
    pub attachments: Vec<Attachment>,
    #[serde(default)]
    pub embeds: Vec<Embed>,
    #[serde(default)]
    pub stickers: Vec<Sticker>,
    #[serde(default)]
    pub poll: Option<serde_json::Value>,
    #[serde(default)]
    pub forwarded: Vec<serde_json::Value>,
    #[serde(default)]
    pub pinned: bool,
    /// Absent when never edited: it is `content`.
    #[serde(default)]
    pub original_content: Option<String>,
    #[serde(default)]
    pub edits: Vec<Edit>,
    #[serde(default)]
    pub deleted_at: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Edit {
    pub content: String,
    pub edited_at: String,
    pub created_at: String,
}

/// `messages_search`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SearchResults {
    pub query: String,
    pub results: Vec<SearchResult>,
    #[serde(default)]
    pub next_cursor: Option<String>,
}

impl SearchResults {
    /// The ids of the messages found, sorted (for filters, where the rank order is not the point).
    pub fn sorted_ids(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = self
            .results
            .iter()
            .map(|result| result.message.message_id.as_str())
            .collect();
        ids.sort();
        ids
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SearchResult {
    pub snippet: String,
    /// Why it was found: `words`, `meaning` or `both`.
    pub matched_by: String,
    #[serde(default)]
    pub in_attachment: Option<MatchedAttachment>,
    pub message: Message,
}

/// `messages_search`'s attached text file a hit was in.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MatchedAttachment {
    pub attachment_id: String,
    pub filename: String,
}

/// `activity_digest`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Digest {
    pub since: String,
    pub until: String,
    pub total_messages: u64,
    pub channels: Vec<ChannelDigest>,
    #[serde(default)]
    pub channels_left_out: u64,
    pub unanswered_mentions: Vec<Message>,
    #[serde(default)]
    pub more_unanswered_mentions: bool,
    pub open_bookmarks: Vec<Bookmark>,
    #[serde(default)]
    pub more_open_bookmarks: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ChannelDigest {
    pub channel_id: String,
    pub channel_name: String,
    pub messages: u64,
    pub top_authors: Vec<AuthorActivity>,
    #[serde(default)]
    pub most_reacted: Vec<PageMessage>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AuthorActivity {
    pub author_id: String,
    pub author_name: String,
    pub messages: u64,
}

/// What `schedules_add` and `schedules_cancel` answer, and one entry of `schedules_list`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Schedule {
    pub schedule_id: i64,
    pub status: String,
    pub channel_id: String,
    pub channel_name: String,
    pub content: String,
    #[serde(default)]
    pub reply_to_message_id: Option<String>,
    pub send_at: String,
    pub created_at: String,
    pub source: String,
    pub attempts: u32,
    #[serde(default)]
    pub message_id: Option<String>,
    #[serde(default)]
    pub finished_at: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
}

/// `schedules_list`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Schedules {
    pub schedules: Vec<Schedule>,
    #[serde(default)]
    pub next_cursor: Option<String>,
}

impl Schedules {
    /// The entries of `schedule_id` (at most one).
    pub fn of(&self, schedule_id: i64) -> Vec<&Schedule> {
        self.schedules
            .iter()
            .filter(|schedule| schedule.schedule_id == schedule_id)
            .collect()
    }
}
