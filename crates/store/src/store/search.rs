//! Full-text search (SQLite FTS5) over every version of every message's content and the words
//! of its attachments, embeds, stickers, poll and forwards (`message_text`), and the text of
//! its kept text files (`file_text`, with `attachment_text.rs` saying whose a row is); and the
//! filters beside the query; words in Chinese and Japanese are found through `cjk_text`
//! (`cjk.rs`). FTS5 ranks the messages' matches from its index before any
//! message row is read, and only the best-ranked versions' messages are read and filtered;
//! the files' index is read newest first, and only its newest [`FILES_RANKED`] matches that
//! pass the filters are ranked beside them ([`Reader::search`]).

use std::collections::{HashMap, HashSet};

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{
    AttachmentId, ChannelId, GuildId, RoleId, UserId, sql_id_array, stored_bits,
};
use rusqlite::types::Value;
use rusqlite::{OptionalExtension, named_params};

use super::cjk;
use super::messages::{MentionKind, is_reply, message_columns, message_from_row_at};
use super::{MessageRecord, Reader};

/// What narrows a search besides the query.
#[derive(Debug, Clone, Default)]
pub struct SearchFilter {
    /// Only messages in these channels (the caller's readable channels in scope).
    pub channel_ids: Vec<ChannelId>,
    pub author_id: Option<UserId>,
    /// Arrived at or after.
    pub since: Option<Instant>,
    /// Arrived before.
    pub until: Option<Instant>,
    /// Only messages in this guild.
    pub guild_id: Option<GuildId>,
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
        owner_id: Option<UserId>,
    },
    ThisBot {
        owner_id: Option<UserId>,
        bot_id: Option<UserId>,
    },
    Bot {
        owner_id: Option<UserId>,
        bot_id: Option<UserId>,
    },
    Webhook,
    Person {
        owner_id: Option<UserId>,
        bot_id: Option<UserId>,
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
        let id = |id: &Option<UserId>| Value::from(id.as_ref().map(UserId::to_string));
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerMentions {
    pub user_id: UserId,
    pub role_ids: Vec<RoleId>,
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
        concat!(
            "(m.author_id <> :owner AND (
        m.mention_everyone = 1 OR coalesce(m.reply_to_author_id = :owner AND ",
            is_reply!("m"),
            ", 0)
        OR EXISTS (SELECT 1 FROM message_mentions AS mm
                   WHERE mm.message_id = m.message_id AND mm.kind = :user_kind
                     AND mm.target_id = :owner)
        OR EXISTS (SELECT 1 FROM message_mentions AS mm
                   WHERE mm.message_id = m.message_id AND mm.kind = :role_kind
                     AND mm.target_id IN (SELECT value FROM json_each(:owner_roles)))))"
        )
    };
}
const MENTIONS_OWNER: &str = mentions_owner!();
const DOES_NOT_MENTION_OWNER: &str = concat!("NOT ", mentions_owner!());

/// What a search found: the page's hits, best first, and whether kept files matched beyond
/// the newest [`FILES_RANKED`] that were ranked.
#[derive(Debug, Clone, Default)]
pub struct SearchPage {
    pub hits: Vec<SearchHit>,
    /// More kept files that pass the filters match than the newest [`FILES_RANKED`]: the
    /// older ones' text was not ranked (narrowing the search reaches them).
    pub older_files_unranked: bool,
}

/// How many of the kept text files that match a search (and pass its filters) are ranked: the
/// newest. A word that fills log files matches every one of them, and FTS5's rank reads each
/// matching file's positions (about 35 µs for 64 KiB), so ranking all the files a full cache
/// holds (16,384 of 64 KiB) took 0.6 s a search; the newest 200 cost a bounded few
/// milliseconds (docs/performance.md, "Kept text files and search by words").
pub const FILES_RANKED: usize = 200;

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
    pub attachment_id: AttachmentId,
    pub filename: String,
}

/// How many versions the first pass reads from the index for each message a search returns:
/// room for the filters to leave some out (unreadable channels, another channel, an author)
/// and for a message matching on several versions, and still prove the page complete (see
/// [`Reader::search`]).
const CANDIDATES_PER_RESULT: usize = 2;

/// The versions that match, ranked inside FTS5 (bm25, best first: `ORDER BY rank` is the
/// order FTS5 sorts by itself, from its index, before any row is read), at most
/// `:candidates` of them (-1: all); then their messages, the filters, and the best `:rows` by
/// rank and arrival. The first two columns say how many versions the index gave and the worst
/// rank among them, which is how [`Reader::search`] proves a page complete. A macro, so that
/// the statement can `concat!` it around the filter's conditions.
macro_rules! ranked_up_to_conditions {
    () => {
        concat!(
            "WITH candidates AS MATERIALIZED (
                 SELECT rowid AS text_rowid, message_id, rank FROM message_text
                 WHERE message_text MATCH :query
                 ORDER BY rank
                 LIMIT :candidates)
             SELECT (SELECT count(*) FROM candidates), (SELECT max(rank) FROM candidates),
                    text_rowid, rank, ",
            message_columns!(),
            " FROM (
                 SELECT c.text_rowid, c.rank, m.*, ",
            current_extras!(),
            " AS extras
                 FROM candidates AS c
                 JOIN messages AS m USING (message_id)
                 WHERE "
        )
    };
}
const RANKED_UP_TO_CONDITIONS: &str = ranked_up_to_conditions!();
const RANKED_AFTER_CONDITIONS: &str = "
             )
             ORDER BY rank, created_at, text_rowid
             LIMIT :rows";

/// What the kept versions (`:kept`, a JSON array of their rowids in the index) matched: each
/// one's snippet. One walk over the messages' matches, a snippet for the kept ones only (`+`
/// keeps the rowid test out of FTS5's hands, which would otherwise run the query once per
/// rowid).
const MATCHED_TEXT: &str = "SELECT rowid, snippet(message_text, 0, '[', ']', '…', 16)
     FROM message_text
     WHERE message_text MATCH :query
       AND +rowid IN (SELECT value FROM json_each(:kept))";

/// The newest kept files whose text matches and whose message passes the filters, at most
/// `:files` of them, each with its rank: the files' index is walked from its newest row and
/// stops at the limit, and the rank is computed for the rows returned only (a statement's
/// columns are read for the rows that pass its WHERE). A macro, so that the statement can
/// `concat!` it around the filter's conditions.
macro_rules! newest_files_up_to_conditions {
    () => {
        concat!(
            "SELECT text_rowid, rank, ",
            message_columns!(),
            " FROM (
                 SELECT f.rowid AS text_rowid, bm25(file_text) AS rank, m.*, ",
            current_extras!(),
            " AS extras
                 FROM file_text AS f
                 JOIN messages AS m ON m.message_id = f.message_id
                 WHERE file_text MATCH :query AND "
        )
    };
}
const NEWEST_FILES_UP_TO_CONDITIONS: &str = newest_files_up_to_conditions!();
const NEWEST_FILES_AFTER_CONDITIONS: &str = "
                 ORDER BY f.rowid DESC
                 LIMIT :files)
             ORDER BY rank, created_at, text_rowid";

/// The versions whose words in Chinese or Japanese match (`cjk_text`, the query rewritten by
/// `cjk::query`) and whose message passes the filters, best rank first, at most `:rows`. A
/// macro, so that the statement can `concat!` it around the filter's conditions.
macro_rules! cjk_up_to_conditions {
    () => {
        concat!(
            "SELECT text_rowid, rank, ",
            message_columns!(),
            " FROM (
                 SELECT c.rowid AS text_rowid, c.rank, m.*, ",
            current_extras!(),
            " AS extras
                 FROM cjk_text AS c
                 JOIN messages AS m ON m.message_id = c.message_id
                 WHERE cjk_text MATCH :query AND "
        )
    };
}
const CJK_UP_TO_CONDITIONS: &str = cjk_up_to_conditions!();
const CJK_AFTER_CONDITIONS: &str = "
             )
             ORDER BY rank, created_at, text_rowid
             LIMIT :rows";

/// A version's text as `message_text` keeps it, for a snippet of a match in `cjk_text`.
const VERSION_TEXT: &str = "SELECT content FROM message_text WHERE rowid = :rowid";

/// What one kept file (`:rowid` in the files' index) matched: its snippet and the attachment.
/// FTS5 seeks the one row.
const MATCHED_FILE: &str = "SELECT snippet(file_text, 0, '[', ']', '…', 16), t.attachment_id,
            t.filename
     FROM file_text
     JOIN attachment_text AS t ON t.text_rowid = file_text.rowid
     WHERE file_text MATCH :query AND file_text.rowid = :rowid";

/// Which index a ranked row is from: the two number their rows apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TextIndex {
    /// `message_text`: a version of the message's own words.
    Messages,
    /// `file_text`: a kept text file's text.
    Files,
    /// `cjk_text`: a version's words in Chinese or Japanese (its rowid is the version's
    /// `message_text` rowid).
    Cjk,
}

/// One ranked version that passed the filters, with its message.
struct RankedRow {
    index: TextIndex,
    text_rowid: i64,
    rank: f64,
    message: MessageRecord,
}

/// What one pass of [`Reader::ranked`] read: the rows in order, and how many candidates the
/// index gave with the worst rank among them (unknown when no row passed the filters).
struct RankedPass {
    rows: Vec<RankedRow>,
    candidates: usize,
    worst_candidate: Option<f64>,
}

impl Reader<'_> {
    /// The best `limit` messages for an FTS5 query, best first. `Ok(None)` when FTS5 cannot
    /// parse the query.
    ///
    /// The versions that pass the filter are taken in order of rank, then arrival, up to
    /// `limit × 4` of them, and each message keeps its best version: the first `limit`
    /// messages are the page. FTS5 ranks every match from its index alone; rows are read
    /// for the best-ranked versions only, in at most two passes:
    /// - the first reads the messages of the best `CANDIDATES_PER_RESULT × limit` versions.
    ///   Its page is exact when the index had no more versions than that, or when the page
    ///   was complete before a version ranked as badly as the worst candidate (every version
    ///   ranked better than that one was a candidate);
    /// - otherwise (filters that leave out most of the best versions) the second reads every
    ///   match.
    ///
    /// Kept text files are ranked beside the messages' versions, the newest [`FILES_RANKED`]
    /// of those that match and pass the filter (the page says when more matched): the
    /// messages' page and the files' ranks are merged by rank, each message at its best.
    ///
    /// The snippet, and whether the match was in an attachment's text, are read for the page's
    /// versions only.
    pub fn search(
        &self,
        query: &str,
        filter: &SearchFilter,
        limit: usize,
    ) -> Result<Option<SearchPage>> {
        let most_rows = limit * 4;
        let first = limit.saturating_mul(CANDIDATES_PER_RESULT);
        let Some(pass) = self.ranked(query, filter, most_rows, Some(first))? else {
            return Ok(None);
        };
        let kept = match pass.page(limit, most_rows, Some(first)) {
            Some(kept) => kept,
            None => match self.ranked(query, filter, most_rows, None)? {
                Some(every) => every.page(limit, most_rows, None).unwrap_or_default(),
                None => return Ok(None),
            },
        };
        let Some(mut files) = self.newest_files(query, filter, FILES_RANKED + 1)? else {
            return Ok(None);
        };
        // One more than ranked was read to know whether older files matched: it is the oldest.
        let older_files_unranked = files.len() > FILES_RANKED;
        if older_files_unranked
            && let Some(oldest) = (0..files.len()).min_by_key(|&at| files[at].text_rowid)
        {
            files.remove(oldest);
        }
        let in_cjk = match cjk::query(query) {
            Some(rewritten) => match self.cjk_matches(&rewritten, filter, most_rows)? {
                Some(rows) => rows,
                None => return Ok(None),
            },
            None => Vec::new(),
        };
        let kept = best_per_message(kept, files.into_iter().chain(in_cjk).collect(), limit);
        let message_rowids: Vec<i64> = kept
            .iter()
            .filter(|row| row.index == TextIndex::Messages)
            .map(|row| row.text_rowid)
            .collect();
        let mut matched = self.matched_text(query, &message_rowids)?;
        let mut hits = Vec::with_capacity(kept.len());
        let mut found = Vec::with_capacity(kept.len());
        for row in kept {
            let (snippet, in_attachment) = match row.index {
                TextIndex::Messages => (matched.remove(&row.text_rowid).unwrap_or_default(), None),
                TextIndex::Files => self.matched_file(query, row.text_rowid)?,
                TextIndex::Cjk => (self.matched_cjk(query, row.text_rowid)?, None),
            };
            hits.push((snippet, row.rank, in_attachment));
            found.push(row.message);
        }
        let records = self.hydrate(found)?;
        Ok(Some(SearchPage {
            hits: hits
                .into_iter()
                .zip(records)
                .map(|((snippet, rank, in_attachment), message)| SearchHit {
                    message,
                    snippet,
                    rank,
                    in_attachment,
                })
                .collect(),
            older_files_unranked,
        }))
    }

    /// Each of the messages' versions `rowids` matched: its snippet.
    fn matched_text(&self, query: &str, rowids: &[i64]) -> Result<HashMap<i64, String>> {
        if rowids.is_empty() {
            return Ok(HashMap::new());
        }
        let mut statement = self.connection.prepare_cached(MATCHED_TEXT)?;
        let rows = statement.query_map(
            named_params! {
                ":query": query,
                ":kept": serde_json::to_string(rowids).unwrap_or_else(|_| "[]".into()),
            },
            |row| Ok((row.get::<_, i64>(0)?, row.get::<_, String>(1)?)),
        )?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// What the kept file at `rowid` of the files' index matched: its snippet and the
    /// attachment.
    fn matched_file(&self, query: &str, rowid: i64) -> Result<(String, Option<AttachmentMatch>)> {
        let mut statement = self.connection.prepare_cached(MATCHED_FILE)?;
        let matched = statement
            .query_row(named_params! {":query": query, ":rowid": rowid}, |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    Some(AttachmentMatch {
                        attachment_id: row.get(1)?,
                        filename: row.get(2)?,
                    }),
                ))
            })
            .optional()?;
        Ok(matched.unwrap_or_default())
    }

    /// A snippet of the version at `rowid` around the first of the query's Chinese or
    /// Japanese words it holds (FTS5's own would show the pairs `cjk_text` holds).
    fn matched_cjk(&self, query: &str, rowid: i64) -> Result<String> {
        let text: Option<String> = self
            .connection
            .prepare_cached(VERSION_TEXT)?
            .query_row(named_params! {":rowid": rowid}, |row| row.get(0))
            .optional()?;
        let text = text.unwrap_or_default();
        Ok(cjk::snippet(&text, &cjk::runs(query), 24).unwrap_or(text))
    }

    /// The best `rows` versions by rank whose words in Chinese or Japanese match `rewritten`
    /// (a query `cjk::query` wrote) and whose message passes `filter`. `Ok(None)` when FTS5
    /// cannot parse the query.
    fn cjk_matches(
        &self,
        rewritten: &str,
        filter: &SearchFilter,
        rows: usize,
    ) -> Result<Option<Vec<RankedRow>>> {
        let mut conditions = filter.conditions();
        conditions.bind(":query", Value::from(rewritten.to_string()));
        conditions.bind(":rows", Value::Integer(rows as i64));
        let sql = [
            CJK_UP_TO_CONDITIONS,
            conditions.sql.as_str(),
            CJK_AFTER_CONDITIONS,
        ]
        .concat();
        let mut statement = self.connection.prepare_cached(&sql)?;
        let mut found = Vec::new();
        let read = statement
            .query(conditions.values().as_slice())
            .and_then(|mut matches| {
                while let Some(row) = matches.next()? {
                    found.push(RankedRow {
                        index: TextIndex::Cjk,
                        text_rowid: row.get(0)?,
                        rank: row.get(1)?,
                        message: message_from_row_at(row, 2)?,
                    });
                }
                Ok(())
            });
        match read {
            Ok(()) => Ok(Some(found)),
            Err(error) if is_query_syntax_error(&error) => Ok(None),
            Err(error) => Err(error.into()),
        }
    }

    /// The newest `files` kept files whose text matches `query` and whose message passes
    /// `filter`, best rank first. `Ok(None)` when FTS5 cannot parse the query.
    fn newest_files(
        &self,
        query: &str,
        filter: &SearchFilter,
        files: usize,
    ) -> Result<Option<Vec<RankedRow>>> {
        let mut conditions = filter.conditions();
        conditions.bind(":query", Value::from(query.to_string()));
        conditions.bind(":files", Value::Integer(files as i64));
        // Composed like the messages' statement: one cached statement per filter shape.
        let sql = [
            NEWEST_FILES_UP_TO_CONDITIONS,
            conditions.sql.as_str(),
            NEWEST_FILES_AFTER_CONDITIONS,
        ]
        .concat();
        let mut statement = self.connection.prepare_cached(&sql)?;
        let mut rows = Vec::new();
        let read = statement
            .query(conditions.values().as_slice())
            .and_then(|mut found| {
                while let Some(row) = found.next()? {
                    rows.push(RankedRow {
                        index: TextIndex::Files,
                        text_rowid: row.get(0)?,
                        rank: row.get(1)?,
                        message: message_from_row_at(row, 2)?,
                    });
                }
                Ok(())
            });
        match read {
            Ok(()) => Ok(Some(rows)),
            Err(error) if is_query_syntax_error(&error) => Ok(None),
            Err(error) => Err(error.into()),
        }
    }

    /// One pass: the best `rows` versions by (rank, arrival) that pass `filter`, among the
    /// best `candidates` versions by rank (None: all of them). `Ok(None)` when FTS5 cannot
    /// parse the query.
    fn ranked(
        &self,
        query: &str,
        filter: &SearchFilter,
        rows: usize,
        candidates: Option<usize>,
    ) -> Result<Option<RankedPass>> {
        let mut conditions = filter.conditions();
        conditions.bind(":query", Value::from(query.to_string()));
        conditions.bind(":rows", Value::Integer(rows as i64));
        let candidates_bound = candidates.map_or(-1, |candidates| candidates as i64);
        conditions.bind(":candidates", Value::Integer(candidates_bound));
        // Composed: the conditions are the filter's, so the statement's shape varies with it
        // (one cached statement per shape); each piece is a constant.
        let sql = [
            RANKED_UP_TO_CONDITIONS,
            conditions.sql.as_str(),
            RANKED_AFTER_CONDITIONS,
        ]
        .concat();
        let mut statement = self.connection.prepare_cached(&sql)?;
        let mut pass = RankedPass {
            rows: Vec::new(),
            candidates: 0,
            worst_candidate: None,
        };
        let read = statement
            .query(conditions.values().as_slice())
            .and_then(|mut found| {
                while let Some(row) = found.next()? {
                    pass.candidates = usize::try_from(row.get::<_, i64>(0)?).unwrap_or(0);
                    pass.worst_candidate = row.get(1)?;
                    pass.rows.push(RankedRow {
                        index: TextIndex::Messages,
                        text_rowid: row.get(2)?,
                        rank: row.get(3)?,
                        message: message_from_row_at(row, 4)?,
                    });
                }
                Ok(())
            });
        match read {
            Ok(()) => Ok(Some(pass)),
            Err(error) if is_query_syntax_error(&error) => Ok(None),
            Err(error) => Err(error.into()),
        }
    }
}

impl RankedPass {
    /// The page this pass gives: its rows in order, up to `most_rows`, each message at its
    /// first (best) version, the first `limit` messages. None when a pass over more
    /// candidates than `asked` (None: every match) could give another page: the index gave
    /// all it was asked for, and the page was not complete before the worst candidate's rank.
    fn page(self, limit: usize, most_rows: usize, asked: Option<usize>) -> Option<Vec<RankedRow>> {
        let every_match =
            asked.is_none_or(|asked| self.candidates < asked && !self.rows.is_empty());
        let worst = self.worst_candidate;
        let mut seen = HashSet::new();
        let (mut kept, mut read) = (Vec::new(), 0);
        let mut complete_before_worst = false;
        for row in self.rows {
            if kept.len() == limit || read == most_rows {
                break;
            }
            read += 1;
            let better_than_worst = worst.is_some_and(|worst| row.rank < worst);
            if seen.insert(row.message.message_id) {
                kept.push(row);
            }
            complete_before_worst = better_than_worst && (kept.len() == limit || read == most_rows);
        }
        (every_match || complete_before_worst).then_some(kept)
    }
}

/// The best `limit` messages of the messages' page and the ranked files together, by rank
/// (then arrival, then which index, then row), each message at its best version or file.
fn best_per_message(
    messages: Vec<RankedRow>,
    files: Vec<RankedRow>,
    limit: usize,
) -> Vec<RankedRow> {
    let mut rows: Vec<RankedRow> = messages.into_iter().chain(files).collect();
    rows.sort_by(|a, b| {
        a.rank
            .total_cmp(&b.rank)
            .then_with(|| a.message.created_at.cmp(&b.message.created_at))
            .then_with(|| (a.index as u8).cmp(&(b.index as u8)))
            .then_with(|| a.text_rowid.cmp(&b.text_rowid))
    });
    let mut seen = HashSet::new();
    rows.retain(|row| seen.insert(row.message.message_id));
    rows.truncate(limit);
    rows
}

impl SearchFilter {
    /// The conditions on the message `m` and its current extras, each with the values it
    /// names: only what the filter sets narrows the search.
    pub(super) fn conditions(&self) -> Conditions {
        let mut conditions = Conditions::default();
        let channels = sql_id_array(self.channel_ids.iter().copied());
        conditions.and(
            "m.channel_id IN (SELECT value FROM json_each(:channels))",
            [(":channels", Value::from(channels))],
        );
        let text = |value: &str| Value::from(value.to_string());
        let id = |id: i64| Value::Integer(id);
        let instant = |at: &Instant| Value::from(at.as_micros());
        if let Some(author_id) = &self.author_id {
            conditions.and(
                "m.author_id = :author_id",
                [(":author_id", id(stored_bits(author_id)))],
            );
        }
        if let Some(since) = &self.since {
            conditions.and("m.created_at >= :since", [(":since", instant(since))]);
        }
        if let Some(until) = &self.until {
            conditions.and("m.created_at < :until", [(":until", instant(until))]);
        }
        if let Some(guild_id) = &self.guild_id {
            conditions.and(
                "m.guild_id = :guild_id",
                [(":guild_id", id(stored_bits(guild_id)))],
            );
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
            let roles = sql_id_array(owner.role_ids.iter().copied());
            let condition = if *mentions {
                MENTIONS_OWNER
            } else {
                DOES_NOT_MENTION_OWNER
            };
            conditions.and(
                condition,
                [
                    (":owner", id(stored_bits(owner.user_id))),
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
