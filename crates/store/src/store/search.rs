//! Full-text search (SQLite FTS5) over every version of every message's content and the words
//! of its attachments, embeds, stickers, poll and forwards; and the filters beside the query.

use rusqlite::params;

use super::messages::{MESSAGE_COLUMNS, MentionKind, message_from_row_at};
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
    /// Only messages in this guild.
    pub guild_id: Option<String>,
    /// Only messages with this (see [`Has`]).
    pub has: Option<Has>,
    /// Only pinned (true) or unpinned (false) messages, as they are now.
    pub pinned: Option<bool>,
    /// Discord says it was sent at or after.
    pub sent_since: Option<Instant>,
    /// Discord says it was sent before.
    pub sent_until: Option<Instant>,
    /// Only messages that mention (true) or do not mention (false) this owner.
    pub mentions_owner: Option<(bool, OwnerMentions)>,
    /// Only messages this kind of author wrote (see [`Author`]).
    pub author: Option<Author>,
}

/// Who wrote a message, for [`SearchFilter::author`]: the same rule as
/// `business::model::OwnerView::author_kind`, in SQL. A webhook's message is a webhook's
/// whatever author it shows; then the owner, this bot, another bot or app, anyone else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Author {
    Owner {
        owner_id: Option<String>,
    },
    ThisBot {
        owner_id: Option<String>,
        bot_id: Option<String>,
    },
    Bot {
        owner_id: Option<String>,
        bot_id: Option<String>,
    },
    Webhook,
    Person {
        owner_id: Option<String>,
        bot_id: Option<String>,
    },
}

impl Author {
    /// The condition on `m` (a `messages` row), and the owner's and the bot's ids it binds as
    /// ?12 and ?13 (an unknown id binds NULL, which no author id equals).
    fn condition(&self) -> (String, Option<&str>, Option<&str>) {
        // Neither a webhook's, nor the owner's, nor this bot's.
        let other = "m.webhook_id IS NULL AND m.author_id IS NOT ?12 AND m.author_id IS NOT ?13";
        match self {
            Author::Webhook => ("m.webhook_id IS NOT NULL".into(), None, None),
            Author::Owner { owner_id } => (
                "(m.webhook_id IS NULL AND m.author_id = ?12)".into(),
                owner_id.as_deref(),
                None,
            ),
            Author::ThisBot { owner_id, bot_id } => (
                "(m.webhook_id IS NULL AND m.author_id IS NOT ?12 AND m.author_id = ?13)".into(),
                owner_id.as_deref(),
                bot_id.as_deref(),
            ),
            Author::Bot { owner_id, bot_id } => (
                format!("({other} AND (m.author_bot = 1 OR m.application_id IS NOT NULL))"),
                owner_id.as_deref(),
                bot_id.as_deref(),
            ),
            Author::Person { owner_id, bot_id } => (
                format!("({other} AND coalesce(m.author_bot, 0) = 0 AND m.application_id IS NULL)"),
                owner_id.as_deref(),
                bot_id.as_deref(),
            ),
        }
    }
}

/// What a message holds besides text, for [`SearchFilter::has`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Has {
    /// A file attached.
    Attachment,
    /// An image attachment or an image embed.
    Image,
    Embed,
    /// A URL in the text, or an embed's URL.
    Link,
    Poll,
}

/// Who "the owner" is for a mentions filter: the user, and the roles they hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnerMentions {
    pub user_id: String,
    pub role_ids: Vec<String>,
}

/// The newest extras row of the message in scope (`m`), for the filters that read it.
const CURRENT_EXTRAS: &str = "(SELECT x.extras FROM message_extras AS x
                                WHERE x.message_id = m.message_id ORDER BY x.seq DESC LIMIT 1)";

impl Has {
    /// The SQL condition on a message `m` whose current extras are `extras`.
    fn condition(self) -> String {
        match self {
            Has::Attachment => "json_array_length(extras, '$.attachments') > 0".to_string(),
            Has::Image => "(EXISTS (SELECT 1 FROM json_each(extras, '$.attachments') AS a
                                    WHERE json_extract(a.value, '$.contentType') LIKE 'image/%')
                            OR EXISTS (SELECT 1 FROM json_each(extras, '$.embeds') AS e
                                       WHERE json_extract(e.value, '$.image') IS NOT NULL
                                          OR json_extract(e.value, '$.type') IN ('image', 'gifv')))"
                .to_string(),
            Has::Embed => "json_array_length(extras, '$.embeds') > 0".to_string(),
            Has::Link => "(m.content LIKE '%http://%' OR m.content LIKE '%https://%'
                           OR EXISTS (SELECT 1 FROM message_edits AS ed
                                      WHERE ed.message_id = m.message_id
                                        AND (ed.content LIKE '%http://%' OR ed.content LIKE '%https://%'))
                           OR EXISTS (SELECT 1 FROM json_each(extras, '$.embeds') AS e
                                      WHERE json_extract(e.value, '$.url') IS NOT NULL))"
                .to_string(),
            Has::Poll => "json_extract(extras, '$.poll') IS NOT NULL".to_string(),
        }
    }
}

/// Whether message `m` mentions the owner (`?7` the user id, `?8` a JSON array of their role
/// ids), the way `Message::mentions_owner` says it: directly, by a role, with @everyone, or by
/// replying to the owner; never their own message.
fn mentions_owner() -> String {
    format!(
        "(m.author_id <> ?7 AND (
        m.mention_everyone = 1 OR coalesce(m.reply_to_author_id = ?7, 0)
        OR EXISTS (SELECT 1 FROM message_mentions AS mm
                   WHERE mm.message_id = m.message_id AND mm.kind = '{user}' AND mm.target_id = ?7)
        OR EXISTS (SELECT 1 FROM message_mentions AS mm
                   WHERE mm.message_id = m.message_id AND mm.kind = '{role}'
                     AND mm.target_id IN (SELECT value FROM json_each(?8)))))",
        user = MentionKind::User,
        role = MentionKind::Role,
    )
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
        let (conditions, author_ids) = filter.conditions();
        let extra = conditions
            .iter()
            .map(|condition| format!(" AND {condition}"))
            .collect::<String>();
        // A message can match on several versions: read a few more rows than asked and keep
        // each message's best one. The filters on extras read the message's current row.
        let sql = format!(
            "SELECT snippet, rank, {MESSAGE_COLUMNS} FROM (
                 SELECT hits.snippet, hits.rank, m.*, {CURRENT_EXTRAS} AS extras
                 FROM (SELECT message_id,
                              snippet(message_text, 0, '[', ']', '…', 16) AS snippet,
                              bm25(message_text) AS rank
                       FROM message_text WHERE message_text MATCH ?1) AS hits
                 JOIN messages AS m USING (message_id)
                 WHERE m.channel_id IN (SELECT value FROM json_each(?2))
                   AND (?3 IS NULL OR m.author_id = ?3)
                   AND (?4 IS NULL OR m.created_at >= ?4)
                   AND (?5 IS NULL OR m.created_at < ?5)
                   AND (?9 IS NULL OR m.guild_id = ?9)
                   AND (?10 IS NULL OR m.sent_at >= ?10)
                   AND (?11 IS NULL OR m.sent_at < ?11){extra}
             )
             ORDER BY rank, created_at
             LIMIT ?6"
        );
        let mut statement = self.connection.prepare_cached(&sql)?;
        let mut bound = filter.bound(query, limit * 4, author_ids);
        // Bind what the statement names: an author condition may name ?12, both, or neither.
        bound.truncate(statement.parameter_count());
        let rows = statement.query_map(rusqlite::params_from_iter(bound), |row| {
            let snippet: String = row.get(0)?;
            let rank: f64 = row.get(1)?;
            let message = message_from_row_at(row, 2)?;
            Ok((snippet, rank, message))
        });
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

/// The owner's and the bot's ids an author condition names (`?12`, `?13`), when it does.
type AuthorIds = (Option<String>, Option<String>);

impl SearchFilter {
    /// The conditions beyond the fixed ones, on the message's current row, and the ids the
    /// author condition binds.
    fn conditions(&self) -> (Vec<String>, AuthorIds) {
        let mut conditions: Vec<String> = Vec::new();
        if let Some(has) = self.has {
            conditions.push(has.condition());
        }
        match self.pinned {
            Some(true) => {
                conditions.push("coalesce(json_extract(extras, '$.pinned'), 0) = 1".into())
            }
            Some(false) => {
                conditions.push("coalesce(json_extract(extras, '$.pinned'), 0) = 0".into())
            }
            None => {}
        }
        match &self.mentions_owner {
            Some((true, _)) => conditions.push(mentions_owner()),
            Some((false, _)) => conditions.push(format!("NOT {}", mentions_owner())),
            None => {}
        }
        let author_ids = match &self.author {
            Some(author) => {
                let (condition, owner, bot) = author.condition();
                conditions.push(condition);
                (owner.map(str::to_string), bot.map(str::to_string))
            }
            None => (None, None),
        };
        (conditions, author_ids)
    }

    /// The values of `?1` to `?13`, in order: the query, the channels, the author, the arrival
    /// window, the row limit, the owner and the owner's roles, the guild, Discord's window,
    /// and the author condition's ids.
    fn bound(
        &self,
        query: &str,
        rows: usize,
        author_ids: AuthorIds,
    ) -> Vec<rusqlite::types::Value> {
        let channels = serde_json::to_string(&self.channel_ids).unwrap_or_else(|_| "[]".into());
        let (owner_id, owner_roles) = match &self.mentions_owner {
            Some((_, owner)) => (
                Some(owner.user_id.clone()),
                Some(serde_json::to_string(&owner.role_ids).unwrap_or_else(|_| "[]".into())),
            ),
            None => (None, None),
        };
        let text = |value: Option<String>| rusqlite::types::Value::from(value);
        vec![
            text(Some(query.to_string())),
            text(Some(channels)),
            text(self.author_id.clone()),
            text(self.since.map(Instant::to_iso)),
            text(self.until.map(Instant::to_iso)),
            rusqlite::types::Value::Integer(rows as i64),
            text(owner_id),
            text(owner_roles),
            text(self.guild_id.clone()),
            text(self.sent_since.map(Instant::to_iso)),
            text(self.sent_until.map(Instant::to_iso)),
            text(author_ids.0),
            text(author_ids.1),
        ]
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
