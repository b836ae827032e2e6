//! An answer's human page laid out for a terminal: its tables through comfy-table, and the
//! whole made [`terminal_safe`] once more, so nothing a page carries can drive the terminal.

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{ContentArrangement, Table};

pub use crate::answer::page::terminal_safe;
use crate::answer::page::{Block, Page};

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

/// A table in the compact style, each row on one line: a cell is never wrapped to the
/// terminal's width, so a piped table reads the same as one on screen.
fn laid_out(source: &crate::answer::page::Table) -> Table {
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
