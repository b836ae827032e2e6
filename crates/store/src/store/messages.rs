//! Messages: creation, edits, deletions and mentions, and the hydrated view readers get.

use std::collections::HashMap;

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{
    ApplicationId, ChannelId, GuildId, MessageId, RoleId, UserId, WebhookId, sql_id_array,
    stored_bits,
};
use discord_manager_vocabulary::words::word_enum;
use rusqlite::{OptionalExtension, Row, named_params};

use super::extras::MessageExtras;
use super::reactions::{ReactionCount, reaction_counts};
use super::text_index::IndexedText;
use super::words::word;
use super::{Reader, Writer};

word_enum! {
    /// Whom a mention addresses: `message_mentions.kind`.
    pub(crate) enum MentionKind {
        User = "user",
        Role = "role",
    }
}

/// The spelling of imported history's origin ([`Origin::Import`]), as a macro so that a
/// statement can `concat!` it: the news readers' SQL names it as a literal
/// (`origin <> 'import'`) rather than binding it, so that SQLite can use the arrival indexes,
/// partial on the same term (`migrations/0015_history_import.sql`).
macro_rules! imported_origin {
    () => {
        "import"
    };
}
pub(crate) use imported_origin;

/// Whether the message `$row` (a table name or alias, e.g. `m`) is a reply, whose
/// `reply_to_author_id` was answered by it: it names the message it replies to, and it is not
/// a thread's starter. A store written before replies were told from other references kept
/// the target's author of a pin notice and of a forward too (with no reply id), and of a
/// thread's starter (type 21, with one); those are not replies, and this reads past them, so an
/// existing store's false mentions are gone without rewriting a row.
macro_rules! is_reply {
    ($row:literal) => {
        concat!(
            "(",
            $row,
            ".reply_to_message_id IS NOT NULL AND NOT EXISTS (
                 SELECT 1 FROM message_extras AS starter
                 WHERE starter.message_id = ",
            $row,
            ".message_id
                   AND json_extract(starter.extras, '$.kind') = 21))"
        )
    };
}
pub(crate) use is_reply;

/// Discord's type number of a thread's starter message.
const THREAD_STARTER_MESSAGE: u64 = 21;

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
        Import = imported_origin!(),
        /// Imported history from the last day before the store began covering the channel:
        /// like a backfill, it counts as new when it arrives.
        ImportRecent = "import-recent",
    }
}

/// Messages that arrived in a window, per channel: see [`Reader::arrivals_by_channel`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArrivalCounts {
    pub window: HashMap<ChannelId, u64>,
    pub after: HashMap<ChannelId, u64>,
}

/// A message as Discord first delivered it (gateway, backfill, a send, or the demo seed).
#[derive(Debug, Clone)]
pub struct NewMessage {
    pub message_id: MessageId,
    pub channel_id: ChannelId,
    pub guild_id: Option<GuildId>,
    pub author_id: UserId,
    pub author_name: String,
    pub content: String,
    pub sent_at: Instant,
    pub reply_to_message_id: Option<MessageId>,
    pub reply_to_author_id: Option<UserId>,
    pub mention_everyone: bool,
    pub mentioned_user_ids: Vec<UserId>,
    pub mentioned_role_ids: Vec<RoleId>,
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
    pub webhook_id: Option<WebhookId>,
    /// The application that posted it (an interaction's answer, an app's message), if any.
    pub application_id: Option<ApplicationId>,
}

/// A new version of a message's content.
#[derive(Debug, Clone)]
pub struct NewEdit {
    pub message_id: MessageId,
    pub channel_id: ChannelId,
    pub content: String,
    pub edited_at: Instant,
    pub mentioned_user_ids: Vec<UserId>,
    pub mentioned_role_ids: Vec<RoleId>,
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
    pub message_id: MessageId,
    pub channel_id: ChannelId,
    pub guild_id: Option<GuildId>,
    pub author_id: UserId,
    pub author_name: String,
    pub original_content: String,
    pub created_at: Instant,
    pub sent_at: Instant,
    pub reply_to_message_id: Option<MessageId>,
    pub reply_to_author_id: Option<UserId>,
    pub mention_everyone: bool,
    /// Edits in Discord's order (by `edited_at`), whatever order they arrived in.
    pub edits: Vec<EditRecord>,
    pub deleted: bool,
    /// When the store recorded the deletion.
    pub deleted_at: Option<Instant>,
    pub reactions: Vec<ReactionCount>,
    pub mentioned_user_ids: Vec<UserId>,
    pub mentioned_role_ids: Vec<RoleId>,
    pub provenance: Provenance,
    /// Attachments, embeds, stickers, poll, pinned state... as they are now.
    pub extras: MessageExtras,
}

/// A message that mentions someone, as [`Reader::mention_candidates_since`] finds it: what
/// decides whether it is kept (its ids and times) before the rest of it is read. Only
/// [`Reader::hydrate_mentions`] turns it into a [`MessageRecord`], so a message is never shown
/// without its edits, reactions and extras.
#[derive(Debug, Clone)]
pub struct MentionCandidate(MessageRecord);

impl MentionCandidate {
    pub fn message_id(&self) -> &MessageId {
        &self.0.message_id
    }

    pub fn channel_id(&self) -> &ChannelId {
        &self.0.channel_id
    }

    /// Arrival on the store's clock.
    pub fn created_at(&self) -> Instant {
        self.0.created_at
    }

    /// Discord's timestamp.
    pub fn sent_at(&self) -> Instant {
        self.0.sent_at
    }

    pub fn author_id(&self) -> &UserId {
        &self.0.author_id
    }
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

/// The columns [`message_from_row_at`] reads, in its order, each after `prefix` if one is
/// given (`message_columns!("m.")`): a macro, so that a statement can `concat!` it.
macro_rules! message_columns {
    ($($prefix:literal)?) => {
        concat!(
            $($prefix,)? "message_id, ", $($prefix,)? "channel_id, ", $($prefix,)? "guild_id, ",
            $($prefix,)? "author_id, ", $($prefix,)? "author_name, ", $($prefix,)? "content, ",
            $($prefix,)? "created_at, ", $($prefix,)? "sent_at, ",
            $($prefix,)? "reply_to_message_id, ", $($prefix,)? "reply_to_author_id, ",
            $($prefix,)? "mention_everyone, ", $($prefix,)? "author_bot, ",
            $($prefix,)? "webhook_id, ", $($prefix,)? "application_id"
        )
    };
}
pub(crate) use message_columns;

pub(super) fn message_from_row(row: &Row<'_>) -> rusqlite::Result<MessageRecord> {
    message_from_row_at(row, 0)
}

/// Reads the [`message_columns!`] of a row, starting at column `at`.
pub(super) fn message_from_row_at(row: &Row<'_>, at: usize) -> rusqlite::Result<MessageRecord> {
    let reply_to_message_id: Option<MessageId> = row.get(at + 8)?;
    // Only a reply answers an author (see `is_reply!`); the starter of a thread is left out
    // once its extras are read (`hydrate`).
    let reply_to_author_id = match reply_to_message_id {
        Some(_) => row.get(at + 9)?,
        None => None,
    };
    Ok(MessageRecord {
        message_id: row.get(at)?,
        channel_id: row.get(at + 1)?,
        guild_id: row.get(at + 2)?,
        author_id: row.get(at + 3)?,
        author_name: row.get(at + 4)?,
        original_content: row.get(at + 5)?,
        created_at: row.get(at + 6)?,
        sent_at: row.get(at + 7)?,
        reply_to_message_id,
        reply_to_author_id,
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

const MESSAGE_BY_ID: &str = concat!(
    "SELECT ",
    message_columns!(),
    " FROM messages WHERE message_id = :message_id"
);

impl Reader<'_> {
    pub fn message(&self, message_id: &MessageId) -> Result<Option<MessageRecord>> {
        let found = self
            .connection
            .prepare_cached(MESSAGE_BY_ID)?
            .query_row(named_params! {":message_id": message_id}, message_from_row)
            .optional()?;
        Ok(match found {
            Some(message) => self.hydrate(vec![message])?.pop(),
            None => None,
        })
    }

    /// The stored messages with these ids, hydrated, in one pass: position `i` of the result
    /// is `ids[i]`'s message, or `None` when no such message is stored.
    pub fn messages(&self, ids: &[&MessageId]) -> Result<Vec<Option<MessageRecord>>> {
        const MESSAGES_BY_IDS: &str = concat!(
            "SELECT ",
            message_columns!("m."),
            ", c.key FROM json_each(:ids) AS c JOIN messages AS m ON m.message_id = c.value"
        );
        let mut statement = self.connection.prepare_cached(MESSAGES_BY_IDS)?;
        let json = sql_id_array(ids.iter().copied());
        let mut found = Vec::new();
        let mut positions = Vec::new();
        let mut rows = statement.query(named_params! {":ids": json})?;
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
        channel_id: &ChannelId,
        since: Instant,
        limit: usize,
    ) -> Result<Vec<MessageRecord>> {
        const CHANNEL_NEWS_SINCE: &str = concat!(
            "SELECT ",
            message_columns!(),
            " FROM messages
             WHERE channel_id = :channel_id AND created_at >= :since
               AND origin <> '",
            imported_origin!(),
            "' ORDER BY created_at LIMIT :limit"
        );
        let mut statement = self.connection.prepare_cached(CHANNEL_NEWS_SINCE)?;
        let rows = statement
            .query_map(
                named_params! {
                    ":channel_id": channel_id,
                    ":since": since,
                    ":limit": limit as i64,
                },
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
        channel_ids: &[&ChannelId],
        since: Instant,
        limit: usize,
    ) -> Result<Vec<Vec<MessageRecord>>> {
        const CHANNELS_NEWS_SINCE: &str = concat!(
            "SELECT ",
            message_columns!("m."),
            ", c.key
             FROM json_each(:channel_ids) AS c
             JOIN messages AS m ON m.rowid IN (
                 SELECT rowid FROM messages
                 WHERE channel_id = c.value AND created_at >= :since AND origin <> '",
            imported_origin!(),
            "' ORDER BY created_at LIMIT :limit)"
        );
        let mut statement = self.connection.prepare_cached(CHANNELS_NEWS_SINCE)?;
        let ids = sql_id_array(channel_ids.iter().copied());
        let mut all = Vec::new();
        let mut positions = Vec::new();
        let mut rows = statement.query(named_params! {
            ":channel_ids": ids,
            ":since": since,
            ":limit": limit as i64,
        })?;
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
        channel_ids: &[&ChannelId],
        from: Instant,
        limit: usize,
    ) -> Result<Vec<MessageRecord>> {
        const NEWS_ARRIVED_FROM: &str = concat!(
            "SELECT ",
            message_columns!(),
            " FROM messages INDEXED BY messages_by_arrival
             WHERE created_at >= :from AND origin <> '",
            imported_origin!(),
            "' AND channel_id IN (SELECT value FROM json_each(:channel_ids))
             ORDER BY created_at LIMIT :limit"
        );
        let mut statement = self.connection.prepare_cached(NEWS_ARRIVED_FROM)?;
        let ids = sql_id_array(channel_ids.iter().copied());
        let rows = statement
            .query_map(
                named_params! {
                    ":from": from,
                    ":channel_ids": ids,
                    ":limit": limit as i64,
                },
                message_from_row,
            )?
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
        const NEWS_ARRIVALS_FROM: &str = concat!(
            "SELECT channel_id, created_at FROM messages INDEXED BY messages_by_arrival
             WHERE created_at >= :from AND origin <> '",
            imported_origin!(),
            "'"
        );
        let mut statement = self.connection.prepare_cached(NEWS_ARRIVALS_FROM)?;
        let mut counts = ArrivalCounts::default();
        let mut rows = statement.query(named_params! {":from": from})?;
        while let Some(row) = rows.next()? {
            let channel_id: ChannelId = row.get(0)?;
            let arrived: Instant = row.get(1)?;
            *counts.window.entry(channel_id).or_default() += 1;
            if split.is_some_and(|split| arrived >= split) {
                *counts.after.entry(channel_id).or_default() += 1;
            }
        }
        Ok(counts)
    }

    /// Messages that mention `user_id` (directly, through one of `role_ids`, with @everyone or
    /// @here, or by replying to them) and arrived at or after `since`, oldest first; the user's
    /// own messages are left out. They come before their edits, reactions and extras are
    /// read: a caller that keeps only some of them (those still awaiting an answer, say) reads
    /// those for the kept ones alone, with [`Reader::hydrate_mentions`].
    ///
    /// Each call reads every mention from `since` on before it keeps the first `limit`, so a
    /// caller that reads a long window through should ask for long pages.
    pub fn mention_candidates_since(
        &self,
        user_id: &UserId,
        role_ids: &[RoleId],
        since: Instant,
        limit: usize,
    ) -> Result<Vec<MentionCandidate>> {
        // Each arm reads only its own index range (the mentions side table, the partial
        // indexes of @everyone and of replies), so the cost follows the mentions in the window,
        // never the store's size. `IN (… UNION ALL …)` dedupes without ordering the arms: a
        // compound `UNION` is planned as a merge in `message_id` order, and SQLite then walks
        // the whole `messages` unique index for the @everyone arm instead of its partial index.
        const NEWS_MENTIONING: &str = concat!(
            "SELECT ",
            message_columns!(),
            " FROM messages
             WHERE message_id IN (
                 SELECT message_id FROM message_mentions
                 WHERE kind = :user_kind AND target_id = :user_id AND created_at >= :since
                 UNION ALL
                 SELECT message_id FROM message_mentions
                 WHERE kind = :role_kind AND target_id IN (SELECT value FROM json_each(:role_ids))
                   AND created_at >= :since
                 UNION ALL
                 SELECT message_id FROM messages
                 WHERE mention_everyone = 1 AND created_at >= :since
                 UNION ALL
                 SELECT message_id FROM messages
                 WHERE reply_to_author_id = :user_id AND created_at >= :since AND ",
            is_reply!("messages"),
            "
             )
               AND author_id != :user_id AND created_at >= :since AND origin <> '",
            imported_origin!(),
            "' ORDER BY created_at LIMIT :limit"
        );
        let mut statement = self.connection.prepare_cached(NEWS_MENTIONING)?;
        let roles = sql_id_array(role_ids.iter().copied());
        let rows = statement
            .query_map(
                named_params! {
                    ":user_kind": MentionKind::User.as_str(),
                    ":user_id": user_id,
                    ":role_kind": MentionKind::Role.as_str(),
                    ":role_ids": roles,
                    ":since": since,
                    ":limit": limit as i64,
                },
                message_from_row,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows.into_iter().map(MentionCandidate).collect())
    }

    /// The kept candidates as whole messages: their edits, reactions and extras read in one
    /// pass for all of them.
    pub fn hydrate_mentions(&self, kept: Vec<MentionCandidate>) -> Result<Vec<MessageRecord>> {
        self.hydrate(kept.into_iter().map(|candidate| candidate.0).collect())
    }

    /// The name each of `user_ids` last wrote under, for those who wrote anything: what
    /// `<@id>` in a message reads as. One probe of the author index per id.
    pub fn user_names(&self, user_ids: &[&UserId]) -> Result<HashMap<UserId, String>> {
        const LAST_AUTHOR_NAMES: &str = "SELECT j.value, (SELECT author_name FROM messages
                              WHERE author_id = j.value ORDER BY created_at DESC LIMIT 1)
             FROM json_each(:user_ids) AS j";
        let mut statement = self.connection.prepare_cached(LAST_AUTHOR_NAMES)?;
        let ids = sql_id_array(user_ids.iter().copied());
        let mut names = HashMap::new();
        let mut rows = statement.query(named_params! {":user_ids": ids})?;
        while let Some(row) = rows.next()? {
            if let Some(name) = row.get::<_, Option<String>>(1)? {
                names.insert(row.get(0)?, name);
            }
        }
        Ok(names)
    }

    /// Who wrote a stored message.
    pub fn author_of(&self, message_id: &MessageId) -> Result<Option<UserId>> {
        const AUTHOR_BY_MESSAGE: &str =
            "SELECT author_id FROM messages WHERE message_id = :message_id";
        Ok(self
            .connection
            .prepare_cached(AUTHOR_BY_MESSAGE)?
            .query_row(named_params! {":message_id": message_id}, |row| row.get(0))
            .optional()?)
    }

    /// Adds edits, deletion, reactions and mentions to base rows, a few queries per page.
    ///
    /// Each query walks the ids (a JSON array) and probes its table's index once per id. A
    /// `message_id IN (SELECT value FROM json_each(:ids))` would first copy the ids into a
    /// temporary B-tree, which cost a catch-up of ~1,500 messages more than the probes did.
    pub(super) fn hydrate(&self, messages: Vec<MessageRecord>) -> Result<Vec<MessageRecord>> {
        if messages.is_empty() {
            return Ok(messages);
        }
        let mut page = Hydrating::new(messages);
        self.add_edits(&mut page)?;
        for (id, extras) in self.extras_of(&page.ids_json)? {
            if let Some(message) = page.record(&id) {
                if extras.kind == THREAD_STARTER_MESSAGE {
                    // It shows the message its thread started from, answering nobody.
                    message.reply_to_message_id = None;
                    message.reply_to_author_id = None;
                }
                message.extras = extras;
            }
        }
        // After the extras: a poll's votes fill in the poll they carried.
        self.add_poll_votes(&mut page)?;
        self.add_deletions(&mut page)?;
        self.add_mentions(&mut page)?;
        for (id, counts) in reaction_counts(self.connection, &page.ids_json)? {
            if let Some(message) = page.record(&id) {
                message.reactions = counts;
            }
        }
        Ok(page.messages)
    }

    fn add_edits(&self, page: &mut Hydrating) -> Result<()> {
        const EDITS_OF_MESSAGES: &str = "SELECT e.message_id, e.content, e.edited_at, e.created_at
             FROM json_each(:message_ids) AS j JOIN message_edits AS e ON e.message_id = j.value
             ORDER BY e.edited_at, e.seq";
        let mut edits = self.connection.prepare_cached(EDITS_OF_MESSAGES)?;
        let mut rows = edits.query(named_params! {":message_ids": page.ids_json})?;
        while let Some(row) = rows.next()? {
            if let Some(message) = page.record(&row.get::<_, MessageId>(0)?) {
                message.edits.push(EditRecord {
                    content: row.get(1)?,
                    edited_at: row.get(2)?,
                    created_at: row.get(3)?,
                });
            }
        }
        Ok(())
    }

    /// Discord's own counts when a copy of the message carried them; else the votes the
    /// gateway delivered.
    fn add_poll_votes(&self, page: &mut Hydrating) -> Result<()> {
        for (id, counts) in self.poll_votes_of(&page.ids_json)? {
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
        const DELETIONS_OF_MESSAGES: &str = "SELECT d.message_id, d.created_at
             FROM json_each(:message_ids) AS j JOIN message_deletions AS d ON d.message_id = j.value";
        let mut deletions = self.connection.prepare_cached(DELETIONS_OF_MESSAGES)?;
        let mut rows = deletions.query(named_params! {":message_ids": page.ids_json})?;
        while let Some(row) = rows.next()? {
            if let Some(message) = page.record(&row.get::<_, MessageId>(0)?) {
                message.deleted = true;
                message.deleted_at = Some(row.get(1)?);
            }
        }
        Ok(())
    }

    fn add_mentions(&self, page: &mut Hydrating) -> Result<()> {
        const MENTIONS_OF_MESSAGES: &str = "SELECT x.message_id, x.kind, x.target_id
             FROM json_each(:message_ids) AS j JOIN message_mentions AS x ON x.message_id = j.value
             ORDER BY x.seq";
        let mut mentions = self.connection.prepare_cached(MENTIONS_OF_MESSAGES)?;
        let mut rows = mentions.query(named_params! {":message_ids": page.ids_json})?;
        while let Some(row) = rows.next()? {
            let kind: MentionKind = word(row, 1)?;
            if let Some(message) = page.record(&row.get::<_, MessageId>(0)?) {
                match kind {
                    MentionKind::User => message.mentioned_user_ids.push(row.get(2)?),
                    MentionKind::Role => message.mentioned_role_ids.push(row.get(2)?),
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
    position: HashMap<MessageId, usize>,
    ids_json: String,
}

impl Hydrating {
    fn new(messages: Vec<MessageRecord>) -> Hydrating {
        let position: HashMap<MessageId, usize> = messages
            .iter()
            .enumerate()
            .map(|(index, message)| (message.message_id, index))
            .collect();
        // Each id once (the map keeps a repeated message's last position), so a join yields
        // each row once.
        let ids: Vec<&MessageId> = position.keys().collect();
        let ids_json = sql_id_array(ids.iter().copied());
        Hydrating {
            messages,
            position,
            ids_json,
        }
    }

    /// The row of message `id`, if the page holds it.
    fn record(&mut self, id: &MessageId) -> Option<&mut MessageRecord> {
        let index = *self.position.get(id)?;
        self.messages.get_mut(index)
    }
}

impl Writer<'_> {
    /// Records a message once: a replay or a second sighting (gateway and backfill) is a no-op.
    /// Returns whether it was new.
    pub fn insert_message(&mut self, message: &NewMessage) -> Result<bool> {
        // One statement, no read first: the unique message id says whether it was known.
        const INSERT_MESSAGE: &str = "INSERT INTO messages (created_at, message_id, channel_id,
                 guild_id, author_id, author_name, content, sent_at, reply_to_message_id,
                 reply_to_author_id, mention_everyone, origin, author_bot, webhook_id,
                 application_id)
             VALUES (:created_at, :message_id, :channel_id, :guild_id, :author_id, :author_name,
                 :content, :sent_at, :reply_to_message_id, :reply_to_author_id, :mention_everyone,
                 :origin, :author_bot, :webhook_id, :application_id)
             ON CONFLICT (message_id) DO NOTHING";
        let stamp = self.stamp();
        let inserted = self
            .transaction
            .prepare_cached(INSERT_MESSAGE)?
            .execute(named_params! {
                ":created_at": stamp,
                ":message_id": message.message_id,
                ":channel_id": message.channel_id,
                ":guild_id": message.guild_id,
                ":author_id": message.author_id,
                ":author_name": message.author_name,
                ":content": message.content,
                ":sent_at": message.sent_at,
                ":reply_to_message_id": message.reply_to_message_id,
                ":reply_to_author_id": message.reply_to_author_id,
                ":mention_everyone": message.mention_everyone,
                ":origin": message.origin.as_str(),
                ":author_bot": message.provenance.author_bot,
                ":webhook_id": message.provenance.webhook_id,
                ":application_id": message.provenance.application_id,
            })?;
        if inserted == 0 {
            self.unstamp(stamp);
            return Ok(false);
        }
        // The row just inserted (the totals' trigger's own insert does not change it).
        let seq = self.transaction.last_insert_rowid();
        self.index_text(
            &message.message_id,
            &message.content,
            IndexedText::Own { seq },
        )?;
        self.insert_mentions(
            &message.message_id,
            &message.mentioned_user_ids,
            &message.mentioned_role_ids,
        )?;
        Ok(true)
    }

    /// Records an edit once per Discord edit timestamp. Returns whether it was new.
    pub fn insert_edit(&mut self, edit: &NewEdit) -> Result<bool> {
        const INSERT_EDIT: &str = "INSERT INTO message_edits (created_at, message_id, channel_id,
                 content, edited_at, imported)
             VALUES (:created_at, :message_id, :channel_id, :content, :edited_at, :imported)
             ON CONFLICT (message_id, edited_at) DO NOTHING";
        let stamp = self.stamp();
        let inserted = self
            .transaction
            .prepare_cached(INSERT_EDIT)?
            .execute(named_params! {
                ":created_at": stamp,
                ":message_id": edit.message_id,
                ":channel_id": edit.channel_id,
                ":content": edit.content,
                ":edited_at": edit.edited_at,
                ":imported": edit.imported,
            })?;
        if inserted == 0 {
            self.unstamp(stamp);
            return Ok(false);
        }
        self.index_text(&edit.message_id, &edit.content, IndexedText::Later)?;
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
        message_id: &MessageId,
        channel_id: &ChannelId,
        bulk: bool,
    ) -> Result<bool> {
        const INSERT_DELETION: &str = "INSERT INTO message_deletions (created_at, message_id,
                 channel_id, bulk)
             VALUES (:created_at, :message_id, :channel_id, :bulk)
             ON CONFLICT (message_id) DO NOTHING";
        let stamp = self.stamp();
        let inserted =
            self.transaction
                .prepare_cached(INSERT_DELETION)?
                .execute(named_params! {
                    ":created_at": stamp,
                    ":message_id": message_id,
                    ":channel_id": channel_id,
                    ":bulk": bulk,
                })?;
        if inserted == 0 {
            self.unstamp(stamp);
        }
        Ok(inserted > 0)
    }

    fn insert_mentions(
        &mut self,
        message_id: &MessageId,
        user_ids: &[UserId],
        role_ids: &[RoleId],
    ) -> Result<()> {
        const INSERT_MENTION: &str = "INSERT INTO message_mentions (created_at, message_id, kind,
                 target_id)
             VALUES (:created_at, :message_id, :kind, :target_id)
             ON CONFLICT (kind, target_id, message_id) DO NOTHING";
        let targets = user_ids
            .iter()
            .map(|id| (MentionKind::User, stored_bits(id)))
            .chain(
                role_ids
                    .iter()
                    .map(|id| (MentionKind::Role, stored_bits(id))),
            );
        for (kind, target_id) in targets {
            let stamp = self.stamp();
            let inserted =
                self.transaction
                    .prepare_cached(INSERT_MENTION)?
                    .execute(named_params! {
                        ":created_at": stamp,
                        ":message_id": message_id,
                        ":kind": kind.as_str(),
                        ":target_id": target_id,
                    })?;
            if inserted == 0 {
                self.unstamp(stamp);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
pub(super) mod tests;
