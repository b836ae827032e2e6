//! Writes a message's texts into the full-text indexes: `message_text` for its words, and
//! `cjk_text` for its words in Chinese and Japanese (`cjk.rs`), both under one number per text.
//! The index keeps no copy of a text (`migrations/0036_message_text_without_its_copy.sql`):
//! it reads a message's own text from its `messages` row and every later one from
//! `version_texts`, which this module keeps. `search.rs` reads the indexes.

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::snowflake::MessageId;
use rusqlite::named_params;

use super::Writer;
use super::cjk;

/// Which text of a message is indexed, and so where the index reads it back: the index keeps
/// no copy of its own (`migrations/0036_message_text_without_its_copy.sql`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum IndexedText {
    /// The message's own text, its `messages` row (`seq`): indexed under that number.
    Own { seq: i64 },
    /// A later text (an edit's, or the words of its extras): kept in `version_texts` under the
    /// next negative number, and indexed under it.
    Later,
}

impl Writer<'_> {
    /// Indexes one text of a message: its own with the message, then each edit's and its
    /// extras' words.
    pub(super) fn index_text(
        &mut self,
        message_id: &MessageId,
        content: &str,
        text: IndexedText,
    ) -> Result<()> {
        if content.is_empty() {
            return Ok(());
        }
        const NEXT_LATER_TEXT: &str = "SELECT coalesce(min(text_rowid), 0) - 1 FROM version_texts";
        const KEEP_LATER_TEXT: &str = "INSERT INTO version_texts (text_rowid, message_id, content)
             VALUES (:rowid, :message_id, :content)";
        const INDEX_TEXT: &str = "INSERT INTO message_text (rowid, content, message_id)
             VALUES (:rowid, :content, :message_id)";
        const INDEX_CJK: &str = "INSERT INTO cjk_text (rowid, content, message_id)
             VALUES (:rowid, :content, :message_id)";
        let rowid = match text {
            IndexedText::Own { seq } => seq,
            IndexedText::Later => {
                let rowid: i64 = self
                    .transaction
                    .prepare_cached(NEXT_LATER_TEXT)?
                    .query_row([], |row| row.get(0))?;
                self.transaction.prepare_cached(KEEP_LATER_TEXT)?.execute(
                    named_params! {":rowid": rowid, ":message_id": message_id, ":content": content},
                )?;
                rowid
            }
        };
        self.transaction.prepare_cached(INDEX_TEXT)?.execute(
            named_params! {":rowid": rowid, ":content": content, ":message_id": message_id},
        )?;
        if let Some(grams) = cjk::grams(content) {
            self.transaction.prepare_cached(INDEX_CJK)?.execute(
                named_params! {":rowid": rowid, ":content": grams, ":message_id": message_id},
            )?;
        }
        Ok(())
    }
}
