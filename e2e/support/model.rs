//! The specs' own reading of the tools' results. Each type refuses fields it does not know
//! (`deny_unknown_fields`): when a reader gains a field, every spec decoding that reader fails
//! until the field is added here and asserted, so no field ships unpinned on a surface.
//! Instants stay text: a spec compares the product's exact spelling.

use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Message {
    pub message_id: String,
    pub channel_id: String,
    pub guild_id: Option<String>,
    pub author_id: String,
    pub author_name: String,
    pub content: String,
    pub created_at: String,
    pub sent_at: String,
    pub edited_at: Option<String>,
    pub deleted: bool,
    pub reply_to_message_id: Option<String>,
    pub reactions: Vec<Reaction>,
    pub mentions_owner: bool,
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
    pub channels: Vec<ChannelMessages>,
    pub skipped_channels: Vec<SkippedChannel>,
    pub watermark: String,
}

impl CaughtUp {
    /// The messages of one channel, in the order returned; empty if the channel is absent.
    pub fn messages_in(&self, channel_id: &str) -> Vec<&Message> {
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
    pub messages: Vec<Message>,
    pub more: bool,
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
    pub guild_id: Option<String>,
    pub name: String,
    pub kind: String,
    pub parent_id: Option<String>,
    pub readable: bool,
    pub unreadable_reason: Option<String>,
    pub newest_arrival: Option<String>,
    pub new_since: u64,
}

/// `mentions_list`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Mentions {
    pub mentions: Vec<Message>,
    pub more: bool,
}

/// One entry of `bookmarks_list`, and what `bookmarks_add` answers.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Bookmark {
    pub message_id: String,
    pub note: Option<String>,
    pub source: String,
    pub bookmarked_at: String,
    pub content_when_bookmarked: String,
    pub message: Message,
}

/// `bookmarks_list`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Bookmarks {
    pub bookmarks: Vec<Bookmark>,
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
    pub note: Option<String>,
    pub resolved_at: String,
    pub source: String,
}
