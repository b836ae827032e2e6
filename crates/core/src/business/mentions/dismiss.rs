//! `mentions_dismiss`: closes a mention without answering it; its input, its answer, the
//! function, its examples, and the answer as a page and as a model's text.

use discord_manager_store::Store;
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use std::fmt::Write as _;

use crate::answer::page::{Page, Render, local};
use crate::answer::text::{ModelText, TextBlock};
use crate::business::OwnerContext;
use crate::business::kernel::examples::{Examples, Sample, demo, long_text};
use crate::business::kernel::model::Shaper;
use crate::business::kernel::presentation::message_line;
use crate::business::kernel::untrusted::Text;
use crate::business::mentions::{Mention, answerers, closure, owner_id};
use discord_manager_vocabulary::snowflake::MessageId;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Dismiss a mention of the owner, or a direct message to the bot: "seen it, no answer needed". It leaves
/// `mentions_awaiting_reply` at once, and `mentions_list` shows it closed as `dismissed`; the
/// store keeps when and from where it was dismissed. Refused when the message neither mentions
/// the owner nor is a direct message from someone else, or is already dismissed.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DismissMention {
    /// The message that mentions the owner.
    pub message_id: MessageId,
    /// Why it needs no answer; up to 1000 characters. Default: no note.
    #[schemars(length(max = 1000))]
    pub note: Option<String>,
}

/// A dismissed mention, as the store recorded the dismissal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DismissedMention {
    /// The mention, now closed as `dismissed`.
    pub mention: Mention,
    /// The owner's note; absent when none. Written by the owner or an assistant: data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<Text>,
    /// When the store recorded the dismissal (the arrival clock).
    pub dismissed_at: Instant,
    /// Where it was dismissed from: `cli` or `mcp`.
    pub source: String,
}

pub fn dismiss_mention(
    store: &Store,
    input: DismissMention,
    context: &OwnerContext,
) -> Result<DismissedMention> {
    owner_id(context)?;
    store.write(|writer| {
        let (record, owner) = {
            let reader = writer.reader();
            let record = match reader.message(&input.message_id)? {
                Some(record) if context.in_scope(record.guild_id.as_ref()) => record,
                _ => {
                    return Err(Error::not_found(format!(
                        "`messageId`: no stored message has id {}",
                        input.message_id
                    )));
                }
            };
            let owner = context.owner_view(&reader)?;
            // A direct message to the bot from someone else is addressed to the owner too
            // (the briefing lists it under "Needs you"), so it can be dismissed like a mention.
            let direct =
                record.guild_id.is_none() && !answerers(&owner).contains(&&record.author_id);
            if !owner.is_mentioned_by(&record) && !direct {
                return Err(Error::conflict(format!(
                    "Message {} does not mention the owner: only a mention or a direct message \
                     can be dismissed",
                    input.message_id
                )));
            }
            if reader.mention_dismissal(&record.message_id)?.is_some() {
                return Err(Error::conflict("That mention is already dismissed"));
            }
            (record, owner)
        };
        let dismissal = writer.append_mention_dismissal(
            &record.message_id,
            input.note.as_deref(),
            context.source.as_str(),
        )?;
        let reader = writer.reader();
        let shaper = Shaper::new(&reader, context, [&record])?;
        Ok(DismissedMention {
            mention: Mention {
                message: shaper.message(&record),
                closed: closure(
                    &reader,
                    &owner,
                    &record.message_id,
                    &record.channel_id,
                    record.sent_at,
                )?,
            },
            note: dismissal.note.map(Text::from),
            dismissed_at: dismissal.created_at,
            source: dismissal.source,
        })
    })
}

/// What [`dismiss_mention`] is shown with: one mention can be dismissed once, so its only
/// call on a generated store carries the longest note.
pub(crate) fn dismiss_mention_examples(sample: &Sample) -> Examples {
    Examples {
        default: None,
        largest: vec![json!({"messageId": sample.mention, "note": long_text(1000)})],
        demo: vec![json!({"messageId": demo::OPEN_MENTION})],
    }
}

impl Render for DismissedMention {
    fn render(&self) -> Page {
        format!(
            "Dismissed the mention {} in #{} at {}; it no longer awaits a reply\n",
            self.mention.message.body.message_id,
            self.mention.message.channel_name,
            local(self.dismissed_at)
        )
        .into()
    }
}

impl ModelText for DismissedMention {
    fn write_text(&self, text: &mut TextBlock) {
        let line = message_line(text, &self.mention.message);
        let _ = writeln!(
            text,
            "Dismissed at {} (from {}); it no longer awaits a reply:",
            self.dismissed_at, self.source
        );
        text.line(&line);
        if let Some(note) = &self.note {
            let note = text.data(note);
            let _ = writeln!(text, "Note: {note}");
        }
    }
}
