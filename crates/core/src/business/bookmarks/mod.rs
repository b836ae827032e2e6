//! The bookmarks toolset: the owner's bookmarks, keyed by message, surviving the message's
//! edits and deletion. Added (`bookmarks_add`, in [`add`]), listed (`bookmarks_list`, in
//! [`list`]) and resolved (`bookmarks_resolve`, in [`resolve`]); here, the bookmark they share,
//! with its page and its text.

pub mod add;
pub mod list;
pub mod resolve;

use discord_manager_store::{BookmarkEvent, MessageRecord, Reader};
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::MessageId;

use crate::answer::page::{Page, Render, excerpt, local};
use crate::answer::text::{ModelText, TextBlock};
use crate::business::OwnerContext;
use crate::business::kernel::model::{Message, Shaper};
use crate::business::kernel::presentation::{author_kind, text_flags};
use crate::business::kernel::untrusted::Text;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Bookmark {
    pub message_id: MessageId,
    /// The owner's note; absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<Text>,
    /// Where it was bookmarked from: `cli` or `mcp`.
    pub source: String,
    pub bookmarked_at: Instant,
    pub content_when_bookmarked: Text,
    /// The message as it is now.
    pub message: Message,
    /// When it is due; absent when it has no due time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due_at: Option<Instant>,
    /// Present (true) only when its due time has passed.
    #[serde(
        default,
        skip_serializing_if = "crate::business::kernel::model::is_false"
    )]
    pub overdue: bool,
}

/// The message, if it is stored and in the owner's scope.
fn message_in_scope(
    reader: &Reader<'_>,
    message_id: &MessageId,
    context: &OwnerContext,
) -> Result<MessageRecord> {
    match reader.message(message_id)? {
        Some(message) if context.in_scope(message.guild_id.as_ref()) => Ok(message),
        _ => Err(Error::not_found(format!(
            "`messageId`: no stored message has id {message_id}"
        ))),
    }
}

fn bookmark_view(
    event: BookmarkEvent,
    message: &MessageRecord,
    shaper: &Shaper,
    due_at: Option<Instant>,
    now: Instant,
) -> Bookmark {
    Bookmark {
        due_at,
        overdue: due_at.is_some_and(|due| due < now),
        message_id: event.message_id,
        note: event.note.map(Text::from),
        source: event.source,
        bookmarked_at: event.created_at,
        content_when_bookmarked: shaper.text(&event.content_when_bookmarked.unwrap_or_default()),
        message: shaper.message(message),
    }
}

/// Every open bookmark with its due time, if it has one.
pub(crate) fn open_bookmarks_due(
    reader: &Reader<'_>,
) -> Result<Vec<(BookmarkEvent, Option<Instant>)>> {
    let dues = reader.bookmark_due_times()?;
    // A due time set before the message was last bookmarked belonged to an earlier bookmark
    // of it.
    Ok(reader
        .open_bookmarks()?
        .into_iter()
        .map(|event| {
            let due = dues
                .get(&event.message_id)
                .filter(|(_, set)| *set >= event.created_at)
                .map(|(due, _)| *due);
            (event, due)
        })
        .collect())
}

impl Render for Bookmark {
    fn render(&self) -> Page {
        format!(
            "Bookmarked message {}: {}\n",
            self.message_id,
            excerpt(&self.content_when_bookmarked, 72)
        )
        .into()
    }
}

/// When a bookmark is due, as a person reads it: empty without a due time.
pub(crate) fn due(bookmark: &Bookmark) -> String {
    match (bookmark.due_at, bookmark.overdue) {
        (Some(due), true) => format!("OVERDUE {}", local(due)),
        (Some(due), false) => local(due),
        (None, _) => String::new(),
    }
}

pub(crate) fn bookmark_line(text: &mut TextBlock, bookmark: &Bookmark) -> String {
    let message = &bookmark.message;
    let mut line = format!(
        "- msg {} ({}) in {} (channel {}) by {} ({} {}), bookmarked {} from {}: {}",
        bookmark.message_id,
        message.body.link,
        text.data(&format!("#{}", message.channel_name)),
        message.channel_id,
        text.data(&message.body.author_name),
        author_kind(message.body.author_kind),
        message.body.author_id,
        bookmark.bookmarked_at,
        bookmark.source,
        text.data(&bookmark.content_when_bookmarked)
    );
    line.push_str(&text_flags(text, &message.body));
    match (bookmark.due_at, bookmark.overdue) {
        (Some(due), true) => {
            let _ = write!(line, " [OVERDUE: was due {due}]");
        }
        (Some(due), false) => {
            let _ = write!(line, " [due {due}]");
        }
        _ => {}
    }
    if let Some(note) = &bookmark.note {
        let _ = write!(line, " — note: {}", text.data(note));
    }
    if message.body.deleted {
        line.push_str(" [deleted since]");
    } else if message.body.content != bookmark.content_when_bookmarked {
        let _ = write!(
            line,
            " [edited since, now: {}]",
            text.data(&message.body.content)
        );
    }
    line
}

impl ModelText for Bookmark {
    fn write_text(&self, text: &mut TextBlock) {
        text.line("Bookmarked:");
        let line = bookmark_line(text, self);
        text.line(&line);
    }
}

#[cfg(test)]
mod tests;
