//! What a briefing reads of a window, without the messages' text: who wrote where and when,
//! what was reacted to, where the owner wrote, and which messages hold a keyword.
//!
//! Every statement reads one range of an arrival index (or the full-text index's list of one
//! phrase), so the cost follows the window, not the store's size; the briefing then hydrates
//! only the messages it shows.

use std::collections::HashMap;

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId, UserId};
use rusqlite::named_params;

use super::Reader;
use super::messages::{imported_origin, is_reply};
use super::reactions::ReactionEventKind;

/// One message of a window, without its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowMessage {
    pub channel_id: ChannelId,
    pub message_id: MessageId,
    /// The arrival clock.
    pub created_at: Instant,
    pub author_id: UserId,
    pub author_name: String,
    pub replies: bool,
    /// A notice Discord wrote itself (a join, a pin, a boost…), not a message someone wrote:
    /// its type is in its extras, and neither a command's answer (20, 23) nor a plain
    /// message or reply (which have no type there).
    pub notice: bool,
}

/// A message that holds a keyword, without its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeywordMatch {
    pub message_id: MessageId,
    pub channel_id: ChannelId,
    pub created_at: Instant,
    pub sent_at: Instant,
    pub author_id: UserId,
}

impl Reader<'_> {
    /// The news that arrived in `[from, through]`, in arrival order, without text: one range
    /// of the arrival index (imported history is not news), each message's extras probed once
    /// for whether it is a notice.
    pub fn window_messages(&self, from: Instant, through: Instant) -> Result<Vec<WindowMessage>> {
        const NEWS_IN_WINDOW: &str = concat!(
            "SELECT channel_id, message_id, created_at, author_id, author_name, ",
            is_reply!("messages"),
            ", EXISTS (SELECT 1 FROM message_extras AS x
                       WHERE x.message_id = messages.message_id
                         AND json_extract(x.extras, '$.kind') NOT IN (20, 23))
             FROM messages INDEXED BY messages_by_arrival
             WHERE created_at >= :from AND created_at <= :through AND origin <> '",
            imported_origin!(),
            "' ORDER BY created_at"
        );
        let mut statement = self.connection.prepare_cached(NEWS_IN_WINDOW)?;
        let rows = statement
            .query_map(named_params! {":from": from, ":through": through}, |row| {
                Ok(WindowMessage {
                    channel_id: row.get(0)?,
                    message_id: row.get(1)?,
                    created_at: row.get(2)?,
                    author_id: row.get(3)?,
                    author_name: row.get(4)?,
                    replies: row.get(5)?,
                    notice: row.get(6)?,
                })
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Per channel, the reactions added in `[from, through]`, and the arrival of each one, so
    /// a caller can hold each channel to its own start: one range of the arrival index.
    pub fn reactions_added(
        &self,
        from: Instant,
        through: Instant,
    ) -> Result<HashMap<ChannelId, Vec<Instant>>> {
        // The kind is bound: the arrival index is not partial on it.
        const REACTIONS_ADDED_IN_WINDOW: &str = "SELECT channel_id, created_at
             FROM reaction_events INDEXED BY reaction_events_by_arrival
             WHERE created_at >= :from AND created_at <= :through AND kind = :added";
        let mut statement = self.connection.prepare_cached(REACTIONS_ADDED_IN_WINDOW)?;
        let mut added: HashMap<ChannelId, Vec<Instant>> = HashMap::new();
        let mut rows = statement.query(named_params! {
            ":from": from,
            ":through": through,
            ":added": ReactionEventKind::Add.as_str(),
        })?;
        while let Some(row) = rows.next()? {
            let channel_id: ChannelId = row.get(0)?;
            added.entry(channel_id).or_default().push(row.get(1)?);
        }
        Ok(added)
    }

    /// Per channel, the newest arrival of a message any of `author_ids` wrote in
    /// `[from, through]`: one range of the author index per author.
    pub fn channels_written_by(
        &self,
        author_ids: &[&UserId],
        from: Instant,
        through: Instant,
    ) -> Result<HashMap<ChannelId, Instant>> {
        const NEWEST_WRITTEN_PER_CHANNEL: &str = "SELECT channel_id, max(created_at)
             FROM messages INDEXED BY messages_by_author
             WHERE author_id = :author_id AND created_at >= :from AND created_at <= :through
             GROUP BY channel_id";
        let mut statement = self.connection.prepare_cached(NEWEST_WRITTEN_PER_CHANNEL)?;
        let mut written: HashMap<ChannelId, Instant> = HashMap::new();
        for author in author_ids {
            let mut rows = statement.query(named_params! {
                ":author_id": author,
                ":from": from,
                ":through": through,
            })?;
            while let Some(row) = rows.next()? {
                let channel_id: ChannelId = row.get(0)?;
                let at = row.get(1)?;
                let newest = written.entry(channel_id).or_insert(at);
                *newest = (*newest).max(at);
            }
        }
        Ok(written)
    }

    /// The messages that arrived in `[from, through]` and any version of which, or any kept
    /// text file of which, holds `phrase` as whole words (case and accents aside, as the
    /// full-text index reads them), oldest first; imported history is not news. The phrase's
    /// words are quoted for FTS5, so no operator in them is obeyed. A file is indexed after its
    /// message arrives, so the files' index is read only from the first file indexed since
    /// `from`, never the whole of it.
    pub fn keyword_matches(
        &self,
        phrase: &str,
        from: Instant,
        through: Instant,
    ) -> Result<Vec<KeywordMatch>> {
        let quoted = format!("\"{}\"", phrase.replace('"', "\"\""));
        const NEWS_MATCHING_PHRASE: &str = concat!(
            "SELECT m.message_id, m.channel_id, m.created_at, m.sent_at, m.author_id
             FROM (SELECT message_id FROM message_text WHERE message_text MATCH :phrase
                   UNION
                   SELECT message_id FROM file_text WHERE file_text MATCH :phrase
                     AND rowid >= coalesce(
                         (SELECT min(text_rowid) FROM attachment_text WHERE created_at >= :from),
                         9223372036854775807))
                  AS hits
             JOIN messages AS m USING (message_id)
             WHERE m.created_at >= :from AND m.created_at <= :through AND m.origin <> '",
            imported_origin!(),
            "' ORDER BY m.created_at"
        );
        let mut statement = self.connection.prepare_cached(NEWS_MATCHING_PHRASE)?;
        let rows = statement
            .query_map(
                named_params! {
                    ":phrase": quoted,
                    ":from": from,
                    ":through": through,
                },
                |row| {
                    Ok(KeywordMatch {
                        message_id: row.get(0)?,
                        channel_id: row.get(1)?,
                        created_at: row.get(2)?,
                        sent_at: row.get(3)?,
                        author_id: row.get(4)?,
                    })
                },
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }
}
