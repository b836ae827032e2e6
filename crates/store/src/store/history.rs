//! A channel's history in Discord's order (its timestamp, then the id), around an anchor.

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId, stored_bits};
use rusqlite::named_params;

use super::messages::{message_columns, message_from_row};
use super::{MessageRecord, Reader};

/// A place in a channel's history: a message (its timestamp and id), or an instant alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub sent_at: Instant,
    /// None for an instant: then "after" includes messages sent at that very instant (bound as
    /// the empty text, below every id).
    pub message_id: Option<MessageId>,
}

/// Where to read a channel's history from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Anchor {
    /// The newest messages.
    Latest,
    /// Strictly before the position.
    Before(Position),
    /// After the position (at or after, for an instant).
    After(Position),
    /// Half before the position, half from it on.
    Around(Position),
}

/// A page of history, oldest first, and whether more lies beyond each end.
#[derive(Debug, Clone)]
pub struct HistoryPage {
    pub messages: Vec<MessageRecord>,
    pub has_older: bool,
    pub has_newer: bool,
}

/// A channel's messages strictly before a position, newest first.
const OLDER_THAN: &str = concat!(
    "SELECT ",
    message_columns!(),
    " FROM messages
     WHERE channel_id = :channel_id
       AND (sent_at < :sent_at OR (sent_at = :sent_at AND message_id < :message_id))
     ORDER BY sent_at DESC, message_id DESC LIMIT :limit"
);

/// A channel's messages strictly after a position, oldest first.
const NEWER_THAN: &str = concat!(
    "SELECT ",
    message_columns!(),
    " FROM messages
     WHERE channel_id = :channel_id
       AND (sent_at > :sent_at OR (sent_at = :sent_at AND message_id > :message_id))
     ORDER BY sent_at, message_id LIMIT :limit"
);

/// A channel's messages from a position on (the position's own message included), oldest
/// first.
const FROM_ON: &str = concat!(
    "SELECT ",
    message_columns!(),
    " FROM messages
     WHERE channel_id = :channel_id
       AND (sent_at > :sent_at OR (sent_at = :sent_at AND message_id >= :message_id))
     ORDER BY sent_at, message_id LIMIT :limit"
);

impl Reader<'_> {
    fn older(
        &self,
        channel_id: &ChannelId,
        at: &Position,
        limit: usize,
    ) -> Result<Vec<MessageRecord>> {
        let mut statement = self.connection.prepare_cached(OLDER_THAN)?;
        let mut rows = statement
            .query_map(
                named_params! {
                    ":channel_id": channel_id,
                    ":sent_at": at.sent_at,
                    ":message_id": at.message_id.map_or(0, stored_bits),
                    ":limit": limit as i64,
                },
                message_from_row,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        rows.reverse();
        Ok(rows)
    }

    fn newer(
        &self,
        channel_id: &ChannelId,
        at: &Position,
        inclusive: bool,
        limit: usize,
    ) -> Result<Vec<MessageRecord>> {
        let mut statement =
            self.connection
                .prepare_cached(if inclusive { FROM_ON } else { NEWER_THAN })?;
        let rows = statement
            .query_map(
                named_params! {
                    ":channel_id": channel_id,
                    ":sent_at": at.sent_at,
                    ":message_id": at.message_id.map_or(0, stored_bits),
                    ":limit": limit as i64,
                },
                message_from_row,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    fn position_of(message: &MessageRecord) -> Position {
        Position {
            sent_at: message.sent_at,
            message_id: Some(message.message_id),
        }
    }

    /// Up to `limit` messages of a channel around `anchor`, oldest first, hydrated.
    pub fn channel_history(
        &self,
        channel_id: &ChannelId,
        anchor: &Anchor,
        limit: usize,
    ) -> Result<HistoryPage> {
        // The latest instant accepted: after every message.
        let newest = Position {
            sent_at: discord_manager_vocabulary::instant::LATEST,
            message_id: None,
        };
        let messages = match anchor {
            Anchor::Latest => self.older(channel_id, &newest, limit)?,
            Anchor::Before(at) => self.older(channel_id, at, limit)?,
            Anchor::After(at) => self.newer(channel_id, at, false, limit)?,
            Anchor::Around(at) => {
                let before = limit / 2;
                let mut page = self.older(channel_id, at, before)?;
                page.extend(self.newer(channel_id, at, true, limit - before)?);
                page
            }
        };
        let has_older = match messages.first() {
            Some(first) => !self
                .older(channel_id, &Self::position_of(first), 1)?
                .is_empty(),
            None => false,
        };
        let has_newer = match messages.last() {
            Some(last) => !self
                .newer(channel_id, &Self::position_of(last), false, 1)?
                .is_empty(),
            None => false,
        };
        Ok(HistoryPage {
            messages: self.hydrate(messages)?,
            has_older,
            has_newer,
        })
    }
}
