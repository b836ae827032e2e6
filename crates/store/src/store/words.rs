//! Domain words in and out of their columns: a word is kept as its one spelling
//! ([`discord_manager_vocabulary::words`]), and a spelling no variant has is a corrupt store,
//! said so.

use discord_manager_vocabulary::words::Word;
use rusqlite::Row;

/// The word in column `index` of `row`.
pub(super) fn word<W: Word>(row: &Row<'_>, index: usize) -> rusqlite::Result<W> {
    let text: String = row.get(index)?;
    W::parse(&text).ok_or_else(|| {
        rusqlite::Error::InvalidColumnType(
            index,
            format!(
                "{text:?} is none of {:?}",
                W::ALL.iter().map(|w| w.as_str()).collect::<Vec<_>>()
            ),
            rusqlite::types::Type::Text,
        )
    })
}
