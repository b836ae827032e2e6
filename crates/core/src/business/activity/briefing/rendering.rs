//! The briefing's two renderings side by side, so they cannot drift: the model's text block
//! (sections with headers, one line an item, then what to call next) and the owner's page
//! (what one glances at over coffee).

use std::fmt::Write as _;

use crate::answer::page::{Page, Render, Table, excerpt, local, plural, sent_heading, when};
use crate::answer::text::{ModelText, TextBlock, at, json_args};
use crate::business::activity::briefing::{
    Brief, BriefingReport, Conversation, Conversations, Due, DueItem, KeywordHits, MostActive,
    NeedReason, NeedsYou, NeedsYouItem, Rest, WindowStart,
};
use crate::business::kernel::model::PageCursor;
use discord_manager_vocabulary::snowflake::ChannelId;

/// How a reason reads to a person and to a model.
fn reason_words(reason: NeedReason) -> &'static str {
    match reason {
        NeedReason::DirectMessage => "direct message",
        NeedReason::Mention => "mentions you",
        NeedReason::Reply => "replies to you",
        NeedReason::Role => "mentions your role",
        NeedReason::Everyone => "@everyone/@here",
    }
}

/// "3h 12m", "2d 4h", "5m": how long an item has waited.
fn waited(minutes: u64) -> String {
    match minutes {
        0..60 => format!("{minutes}m"),
        60..1440 => format!("{}h {}m", minutes / 60, minutes % 60),
        _ => format!("{}d {}h", minutes / 1440, minutes % 1440 / 60),
    }
}

fn window_words(report: &BriefingReport) -> &'static str {
    match report.window {
        WindowStart::ReadMarkers => "each channel from its read marker, 24 hours where none",
        WindowStart::Since => "every channel from the same instant",
    }
}

// ---- The model's text block ----

/// `#name (id)` with the name fenced.
fn channel(text: &mut TextBlock, name: &str, id: &ChannelId) -> String {
    format!("{} ({id})", text.data(&format!("#{name}")))
}

/// A message in one line: id and link, where (its channel's id is the link's), who and what,
/// the stranger's words fenced.
fn brief_line(text: &mut TextBlock, brief: &Brief) -> String {
    let deleted = if brief.deleted { " (deleted)" } else { "" };
    format!(
        "message {} ({}) in {}{deleted}: {}",
        brief.message_id,
        brief.link,
        text.data(&format!("#{}", brief.channel_name)),
        text.data(&format!("{}: {}", brief.author_name, brief.text))
    )
}

/// The line that reads on in a section cut short.
fn more_line(text: &mut TextBlock, left: u64, cursor: &Option<PageCursor>) {
    if let Some(cursor) = cursor {
        let _ = writeln!(
            text,
            "  {left} more: activity_briefing {}",
            json_args(&[("cursor", cursor.as_str())])
        );
    }
}

fn needs_you_text(text: &mut TextBlock, section: &NeedsYou) {
    let listed = section.items.len() as u64;
    let mut header = format!("## Needs you: {} open", section.total);
    if listed < section.total {
        let _ = write!(header, ", {listed} listed");
    }
    if section.closed > 0 {
        let _ = write!(
            header,
            " ({} more already answered, reacted to or dismissed)",
            section.closed
        );
    }
    text.line(&header);
    for item in &section.items {
        let line = needs_you_line(text, item);
        text.line(&line);
    }
    more_line(text, section.total - listed, &section.next_cursor);
}

/// One item of "Needs you" in the model's text: why, how long it waited, the message, and
/// what it replies to. The section prices each item by this very line as it admits it.
pub(super) fn needs_you_line(text: &mut TextBlock, item: &NeedsYouItem) -> String {
    let mut line = format!(
        "- {}, waited {}: {}",
        reason_words(item.reason),
        waited(item.waited_minutes),
        brief_line(text, &item.message)
    );
    if let Some(quote) = &item.replies_to {
        match (&quote.author_name, &quote.text) {
            (Some(author), Some(words)) => {
                let quoted = text.data(&format!("{author}: {words}"));
                let _ = write!(line, " ↩ {} {quoted}", quote.message_id);
            }
            _ => {
                let _ = write!(line, " ↩ {} (not stored)", quote.message_id);
            }
        }
    }
    line
}

fn keywords_text(text: &mut TextBlock, section: &KeywordHits) {
    if section.keywords.is_empty() {
        text.line(
            "## Your keywords: none set (the owner sets DISCORD_MANAGER_KEYWORDS, words or \
             quoted phrases separated by commas)",
        );
        return;
    }
    let _ = writeln!(
        text,
        "## Your keywords ({}): {}",
        section.keywords.join(", "),
        section.total
    );
    for item in &section.items {
        let line = format!(
            "- [{}] {}",
            item.matched.join(", "),
            brief_line(text, &item.message)
        );
        text.line(&line);
    }
    more_line(
        text,
        section.total - section.items.len() as u64,
        &section.next_cursor,
    );
}

fn due_text(text: &mut TextBlock, section: &Due) {
    let _ = writeln!(text, "## Due: {}", section.total);
    for item in &section.items {
        let line = match item {
            DueItem::Bookmark(bookmark) => {
                let state = if bookmark.overdue { "overdue" } else { "due" };
                let note = match &bookmark.note {
                    Some(note) => format!(" (note {})", text.data(note)),
                    None => String::new(),
                };
                format!(
                    "- bookmark {state} {}{note}: {}",
                    at(bookmark.due_at),
                    brief_line(text, &bookmark.message)
                )
            }
            DueItem::FailedSchedule(schedule) => {
                let reason = match &schedule.reason {
                    Some(reason) => format!(" because {}", text.data(reason)),
                    None => String::new(),
                };
                format!(
                    "- schedule {} for {} failed {}{reason}: {}",
                    schedule.schedule_id,
                    channel(text, &schedule.channel_name, &schedule.channel_id),
                    at(schedule.failed_at),
                    text.data(&schedule.content)
                )
            }
        };
        text.line(&line);
    }
    more_line(
        text,
        section.total - section.items.len() as u64,
        &section.next_cursor,
    );
}

/// How a conversation's participants past those named are counted: in a line ("3 more") or
/// in a table's cell ("+3").
enum MoreShown {
    Words,
    Plus,
}

/// A conversation's participants, named, then how many more.
fn people(item: &Conversation, more: MoreShown) -> String {
    let mut people = item
        .participants
        .iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if item.more_participants > 0 {
        let separator = if people.is_empty() { "" } else { ", " };
        let _ = match more {
            MoreShown::Words => write!(people, "{separator}{} more", item.more_participants),
            MoreShown::Plus => write!(people, "{separator}+{}", item.more_participants),
        };
    }
    people
}

fn conversations_text(text: &mut TextBlock, section: &Conversations) {
    let _ = writeln!(text, "## Conversations you are in: {}", section.total);
    for item in &section.items {
        let people = people(item, MoreShown::Words);
        let line = format!(
            "- {}: {} new since you wrote {}, from {}; newest {}",
            channel(text, &item.channel_name, &item.channel_id),
            item.new_messages,
            at(item.you_wrote_at),
            text.data(&people),
            brief_line(text, &item.newest)
        );
        text.line(&line);
    }
    more_line(
        text,
        section.total - section.items.len() as u64,
        &section.next_cursor,
    );
}

fn most_active_text(text: &mut TextBlock, section: &MostActive) {
    let _ = writeln!(text, "## Most active: {}", section.total);
    for item in &section.items {
        let mut line = format!(
            "- {}: {} messages, {} replies, {} people, {} reactions; opened by {}",
            channel(text, &item.channel_name, &item.channel_id),
            item.messages,
            item.replies,
            item.participants,
            item.reactions,
            brief_line(text, &item.opening)
        );
        if let Some(newest) = &item.newest {
            let _ = write!(line, "; newest {}", brief_line(text, newest));
        }
        text.line(&line);
    }
    more_line(
        text,
        section.total - section.items.len() as u64,
        &section.next_cursor,
    );
}

fn rest_text(text: &mut TextBlock, section: &Rest) {
    let _ = writeln!(
        text,
        "## The rest: {} in {}",
        plural(section.messages, "message"),
        plural(section.total, "channel")
    );
    if !section.items.is_empty() {
        let counts: Vec<String> = section
            .items
            .iter()
            .map(|item| {
                format!(
                    "{} {}",
                    channel(text, &item.channel_name, &item.channel_id),
                    item.messages
                )
            })
            .collect();
        let _ = writeln!(text, "- {}", counts.join(", "));
    }
    if section.quiet_channels > 0 {
        let _ = writeln!(
            text,
            "- and {} quiet ({})",
            plural(section.quiet_channels, "channel"),
            plural(section.quiet_messages, "message")
        );
    }
    more_line(
        text,
        section.total - section.items.len() as u64,
        &section.next_cursor,
    );
}

impl ModelText for BriefingReport {
    fn write_text(&self, text: &mut TextBlock) {
        let _ = writeln!(
            text,
            "Briefing of what arrived from {} through {} ({}). Sections in order of importance; \
             each states its full count.",
            at(self.since),
            at(self.through),
            window_words(self)
        );
        if let Some(section) = &self.needs_you {
            needs_you_text(text, section);
        }
        if let Some(section) = &self.keywords {
            keywords_text(text, section);
        }
        if let Some(section) = &self.due {
            due_text(text, section);
        }
        if let Some(section) = &self.conversations {
            conversations_text(text, section);
        }
        if let Some(section) = &self.most_active {
            most_active_text(text, section);
        }
        if let Some(section) = &self.rest {
            rest_text(text, section);
        }
        text.line(
            "To follow up on a message (its link serves as its channelId and its messageId): \
             messages_history {channelId, around: messageId} reads around it; messages_send {channelId, replyToMessageId, content} replies; \
             reactions_add {messageId, emoji} reacts; mentions_dismiss {messageId} closes a \
             mention or direct message; bookmarks_add {messageId, dueAt} keeps it for later.",
        );
        let _ = writeln!(
            text,
            "When the owner has read this briefing: channels_mark_read {}.",
            json_args(&[("through", &self.watermark.to_string())])
        );
    }
}

// ---- The owner's page ----

fn where_cell(brief: &Brief) -> String {
    format!("#{}", brief.channel_name)
}

fn who_and_what(brief: &Brief) -> (String, String) {
    let deleted = if brief.deleted { " (deleted)" } else { "" };
    (
        brief.author_name.to_string(),
        format!("{}{deleted}", excerpt(&brief.text, 60)),
    )
}

/// A section's closing line: how many are not shown, and the cursor that shows them.
fn more_text(out: &mut String, left: u64, cursor: &Option<PageCursor>) {
    if let Some(cursor) = cursor {
        let _ = writeln!(out, "  {left} more: briefing --cursor {cursor}");
    }
}

/// A section's table, then the line that reads on when it was cut.
fn table_then_more(page: &mut Page, table: Table, left: u64, cursor: &Option<PageCursor>) {
    page.table(table);
    let mut tail = String::from("\n");
    more_text(&mut tail, left, cursor);
    page.push_str(&tail);
}

fn needs_you_page(page: &mut Page, section: &NeedsYou) {
    let mut head = format!("\nNeeds you: {} open", section.total);
    if section.closed > 0 {
        let _ = write!(head, " ({} already handled)", section.closed);
    }
    head.push('\n');
    page.push_str(&head);
    if section.items.is_empty() {
        return;
    }
    let sent = sent_heading();
    let mut table = Table::new(&[
        sent.as_str(),
        "waited",
        "why",
        "where",
        "who",
        "what",
        "link",
    ]);
    for item in &section.items {
        let (who, what) = who_and_what(&item.message);
        table.add_row(vec![
            local(item.message.sent_at),
            waited(item.waited_minutes),
            reason_words(item.reason).to_string(),
            where_cell(&item.message),
            who,
            what,
            item.message.link.clone(),
        ]);
    }
    table_then_more(
        page,
        table,
        section.total - section.items.len() as u64,
        &section.next_cursor,
    );
}

fn keywords_page(page: &mut Page, section: &KeywordHits) {
    if section.keywords.is_empty() {
        page.push_str("\nYour keywords: none set (DISCORD_MANAGER_KEYWORDS)\n");
        return;
    }
    let _ = writeln!(
        page,
        "\nYour keywords ({}): {}",
        section.keywords.join(", "),
        section.total
    );
    if section.items.is_empty() {
        return;
    }
    let sent = sent_heading();
    let mut table = Table::new(&[sent.as_str(), "keyword", "where", "who", "what", "link"]);
    for item in &section.items {
        let (who, what) = who_and_what(&item.message);
        table.add_row(vec![
            local(item.message.sent_at),
            item.matched.join(", "),
            where_cell(&item.message),
            who,
            what,
            item.message.link.clone(),
        ]);
    }
    table_then_more(
        page,
        table,
        section.total - section.items.len() as u64,
        &section.next_cursor,
    );
}

fn due_page(page: &mut Page, section: &Due) {
    let _ = writeln!(page, "\nDue: {}", section.total);
    if section.items.is_empty() {
        return;
    }
    let mut table = Table::new(&["when", "what", "where", "text", "link or id"]);
    for item in &section.items {
        table.add_row(match item {
            DueItem::Bookmark(bookmark) => vec![
                local(bookmark.due_at),
                if bookmark.overdue {
                    "overdue bookmark".to_string()
                } else {
                    "bookmark due".to_string()
                },
                where_cell(&bookmark.message),
                excerpt(&bookmark.message.text, 60),
                bookmark.message.link.clone(),
            ],
            DueItem::FailedSchedule(schedule) => vec![
                local(schedule.failed_at),
                "schedule failed".to_string(),
                format!("#{}", schedule.channel_name),
                excerpt(&schedule.content, 60),
                format!("schedule {}", schedule.schedule_id),
            ],
        });
    }
    table_then_more(
        page,
        table,
        section.total - section.items.len() as u64,
        &section.next_cursor,
    );
}

fn conversations_page(page: &mut Page, section: &Conversations) {
    let _ = writeln!(page, "\nConversations you are in: {}", section.total);
    if section.items.is_empty() {
        return;
    }
    let mut table = Table::new(&["where", "new", "who", "newest"]);
    for item in &section.items {
        let people = people(item, MoreShown::Plus);
        let (who, what) = who_and_what(&item.newest);
        table.add_row(vec![
            format!("#{}", item.channel_name),
            item.new_messages.to_string(),
            people,
            format!("{who}: {what}"),
        ]);
    }
    table_then_more(
        page,
        table,
        section.total - section.items.len() as u64,
        &section.next_cursor,
    );
}

fn most_active_page(page: &mut Page, section: &MostActive) {
    let _ = writeln!(page, "\nMost active: {}", section.total);
    if section.items.is_empty() {
        return;
    }
    let mut table = Table::new(&[
        "where",
        "messages",
        "replies",
        "people",
        "reactions",
        "opened with",
    ]);
    for item in &section.items {
        let (who, what) = who_and_what(&item.opening);
        table.add_row(vec![
            format!("#{}", item.channel_name),
            item.messages.to_string(),
            item.replies.to_string(),
            item.participants.to_string(),
            item.reactions.to_string(),
            format!("{who}: {what}"),
        ]);
    }
    table_then_more(
        page,
        table,
        section.total - section.items.len() as u64,
        &section.next_cursor,
    );
}

fn rest_page(page: &mut Page, section: &Rest) {
    let mut out = format!(
        "\nThe rest: {} in {}\n",
        plural(section.messages, "message"),
        plural(section.total, "channel")
    );
    for item in &section.items {
        let _ = writeln!(out, "  #{}: {}", item.channel_name, item.messages);
    }
    if section.quiet_channels > 0 {
        let _ = writeln!(
            out,
            "  and {} quiet ({})",
            plural(section.quiet_channels, "channel"),
            plural(section.quiet_messages, "message")
        );
    }
    more_text(
        &mut out,
        section.total - section.items.len() as u64,
        &section.next_cursor,
    );
    page.push_str(&out);
}

impl Render for BriefingReport {
    fn render(&self) -> Page {
        let mut page = Page::from(format!(
            "Briefing: {} to {} ({})\n",
            when(self.since),
            when(self.through),
            window_words(self)
        ));
        if let Some(section) = &self.needs_you {
            needs_you_page(&mut page, section);
        }
        if let Some(section) = &self.keywords {
            keywords_page(&mut page, section);
        }
        if let Some(section) = &self.due {
            due_page(&mut page, section);
        }
        if let Some(section) = &self.conversations {
            conversations_page(&mut page, section);
        }
        if let Some(section) = &self.most_active {
            most_active_page(&mut page, section);
        }
        if let Some(section) = &self.rest {
            rest_page(&mut page, section);
        }
        let _ = writeln!(
            page,
            "\nRead it all? discord-manager mark-read --through {}",
            self.watermark
        );
        page
    }
}
