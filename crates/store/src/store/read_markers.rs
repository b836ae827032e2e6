//! The owner's read markers: appended per channel, the newest row of a channel is its marker;
//! and the reads that start after them.

use std::collections::HashMap;

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::ChannelId;
use rusqlite::named_params;

use super::messages::{imported_origin, message_columns, message_from_row};
use super::{MessageRecord, Reader, Writer};

impl Reader<'_> {
    /// Every channel's read marker: the instant its newest marker reads through.
    pub fn read_markers(&self) -> Result<HashMap<ChannelId, Instant>> {
        const NEWEST_READ_MARKERS: &str = "SELECT channel_id, read_through FROM read_markers
             WHERE seq IN (SELECT max(seq) FROM read_markers GROUP BY channel_id)";
        let mut statement = self.connection.prepare_cached(NEWEST_READ_MARKERS)?;
        let mut markers = HashMap::new();
        let mut rows = statement.query([])?;
        while let Some(row) = rows.next()? {
            markers.insert(row.get(0)?, row.get(1)?);
        }
        Ok(markers)
    }

    /// Up to `limit` messages that arrived at or after `from` and at or after their own
    /// channel's start in `starts` (channels not in it are left out), in arrival order across
    /// channels, hydrated.
    pub fn messages_arrived_from_starts(
        &self,
        starts: &HashMap<ChannelId, Instant>,
        from: Instant,
        limit: usize,
    ) -> Result<Vec<MessageRecord>> {
        let starts: serde_json::Map<String, serde_json::Value> = starts
            .iter()
            .map(|(channel, start)| (channel.to_string(), start.as_micros().into()))
            .collect();
        let starts = serde_json::Value::Object(starts).to_string();
        // Channel ids are digits, so the JSON path quotes them as object keys.
        const NEWS_ARRIVED_FROM_STARTS: &str = concat!(
            "SELECT ",
            message_columns!(),
            " FROM messages INDEXED BY messages_by_arrival
             WHERE created_at >= :from AND origin <> '",
            imported_origin!(),
            "' AND created_at >= json_extract(:starts, '$.\"' || channel_id || '\"')
             ORDER BY created_at LIMIT :limit"
        );
        let mut statement = self.connection.prepare_cached(NEWS_ARRIVED_FROM_STARTS)?;
        let rows = statement
            .query_map(
                named_params! {
                    ":from": from,
                    ":starts": starts,
                    ":limit": limit as i64,
                },
                message_from_row,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        self.hydrate(rows)
    }
}

impl Writer<'_> {
    /// Appends a read marker: `channel_id` is read through `through`.
    pub fn append_read_marker(
        &mut self,
        channel_id: &ChannelId,
        through: Instant,
        source: &str,
    ) -> Result<Instant> {
        const INSERT_READ_MARKER: &str = "INSERT INTO read_markers (created_at, channel_id,
                 read_through, source)
             VALUES (:created_at, :channel_id, :read_through, :source)";
        let created_at = self.stamp();
        self.transaction.execute(
            INSERT_READ_MARKER,
            named_params! {
                ":created_at": created_at,
                ":channel_id": channel_id,
                ":read_through": through,
                ":source": source,
            },
        )?;
        Ok(created_at)
    }
}
