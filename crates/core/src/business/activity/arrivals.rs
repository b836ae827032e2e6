//! What needs the owner, as it arrives: the items the MCP server pushes into an assistant's
//! session, read by the briefing's own sections, so a pushed item is exactly one the briefing
//! would list under "Needs you" or "Your keywords" for the same stretch of the arrival clock.
//!
//! An item is a mention of the owner or of a role they hold, a reply to one of their messages,
//! a direct message to the bot (with direct messages in scope), or a message holding one of
//! their keywords; never chatter, the owner's own messages or the bot's, and never an
//! @everyone (it is addressed to everyone, so it would make every announcement a push). Which
//! of those kinds are read is the owner's `DISCORD_MANAGER_PUSH`.
//!
//! **Handled is not news.** What the owner answered, reacted to or dismissed is closed in the
//! briefing, so it is never an arrival; what arrived at or before a channel's read marker
//! (`channels_mark_read`) is read, so it is not one either.

use discord_manager_store::Store;
use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::words::word_enum;
use serde::Serialize;

use super::briefing::{
    Brief, Briefing, BriefingReport, NeedReason, addressed_through, briefing_through,
};
use crate::business::OwnerContext;
use crate::config::PushKinds;

word_enum! {
    /// Why an arrival needs the owner.
    #[described]
    pub enum ArrivalKind {
        /// It mentions the owner by name.
        Mention = "mention",
        /// It mentions a role the owner holds.
        Role = "role",
        /// It replies to one of the owner's messages.
        Reply = "reply",
        /// A direct message to the bot.
        DirectMessage = "directMessage",
        /// It holds one of the owner's keywords.
        Keyword = "keyword",
    }
}

/// One message that needs the owner, as it arrived; as JSON, one line of `watch --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Arrival {
    pub kind: ArrivalKind,
    #[serde(flatten)]
    pub message: Brief,
    /// For a keyword hit, the keywords it holds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub matched: Vec<String>,
    /// When the store recorded it (the arrival clock).
    pub arrived_at: Instant,
}

/// What needs the owner among what arrived in a stretch of the arrival clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrivals {
    /// Oldest arrival first.
    pub items: Vec<Arrival>,
    /// The stretch's end: pass it as `after` next time.
    pub through: Instant,
}

/// The items of `kinds` that need the owner among what arrived strictly after `after` and at or
/// before `through` (None: the store's clock now), oldest first. Without the owner's id there
/// are none: nothing can be addressed to an unknown owner.
pub fn arrivals(
    store: &Store,
    context: &OwnerContext,
    kinds: PushKinds,
    after: Instant,
    through: Option<Instant>,
) -> Result<Arrivals> {
    let through = match through {
        Some(through) => through,
        None => store.read(|reader| reader.clock_now())?,
    };
    let mut arrivals = Arrivals {
        items: Vec::new(),
        through,
    };
    if through <= after || context.owner_id.is_none() || !kinds.any() {
        return Ok(arrivals);
    }
    let now = Instant::now();
    let first = addressed_through(store, context, after.plus_micros(1), through, now)?;
    let mut found = Vec::new();
    let mut pages = vec![first];
    while let Some(report) = pages.pop() {
        let (needs, keywords) = collect(&report, kinds, &mut found);
        for cursor in [needs, keywords].into_iter().flatten() {
            let next = Briefing {
                cursor: Some(cursor),
                ..Briefing::default()
            };
            pages.push(briefing_through(store, next, context, now, Some(through))?);
        }
    }
    // What arrived at or before its channel's read marker is read: not news.
    store.read(|reader| {
        let markers = reader.read_markers()?;
        let ids: Vec<_> = found
            .iter()
            .map(|(_, brief, _)| &brief.message_id)
            .collect();
        let records = reader.messages(&ids)?;
        for ((kind, message, matched), record) in found.into_iter().zip(records) {
            let Some(record) = record else { continue };
            let read = markers
                .get(&message.channel_id)
                .is_some_and(|marker| record.created_at <= *marker);
            if !read {
                arrivals.items.push(Arrival {
                    kind,
                    message,
                    matched,
                    arrived_at: record.created_at,
                });
            }
        }
        Ok(())
    })?;
    arrivals.items.sort_by(|a, b| {
        (a.arrived_at, &a.message.message_id).cmp(&(b.arrived_at, &b.message.message_id))
    });
    Ok(arrivals)
}

/// A briefing page's items of `kinds` into `found`; the cursors of its two sections, where
/// more is left.
fn collect(
    report: &BriefingReport,
    kinds: PushKinds,
    found: &mut Vec<(ArrivalKind, Brief, Vec<String>)>,
) -> (
    Option<crate::business::kernel::model::PageCursor>,
    Option<crate::business::kernel::model::PageCursor>,
) {
    let mut needs_cursor = None;
    if let Some(section) = &report.needs_you {
        for item in &section.items {
            let kind = match item.reason {
                NeedReason::Mention if kinds.mentions => ArrivalKind::Mention,
                NeedReason::Role if kinds.mentions => ArrivalKind::Role,
                NeedReason::Reply if kinds.replies => ArrivalKind::Reply,
                NeedReason::DirectMessage if kinds.direct_messages => ArrivalKind::DirectMessage,
                _ => continue,
            };
            found.push((kind, item.message.clone(), Vec::new()));
        }
        needs_cursor = section.next_cursor.clone();
    }
    let mut keywords_cursor = None;
    if let Some(section) = report.keywords.as_ref().filter(|_| kinds.keywords) {
        for item in &section.items {
            found.push((
                ArrivalKind::Keyword,
                item.message.clone(),
                item.matched.clone(),
            ));
        }
        keywords_cursor = section.next_cursor.clone();
    }
    (needs_cursor, keywords_cursor)
}
