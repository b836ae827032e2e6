//! The human page of an answer: what the CLI shows a person, as text and tables that know
//! nothing of a terminal. `cli::render` lays the tables out; `--json` bypasses all of this and
//! prints the structured result the MCP tool returns.
//!
//! Everything here passes [`terminal_safe`] before it is measured or shown: a message's text
//! is a stranger's, and control characters in it (ESC starting a colour or cursor sequence,
//! BEL, a CR that rewrites the line) would otherwise drive the owner's terminal.

use std::borrow::Cow;

use std::sync::LazyLock;

use crate::business::activity::{Activity, ChannelDigest, DigestReport};
use crate::business::bookmarks::{Bookmark, Bookmarks, ResolvedBookmark};
use crate::business::channels::ChannelList;
use crate::business::channels::MarkedRead;
use crate::business::mentions::{Closed, DismissedMention, Mentions};
use crate::business::messages::{CaughtUp, ChannelHistory, SearchResults};
use crate::business::model::{AuthorKind, Message, MessageBody, Text};
use crate::business::schedules::{Schedule, ScheduleStatus, Schedules};
use crate::business::store::{
    ChannelCoverageStatus, ChannelImportStatus, ChannelRef, ClockOffset, DaemonState, Gap,
    ImportProgress, IngestState, StoreStatus,
};
use crate::instant::Instant;
use jiff::tz::TimeZone;

/// A result the CLI can show to a person.
pub trait Render {
    fn render(&self) -> Page;
}

/// A table: a header and rows of cells, laid out by whoever shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|cell| cell.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    pub fn add_row(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    pub fn header(&self) -> &[String] {
        &self.header
    }

    pub fn rows(&self) -> &[Vec<String>] {
        &self.rows
    }
}

/// One piece of a page, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    Text(String),
    /// A table, shown without a line end after it: the text that follows says where it ends.
    Table(Table),
}

/// What a person reads: text and tables, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Page {
    blocks: Vec<Block>,
}

impl Page {
    pub fn new() -> Page {
        Page::default()
    }

    /// Text appended to what the page says so far.
    pub fn push_str(&mut self, text: &str) {
        match self.blocks.last_mut() {
            Some(Block::Text(last)) => last.push_str(text),
            _ => self.blocks.push(Block::Text(text.to_string())),
        }
    }

    pub fn table(&mut self, table: Table) {
        self.blocks.push(Block::Table(table));
    }

    /// The page with a table, then `text`, after what it already says.
    fn then(mut self, table: Table, text: &str) -> Page {
        self.table(table);
        self.push_str(text);
        self
    }

    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }
}

impl From<String> for Page {
    fn from(text: String) -> Page {
        Page {
            blocks: vec![Block::Text(text)],
        }
    }
}

impl From<&str> for Page {
    fn from(text: &str) -> Page {
        Page::from(text.to_string())
    }
}

/// The owner's time zone: `TZ` when set (an IANA name such as `Europe/Paris`), else the
/// system's; UTC when neither can be read.
static LOCAL_ZONE: LazyLock<TimeZone> =
    LazyLock::new(|| TimeZone::try_system().unwrap_or(TimeZone::UTC));

/// What a table's time column is headed with: the zone's name.
fn zone_label() -> String {
    match LOCAL_ZONE.iana_name() {
        Some(name) => name.to_string(),
        None => {
            let now = jiff::Timestamp::now();
            LOCAL_ZONE.to_offset_info(now).abbreviation().to_string()
        }
    }
}

/// An instant in the owner's time zone, to the minute, for a table cell (JSON keeps the
/// full UTC instant).
pub(super) fn local(instant: Instant) -> String {
    match jiff::Timestamp::from_microsecond(instant.as_micros()) {
        Ok(timestamp) => LOCAL_ZONE
            .to_datetime(timestamp)
            .strftime("%Y-%m-%d %H:%M")
            .to_string(),
        Err(_) => instant.to_string(),
    }
}

/// "sent (Europe/Paris)": a time column's heading.
pub(super) fn sent_heading() -> String {
    format!("sent ({})", zone_label())
}

/// An instant to the second, in UTC, where the store's own clock is shown.
pub(super) fn when(instant: Instant) -> String {
    let iso = instant.to_iso();
    format!("{} {}", &iso[..10], &iso[11..19])
}

/// Terminal control characters made visible, so text from others cannot drive the terminal:
/// C0 controls (but newline and tab) and DEL as their Unicode control pictures (ESC as `␛`,
/// BEL as `␇`, a CR that does not end a line as `␍`), C1 controls (which some terminals obey
/// as ESC sequences) as `\x9b`. Borrowed when there are none.
pub fn terminal_safe(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    // A Windows line end (CR LF) only ends the line.
    let obeyed = |(position, c): (usize, char)| {
        unsafe_char(c) && !(c == '\r' && text[position + 1..].starts_with('\n'))
    };
    if !text.char_indices().any(obeyed) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 8);
    for (position, c) in text.char_indices() {
        match c {
            _ if !obeyed((position, c)) => shown.push(c),
            '\u{0}'..='\u{1f}' => shown.push(char::from_u32(0x2400 + c as u32).unwrap_or('�')),
            '\u{7f}' => shown.push('\u{2421}'),
            _ => shown.push_str(&format!("\\x{:02x}", c as u32)),
        }
    }
    Cow::Owned(shown)
}

/// The first line of a text, cut to `width` characters; a message without text says so.
pub(super) fn excerpt(text: &str, width: usize) -> String {
    let text = terminal_safe(text);
    let line = text.lines().next().unwrap_or("");
    if text.trim().is_empty() {
        return "(no text)".to_string();
    }
    if line.chars().count() > width || text.lines().nth(1).is_some() {
        format!(
            "{}…",
            line.chars()
                .take(width.saturating_sub(1))
                .collect::<String>()
        )
    } else {
        line.to_string()
    }
}

fn flags(message: &MessageBody) -> String {
    let mut flags = Vec::new();
    // Who wrote it, when the name alone could mislead: a webhook shows any name it likes.
    match message.author_kind {
        AuthorKind::Webhook => flags.push("webhook".to_string()),
        AuthorKind::Bot => flags.push("bot".to_string()),
        AuthorKind::ThisBot => flags.push("our bot".to_string()),
        AuthorKind::Owner | AuthorKind::Person => {}
    }
    if message.mentions_owner {
        flags.push("@you".to_string());
    }
    if message.edited_at.is_some() {
        flags.push("edited".to_string());
    }
    if message.deleted {
        flags.push("deleted".to_string());
    }
    if message.pinned {
        flags.push("pinned".to_string());
    }
    if message.reply_to_message_id.is_some() {
        flags.push("reply".to_string());
    }
    for reaction in &message.reactions {
        flags.push(format!("{}×{}", reaction.emoji, reaction.count));
    }
    flags.join(" ")
}

/// A message in a table whose rows all belong to one channel.
fn body_row(message: &MessageBody) -> Vec<String> {
    vec![
        local(message.sent_at),
        message.author_name.to_string(),
        excerpt(&message.text_with_extras(), 72),
        flags(message),
        message.message_id.clone(),
    ]
}

/// A message in a table whose rows span channels: the channel is named.
fn message_row(message: &Message) -> Vec<String> {
    let body = &message.body;
    vec![
        local(body.sent_at),
        format!("#{}", message.channel_name),
        body.author_name.to_string(),
        excerpt(&body.text_with_extras(), 64),
        flags(body),
        body.message_id.clone(),
    ]
}

impl Render for ChannelList {
    fn render(&self) -> Page {
        let mut out = Table::new(&[
            "channel",
            "kind",
            "readable",
            "new",
            "unread",
            "newest arrival",
            "id",
        ]);
        for channel in &self.channels {
            let mut name = tagged(&channel.name, &channel.tags);
            if channel.continued {
                name.push_str(" (continued)");
            }
            let counts = [channel.new_since, channel.unread];
            out.add_row(channel_row(
                name,
                channel.kind.to_string(),
                channel.unreadable_reason.as_deref(),
                counts.map(|count| {
                    if channel.continued {
                        String::new()
                    } else {
                        count.to_string()
                    }
                }),
                channel.newest_arrival,
                &channel.channel_id,
            ));
            for thread in &channel.threads {
                out.add_row(channel_row(
                    format!("  └ {}", tagged(&thread.name, &thread.tags)),
                    thread.kind.to_string(),
                    thread.unreadable_reason.as_deref(),
                    [thread.new_since, thread.unread].map(|count| count.to_string()),
                    thread.newest_arrival,
                    &thread.channel_id,
                ));
            }
        }
        let threads: usize = self
            .channels
            .iter()
            .map(|channel| channel.threads.len())
            .sum();
        let listed = self
            .channels
            .iter()
            .filter(|channel| !channel.continued)
            .count();
        let mut text = Page::new().then(
            out,
            &format!(
                "\n{listed} channels and {threads} threads; new since {}\n",
                self.since
            ),
        );
        if let Some(cursor) = &self.next_cursor {
            text.push_str(&format!(
                "more channels: --since {} --cursor {cursor}\n",
                self.since
            ));
        }
        text
    }
}

/// A channel's or thread's name, with its tags when it has any.
fn tagged(name: &str, tags: &[Text]) -> String {
    if tags.is_empty() {
        name.to_string()
    } else {
        format!("{name} [{}]", tags.join(", "))
    }
}

/// One row of the channel table: the counts are `[new, unread]`, already written out.
fn channel_row(
    name: String,
    kind: String,
    unreadable_reason: Option<&str>,
    counts: [String; 2],
    newest_arrival: Option<Instant>,
    channel_id: &str,
) -> Vec<String> {
    let [new_since, unread] = counts;
    vec![
        name,
        kind,
        match unreadable_reason {
            None => "yes".to_string(),
            Some(reason) => format!("no: {reason}"),
        },
        new_since,
        unread,
        newest_arrival.map(local).unwrap_or_default(),
        channel_id.to_string(),
    ]
}

impl Render for CaughtUp {
    fn render(&self) -> Page {
        let mut text = Page::new();
        if self.channels.is_empty() {
            text.push_str("Nothing new.\n");
        }
        let sent = sent_heading();
        for channel in &self.channels {
            let mut out = Table::new(&[sent.as_str(), "author", "content", "", "id"]);
            for message in &channel.messages {
                out.add_row(body_row(message));
            }
            text.push_str(&format!(
                "#{} — {}\n",
                channel.channel_name,
                plural(channel.messages.len() as u64, "message")
            ));
            text.table(out);
            text.push_str("\n");
        }
        if !self.overview.is_empty() {
            let news: Vec<String> = self
                .overview
                .iter()
                .map(|channel| match channel.remaining {
                    0 => format!("#{} {}", channel.channel_name, channel.messages),
                    remaining => format!(
                        "#{} {} ({remaining} to come)",
                        channel.channel_name, channel.messages
                    ),
                })
                .collect();
            text.push_str(&format!("news since {}: {}", self.since, news.join(", ")));
            if self.overview_left_out > 0 {
                text.push_str(&format!(", and {} more channels", self.overview_left_out));
            }
            text.push_str("\n");
        }
        for skipped in &self.skipped_channels {
            text.push_str(&format!(
                "skipped #{}: {}\n",
                skipped.channel_name, skipped.reason
            ));
        }
        if self.skipped_left_out > 0 {
            text.push_str(&format!(
                "and {} more unreadable channels\n",
                self.skipped_left_out
            ));
        }
        if let Some(cursor) = &self.next_cursor {
            let noun = if self.remaining == 1 {
                "message"
            } else {
                "messages"
            };
            text.push_str(&format!(
                "{} more {noun} waiting: --cursor {cursor}\n",
                self.remaining
            ));
        }
        text.push_str(&format!(
            "watermark: {} (pass it as --since next time)\n",
            self.watermark
        ));
        text
    }
}

impl Render for Mentions {
    fn render(&self) -> Page {
        if self.mentions.is_empty() {
            return "No mentions.\n".into();
        }
        // The `closed` column only where something closed: awaiting-reply never shows one.
        let any_closed = self.mentions.iter().any(|mention| mention.closed.is_some());
        let sent = sent_heading();
        let mut headings = vec![sent.as_str(), "channel", "author", "content", "", "id"];
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

/// When a bookmark is due, as a person reads it: empty without a due time.
fn due(bookmark: &Bookmark) -> String {
    match (bookmark.due_at, bookmark.overdue) {
        (Some(due), true) => format!("OVERDUE {}", local(due)),
        (Some(due), false) => local(due),
        (None, _) => String::new(),
    }
}

fn bookmark_row(bookmark: &Bookmark) -> Vec<String> {
    let now = &bookmark.message.body;
    let state = if now.deleted {
        "deleted since".to_string()
    } else if now.content != bookmark.content_when_bookmarked {
        format!("edited since: {}", excerpt(&now.content, 48))
    } else {
        String::new()
    };
    vec![
        local(bookmark.bookmarked_at),
        format!("#{}", bookmark.message.channel_name),
        excerpt(&bookmark.content_when_bookmarked, 56),
        bookmark.note.clone().unwrap_or_default().to_string(),
        due(bookmark),
        state,
        bookmark.message_id.clone(),
    ]
}

impl Render for Bookmarks {
    fn render(&self) -> Page {
        if self.bookmarks.is_empty() {
            return "No open bookmarks.\n".into();
        }
        let bookmarked = format!("bookmarked ({})", zone_label());
        let mut out = Table::new(&[
            bookmarked.as_str(),
            "channel",
            "message",
            "note",
            "due",
            "now",
            "id",
        ]);
        for bookmark in &self.bookmarks {
            out.add_row(bookmark_row(bookmark));
        }
        let more = match &self.next_cursor {
            Some(cursor) => format!("; more: --cursor {cursor}"),
            None => String::new(),
        };
        Page::new().then(
            out,
            &format!("\n{} open bookmarks{more}\n", self.bookmarks.len()),
        )
    }
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

impl Render for MarkedRead {
    fn render(&self) -> Page {
        let names: Vec<String> = self
            .channels
            .iter()
            .map(|channel| format!("#{}", channel.channel_name))
            .collect();
        let more = match self.channels_left_out {
            0 => String::new(),
            more => format!(" and {more} more"),
        };
        format!(
            "Marked read through {}: {}{more}\n",
            local(self.through),
            names.join(", ")
        )
        .into()
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

impl Render for ResolvedBookmark {
    fn render(&self) -> Page {
        format!(
            "Resolved the bookmark of message {} at {}\n",
            self.message_id, self.resolved_at
        )
        .into()
    }
}

impl Render for ChannelHistory {
    fn render(&self) -> Page {
        let mut text = format!("#{} (times in {})\n", self.channel_name, zone_label());
        if self.messages.is_empty() {
            text.push_str("No stored messages here.\n");
        }
        for entry in &self.messages {
            let message = &entry.message;
            text.push_str(&format!(
                "{}  {}  [{}]{}\n",
                local(message.sent_at),
                message.author_name,
                message.message_id,
                if message.deleted { "  (deleted)" } else { "" }
            ));
            match &entry.original_content {
                None => text.push_str(&format!(
                    "    {}\n",
                    message.text_with_extras().replace('\n', "\n    ")
                )),
                Some(original) => text.push_str(&format!(
                    "    originally: {}\n",
                    original.replace('\n', "\n    ")
                )),
            }
            for edit in &entry.edits {
                text.push_str(&format!(
                    "    edited {}: {}\n",
                    local(edit.edited_at),
                    edit.content.replace('\n', "\n    ")
                ));
            }
        }
        if let Some(older) = &self.older_cursor {
            text.push_str(&format!("older: --before {older}\n"));
        }
        if let Some(newer) = &self.newer_cursor {
            text.push_str(&format!("newer: --after {newer}\n"));
        }
        text.into()
    }
}

impl Render for SearchResults {
    fn render(&self) -> Page {
        if self.results.is_empty() {
            return format!("Nothing matches {}.\n", self.query).into();
        }
        let sent = sent_heading();
        let mut out = Table::new(&[sent.as_str(), "channel", "author", "match", "", "id"]);
        for result in &self.results {
            let mut row = message_row(&result.message);
            row[3] = excerpt(&result.snippet, 64);
            out.add_row(row);
        }
        Page::new().then(
            out,
            &format!("\n{} results for {}\n", self.results.len(), self.query),
        )
    }
}

impl Render for Activity {
    fn render(&self) -> Page {
        if self.total == 0 {
            return format!("Nothing new. Next time: --after {}\n", self.cutoff).into();
        }
        let mut out = Table::new(&["channel", "messages", "edits", "deletions", "reactions"]);
        for channel in &self.channels {
            out.add_row(vec![
                channel.channel_name.to_string(),
                channel.messages.to_string(),
                channel.edits.to_string(),
                channel.deletions.to_string(),
                channel.reactions.to_string(),
            ]);
        }
        let left_out = match self.channels_left_out {
            0 => String::new(),
            more => format!(" (and {more} more channels)"),
        };
        Page::new().then(
            out,
            &format!(
                "\n{} new{left_out}. Next time: --after {}\n",
                self.total, self.cutoff
            ),
        )
    }
}

impl Render for DigestReport {
    fn render(&self) -> Page {
        let mut text = format!(
            "Digest from {} to {}: {}\n\n",
            when(self.since),
            when(self.until),
            plural(self.total_messages, "message")
        );
        for channel in &self.channels {
            text.push_str(&channel_digest_lines(channel));
        }
        text.push_str(&format!(
            "\nAwaiting your reply: {}\n",
            self.unanswered_mentions.len()
        ));
        for message in &self.unanswered_mentions {
            text.push_str(&format!(
                "    {} #{} {}: {}\n",
                local(message.body.sent_at),
                message.channel_name,
                message.body.author_name,
                excerpt(&message.body.text_with_extras(), 60)
            ));
        }
        if self.more_unanswered_mentions {
            text.push_str("    and more: see mentions awaiting-reply\n");
        }
        text.push_str(&format!(
            "\nOpen bookmarks: {}\n",
            self.open_bookmarks.len()
        ));
        for bookmark in &self.open_bookmarks {
            text.push_str(&open_bookmark_line(bookmark));
        }
        if self.more_open_bookmarks {
            text.push_str("    and more: see bookmarks list\n");
        }
        if self.channels_left_out > 0 {
            text.push_str(&format!(
                "\n{} more channels had messages: see catch-up\n",
                self.channels_left_out
            ));
        }
        text.into()
    }
}

/// A channel of the digest: its count and most active authors, then each most-reacted message
/// with its reactions.
fn channel_digest_lines(channel: &ChannelDigest) -> String {
    let authors: Vec<String> = channel
        .top_authors
        .iter()
        .map(|a| format!("{} ({})", a.author_name, a.messages))
        .collect();
    let mut lines = format!(
        "#{}: {}; most active: {}\n",
        channel.channel_name,
        plural(channel.messages, "message"),
        authors.join(", ")
    );
    for message in &channel.most_reacted {
        let reactions: Vec<String> = message
            .reactions
            .iter()
            .map(|r| format!("{}×{}", r.emoji, r.count))
            .collect();
        lines.push_str(&format!(
            "    {} {}: {}\n",
            reactions.join(" "),
            message.author_name,
            excerpt(&message.text_with_extras(), 60)
        ));
    }
    lines
}

/// An open bookmark in the digest: what it marked, its note, and when it is due.
fn open_bookmark_line(bookmark: &Bookmark) -> String {
    let note = bookmark
        .note
        .as_deref()
        .map(|note| format!(" — {note}"))
        .unwrap_or_default();
    let due = match (bookmark.due_at, bookmark.overdue) {
        (Some(_), true) => format!(" [{}]", due(bookmark)),
        (Some(_), false) => format!(" [due {}]", due(bookmark)),
        (None, _) => String::new(),
    };
    format!(
        "    {}{note}{due}\n",
        excerpt(&bookmark.content_when_bookmarked, 60)
    )
}

/// "1 message", "2 messages".
pub(super) fn plural(count: u64, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

impl Render for StoreStatus {
    fn render(&self) -> Page {
        let mut text = Page::new();
        text.push_str(&ingest_line(&self.ingest));
        text.push_str(&format!(
            "newest gateway event: {}\nlast backfill: {}\n{} messages, {:.1} MB on disk\n",
            seen(self.newest_gateway_event),
            seen(self.last_backfill),
            self.message_count,
            self.store_bytes as f64 / 1_000_000.0
        ));
        if let Some(clock) = &self.discord_clock {
            text.push_str(&clock_line(clock));
        }
        if !self.channels.is_empty() {
            text.table(coverage_table(&self.channels));
            text.push_str("\n");
        }
        if self.channels_left_out > 0 {
            text.push_str(&format!("and {} more channels\n", self.channels_left_out));
        }
        if !self.never_backfilled.is_empty() {
            text.push_str(&never_backfilled_line(
                &self.never_backfilled,
                self.never_backfilled_left_out,
            ));
        }
        if self.gaps.is_empty() {
            text.push_str("no known gaps\n");
        } else {
            text.table(gaps_table(&self.gaps));
            text.push_str(&format!("\n{} known gaps\n", self.gaps.len()));
        }
        text
    }
}

/// When something last happened, or "never".
fn seen(at: Option<Instant>) -> String {
    at.map(when).unwrap_or_else(|| "never".to_string())
}

/// Whether the daemon runs, and when it was last seen.
fn ingest_line(ingest: &IngestState) -> String {
    match ingest.state {
        DaemonState::NeverRan => "ingest: never ran\n".to_string(),
        DaemonState::Stopped => {
            format!("ingest: stopped cleanly at {}\n", seen(ingest.last_seen_at))
        }
        DaemonState::Running => format!(
            "ingest: running, last seen {} ({})\n",
            seen(ingest.last_seen_at),
            ingest.last_seen_doing.map_or("", |doing| doing.as_str())
        ),
    }
}

/// How far this machine's clock is from Discord's, with advice past 5 seconds.
fn clock_line(clock: &ClockOffset) -> String {
    let ahead = clock.host_ahead_ms;
    format!(
        "clock: this machine is {:.0} s {} Discord's (measured {}){}\n",
        ahead.abs() as f64 / 1_000.0,
        if ahead >= 0 { "ahead of" } else { "behind" },
        when(clock.measured_at),
        if ahead.abs() > 5_000 {
            ": set the clock (NTP)"
        } else {
            ""
        }
    )
}

/// Each channel's backfill, completeness and import, one row a channel.
fn coverage_table(channels: &[ChannelCoverageStatus]) -> Table {
    let mut out = Table::new(&[
        "channel",
        "last backfill",
        "complete through",
        "history imported",
        "id",
    ]);
    for channel in channels {
        out.add_row(vec![
            channel.channel_name.to_string(),
            seen(channel.last_backfill_at),
            channel
                .complete_through_message_id
                .clone()
                .unwrap_or_default(),
            channel
                .import
                .as_ref()
                .map(import_words)
                .unwrap_or_default(),
            channel.channel_id.clone(),
        ]);
    }
    out
}

/// "never backfilled: #a, #b and 3 more".
fn never_backfilled_line(channels: &[ChannelRef], left_out: u64) -> String {
    let names: Vec<String> = channels
        .iter()
        .map(|channel| format!("#{}", channel.channel_name))
        .collect();
    let more = match left_out {
        0 => String::new(),
        more => format!(" and {more} more"),
    };
    format!("never backfilled: {}{more}\n", names.join(", "))
}

/// The known gaps, one row each: what kind, where, when, and what may be missing.
fn gaps_table(gaps: &[Gap]) -> Table {
    let mut out = Table::new(&["gap", "channel", "from", "until", "what may be missing"]);
    for gap in gaps {
        out.add_row(vec![
            gap.kind.to_string(),
            gap.channel_name
                .as_ref()
                .map(|name| format!("#{name}"))
                .or_else(|| gap.channel_id.clone())
                .unwrap_or_else(|| "every channel".to_string()),
            when(gap.from),
            when(gap.until),
            gap.detail.clone(),
        ]);
    }
    out
}

impl Render for Message {
    fn render(&self) -> Page {
        let body = &self.body;
        let reply = body
            .reply_to_message_id
            .as_deref()
            .map(|id| format!(" in reply to {id}"))
            .unwrap_or_default();
        format!(
            "Sent message {} in #{} as {}{reply}: {}\n",
            body.message_id,
            self.channel_name,
            body.author_name,
            excerpt(&body.content, 72)
        )
        .into()
    }
}

fn status_text(schedule: &Schedule) -> String {
    match schedule.status {
        ScheduleStatus::Pending => match &schedule.reason {
            Some(reason) => format!("pending (retrying: {})", excerpt(reason, 40)),
            None => "pending".to_string(),
        },
        ScheduleStatus::Sent => format!(
            "sent as {}",
            schedule.message_id.as_deref().unwrap_or("unknown")
        ),
        ScheduleStatus::Failed => format!(
            "failed: {}",
            schedule.reason.as_deref().unwrap_or("no reason recorded")
        ),
        ScheduleStatus::Cancelled => "cancelled".to_string(),
    }
}

impl Render for Schedules {
    fn render(&self) -> Page {
        if self.schedules.is_empty() {
            return "No scheduled messages.\n".into();
        }
        let mut out = Table::new(&["id", "send at", "channel", "content", "status"]);
        for schedule in &self.schedules {
            out.add_row(vec![
                schedule.schedule_id.to_string(),
                when(schedule.send_at),
                schedule.channel_name.to_string(),
                excerpt(&schedule.content, 48),
                status_text(schedule),
            ]);
        }
        Page::new().then(
            out,
            &format!(
                "\n{}\n",
                plural(self.schedules.len() as u64, "scheduled message")
            ),
        )
    }
}

impl Render for Schedule {
    fn render(&self) -> Page {
        format!(
            "Scheduled message {} for {} at {}: {}\n",
            self.schedule_id,
            self.channel_name,
            self.send_at,
            status_text(self)
        )
        .into()
    }
}

/// A channel's import in a status table cell: how far back, and whether it goes on.
fn import_words(import: &ChannelImportStatus) -> String {
    let back_to = match import.imported_back_to {
        Some(at) => format!("back to {}", when(at)),
        None => "from the first message".to_string(),
    };
    match import.state {
        ImportProgress::Done => back_to,
        ImportProgress::InProgress => format!("{back_to}, going on"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_bel_and_carriage_return_are_shown_not_obeyed() {
        assert_eq!(
            terminal_safe("\u{1b}[2J\u{1b}]0;pwned\u{7}done\rfake"),
            "␛[2J␛]0;pwned␇done␍fake"
        );
    }

    #[test]
    fn every_c0_control_but_newline_and_tab_becomes_its_control_picture() {
        assert_eq!(terminal_safe("\u{0}\u{8}\u{b}\u{c}\u{1f}"), "␀␈␋␌␟");
        assert!(matches!(
            terminal_safe("line\nnext\tcell"),
            Cow::Borrowed(_)
        ));
        // Just past the C0 block, and printable ASCII, stay as they are.
        assert!(matches!(terminal_safe(" ~"), Cow::Borrowed(_)));
    }

    #[test]
    fn delete_and_c1_controls_are_shown() {
        assert_eq!(terminal_safe("a\u{7f}b"), "a␡b");
        assert_eq!(terminal_safe("\u{80}\u{9b}31m\u{9f}"), "\\x80\\x9b31m\\x9f");
        // The characters on either side of the C1 block are text.
        assert!(matches!(terminal_safe("\u{7e}\u{a0}é"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_webhook_or_a_bot_is_flagged_whatever_name_it_shows() {
        let message = |author_kind| MessageBody {
            message_id: "1".into(),
            author_id: "3".into(),
            author_name: "Ada".into(),
            content: "approved".into(),
            created_at: Instant::from_micros(0),
            sent_at: Instant::from_micros(0),
            edited_at: None,
            deleted: false,
            reply_to_message_id: None,
            reactions: Vec::new(),
            mentions_owner: false,
            author_kind,
            attachments: Vec::new(),
            embeds: Vec::new(),
            stickers: Vec::new(),
            poll: None,
            forwarded: Vec::new(),
            pinned: false,
        };
        assert_eq!(flags(&message(AuthorKind::Webhook)), "webhook");
        assert_eq!(flags(&message(AuthorKind::Bot)), "bot");
        assert_eq!(flags(&message(AuthorKind::ThisBot)), "our bot");
        assert_eq!(flags(&message(AuthorKind::Owner)), "");
        assert_eq!(flags(&message(AuthorKind::Person)), "");
    }

    #[test]
    fn a_messages_excerpt_is_safe_before_the_table_measures_it() {
        assert_eq!(excerpt("\u{1b}[31mred", 72), "␛[31mred");
        assert_eq!(excerpt("first\rsecond", 72), "first␍second");
        assert_eq!(excerpt("first\r\nsecond", 72), "first…");
        assert!(matches!(terminal_safe("a\r\nb\r\n"), Cow::Borrowed(_)));
        assert_eq!(terminal_safe("a\r\r\nb"), "a␍\r\nb");
    }
}
