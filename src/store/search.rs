//! Full-text search (SQLite FTS5) over every version of every message's content.

use rusqlite::params;

use super::messages::{MESSAGE_COLUMNS, message_from_row_at};
use super::{MessageRecord, Reader, Writer};
use crate::error::Result;
use crate::instant::Instant;

/// What narrows a search besides the query.
#[derive(Debug, Clone, Default)]
pub struct SearchFilter {
    /// Only messages in these channels (the caller's readable channels in scope).
    pub channel_ids: Vec<String>,
    pub author_id: Option<String>,
    /// Arrived at or after.
    pub since: Option<Instant>,
    /// Arrived before.
    pub until: Option<Instant>,
}

/// A message that matched, with the best-matching version's snippet.
#[derive(Debug, Clone)]
pub struct SearchHit {
    pub message: MessageRecord,
    /// The matching text with each match between `[` and `]`.
    pub snippet: String,
    /// FTS5's bm25 rank: lower is better.
    pub rank: f64,
}

impl Writer<'_> {
    /// Indexes one version of a message's content; called with the message and with each edit.
    pub(super) fn index_text(&mut self, message_id: &str, content: &str) -> Result<()> {
        if content.is_empty() {
            return Ok(());
        }
        self.transaction
            .prepare_cached("INSERT INTO message_text (content, message_id) VALUES (?1, ?2)")?
            .execute(params![content, message_id])?;
        Ok(())
    }
}

impl Reader<'_> {
    /// The best `limit` messages for an FTS5 query, best first. `Ok(None)` when FTS5 cannot
    /// parse the query.
    pub fn search(
        &self,
        query: &str,
        filter: &SearchFilter,
        limit: usize,
    ) -> Result<Option<Vec<SearchHit>>> {
        let channels = serde_json::to_string(&filter.channel_ids).unwrap_or_else(|_| "[]".into());
        // A message can match on several versions: read a few more rows than asked and keep
        // each message's best one.
        let mut statement = self.connection.prepare_cached(&format!(
            "SELECT hits.snippet, hits.rank, {MESSAGE_COLUMNS}
             FROM (SELECT message_id,
                          snippet(message_text, 0, '[', ']', '…', 16) AS snippet,
                          bm25(message_text) AS rank
                   FROM message_text WHERE message_text MATCH ?1) AS hits
             JOIN messages USING (message_id)
             WHERE channel_id IN (SELECT value FROM json_each(?2))
               AND (?3 IS NULL OR author_id = ?3)
               AND (?4 IS NULL OR created_at >= ?4)
               AND (?5 IS NULL OR created_at < ?5)
             ORDER BY hits.rank, created_at
             LIMIT ?6"
        ))?;
        let rows = statement.query_map(
            params![
                query,
                channels,
                filter.author_id,
                filter.since.map(Instant::to_iso),
                filter.until.map(Instant::to_iso),
                (limit * 4) as i64
            ],
            |row| {
                let snippet: String = row.get(0)?;
                let rank: f64 = row.get(1)?;
                let message = message_from_row_at(row, 2)?;
                Ok((snippet, rank, message))
            },
        );
        let rows = match rows.and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>()) {
            Ok(rows) => rows,
            Err(error) if is_query_syntax_error(&error) => return Ok(None),
            Err(error) => return Err(error.into()),
        };
        let mut seen = std::collections::HashSet::new();
        let mut hits: Vec<(String, f64, MessageRecord)> = Vec::new();
        for (snippet, rank, message) in rows {
            if seen.insert(message.message_id.clone()) && hits.len() < limit {
                hits.push((snippet, rank, message));
            }
        }
        let records = self.hydrate(hits.iter().map(|(_, _, message)| message.clone()).collect())?;
        Ok(Some(
            hits.into_iter()
                .zip(records)
                .map(|((snippet, rank, _), message)| SearchHit {
                    message,
                    snippet,
                    rank,
                })
                .collect(),
        ))
    }
}

/// FTS5 reports a query it cannot parse as an SQLite error whose text names the problem.
fn is_query_syntax_error(error: &rusqlite::Error) -> bool {
    let text = error.to_string();
    [
        "fts5",
        "syntax error",
        "no such column",
        "unterminated string",
        "unknown special query",
    ]
    .iter()
    .any(|sign| text.contains(sign))
}
