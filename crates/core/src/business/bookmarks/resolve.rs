//! `bookmarks_resolve`: closes a message's open bookmark; its input, its answer, the function,
//! its examples, and the answer as a page and as a model's text.

use discord_manager_store::{BookmarkKind, Store};
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use std::fmt::Write as _;

use crate::answer::page::{Page, Render};
use crate::answer::text::{ModelText, TextBlock};
use crate::business::OwnerContext;
use crate::business::kernel::examples::{Examples, Sample, demo};
use crate::business::kernel::untrusted::{Text, scrubbed};
use discord_manager_vocabulary::snowflake::MessageId;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Resolve (close) the open bookmark of a message; it leaves `bookmarks_list` and the store
/// keeps the record of when and from where it was resolved.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ResolveBookmark {
    /// The bookmarked message.
    pub message_id: MessageId,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedBookmark {
    pub message_id: MessageId,
    /// The note it had; absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<Text>,
    pub resolved_at: Instant,
    /// Where it was resolved from: `cli` or `mcp`.
    pub source: String,
}

pub fn resolve_bookmark(
    store: &Store,
    input: ResolveBookmark,
    context: &OwnerContext,
) -> Result<ResolvedBookmark> {
    store.write(|writer| {
        let latest = writer.reader().latest_bookmark_event(&input.message_id)?;
        let note = match latest {
            None => {
                return Err(Error::not_found(format!(
                    "`messageId`: message {} has no bookmark",
                    input.message_id
                )));
            }
            Some(event) if event.kind == BookmarkKind::Resolved => {
                return Err(Error::conflict("That bookmark is already resolved"));
            }
            Some(event) => event.note.map(scrubbed),
        };
        let event = writer.append_bookmark_event(
            &input.message_id,
            BookmarkKind::Resolved,
            note.as_deref(),
            None,
            context.source.as_str(),
        )?;
        Ok(ResolvedBookmark {
            message_id: event.message_id,
            note: note.map(Text::from),
            resolved_at: event.created_at,
            source: event.source,
        })
    })
}

/// What [`resolve_bookmark`] is shown with: the bookmark its `add_bookmark` example made.
pub(crate) fn resolve_bookmark_examples(sample: &Sample) -> Examples {
    Examples {
        default: Some(json!({"messageId": sample.message})),
        largest: Vec::new(),
        demo: vec![json!({"messageId": demo::MARGARETS_QUESTION})],
    }
}

impl Render for ResolvedBookmark {
    fn render(&self) -> Page {
        format!(
            "Resolved the bookmark of message {} at {}\n",
            self.message_id, self.resolved_at
        )
        .into()
    }
}

impl ModelText for ResolvedBookmark {
    fn write_text(&self, text: &mut TextBlock) {
        let _ = writeln!(
            text,
            "Resolved the bookmark of msg {} at {} (from {}).",
            self.message_id, self.resolved_at, self.source
        );
    }
}
