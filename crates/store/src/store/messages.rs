//! Messages: creation, edits, deletions and mentions, and the hydrated view readers get.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Row, params};

use super::extras::MessageExtras;
use super::reactions::{ReactionCount, reaction_counts};
use super::words::word;
use super::{Reader, Writer};
use crate::error::Result;
use crate::instant::Instant;
use crate::vocabulary::word_enum;

word_enum! {
    /// Whom a mention addresses: `message_mentions.kind`. (The mention readers format the two
    /// spellings into their SQL's `WHERE` clauses, where the index on `kind` serves them.)
    pub(crate) enum MentionKind {
        User = "user",
        Role = "role",
    }
}

word_enum! {
    /// Where an event came from; kept on each message row.
    pub enum Origin {
        Gateway = "gateway",
        Backfill = "backfill",
        Sent = "sent",
        Seed = "seed",
        /// History from before the store began covering the channel, imported by the daemon
        /// and sent more than a day before that point: history, never news (the news readers
        /// and arrival indexes leave out `origin = 'import'`).
        Import = "import",
        /// Imported history from the last day before the store began covering the channel:
        /// like a backfill, it counts as new when it arrives.
        ImportRecent = "import-recent",
    }
}

/// Imported history's origin, which the news readers' SQL names as a literal
/// (`origin <> '{IMPORTED}'`, formatted into the query's text rather than bound) so that SQLite
/// can use the arrival indexes, partial on the same term (`migrations/0015_history_import.sql`).
pub(crate) const IMPORTED: Origin = Origin::Import;

/// Messages that arrived in a window, per channel: see [`Reader::arrivals_by_channel`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArrivalCounts {
    pub window: HashMap<String, u64>,
    pub after: HashMap<String, u64>,
}

/// Adds one to `channel_id`'s count, allocating its key only the first time.
fn count_one(counts: &mut HashMap<String, u64>, channel_id: &str) {
    match counts.get_mut(channel_id) {
        Some(count) => *count += 1,
        None => {
            counts.insert(channel_id.to_string(), 1);
        }
    }
}

/// A message as Discord first delivered it (gateway, backfill, a send, or the demo seed).
#[derive(Debug, Clone)]
pub struct NewMessage {
    pub message_id: String,
    pub channel_id: String,
    pub guild_id: Option<String>,
    pub author_id: String,
    pub author_name: String,
    pub content: String,
    pub sent_at: Instant,
    pub reply_to_message_id: Option<String>,
    pub reply_to_author_id: Option<String>,
    pub mention_everyone: bool,
    pub mentioned_user_ids: Vec<String>,
    pub mentioned_role_ids: Vec<String>,
    pub origin: Origin,
    /// Who is behind it, as Discord says: see [`Provenance`].
    pub provenance: Provenance,
}

/// What Discord says about who wrote a message, beyond the author's id and name (which a
/// webhook chooses freely).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Provenance {
    /// The author is a bot account. None: stored before this was recorded.
    pub author_bot: Option<bool>,
    /// The webhook that posted it, if a webhook did.
    pub webhook_id: Option<String>,
    /// The application that posted it (an interaction's answer, an app's message), if any.
    pub application_id: Option<String>,
}

/// A new version of a message's content.
#[derive(Debug, Clone)]
pub struct NewEdit {
    pub message_id: String,
    pub channel_id: String,
    pub content: String,
    pub edited_at: Instant,
    pub mentioned_user_ids: Vec<String>,
    pub mentioned_role_ids: Vec<String>,
    /// Recorded with an imported message (`Origin::Import`): history, not news.
    pub imported: bool,
}

/// One version of a message after its first: `edited_at` is Discord's, `created_at` ours.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditRecord {
    pub content: String,
    pub edited_at: Instant,
    pub created_at: Instant,
}

/// A stored message with everything that happened to it since.
#[derive(Debug, Clone)]
pub struct MessageRecord {
    pub message_id: String,
    pub channel_id: String,
    pub guild_id: Option<String>,
    pub author_id: String,
    pub author_name: String,
    pub original_content: String,
    pub created_at: Instant,
    pub sent_at: Instant,
    pub reply_to_message_id: Option<String>,
    pub reply_to_author_id: Option<String>,
    pub mention_everyone: bool,
    /// Edits in Discord's order (by `edited_at`), whatever order they arrived in.
    pub edits: Vec<EditRecord>,
    pub deleted: bool,
    /// When the store recorded the deletion.
    pub deleted_at: Option<Instant>,
    pub reactions: Vec<ReactionCount>,
    pub mentioned_user_ids: Vec<String>,
    pub mentioned_role_ids: Vec<String>,
    pub provenance: Provenance,
    /// Attachments, embeds, stickers, poll, pinned state... as they are now.
    pub extras: MessageExtras,
}

impl MessageRecord {
    /// The content as it is now: the latest edit's, or the original.
    pub fn current_content(&self) -> &str {
        self.edits
            .last()
            .map_or(&self.original_content, |edit| &edit.content)
    }

    pub fn edited_at(&self) -> Option<Instant> {
        self.edits.last().map(|edit| edit.edited_at)
    }
}

pub(super) const MESSAGE_COLUMNS: &str =
    "message_id, channel_id, guild_id, author_id, author_name, content,
     created_at, sent_at, reply_to_message_id, reply_to_author_id, mention_everyone,
     author_bot, webhook_id, application_id";

pub(super) fn instant_at(row: &Row<'_>, index: usize) -> rusqlite::Result<Instant> {
    // Read in place: no copy of the text unless it is not an instant.
    let text = row.get_ref(index)?.as_str()?;
    Instant::parse(text).ok_or_else(|| {
        rusqlite::Error::InvalidColumnType(index, text.to_string(), rusqlite::types::Type::Text)
    })
}

pub(super) fn message_from_row(row: &Row<'_>) -> rusqlite::Result<MessageRecord> {
    message_from_row_at(row, 0)
}

/// Reads the [`MESSAGE_COLUMNS`] of a row, starting at column `at`.
pub(super) fn message_from_row_at(row: &Row<'_>, at: usize) -> rusqlite::Result<MessageRecord> {
    Ok(MessageRecord {
        message_id: row.get(at)?,
        channel_id: row.get(at + 1)?,
        guild_id: row.get(at + 2)?,
        author_id: row.get(at + 3)?,
        author_name: row.get(at + 4)?,
        original_content: row.get(at + 5)?,
        created_at: instant_at(row, at + 6)?,
        sent_at: instant_at(row, at + 7)?,
        reply_to_message_id: row.get(at + 8)?,
        reply_to_author_id: row.get(at + 9)?,
        mention_everyone: row.get(at + 10)?,
        edits: Vec::new(),
        deleted: false,
        deleted_at: None,
        reactions: Vec::new(),
        mentioned_user_ids: Vec::new(),
        mentioned_role_ids: Vec::new(),
        provenance: Provenance {
            author_bot: row.get(at + 11)?,
            webhook_id: row.get(at + 12)?,
            application_id: row.get(at + 13)?,
        },
        extras: MessageExtras::default(),
    })
}

impl Reader<'_> {
    pub fn message(&self, message_id: &str) -> Result<Option<MessageRecord>> {
        let found = self
            .connection
            .prepare_cached(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM messages WHERE message_id = ?1"
            ))?
            .query_row([message_id], message_from_row)
            .optional()?;
        Ok(match found {
            Some(message) => self.hydrate(vec![message])?.pop(),
            None => None,
        })
    }

    /// The stored messages with these ids, hydrated, in one pass: position `i` of the result
    /// is `ids[i]`'s message, or `None` when no such message is stored.
    pub fn messages(&self, ids: &[&str]) -> Result<Vec<Option<MessageRecord>>> {
        let mut statement = self.connection.prepare_cached(
            "SELECT m.message_id, m.channel_id, m.guild_id, m.author_id, m.author_name,
                    m.content, m.created_at, m.sent_at, m.reply_to_message_id,
                    m.reply_to_author_id, m.mention_everyone, m.author_bot, m.webhook_id,
                    m.application_id, c.key
             FROM json_each(?1) AS c JOIN messages AS m ON m.message_id = c.value",
        )?;
        let json = serde_json::to_string(ids).unwrap_or_else(|_| "[]".into());
        let mut found = Vec::new();
        let mut positions = Vec::new();
        let mut rows = statement.query([json])?;
        while let Some(row) = rows.next()? {
            positions.push(row.get::<_, i64>(14)? as usize);
            found.push(message_from_row(row)?);
        }
        drop(rows);
        let mut result: Vec<Option<MessageRecord>> = vec![None; ids.len()];
        for (position, message) in positions.into_iter().zip(self.hydrate(found)?) {
            if let Some(slot) = result.get_mut(position) {
                *slot = Some(message);
            }
        }
        Ok(result)
    }

    /// Up to `limit` messages of a channel that arrived at or after `since`, oldest first.
    pub fn channel_messages_since(
        &self,
        channel_id: &str,
        since: Instant,
        limit: usize,
    ) -> Result<Vec<MessageRecord>> {
        let mut statement = self.connection.prepare_cached(&format!(
            "SELECT {MESSAGE_COLUMNS} FROM messages
             WHERE channel_id = ?1 AND created_at >= ?2 AND origin <> '{IMPORTED}'
             ORDER BY created_at LIMIT ?3"
        ))?;
        let rows = statement
            .query_map(
                params![channel_id, since.to_iso(), limit as i64],
                message_from_row,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        self.hydrate(rows)
    }

    /// For each of `channel_ids`, up to `limit` of its messages that arrived at or after
    /// `since`, oldest first, then the edits, deletions, reactions and mentions of all of them
    /// together in one pass, rather than four queries per channel.
    ///
    /// One statement walks the channels (a JSON array) and, for each, reads its own range of
    /// the `(channel_id, created_at)` index: a per-channel indexed loop inside SQLite. One
    /// statement over every channel's arrivals would scan the whole index instead, and one
    /// statement per channel costs a round trip per channel. The rows are put in order here,
    /// per channel, rather than by an `ORDER BY` that would copy every full row (content
    /// included) through SQLite's sorter.
    pub fn channels_messages_since(
        &self,
        channel_ids: &[&str],
        since: Instant,
        limit: usize,
    ) -> Result<Vec<Vec<MessageRecord>>> {
        let mut statement = self.connection.prepare_cached(&format!(
            "SELECT m.message_id, m.channel_id, m.guild_id, m.author_id, m.author_name,
                    m.content, m.created_at, m.sent_at, m.reply_to_message_id,
                    m.reply_to_author_id, m.mention_everyone, m.author_bot, m.webhook_id,
                    m.application_id, c.key
             FROM json_each(?1) AS c
             JOIN messages AS m ON m.rowid IN (
                 SELECT rowid FROM messages
                 WHERE channel_id = c.value AND created_at >= ?2 AND origin <> '{IMPORTED}'
                 ORDER BY created_at LIMIT ?3)"
        ))?;
        let ids = serde_json::to_string(channel_ids).unwrap_or_else(|_| "[]".into());
        let mut all = Vec::new();
        let mut positions = Vec::new();
        let mut rows = statement.query(params![ids, since.to_iso(), limit as i64])?;
        while let Some(row) = rows.next()? {
            positions.push(row.get::<_, i64>(14)? as usize);
            all.push(message_from_row(row)?);
        }
        drop(rows);
        let mut pages: Vec<Vec<MessageRecord>> = vec![Vec::new(); channel_ids.len()];
        for (position, message) in positions.into_iter().zip(self.hydrate(all)?) {
            if let Some(page) = pages.get_mut(position) {
                page.push(message);
            }
        }
        // Arrival instants are unique across the store: this order is total.
        for page in &mut pages {
            page.sort_by_key(|message| message.created_at);
        }
        Ok(pages)
    }

    /// Up to `limit` messages of `channel_ids` that arrived at or after `from`, in arrival
    /// order across channels, hydrated: one range of the arrival index, whose entries carry
    /// the channel, so a message of another channel is passed over without reading its row.
    pub fn messages_arrived_from(
        &self,
        channel_ids: &[&str],
        from: Instant,
        limit: usize,
    ) -> Result<Vec<MessageRecord>> {
        let mut statement = self.connection.prepare_cached(&format!(
            "SELECT {MESSAGE_COLUMNS} FROM messages INDEXED BY messages_by_arrival
             WHERE created_at >= ?1 AND origin <> '{IMPORTED}'
               AND channel_id IN (SELECT value FROM json_each(?2))
             ORDER BY created_at LIMIT ?3"
        ))?;
        let ids = serde_json::to_string(channel_ids).unwrap_or_else(|_| "[]".into());
        let rows = statement
            .query_map(params![from.to_iso(), ids, limit as i64], message_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        self.hydrate(rows)
    }

    /// Per channel, how many messages arrived at or after `from` (`window`) and, of those, how
    /// many at or after `split` (`after`); channels with none are absent. One range of the
    /// arrival index, no row read, counted here: a `GROUP BY channel_id` would sort the
    /// range, and a second query for `split` would read its tail again.
    pub fn arrivals_by_channel(
        &self,
        from: Instant,
        split: Option<Instant>,
    ) -> Result<ArrivalCounts> {
        let mut statement = self.connection.prepare_cached(&format!(
            "SELECT channel_id, created_at FROM messages INDEXED BY messages_by_arrival
             WHERE created_at >= ?1 AND origin <> '{IMPORTED}'"
        ))?;
        // Arrival instants are fixed-width ISO text, so their text order is their time order.
        let split = split.map(|at| at.to_iso());
        let mut counts = ArrivalCounts::default();
        let mut rows = statement.query([from.to_iso()])?;
        while let Some(row) = rows.next()? {
            let channel_id = row.get_ref(0)?.as_str().map_err(rusqlite::Error::from)?;
            count_one(&mut counts.window, channel_id);
            if let Some(split) = &split
                && row.get_ref(1)?.as_str().map_err(rusqlite::Error::from)? >= split.as_str()
            {
                count_one(&mut counts.after, channel_id);
            }
        }
        Ok(counts)
    }

    /// Messages that mention `user_id` (directly, through one of `role_ids`, with @everyone or
    /// @here, or by replying to them) and arrived at or after `since`, oldest first; the user's
    /// own messages are left out.
    pub fn mentions_since(
        &self,
        user_id: &str,
        role_ids: &[String],
        since: Instant,
        limit: usize,
    ) -> Result<Vec<MessageRecord>> {
        // Each arm reads only its own index range (the mentions side table, the partial
        // indexes of @everyone and of replies), so the cost follows the mentions in the window,
        // never the store's size. `IN (… UNION ALL …)` dedupes without ordering the arms: a
        // compound `UNION` is planned as a merge in `message_id` order, and SQLite then walks
        // the whole `messages` unique index for the @everyone arm instead of its partial index.
        let mut statement = self.connection.prepare_cached(&format!(
            "SELECT {MESSAGE_COLUMNS} FROM messages
             WHERE message_id IN (
                 SELECT message_id FROM message_mentions
                 WHERE kind = '{user}' AND target_id = ?1 AND created_at >= ?3
                 UNION ALL
                 SELECT message_id FROM message_mentions
                 WHERE kind = '{role}' AND target_id IN (SELECT value FROM json_each(?2))
                   AND created_at >= ?3
                 UNION ALL
                 SELECT message_id FROM messages WHERE mention_everyone = 1 AND created_at >= ?3
                 UNION ALL
                 SELECT message_id FROM messages WHERE reply_to_author_id = ?1 AND created_at >= ?3
             )
               AND author_id != ?1 AND created_at >= ?3 AND origin <> '{IMPORTED}'
             ORDER BY created_at LIMIT ?4",
            user = MentionKind::User,
            role = MentionKind::Role,
        ))?;
        let roles = serde_json::to_string(role_ids).unwrap_or_else(|_| "[]".into());
        let rows = statement
            .query_map(
                params![user_id, roles, since.to_iso(), limit as i64],
                message_from_row,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        self.hydrate(rows)
    }

    /// The name each of `user_ids` last wrote under, for those who wrote anything: what
    /// `<@id>` in a message reads as. One probe of the author index per id.
    pub fn user_names(&self, user_ids: &[&str]) -> Result<HashMap<String, String>> {
        let mut statement = self.connection.prepare_cached(
            "SELECT j.value, (SELECT author_name FROM messages
                              WHERE author_id = j.value ORDER BY created_at DESC LIMIT 1)
             FROM json_each(?1) AS j",
        )?;
        let ids = serde_json::to_string(user_ids).unwrap_or_else(|_| "[]".into());
        let mut names = HashMap::new();
        let mut rows = statement.query([ids])?;
        while let Some(row) = rows.next()? {
            if let Some(name) = row.get::<_, Option<String>>(1)? {
                names.insert(row.get(0)?, name);
            }
        }
        Ok(names)
    }

    /// Who wrote a stored message.
    pub fn author_of(&self, message_id: &str) -> Result<Option<String>> {
        Ok(self
            .connection
            .prepare_cached("SELECT author_id FROM messages WHERE message_id = ?1")?
            .query_row([message_id], |row| row.get(0))
            .optional()?)
    }

    /// Adds edits, deletion, reactions and mentions to base rows, a few queries per page.
    ///
    /// Each query walks the ids (a JSON array) and probes its table's index once per id. A
    /// `message_id IN (SELECT value FROM json_each(?1))` would first copy the ids into a
    /// temporary B-tree, which cost a catch-up of ~1,500 messages more than the probes did.
    pub(super) fn hydrate(&self, messages: Vec<MessageRecord>) -> Result<Vec<MessageRecord>> {
        if messages.is_empty() {
            return Ok(messages);
        }
        let mut page = Hydrating::new(messages);
        self.add_edits(&mut page)?;
        for (id, extras) in self.extras_of(&page.ids)? {
            if let Some(message) = page.record(&id) {
                message.extras = extras;
            }
        }
        // After the extras: a poll's votes fill in the poll they carried.
        self.add_poll_votes(&mut page)?;
        self.add_deletions(&mut page)?;
        self.add_mentions(&mut page)?;
        for (id, counts) in reaction_counts(self.connection, &page.ids)? {
            if let Some(message) = page.record(&id) {
                message.reactions = counts;
            }
        }
        Ok(page.messages)
    }

    fn add_edits(&self, page: &mut Hydrating) -> Result<()> {
        let mut edits = self.connection.prepare_cached(
            "SELECT e.message_id, e.content, e.edited_at, e.created_at
             FROM json_each(?1) AS j JOIN message_edits AS e ON e.message_id = j.value
             ORDER BY e.edited_at, e.seq",
        )?;
        let mut rows = edits.query([&page.ids])?;
        while let Some(row) = rows.next()? {
            if let Some(message) = page.record(&row.get::<_, String>(0)?) {
                message.edits.push(EditRecord {
                    content: row.get(1)?,
                    edited_at: instant_at(row, 2)?,
                    created_at: instant_at(row, 3)?,
                });
            }
        }
        Ok(())
    }

    /// Discord's own counts when a copy of the message carried them; else the votes the
    /// gateway delivered.
    fn add_poll_votes(&self, page: &mut Hydrating) -> Result<()> {
        for (id, counts) in self.poll_votes_of(&page.ids)? {
            let Some(poll) = page
                .record(&id)
                .and_then(|message| message.extras.poll.as_mut())
            else {
                continue;
            };
            for answer in poll
                .answers
                .iter_mut()
                .filter(|answer| answer.votes.is_none())
            {
                answer.votes = Some(counts.get(&answer.answer_id).copied().unwrap_or(0));
            }
        }
        Ok(())
    }

    fn add_deletions(&self, page: &mut Hydrating) -> Result<()> {
        let mut deletions = self.connection.prepare_cached(
            "SELECT d.message_id, d.created_at
             FROM json_each(?1) AS j JOIN message_deletions AS d ON d.message_id = j.value",
        )?;
        let mut rows = deletions.query([&page.ids])?;
        while let Some(row) = rows.next()? {
            if let Some(message) = page.record(&row.get::<_, String>(0)?) {
                message.deleted = true;
                message.deleted_at = Some(instant_at(row, 1)?);
            }
        }
        Ok(())
    }

    fn add_mentions(&self, page: &mut Hydrating) -> Result<()> {
        let mut mentions = self.connection.prepare_cached(
            "SELECT x.message_id, x.kind, x.target_id
             FROM json_each(?1) AS j JOIN message_mentions AS x ON x.message_id = j.value
             ORDER BY x.seq",
        )?;
        let mut rows = mentions.query([&page.ids])?;
        while let Some(row) = rows.next()? {
            let kind: MentionKind = word(row, 1)?;
            if let Some(message) = page.record(&row.get::<_, String>(0)?) {
                let target = row.get(2)?;
                match kind {
                    MentionKind::User => message.mentioned_user_ids.push(target),
                    MentionKind::Role => message.mentioned_role_ids.push(target),
                }
            }
        }
        Ok(())
    }
}

/// A page of base rows being hydrated: the rows, where each id sits among them, and the ids as
/// the JSON array every hydrating query walks.
struct Hydrating {
    messages: Vec<MessageRecord>,
    position: HashMap<String, usize>,
    ids: String,
}

impl Hydrating {
    fn new(messages: Vec<MessageRecord>) -> Hydrating {
        let position: HashMap<String, usize> = messages
            .iter()
            .enumerate()
            .map(|(index, message)| (message.message_id.clone(), index))
            .collect();
        // Each id once (the map keeps a repeated message's last position), so a join yields
        // each row once.
        let ids: Vec<&str> = position.keys().map(String::as_str).collect();
        let ids = serde_json::to_string(&ids).unwrap_or_else(|_| "[]".into());
        Hydrating {
            messages,
            position,
            ids,
        }
    }

    /// The row of message `id`, if the page holds it.
    fn record(&mut self, id: &str) -> Option<&mut MessageRecord> {
        let index = *self.position.get(id)?;
        self.messages.get_mut(index)
    }
}

impl Writer<'_> {
    /// Records a message once: a replay or a second sighting (gateway and backfill) is a no-op.
    /// Returns whether it was new.
    pub fn insert_message(&mut self, message: &NewMessage) -> Result<bool> {
        // One statement, no read first: the unique message id says whether it was known.
        let stamp = self.stamp();
        let inserted = self
            .transaction
            .prepare_cached(
                "INSERT INTO messages (created_at, message_id, channel_id, guild_id, author_id,
                 author_name, content, sent_at, reply_to_message_id, reply_to_author_id,
                 mention_everyone, origin, author_bot, webhook_id, application_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
             ON CONFLICT (message_id) DO NOTHING",
            )?
            .execute(params![
                stamp.to_iso(),
                message.message_id,
                message.channel_id,
                message.guild_id,
                message.author_id,
                message.author_name,
                message.content,
                message.sent_at.to_iso(),
                message.reply_to_message_id,
                message.reply_to_author_id,
                message.mention_everyone,
                message.origin.as_str(),
                message.provenance.author_bot,
                message.provenance.webhook_id,
                message.provenance.application_id
            ])?;
        if inserted == 0 {
            self.unstamp(stamp);
            return Ok(false);
        }
        self.index_text(&message.message_id, &message.content)?;
        self.insert_mentions(
            &message.message_id,
            &message.mentioned_user_ids,
            &message.mentioned_role_ids,
        )?;
        Ok(true)
    }

    /// Records an edit once per Discord edit timestamp. Returns whether it was new.
    pub fn insert_edit(&mut self, edit: &NewEdit) -> Result<bool> {
        let stamp = self.stamp();
        let inserted = self
            .transaction
            .prepare_cached(
                "INSERT INTO message_edits (created_at, message_id, channel_id, content, edited_at,
                     imported)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (message_id, edited_at) DO NOTHING",
            )?
            .execute(params![
                stamp.to_iso(),
                edit.message_id,
                edit.channel_id,
                edit.content,
                edit.edited_at.to_iso(),
                edit.imported
            ])?;
        if inserted == 0 {
            self.unstamp(stamp);
            return Ok(false);
        }
        self.index_text(&edit.message_id, &edit.content)?;
        self.insert_mentions(
            &edit.message_id,
            &edit.mentioned_user_ids,
            &edit.mentioned_role_ids,
        )?;
        Ok(true)
    }

    /// Records a deletion once. Returns whether it was new.
    pub fn insert_deletion(
        &mut self,
        message_id: &str,
        channel_id: &str,
        bulk: bool,
    ) -> Result<bool> {
        let stamp = self.stamp();
        let inserted = self
            .transaction
            .prepare_cached(
                "INSERT INTO message_deletions (created_at, message_id, channel_id, bulk)
                 VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (message_id) DO NOTHING",
            )?
            .execute(params![stamp.to_iso(), message_id, channel_id, bulk])?;
        if inserted == 0 {
            self.unstamp(stamp);
        }
        Ok(inserted > 0)
    }

    fn insert_mentions(
        &mut self,
        message_id: &str,
        user_ids: &[String],
        role_ids: &[String],
    ) -> Result<()> {
        let targets = user_ids
            .iter()
            .map(|id| (MentionKind::User, id))
            .chain(role_ids.iter().map(|id| (MentionKind::Role, id)));
        for (kind, target_id) in targets {
            let stamp = self.stamp();
            let inserted = self
                .transaction
                .prepare_cached(
                    "INSERT INTO message_mentions (created_at, message_id, kind, target_id)
                     VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (kind, target_id, message_id) DO NOTHING",
                )?
                .execute(params![
                    stamp.to_iso(),
                    message_id,
                    kind.as_str(),
                    target_id
                ])?;
            if inserted == 0 {
                self.unstamp(stamp);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::store::ReactionChange;
    use crate::store::testing::{fresh_id, shared_store};

    /// A plain message row of `channel_id` by `author_id`.
    pub(crate) fn new_message(channel_id: &str, author_id: &str, content: &str) -> NewMessage {
        NewMessage {
            message_id: fresh_id(),
            channel_id: channel_id.to_string(),
            guild_id: None,
            author_id: author_id.to_string(),
            author_name: format!("user {author_id}"),
            content: content.to_string(),
            sent_at: Instant::parse("2026-11-29T10:00:00Z").unwrap(),
            reply_to_message_id: None,
            reply_to_author_id: None,
            mention_everyone: false,
            mentioned_user_ids: Vec::new(),
            mentioned_role_ids: Vec::new(),
            origin: Origin::Gateway,
            provenance: Provenance::default(),
        }
    }

    #[test]
    fn arrivals_are_counted_per_channel_in_the_window_and_after_the_split_to_the_microsecond() {
        let store = shared_store();
        let (busy, quiet) = (fresh_id(), fresh_id());
        let messages = [
            new_message(&busy, "7", "one"),
            new_message(&quiet, "7", "two"),
            new_message(&busy, "7", "three"),
            new_message(&busy, "7", "four"),
        ];
        store
            .write(|writer| {
                for message in &messages {
                    writer.insert_message(message)?;
                }
                Ok(())
            })
            .unwrap();
        let ids: Vec<&str> = messages.iter().map(|m| m.message_id.as_str()).collect();
        let arrived: Vec<Instant> = store
            .read(|reader| reader.messages(&ids))
            .unwrap()
            .into_iter()
            .map(|record| record.unwrap().created_at)
            .collect();
        let ours = |counts: &HashMap<String, u64>| {
            (
                counts.get(&busy).copied().unwrap_or(0),
                counts.get(&quiet).copied().unwrap_or(0),
            )
        };
        let counted = |from: Instant, split: Option<Instant>| {
            let counts = store
                .read(|reader| reader.arrivals_by_channel(from, split))
                .unwrap();
            (ours(&counts.window), ours(&counts.after))
        };
        // The window starts at the first arrival, inclusive; one microsecond later it has not.
        assert_eq!(counted(arrived[0], None), ((3, 1), (0, 0)));
        assert_eq!(counted(arrived[0].plus_micros(1), None).0, (2, 1));
        // The split is inclusive too: at the third message, it and the fourth come after.
        assert_eq!(counted(arrived[0], Some(arrived[2])), ((3, 1), (2, 0)));
        assert_eq!(
            counted(arrived[0], Some(arrived[2].plus_micros(1))),
            ((3, 1), (1, 0))
        );
        assert_eq!(
            counted(arrived[0], Some(arrived[1])),
            ((3, 1), (2, 1)),
            "the second message is the quiet channel's"
        );
    }

    #[test]
    fn messages_by_id_are_hydrated_in_the_order_asked_with_none_for_unknown_ids() {
        let store = shared_store();
        let channel = fresh_id();
        let first = new_message(&channel, "7", "first");
        let mut second = new_message(&channel, "8", "second");
        second.mentioned_user_ids = vec!["9".into()];
        let edited_at = Instant::parse("2026-11-29T11:00:00Z").unwrap();
        store
            .write(|writer| {
                writer.insert_message(&first)?;
                writer.insert_message(&second)?;
                writer.insert_edit(&NewEdit {
                    message_id: first.message_id.clone(),
                    channel_id: channel.clone(),
                    content: "first, edited".into(),
                    edited_at,
                    mentioned_user_ids: Vec::new(),
                    mentioned_role_ids: vec!["5".into()],
                    imported: false,
                })?;
                writer.record_reaction(&ReactionChange::Add {
                    message_id: first.message_id.clone(),
                    channel_id: channel.clone(),
                    user_id: "8".into(),
                    emoji: "👍".into(),
                })?;
                writer.insert_deletion(&second.message_id, &channel, false)
            })
            .unwrap();
        let unknown = fresh_id();
        let found = store
            .read(|reader| {
                reader.messages(&[&second.message_id, &unknown, &first.message_id, &unknown])
            })
            .unwrap();
        assert_eq!(found.len(), 4);
        assert!(found[1].is_none() && found[3].is_none());
        let second_found = found[0].as_ref().unwrap();
        assert_eq!(second_found.message_id, second.message_id);
        assert_eq!(second_found.current_content(), "second");
        assert!(second_found.deleted);
        assert_eq!(second_found.mentioned_user_ids, vec!["9".to_string()]);
        assert_eq!(second_found.reactions, Vec::new());
        let first_found = found[2].as_ref().unwrap();
        assert_eq!(first_found.message_id, first.message_id);
        assert_eq!(first_found.original_content, "first");
        assert_eq!(first_found.current_content(), "first, edited");
        assert_eq!(first_found.edited_at(), Some(edited_at));
        assert!(!first_found.deleted);
        assert_eq!(first_found.mentioned_role_ids, vec!["5".to_string()]);
        assert_eq!(
            first_found.reactions,
            vec![ReactionCount {
                emoji: "👍".into(),
                count: 1
            }]
        );
        // Nothing asked, nothing found.
        assert!(
            store
                .read(|reader| reader.messages(&[]))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_catch_up_page_per_channel_is_in_arrival_order_and_cut_at_the_limit() {
        let store = shared_store();
        let (busy, quiet, empty) = (fresh_id(), fresh_id(), fresh_id());
        let rows: Vec<NewMessage> = ["a", "b", "c", "d"]
            .iter()
            .map(|content| new_message(&busy, "7", content))
            .chain([new_message(&quiet, "8", "e")])
            .collect();
        let stamped: Vec<Instant> = store
            .write(|writer| {
                let mut stamped = Vec::new();
                for row in &rows {
                    writer.insert_message(row)?;
                    stamped.push(
                        writer
                            .reader()
                            .message(&row.message_id)?
                            .unwrap()
                            .created_at,
                    );
                }
                Ok(stamped)
            })
            .unwrap();
        // From the second message on (inclusive), at most two per channel.
        let pages = store
            .read(|reader| reader.channels_messages_since(&[&quiet, &empty, &busy], stamped[1], 2))
            .unwrap();
        let contents: Vec<Vec<&str>> = pages
            .iter()
            .map(|page| page.iter().map(|m| m.original_content.as_str()).collect())
            .collect();
        assert_eq!(contents, vec![vec!["e"], vec![], vec!["b", "c"]]);
    }
}
