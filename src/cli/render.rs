//! An answer's human page laid out for a terminal: its tables through comfy-table, and the
//! whole made [`terminal_safe`] once more, so nothing a page carries can drive the terminal;
//! and `--json` written so that no character in it can either ([`terminal_json`]). On a
//! terminal, each Discord link on the page is then made clickable ([`hyperlinked`]).

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ContentArrangement, Table};

pub use discord_manager_core::answer::page::terminal_safe;
use discord_manager_core::answer::page::{Block, Page};

/// The page as the terminal shows it.
pub fn terminal_text(page: &Page) -> String {
    let mut text = String::new();
    for block in page.blocks() {
        match block {
            Block::Text(words) => text.push_str(words),
            Block::Table(table) => text.push_str(&laid_out(table).to_string()),
        }
    }
    terminal_safe(&text).into_owned()
}

/// Where a link to Discord starts on a page.
const DISCORD_LINK: &str = "https://discord.com/channels/";

/// Whether stdout is a terminal that may show hyperlinks: not a pipe or a file (whose
/// readers get the plain text), and not `TERM=dumb`. A terminal that does not know OSC 8
/// ignores it and shows the link's text, which is the link itself.
pub fn hyperlinks_enabled() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal() && std::env::var_os("TERM").is_none_or(|term| term != "dumb")
}

/// `text` (already [`terminal_safe`]) with every link to Discord wrapped in an OSC 8
/// hyperlink, its text still the link: the escape is written here, after the page was made
/// safe, around a link whose every character after `https://discord.com/channels/` is one this
/// checks (a digit, `/` or the `@me` of a direct message), so no escape can be part of it.
pub fn hyperlinked(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(DISCORD_LINK) {
        out.push_str(&rest[..at]);
        let link = &rest[at..];
        let end = DISCORD_LINK.len()
            + link[DISCORD_LINK.len()..]
                .find(|c: char| !(c.is_ascii_digit() || matches!(c, '/' | '@' | 'm' | 'e')))
                .unwrap_or(link.len() - DISCORD_LINK.len());
        let url = &link[..end];
        out.push_str("\x1b]8;;");
        out.push_str(url);
        out.push_str("\x1b\\");
        out.push_str(url);
        out.push_str("\x1b]8;;\x1b\\");
        rest = &link[end..];
    }
    out.push_str(rest);
    out
}

/// A table in the compact style, each row on one line: a cell is never wrapped to the
/// terminal's width, so a piped table reads the same as one on screen.
fn laid_out(source: &discord_manager_core::answer::page::Table) -> Table {
    let mut table = Table::new();
    table
        .load_style(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled);
    table.set_header(source.header());
    for row in source.rows() {
        table.add_row(row);
    }
    table
}

/// `value` as `--json` prints it: indented, with a final line end, and every character a
/// terminal might obey escaped. JSON already escapes the C0 controls; this also writes the C1
/// controls (U+0080 to U+009F: some terminals take U+009B as ESC [), DEL, and the line and
/// paragraph separators (which some readers break lines at) as `\uXXXX`. The JSON means the
/// same; only its bytes are safe to show.
pub fn terminal_json<T: serde::Serialize>(value: &T) -> serde_json::Result<String> {
    let mut out = Vec::new();
    let mut serializer =
        serde_json::Serializer::with_formatter(&mut out, TerminalSafe(PrettyFormatter::new()));
    value.serialize(&mut serializer)?;
    out.push(b'\n');
    // The formatter writes only what serde_json gave it, and ASCII escapes: still UTF-8.
    Ok(String::from_utf8(out).expect("serde_json writes UTF-8"))
}

use serde_json::ser::{Formatter, PrettyFormatter};

/// serde_json's pretty formatter, escaping what a terminal could obey inside strings.
struct TerminalSafe<'a>(PrettyFormatter<'a>);

fn obeyed_by_a_terminal(c: char) -> bool {
    matches!(c, '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}')
}

impl Formatter for TerminalSafe<'_> {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut rest = fragment;
        while let Some(at) = rest.find(obeyed_by_a_terminal) {
            writer.write_all(&rest.as_bytes()[..at])?;
            let c = rest[at..]
                .chars()
                .next()
                .expect("a character was found there");
            write!(writer, "\\u{:04x}", c as u32)?;
            rest = &rest[at + c.len_utf8()..];
        }
        writer.write_all(rest.as_bytes())
    }

    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_discord_link_becomes_an_osc_8_hyperlink_and_nothing_else_changes() {
        let text = "│ a ┆ https://discord.com/channels/1/2/3 │\nsee https://discord.com/channels/@me/4/5.\n";
        assert_eq!(
            hyperlinked(text),
            "│ a ┆ \x1b]8;;https://discord.com/channels/1/2/3\x1b\\https://discord.com/channels/1/2/3\x1b]8;;\x1b\\ │\n\
             see \x1b]8;;https://discord.com/channels/@me/4/5\x1b\\https://discord.com/channels/@me/4/5\x1b]8;;\x1b\\.\n"
        );
        assert_eq!(hyperlinked("no link here\n"), "no link here\n");
    }

    #[test]
    fn json_escapes_every_character_a_terminal_could_obey_and_means_the_same() {
        let value = serde_json::json!({
            "text": "a\u{1b}[2J b\u{7}\u{7f} c\u{9b}31m d\u{85} e\u{2028}f\u{2029} ok é \u{202e}",
            "list": ["\u{80}", "\u{9f}", "\u{a0}"]
        });
        let printed = terminal_json(&value).unwrap();
        assert_eq!(
            printed,
            "{\n  \"list\": [\n    \"\\u0080\",\n    \"\\u009f\",\n    \"\u{a0}\"\n  ],\n  \"text\": \
             \"a\\u001b[2J b\\u0007\\u007f c\\u009b31m d\\u0085 e\\u2028f\\u2029 ok é \u{202e}\"\n}\n"
        );
        assert!(!printed.chars().any(|c| c.is_control() && c != '\n'));
        let read: serde_json::Value = serde_json::from_str(&printed).unwrap();
        assert_eq!(read, value);
        // The same layout as serde_json's own pretty printing where nothing needs escaping.
        let plain = serde_json::json!({"a": [1, {"b": "c"}], "d": {}});
        assert_eq!(
            terminal_json(&plain).unwrap(),
            serde_json::to_string_pretty(&plain).unwrap() + "\n"
        );
    }
}
