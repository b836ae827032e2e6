//! The mentions toolset: the owner's mentions inbox, listed (`mentions_list`, in [`list`]),
//! narrowed to those awaiting a reply (`mentions_awaiting_reply`, in [`awaiting_reply`]), and
//! dismissed (`mentions_dismiss`, in [`dismiss`]); the answer the first two share, with its
//! page and its text, and how a mention is found closed.

use std::fmt::Write as _;

use discord_manager_vocabulary::snowflake::{ChannelId, MessageId, UserId};
pub mod awaiting_reply;
pub mod dismiss;
pub mod list;

use discord_manager_store::{MentionCandidate, MessageRecord, Reader, Store};
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::permissions::ChannelAccess;
use discord_manager_vocabulary::words::word_enum;

use crate::answer::page::{Page, Render, Table, plural, sent_heading};
use crate::answer::text::{ModelText, TextBlock, json_args};
use crate::business::OwnerContext;
use crate::business::channels::channels_in_scope;
use crate::business::kernel::budget::Budget;
use crate::business::kernel::model::{Message, OwnerView, PageCursor, Shaper};
use crate::business::kernel::presentation::{message_line, message_row};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

word_enum! {
    /// Why a mention no longer awaits the owner's reply.
    #[described]
    pub enum Closed {
        /// The owner dismissed it with `mentions_dismiss`.
        Dismissed = "dismissed",
        /// The owner, or this bot on the owner's behalf, replied to it.
        Replied = "replied",
        /// The owner, or this bot on the owner's behalf, reacted to it.
        Reacted = "reacted",
        /// The owner, or this bot on the owner's behalf, wrote in its channel or thread after it.
        WroteAfter = "wroteAfter",
    }
}

/// A message that mentions the owner, and whether it still awaits a reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Mention {
    #[serde(flatten)]
    pub message: Message,
    /// Why it no longer awaits a reply: `dismissed`, `replied`, `reacted` or `wroteAfter` (the
    /// owner or this bot wrote in its channel or thread after it). Absent while it awaits one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed: Option<Closed>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Mentions {
    pub mentions: Vec<Mention>,
    /// Pass as `cursor` to read on from the first mention left out; absent when this page
    /// reached the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<PageCursor>,
}

pub(crate) fn owner_id(context: &OwnerContext) -> Result<UserId> {
    context.owner_id.ok_or_else(|| {
        Error::config("Mentions need the owner's Discord user id: set DISCORD_OWNER_ID")
    })
}

/// Where a page of mentions starts: `since`, or where the previous page's cursor points.
fn page_start(
    since: Option<Instant>,
    cursor: Option<&PageCursor>,
    default_since: impl FnOnce() -> Instant,
    tool: &str,
) -> Result<Instant> {
    match (since, cursor) {
        (Some(_), Some(_)) => Err(Error::input(
            "Give `since` or `cursor`, not both: a cursor says where to read on",
        )),
        (since, None) => Ok(since.unwrap_or_else(default_since)),
        (None, Some(cursor)) => Ok(Instant::from_micros(cursor.read::<1>(tool)?[0])),
    }
}

/// Who answers for the owner: the owner, and this product's bot, which only ever acts on the
/// owner's behalf.
fn answerers(owner: &OwnerView) -> Vec<&UserId> {
    owner
        .user_id
        .iter()
        .chain(owner.bot_user_id.iter())
        .collect()
}

/// The first page of mention candidates a reader that filters them asks for.
pub(crate) const FIRST_MENTION_PAGE: usize = 100;

/// The next page's size after a page of `asked` candidates: twice as many, up to 10,000. A
/// call reads every mention from its start on before it keeps the first ones
/// (`Reader::mention_candidates_since`), so pages of one size make a long window cost the
/// square of its mentions (a month's briefing at 1M messages: 100 pages of 200, 7 to 10 s);
/// doubling pages read it in a few, and the largest page bounds what is held at once.
pub(crate) fn next_mention_page(asked: usize) -> usize {
    asked.saturating_mul(2).clamp(FIRST_MENTION_PAGE, 10_000)
}

/// Why the mention `message_id` (in `channel_id`, sent at `sent_at`) no longer awaits a reply,
/// if it does not. An explicit dismissal
/// is named first, then the most specific answer.
pub(crate) fn closure(
    reader: &Reader<'_>,
    owner: &OwnerView,
    message_id: &MessageId,
    channel_id: &ChannelId,
    sent_at: Instant,
) -> Result<Option<Closed>> {
    let answerers = answerers(owner);
    Ok(if reader.mention_dismissal(message_id)?.is_some() {
        Some(Closed::Dismissed)
    } else if reader.replied_to_by(message_id, &answerers)? {
        Some(Closed::Replied)
    } else if reader.reacted_to_by(message_id, &answerers)? {
        Some(Closed::Reacted)
    } else if reader.wrote_after(channel_id, &answerers, sent_at)? {
        Some(Closed::WroteAfter)
    } else {
        None
    })
}

/// Shapes the mentions of a page while they fit in an answer; the cursor points at the first
/// one left out, by the budget or by the limit (`next`).
fn shape_page(
    reader: &Reader<'_>,
    owner: &OwnerView,
    records: Vec<MessageRecord>,
    mut next: Option<Instant>,
    closed: impl Fn(&MessageRecord) -> Result<Option<Closed>>,
) -> Result<Mentions> {
    let shaper = Shaper::for_owner(reader, owner.clone(), &records)?;
    let mut budget = Budget::answer();
    let mut mentions = Vec::new();
    for record in &records {
        let message = Mention {
            message: shaper.message(record),
            closed: closed(record)?,
        };
        if !budget.admit(&message) {
            next = Some(record.created_at);
            break;
        }
        mentions.push(message);
    }
    Ok(Mentions {
        mentions,
        next_cursor: next.map(|at| PageCursor::new(&[at.as_micros()])),
    })
}

/// Up to `limit` mentions of the owner that arrived in `[from, until)` in readable channels in
/// scope and that `keep` accepts, oldest first, and the arrival of the next one `keep`
/// accepts, if any.
#[allow(clippy::too_many_arguments)]
fn scan_mentions(
    reader: &Reader<'_>,
    context: &OwnerContext,
    owner: &OwnerView,
    owner_id: &UserId,
    from: Instant,
    until: Option<Instant>,
    limit: usize,
    keep: impl Fn(&MentionCandidate) -> Result<bool>,
) -> Result<(Vec<MessageRecord>, Option<Instant>)> {
    let readable: std::collections::HashSet<ChannelId> = channels_in_scope(reader, context)?
        .into_iter()
        .filter(|channel| channel.access == ChannelAccess::Readable)
        .map(|channel| channel.channel_id)
        .collect();
    let mut kept = Vec::new();
    // Mentions in unreadable or out-of-scope channels, or that `keep` refuses, are filtered
    // after the query, so read batch by batch until one more than `limit` is kept or the
    // window has no more. Only the kept are read whole (their edits, reactions and extras).
    let whole = |kept: Vec<MentionCandidate>| reader.hydrate_mentions(kept);
    let mut batch = (limit + 1).max(FIRST_MENTION_PAGE);
    let mut cursor = from;
    loop {
        let page = reader.mention_candidates_since(owner_id, &owner.role_ids, cursor, batch)?;
        let exhausted = page.len() < batch;
        let Some(last) = page.last().map(MentionCandidate::created_at) else {
            break;
        };
        for candidate in page {
            if until.is_some_and(|until| candidate.created_at() >= until) {
                return Ok((whole(kept)?, None));
            }
            if !readable.contains(candidate.channel_id()) || !keep(&candidate)? {
                continue;
            }
            if kept.len() == limit {
                return Ok((whole(kept)?, Some(candidate.created_at())));
            }
            kept.push(candidate);
        }
        if exhausted {
            break;
        }
        cursor = last.plus_micros(1);
        batch = next_mention_page(batch);
    }
    Ok((whole(kept)?, None))
}

/// Mentions arrived in `[since, until)` that the owner has not answered and that `keep`
/// accepts, as a page of at most `limit` that fits in an answer.
pub(crate) fn unanswered(
    store: &Store,
    context: &OwnerContext,
    since: Instant,
    until: Option<Instant>,
    limit: usize,
    keep: impl Fn(&MentionCandidate) -> bool,
) -> Result<Mentions> {
    let owner_id = owner_id(context)?;
    store.read(|reader| {
        let owner = context.owner_view(reader)?;
        let (records, next) = scan_mentions(
            reader,
            context,
            &owner,
            &owner_id,
            since,
            until,
            limit,
            |candidate| {
                Ok(keep(candidate)
                    && closure(
                        reader,
                        &owner,
                        candidate.message_id(),
                        candidate.channel_id(),
                        candidate.sent_at(),
                    )?
                    .is_none())
            },
        )?;
        shape_page(reader, &owner, records, next, |_| Ok(None))
    })
}

impl Render for Mentions {
    fn render(&self) -> Page {
        if self.mentions.is_empty() {
            return "No mentions.\n".into();
        }
        // The `closed` column only where something closed: awaiting-reply never shows one.
        let any_closed = self.mentions.iter().any(|mention| mention.closed.is_some());
        let sent = sent_heading();
        let mut headings = vec![sent.as_str(), "channel", "author", "content", "", "link"];
        if any_closed {
            headings.push("closed");
        }
        let mut out = Table::new(&headings);
        for mention in &self.mentions {
            let mut row = message_row(&mention.message);
            if any_closed {
                row.push(mention.closed.map_or("", Closed::as_str).to_string());
            }
            out.add_row(row);
        }
        let more = match &self.next_cursor {
            Some(cursor) => format!("; more: --cursor {cursor}"),
            None => String::new(),
        };
        Page::new().then(
            out,
            &format!(
                "\n{}{more}\n",
                plural(self.mentions.len() as u64, "mention")
            ),
        )
    }
}

impl ModelText for Mentions {
    fn write_text(&self, text: &mut TextBlock) {
        let _ = writeln!(text, "{} mentions of the owner:", self.mentions.len());
        for mention in &self.mentions {
            let line = message_line(text, &mention.message);
            let _ = match mention.closed {
                None => writeln!(text, "{line}"),
                Some(closed) => writeln!(text, "{line} [closed: {}]", closed.as_str()),
            };
        }
        if let Some(cursor) = &self.next_cursor {
            let _ = writeln!(
                text,
                "More wait: call again with {}.",
                json_args(&[("cursor", cursor.as_str())])
            );
        }
    }
}

#[cfg(test)]
mod tests;
