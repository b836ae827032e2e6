//! `bookmarks_add`: bookmarks a stored message, with a note and a due time; its input, the
//! function and its examples. Its answer is the bookmark.

use discord_manager_store::{BookmarkKind, Store};
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::MessageId;

use crate::business::OwnerContext;
use crate::business::bookmarks::{Bookmark, bookmark_view, message_in_scope};
use crate::business::kernel::examples::{Examples, Sample, demo, from_now, long_text};
use crate::business::kernel::model::Shaper;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// Bookmark a stored message, with an optional note, to come back to it later with
/// `bookmarks_list`. The message's content at this moment is kept with the bookmark, so later
/// edits or a deletion do not lose what was bookmarked. A message has at most one open bookmark:
/// on a message already bookmarked, give only `dueAt` to change when it is due ("remind me
/// Friday"), which is recorded as a new event.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AddBookmark {
    /// The message to bookmark.
    pub message_id: MessageId,
    /// Why it matters; up to 1000 characters. Default: no note.
    #[schemars(length(max = 1000))]
    pub note: Option<String>,
    /// When to come back to it; `bookmarks_list` and `activity_digest` show due bookmarks first
    /// and mark those past it as overdue. Default: no due time.
    pub due_at: Option<Instant>,
}

pub fn add_bookmark(store: &Store, input: AddBookmark, context: &OwnerContext) -> Result<Bookmark> {
    let now = Instant::now();
    store.write(|writer| {
        let (message, open) = {
            let reader = writer.reader();
            let message = message_in_scope(&reader, &input.message_id, context)?;
            let open = reader
                .latest_bookmark_event(&input.message_id)?
                .filter(|event| event.kind == BookmarkKind::Added);
            (message, open)
        };
        let event = match (open, input.due_at, &input.note) {
            // Already bookmarked: only its due time changes, as a new event.
            (Some(event), Some(_), None) => event,
            (Some(_), Some(_), Some(_)) => {
                return Err(Error::conflict(
                    "That message is already bookmarked: give only `dueAt` to change when it is due",
                ));
            }
            (Some(_), None, _) => {
                return Err(Error::conflict("That message is already bookmarked"));
            }
            (None, _, _) => writer.append_bookmark_event(
                &message.message_id,
                BookmarkKind::Added,
                input.note.as_deref(),
                Some(message.current_content()),
                context.source.as_str(),
            )?,
        };
        if let Some(due_at) = input.due_at {
            writer.append_bookmark_due(&message.message_id, due_at, context.source.as_str())?;
        }
        let shaper = Shaper::new(&writer.reader(), context, [&message])?;
        Ok(bookmark_view(event, &message, &shaper, input.due_at, now))
    })
}

/// What [`add_bookmark`] is shown with: a message can be bookmarked once, so its only call on
/// a generated store carries the longest note and a due date.
pub(crate) fn add_bookmark_examples(sample: &Sample) -> Examples {
    Examples {
        default: None,
        largest: vec![json!({"messageId": sample.message, "note": long_text(1000),
                             "dueAt": from_now(3 * 86_400)})],
        demo: vec![json!({"messageId": demo::MARGARETS_QUESTION, "note": "answer Margaret"})],
    }
}
