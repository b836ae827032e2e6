//! Full-text search (SQLite FTS5) over every version of every message's content and the words
//! of its attachments, embeds, stickers, poll and forwards, and the text of its kept text
//! files (`attachment_text.rs`, which says whose a row is); and the filters beside the query.

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use rusqlite::named_params;
use rusqlite::types::Value;

use super::messages::{MentionKind, message_columns, message_from_row_at};
use super::{MessageRecord, Reader, Writer};

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
/// `business::kernel::model::OwnerView::author_kind`, in SQL. A webhook's message is a webhook's
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
    /// Adds the condition on `m` (a `messages` row), with the owner's and the bot's ids it
    /// names as `:author_owner` and `:author_bot` (an unknown id binds NULL, which no author
    /// id equals).
    fn add_to(&self, conditions: &mut Conditions) {
        /// Neither a webhook's, nor the owner's, nor this bot's.
        macro_rules! other_author {
            () => {
                "m.webhook_id IS NULL AND m.author_id IS NOT :author_owner \
                 AND m.author_id IS NOT :author_bot"
            };
        }
        const BY_WEBHOOK: &str = "m.webhook_id IS NOT NULL";
        const BY_OWNER: &str = "(m.webhook_id IS NULL AND m.author_id = :author_owner)";
        const BY_THIS_BOT: &str = "(m.webhook_id IS NULL AND m.author_id IS NOT :author_owner \
                                   AND m.author_id = :author_bot)";
        const BY_OTHER_BOT: &str = concat!(
            "(",
            other_author!(),
            " AND (m.author_bot = 1 OR m.application_id IS NOT NULL))"
        );
        const BY_PERSON: &str = concat!(
            "(",
            other_author!(),
            " AND coalesce(m.author_bot, 0) = 0 AND m.application_id IS NULL)"
        );
        let id = |id: &Option<String>| Value::from(id.clone());
        match self {
            Author::Webhook => conditions.and(BY_WEBHOOK, []),
            Author::Owner { owner_id } => {
                conditions.and(BY_OWNER, [(":author_owner", id(owner_id))])
            }
            Author::ThisBot { owner_id, bot_id } => conditions.and(
                BY_THIS_BOT,
                [(":author_owner", id(owner_id)), (":author_bot", id(bot_id))],
            ),
            Author::Bot { owner_id, bot_id } => conditions.and(
                BY_OTHER_BOT,
                [(":author_owner", id(owner_id)), (":author_bot", id(bot_id))],
            ),
            Author::Person { owner_id, bot_id } => conditions.and(
                BY_PERSON,
                [(":author_owner", id(owner_id)), (":author_bot", id(bot_id))],
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

/// The newest extras row of the message in scope (`m`), for the filters that read it: a macro,
/// so that the search statement can `concat!` it.
macro_rules! current_extras {
    () => {
        "(SELECT x.extras FROM message_extras AS x
          WHERE x.message_id = m.message_id ORDER BY x.seq DESC LIMIT 1)"
    };
}

impl Has {
    /// The SQL condition on a message `m` whose current extras are `extras`.
    fn condition(self) -> &'static str {
        match self {
            Has::Attachment => "json_array_length(extras, '$.attachments') > 0",
            Has::Image => "(EXISTS (SELECT 1 FROM json_each(extras, '$.attachments') AS a
                                    WHERE json_extract(a.value, '$.contentType') LIKE 'image/%')
                            OR EXISTS (SELECT 1 FROM json_each(extras, '$.embeds') AS e
                                       WHERE json_extract(e.value, '$.image') IS NOT NULL
                                          OR json_extract(e.value, '$.type') IN ('image', 'gifv')))",
            Has::Embed => "json_array_length(extras, '$.embeds') > 0",
            Has::Link => "(m.content LIKE '%http://%' OR m.content LIKE '%https://%'
                           OR EXISTS (SELECT 1 FROM message_edits AS ed
                                      WHERE ed.message_id = m.message_id
                                        AND (ed.content LIKE '%http://%' OR ed.content LIKE '%https://%'))
                           OR EXISTS (SELECT 1 FROM json_each(extras, '$.embeds') AS e
                                      WHERE json_extract(e.value, '$.url') IS NOT NULL))",
            Has::Poll => "json_extract(extras, '$.poll') IS NOT NULL",
        }
    }
}

/// Whether message `m` mentions the owner (`:owner` the user id, `:owner_roles` a JSON array
/// of their role ids, `:user_kind` and `:role_kind` the two kinds of mention), the way
/// `Message::mentions_owner` says it: directly, by a role, with @everyone, or by replying to
/// the owner; never their own message.
macro_rules! mentions_owner {
    () => {
        "(m.author_id <> :owner AND (
        m.mention_everyone = 1 OR coalesce(m.reply_to_author_id = :owner, 0)
        OR EXISTS (SELECT 1 FROM message_mentions AS mm
                   WHERE mm.message_id = m.message_id AND mm.kind = :user_kind
                     AND mm.target_id = :owner)
        OR EXISTS (SELECT 1 FROM message_mentions AS mm
                   WHERE mm.message_id = m.message_id AND mm.kind = :role_kind
                     AND mm.target_id IN (SELECT value FROM json_each(:owner_roles)))))"
    };
}
const MENTIONS_OWNER: &str = mentions_owner!();
const DOES_NOT_MENTION_OWNER: &str = concat!("NOT ", mentions_owner!());

/// A message that matched, with the best-matching version's snippet.
#[derive(Debug, Clone)]
pub struct SearchHit {
    pub message: MessageRecord,
    /// The matching text with each match between `[` and `]`.
    pub snippet: String,
    /// FTS5's bm25 rank: lower is better.
    pub rank: f64,
    /// The attachment whose text matched best, when that was the best match (the snippet is
    /// then from the file's text); None when it was the message's own words.
    pub in_attachment: Option<AttachmentMatch>,
}

/// The attachment a hit was in (`migrations/0021_attachment_text_in_search.sql`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttachmentMatch {
    pub attachment_id: String,
    pub filename: String,
}

impl Writer<'_> {
    /// Indexes one version of a message's content; called with the message and with each edit.
    pub(super) fn index_text(&mut self, message_id: &str, content: &str) -> Result<()> {
        if content.is_empty() {
            return Ok(());
        }
        const INDEX_TEXT: &str =
            "INSERT INTO message_text (content, message_id) VALUES (:content, :message_id)";
        self.transaction
            .prepare_cached(INDEX_TEXT)?
            .execute(named_params! {":content": content, ":message_id": message_id})?;
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
        let mut conditions = filter.conditions();
        conditions.bind(":query", Value::from(query.to_string()));
        conditions.bind(":rows", Value::Integer((limit * 4) as i64));
        // A message can match on several versions: read a few more rows than asked and keep
        // each message's best one. The filters on extras read the message's current row.
        const SEARCH_UP_TO_CONDITIONS: &str = concat!(
            "SELECT snippet, rank, matched_attachment_id, matched_filename, ",
            message_columns!(),
            " FROM (
                 SELECT hits.snippet, hits.rank, hits.matched_attachment_id,
                        hits.matched_filename, m.*, ",
            current_extras!(),
            " AS extras
                 FROM (SELECT message_text.message_id,
                              snippet(message_text, 0, '[', ']', '…', 16) AS snippet,
                              bm25(message_text) AS rank,
                              t.attachment_id AS matched_attachment_id,
                              t.filename AS matched_filename
                       FROM message_text
                       LEFT JOIN attachment_text AS t ON t.text_rowid = message_text.rowid
                       WHERE message_text MATCH :query) AS hits
                 JOIN messages AS m USING (message_id)
                 WHERE "
        );
        const SEARCH_AFTER_CONDITIONS: &str = "
             )
             ORDER BY rank, created_at
             LIMIT :rows";
        // Composed: the conditions are the filter's, so the statement's shape varies with it
        // (one cached statement per shape); each piece is a constant.
        let sql = [
            SEARCH_UP_TO_CONDITIONS,
            conditions.sql.as_str(),
            SEARCH_AFTER_CONDITIONS,
        ]
        .concat();
        let mut statement = self.connection.prepare_cached(&sql)?;
        let rows = statement.query_map(conditions.values().as_slice(), |row| {
            let snippet: String = row.get(0)?;
            let rank: f64 = row.get(1)?;
            let in_attachment = row
                .get::<_, Option<String>>(2)?
                .zip(row.get::<_, Option<String>>(3)?)
                .map(|(attachment_id, filename)| AttachmentMatch {
                    attachment_id,
                    filename,
                });
            let message = message_from_row_at(row, 4)?;
            Ok(((snippet, rank, in_attachment), message))
        });
        let rows = match rows.and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>()) {
            Ok(rows) => rows,
            Err(error) if is_query_syntax_error(&error) => return Ok(None),
            Err(error) => return Err(error.into()),
        };
        let mut seen = std::collections::HashSet::new();
        let mut hits = Vec::new();
        for (matched, message) in rows {
            if seen.insert(message.message_id.clone()) && hits.len() < limit {
                hits.push((matched, message));
            }
        }
        let records = self.hydrate(hits.iter().map(|(_, message)| message.clone()).collect())?;
        Ok(Some(
            hits.into_iter()
                .zip(records)
                .map(|(((snippet, rank, in_attachment), _), message)| SearchHit {
                    message,
                    snippet,
                    rank,
                    in_attachment,
                })
                .collect(),
        ))
    }
}

impl SearchFilter {
    /// The conditions on the message `m` and its current extras, each with the values it
    /// names: only what the filter sets narrows the search.
    pub(super) fn conditions(&self) -> Conditions {
        let mut conditions = Conditions::default();
        let channels = serde_json::to_string(&self.channel_ids).unwrap_or_else(|_| "[]".into());
        conditions.and(
            "m.channel_id IN (SELECT value FROM json_each(:channels))",
            [(":channels", Value::from(channels))],
        );
        let text = |value: &str| Value::from(value.to_string());
        let instant = |at: &Instant| Value::from(at.to_iso());
        if let Some(author_id) = &self.author_id {
            conditions.and(
                "m.author_id = :author_id",
                [(":author_id", text(author_id))],
            );
        }
        if let Some(since) = &self.since {
            conditions.and("m.created_at >= :since", [(":since", instant(since))]);
        }
        if let Some(until) = &self.until {
            conditions.and("m.created_at < :until", [(":until", instant(until))]);
        }
        if let Some(guild_id) = &self.guild_id {
            conditions.and("m.guild_id = :guild_id", [(":guild_id", text(guild_id))]);
        }
        if let Some(sent_since) = &self.sent_since {
            conditions.and(
                "m.sent_at >= :sent_since",
                [(":sent_since", instant(sent_since))],
            );
        }
        if let Some(sent_until) = &self.sent_until {
            conditions.and(
                "m.sent_at < :sent_until",
                [(":sent_until", instant(sent_until))],
            );
        }
        if let Some(has) = self.has {
            conditions.and(has.condition(), []);
        }
        match self.pinned {
            Some(true) => conditions.and("coalesce(json_extract(extras, '$.pinned'), 0) = 1", []),
            Some(false) => conditions.and("coalesce(json_extract(extras, '$.pinned'), 0) = 0", []),
            None => {}
        }
        if let Some((mentions, owner)) = &self.mentions_owner {
            let roles = serde_json::to_string(&owner.role_ids).unwrap_or_else(|_| "[]".into());
            let condition = if *mentions {
                MENTIONS_OWNER
            } else {
                DOES_NOT_MENTION_OWNER
            };
            conditions.and(
                condition,
                [
                    (":owner", text(&owner.user_id)),
                    (":owner_roles", Value::from(roles)),
                    (":user_kind", text(MentionKind::User.as_str())),
                    (":role_kind", text(MentionKind::Role.as_str())),
                ],
            );
        }
        if let Some(author) = &self.author {
            author.add_to(&mut conditions);
        }
        conditions
    }
}

/// A search's conditions, joined by AND, and the named parameters they bind, built together:
/// a condition is added with exactly the values it names, so nothing is bound that no
/// condition names and nothing named goes unbound.
#[derive(Debug, Default)]
pub(super) struct Conditions {
    sql: String,
    values: Vec<(&'static str, Value)>,
}

impl Conditions {
    /// Adds `condition`, which names the parameters in `values` and no others.
    fn and<const N: usize>(&mut self, condition: &str, values: [(&'static str, Value); N]) {
        if !self.sql.is_empty() {
            self.sql.push_str(" AND ");
        }
        self.sql.push_str(condition);
        for (name, value) in values {
            self.bind(name, value);
        }
    }

    /// Binds `name` to `value`; a parameter two conditions name (the owner's id) is bound once.
    fn bind(&mut self, name: &'static str, value: Value) {
        match self.values.iter().find(|(bound, _)| *bound == name) {
            Some((_, already)) => debug_assert_eq!(already, &value, "{name} bound twice"),
            None => self.values.push((name, value)),
        }
    }

    /// The conditions, joined by AND.
    pub(super) fn sql(&self) -> &str {
        &self.sql
    }

    /// The values, as rusqlite binds named parameters.
    pub(super) fn values(&self) -> Vec<(&str, &dyn rusqlite::ToSql)> {
        self.values
            .iter()
            .map(|(name, value)| (*name, value as &dyn rusqlite::ToSql))
            .collect()
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
