//! The human page of an answer: what the CLI shows a person, as text and tables that know
//! nothing of a terminal. `cli::render` lays the tables out; `--json` bypasses all of this and
//! prints the structured result the MCP tool returns.
//!
//! Everything here passes [`terminal_safe`] before it is measured or shown: a message's text
//! is a stranger's, and control characters in it (ESC starting a colour or cursor sequence,
//! BEL, a CR that rewrites the line) would otherwise drive the owner's terminal.

use std::borrow::Cow;
use std::fmt::Write as _;

use std::sync::LazyLock;

use discord_manager_vocabulary::instant::Instant;

use jiff::tz::TimeZone;

/// A result the CLI can show to a person.
pub trait Render {
    fn render(&self) -> Page;
    /// A file the person can have written out whole (`--out FILE`): a kept attachment's
    /// original bytes. None for every other result.
    fn file(&self) -> Option<&std::path::Path> {
        None
    }
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
///
/// Text is written with `write!`/`writeln!(page, "…")` (the page is a [`std::fmt::Write`]
/// that never fails, appending like [`Page::push_str`]); tables go in whole with
/// [`Page::table`].
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
    pub fn then(mut self, table: Table, text: &str) -> Page {
        self.table(table);
        self.push_str(text);
        self
    }

    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }
}

/// Writing never fails: text is appended to the page's last text block.
impl std::fmt::Write for Page {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        self.push_str(text);
        Ok(())
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
pub fn zone_label() -> String {
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
pub fn local(instant: Instant) -> String {
    match jiff::Timestamp::from_microsecond(instant.as_micros()) {
        Ok(timestamp) => LOCAL_ZONE
            .to_datetime(timestamp)
            .strftime("%Y-%m-%d %H:%M")
            .to_string(),
        Err(_) => instant.to_string(),
    }
}

/// "sent (Europe/Paris)": a time column's heading.
pub fn sent_heading() -> String {
    format!("sent ({})", zone_label())
}

/// An instant to the second, in UTC, where the store's own clock is shown.
pub fn when(instant: Instant) -> String {
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
            _ => {
                let _ = write!(shown, "\\x{:02x}", c as u32);
            }
        }
    }
    Cow::Owned(shown)
}

/// The first line of a text, cut to `width` characters; a message without text says so.
pub fn excerpt(text: &str, width: usize) -> String {
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

/// "1 message", "2 messages".
pub fn plural(count: u64, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
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
    fn a_messages_excerpt_is_safe_before_the_table_measures_it() {
        assert_eq!(excerpt("\u{1b}[31mred", 72), "␛[31mred");
        assert_eq!(excerpt("first\rsecond", 72), "first␍second");
        assert_eq!(excerpt("first\r\nsecond", 72), "first…");
        assert!(matches!(terminal_safe("a\r\nb\r\n"), Cow::Borrowed(_)));
        assert_eq!(terminal_safe("a\r\r\nb"), "a␍\r\nb");
    }
}
