//! Guilds, channels (threads included) and members' roles, each as last seen.
//!
//! Every record is history: a change appends a row, an unchanged sighting appends nothing,
//! and the current state of an entity is its newest row.

use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::permissions::{ChannelAccess, GuildRoles, Overwrite};
use discord_manager_vocabulary::snowflake::{ChannelId, GuildId, RoleId, TagId, UserId};
use discord_manager_vocabulary::words::word_enum;
use rusqlite::{OptionalExtension, Row, named_params};
use serde::{Deserialize, Serialize};

use super::messages::imported_origin;
use super::words::word;
use super::{Reader, Writer};

/// A role and the permission bits it grants guild-wide.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RolePermissions {
    pub id: RoleId,
    pub permissions: u64,
    /// What `<@&id>` in a message reads as; empty in rows recorded before names were kept.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuildRecord {
    pub guild_id: GuildId,
    pub name: String,
    pub roles: Vec<RolePermissions>,
    pub bot_role_ids: Vec<RoleId>,
    pub removed: bool,
}

impl GuildRoles for GuildRecord {
    fn guild_id(&self) -> &GuildId {
        &self.guild_id
    }
    fn role_bits(&self, id: &RoleId) -> u64 {
        self.roles
            .iter()
            .find(|role| role.id == *id)
            .map_or(0, |role| role.permissions)
    }
    fn bot_role_ids(&self) -> &[RoleId] {
        &self.bot_role_ids
    }
}

word_enum! {
    /// What a channel is, as Discord's channel types are named here.
    pub enum ChannelKind {
        Text = "text",
        Dm = "dm",
        Voice = "voice",
        GroupDm = "group_dm",
        Category = "category",
        News = "news",
        NewsThread = "news_thread",
        PublicThread = "public_thread",
        PrivateThread = "private_thread",
        Stage = "stage",
        Directory = "directory",
        Forum = "forum",
        /// A type this version does not know (a media channel, say).
        Other = "other",
    }
}

impl ChannelKind {
    /// Whether channels of this kind hold messages: categories, forums and directories hold
    /// channels or threads, and a kind this version does not know is not assumed to.
    pub fn holds_messages(self) -> bool {
        !matches!(
            self,
            ChannelKind::Category
                | ChannelKind::Forum
                | ChannelKind::Directory
                | ChannelKind::Other
        )
    }

    pub fn is_thread(self) -> bool {
        matches!(
            self,
            ChannelKind::NewsThread | ChannelKind::PublicThread | ChannelKind::PrivateThread
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelRecord {
    pub channel_id: ChannelId,
    pub guild_id: Option<GuildId>,
    pub parent_id: Option<ChannelId>,
    pub name: String,
    pub kind: ChannelKind,
    pub overwrites: Vec<Overwrite>,
    pub access: ChannelAccess,
    pub removed: bool,
    /// A forum's tags, or a forum post's applied tags; empty elsewhere.
    pub tags: Vec<Tag>,
}

/// A forum tag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tag {
    pub id: TagId,
    pub name: String,
}

impl ChannelRecord {
    /// Whether the channel can hold messages (categories, forums and directories hold
    /// channels or threads, not messages): what backfill and coverage are about.
    pub fn holds_messages(&self) -> bool {
        self.kind.holds_messages()
    }
}

fn to_json<T: Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value)
        .map_err(|error| Error::internal("Cannot encode a store column").with_source(error))
}

fn from_json<T: for<'de> Deserialize<'de>>(row: &Row<'_>, index: usize) -> rusqlite::Result<T> {
    let text: String = row.get(index)?;
    serde_json::from_str(&text).map_err(|error| {
        rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, error.into())
    })
}

fn guild_from_row(row: &Row<'_>) -> rusqlite::Result<GuildRecord> {
    Ok(GuildRecord {
        guild_id: row.get(0)?,
        name: row.get(1)?,
        roles: from_json(row, 2)?,
        bot_role_ids: from_json(row, 3)?,
        removed: row.get(4)?,
    })
}

fn channel_from_row(row: &Row<'_>) -> rusqlite::Result<ChannelRecord> {
    Ok(ChannelRecord {
        channel_id: row.get(0)?,
        guild_id: row.get(1)?,
        parent_id: row.get(2)?,
        name: row.get(3)?,
        kind: word(row, 4)?,
        overwrites: from_json(row, 5)?,
        access: word(row, 6)?,
        removed: row.get(7)?,
        tags: from_json(row, 8)?,
    })
}

/// The channel list and the newest `channel_events` seq it reflects.
pub(super) type ChannelCache = std::sync::Mutex<Option<(i64, Vec<ChannelRecord>)>>;

/// The columns [`guild_from_row`] reads, in its order: a macro, so that statements can
/// `concat!` it.
macro_rules! guild_columns {
    () => {
        "guild_id, name, roles, bot_role_ids, removed"
    };
}

/// The columns [`channel_from_row`] reads, in its order: a macro, so that statements can
/// `concat!` it.
macro_rules! channel_columns {
    () => {
        "channel_id, guild_id, parent_id, name, kind, overwrites, access, removed, tags"
    };
}

const GUILD_AS_LAST_SEEN: &str = concat!(
    "SELECT ",
    guild_columns!(),
    " FROM guild_events WHERE guild_id = :guild_id ORDER BY seq DESC LIMIT 1"
);

const CHANNEL_AS_LAST_SEEN: &str = concat!(
    "SELECT ",
    channel_columns!(),
    " FROM channel_events WHERE channel_id = :channel_id ORDER BY seq DESC LIMIT 1"
);

const NEWEST_CHANNEL_EVENT: &str = "SELECT max(seq) FROM channel_events";

const CHANNELS_AS_LAST_SEEN: &str = concat!(
    "SELECT ",
    channel_columns!(),
    " FROM channel_events
     WHERE seq IN (SELECT max(seq) FROM channel_events GROUP BY channel_id)
     ORDER BY channel_id"
);

const ROLES_AS_LAST_SEEN: &str = "SELECT roles FROM guild_events
     WHERE seq IN (SELECT max(seq) FROM guild_events GROUP BY guild_id)";

const MEMBER_ROLES_AS_LAST_SEEN: &str = "SELECT role_ids FROM member_role_events
     WHERE guild_id = :guild_id AND user_id = :user_id
     ORDER BY seq DESC LIMIT 1";

const ROLES_HELD_BY_USER: &str = "SELECT role_ids FROM member_role_events
     WHERE seq IN (SELECT max(seq) FROM member_role_events WHERE user_id = :user_id
                   GROUP BY guild_id)";

const NEWEST_ARRIVAL_IN_CHANNEL: &str =
    "SELECT max(created_at) FROM messages WHERE channel_id = :channel_id";

const CHANNEL_NEWS_COUNT_SINCE: &str = concat!(
    "SELECT count(*) FROM messages
     WHERE channel_id = :channel_id AND created_at >= :since AND origin <> '",
    imported_origin!(),
    "'"
);

const CHANNEL_NEWS_TOTAL: &str =
    "SELECT news FROM channel_message_totals WHERE channel_id = :channel_id";

impl Reader<'_> {
    pub fn guild(&self, guild_id: &GuildId) -> Result<Option<GuildRecord>> {
        Ok(self
            .connection
            .prepare_cached(GUILD_AS_LAST_SEEN)?
            .query_row(named_params! {":guild_id": guild_id}, guild_from_row)
            .optional()?)
    }

    pub fn channel(&self, channel_id: &ChannelId) -> Result<Option<ChannelRecord>> {
        Ok(self
            .connection
            .prepare_cached(CHANNEL_AS_LAST_SEEN)?
            .query_row(named_params! {":channel_id": channel_id}, channel_from_row)
            .optional()?)
    }

    /// Every channel and thread ever seen, as last seen, ordered by id.
    ///
    /// Every call that reads messages starts here, so the list is kept per store handle with
    /// the newest `channel_events` seq it was read at: that table is append-only and its
    /// rows commit in seq order, so an unchanged newest seq (one index probe) means an
    /// unchanged list, whichever process wrote it.
    pub fn channels(&self) -> Result<Vec<ChannelRecord>> {
        let Some(cache) = self.channels else {
            return self.channels_uncached();
        };
        let newest: Option<i64> = self
            .connection
            .prepare_cached(NEWEST_CHANNEL_EVENT)?
            .query_row([], |row| row.get(0))?;
        let mut cached = cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((seq, channels)) = cached.as_ref()
            && Some(*seq) == newest
        {
            return Ok(channels.clone());
        }
        let channels = self.channels_uncached()?;
        *cached = newest.map(|seq| (seq, channels.clone()));
        Ok(channels)
    }

    fn channels_uncached(&self) -> Result<Vec<ChannelRecord>> {
        let mut statement = self.connection.prepare_cached(CHANNELS_AS_LAST_SEEN)?;
        let rows = statement.query_map([], channel_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// Every role of every guild, as last seen, by id: what mention tokens name.
    pub fn role_names(&self) -> Result<std::collections::HashMap<RoleId, String>> {
        let mut statement = self.connection.prepare_cached(ROLES_AS_LAST_SEEN)?;
        let lists = statement.query_map([], |row| from_json::<Vec<RolePermissions>>(row, 0))?;
        let mut names = std::collections::HashMap::new();
        for list in lists {
            for role in list? {
                if !role.name.is_empty() {
                    names.insert(role.id, role.name);
                }
            }
        }
        Ok(names)
    }

    /// A member's roles in a guild, as last seen.
    pub fn member_roles(
        &self,
        guild_id: &GuildId,
        user_id: &UserId,
    ) -> Result<Option<Vec<RoleId>>> {
        Ok(self
            .connection
            .prepare_cached(MEMBER_ROLES_AS_LAST_SEEN)?
            .query_row(
                named_params! {":guild_id": guild_id, ":user_id": user_id},
                |row| from_json(row, 0),
            )
            .optional()?)
    }

    /// Every role a user holds in any guild, as last seen.
    pub fn roles_held_by(&self, user_id: &UserId) -> Result<Vec<RoleId>> {
        let mut statement = self.connection.prepare_cached(ROLES_HELD_BY_USER)?;
        let lists = statement.query_map(named_params! {":user_id": user_id}, |row| {
            from_json::<Vec<RoleId>>(row, 0)
        })?;
        let mut roles = Vec::new();
        for list in lists {
            roles.extend(list?);
        }
        Ok(roles)
    }

    /// The newest message arrival in a channel and how many messages arrived since `since`.
    pub fn channel_arrivals(
        &self,
        channel_id: &ChannelId,
        since: Instant,
    ) -> Result<(Option<Instant>, u64)> {
        let newest: Option<Instant> = self
            .connection
            .prepare_cached(NEWEST_ARRIVAL_IN_CHANNEL)?
            .query_row(named_params! {":channel_id": channel_id}, |row| row.get(0))?;
        let count = self.channel_news_since(channel_id, since)?;
        Ok((newest, count))
    }

    /// How many of a channel's messages arrived at or after `since`, imported history left out:
    /// [`Reader::channel_arrivals`]'s count alone, for the readers that need no newest arrival.
    pub fn channel_news_since(&self, channel_id: &ChannelId, since: Instant) -> Result<u64> {
        let count: i64 = self
            .connection
            .prepare_cached(CHANNEL_NEWS_COUNT_SINCE)?
            .query_row(
                named_params! {":channel_id": channel_id, ":since": since},
                |row| row.get(0),
            )?;
        Ok(count as u64)
    }

    /// How many of a channel's messages are unread: those strictly after `read_through`, or,
    /// for a channel never marked read, every one; imported history left out either way. A
    /// channel never marked read reads its running total (one row, however long its history);
    /// past a marker the count walks only what arrived since, which is the unread part.
    pub fn channel_unread(
        &self,
        channel_id: &ChannelId,
        read_through: Option<Instant>,
    ) -> Result<u64> {
        if let Some(at) = read_through {
            return self.channel_news_since(channel_id, at.plus_micros(1));
        }
        let total: Option<i64> = self
            .connection
            .prepare_cached(CHANNEL_NEWS_TOTAL)?
            .query_row(named_params! {":channel_id": channel_id}, |row| row.get(0))
            .optional()?;
        Ok(total.unwrap_or(0) as u64)
    }
}

const INSERT_GUILD_EVENT: &str = "INSERT INTO guild_events (created_at, guild_id, name, roles,
         bot_role_ids, removed)
     VALUES (:created_at, :guild_id, :name, :roles, :bot_role_ids, :removed)";

const INSERT_CHANNEL_EVENT: &str = "INSERT INTO channel_events (created_at, channel_id, guild_id,
         parent_id, name, kind, overwrites, access, removed, tags)
     VALUES (:created_at, :channel_id, :guild_id, :parent_id, :name, :kind, :overwrites, :access,
         :removed, :tags)";

const INSERT_MEMBER_ROLE_EVENT: &str = "INSERT INTO member_role_events (created_at, guild_id,
         user_id, role_ids)
     VALUES (:created_at, :guild_id, :user_id, :role_ids)";

impl Writer<'_> {
    /// Records a guild sighting if anything about it changed. Returns whether it did.
    pub fn record_guild(&mut self, guild: &GuildRecord) -> Result<bool> {
        if self.reader().guild(&guild.guild_id)?.as_ref() == Some(guild) {
            return Ok(false);
        }
        let created_at = self.stamp();
        self.transaction
            .prepare_cached(INSERT_GUILD_EVENT)?
            .execute(named_params! {
                ":created_at": created_at,
                ":guild_id": guild.guild_id,
                ":name": guild.name,
                ":roles": to_json(&guild.roles)?,
                ":bot_role_ids": to_json(&guild.bot_role_ids)?,
                ":removed": guild.removed,
            })?;
        Ok(true)
    }

    /// Records a channel sighting if anything about it changed. Returns whether it did.
    pub fn record_channel(&mut self, channel: &ChannelRecord) -> Result<bool> {
        if self.reader().channel(&channel.channel_id)?.as_ref() == Some(channel) {
            return Ok(false);
        }
        let created_at = self.stamp();
        self.transaction
            .prepare_cached(INSERT_CHANNEL_EVENT)?
            .execute(named_params! {
                ":created_at": created_at,
                ":channel_id": channel.channel_id,
                ":guild_id": channel.guild_id,
                ":parent_id": channel.parent_id,
                ":name": channel.name,
                ":kind": channel.kind.as_str(),
                ":overwrites": to_json(&channel.overwrites)?,
                ":access": channel.access.as_str(),
                ":removed": channel.removed,
                ":tags": to_json(&channel.tags)?,
            })?;
        Ok(true)
    }

    /// Records a member's roles if they changed. Returns whether it did.
    pub fn record_member_roles(
        &mut self,
        guild_id: &GuildId,
        user_id: &UserId,
        role_ids: &[RoleId],
    ) -> Result<bool> {
        let mut sorted = role_ids.to_vec();
        sorted.sort();
        if self.reader().member_roles(guild_id, user_id)?.as_ref() == Some(&sorted) {
            return Ok(false);
        }
        let created_at = self.stamp();
        self.transaction
            .prepare_cached(INSERT_MEMBER_ROLE_EVENT)?
            .execute(named_params! {
                ":created_at": created_at,
                ":guild_id": guild_id,
                ":user_id": user_id,
                ":role_ids": to_json(&sorted)?,
            })?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use crate::store::testing::fresh_id;

    fn channel(channel_id: &ChannelId, name: &str) -> ChannelRecord {
        ChannelRecord {
            channel_id: *channel_id,
            guild_id: Some("1".parse().unwrap()),
            parent_id: None,
            name: name.to_string(),
            kind: ChannelKind::Text,
            overwrites: Vec::new(),
            access: ChannelAccess::Readable,
            removed: false,
            tags: Vec::new(),
        }
    }

    #[test]
    fn the_channel_list_follows_every_change_whichever_handle_wrote_it() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("channels.sqlite3");
        let (reading, writing) = (Store::open(&path).unwrap(), Store::open(&path).unwrap());
        let listed = |store: &Store| {
            store
                .read(|reader| reader.channels())
                .unwrap()
                .into_iter()
                .map(|channel| (channel.channel_id, channel.name, channel.removed))
                .collect::<Vec<_>>()
        };
        assert_eq!(listed(&reading), Vec::new());
        let (first, second) = (fresh_id(), fresh_id());
        writing
            .write(|writer| writer.record_channel(&channel(&first, "general")))
            .unwrap();
        // The first handle read (and kept) the empty list; the other handle's write shows.
        assert_eq!(listed(&reading), vec![(first, "general".into(), false)]);
        writing
            .write(|writer| {
                writer.record_channel(&channel(&second, "random"))?;
                writer.record_channel(&ChannelRecord {
                    removed: true,
                    ..channel(&first, "general-renamed")
                })
            })
            .unwrap();
        let mut expected = vec![
            (first, "general-renamed".to_string(), true),
            (second, "random".to_string(), false),
        ];
        expected.sort_by_key(|entry| entry.0);
        assert_eq!(listed(&reading), expected);
        // Read twice without a change: the same list.
        assert_eq!(listed(&reading), expected);
        // Inside a write transaction, the transaction's own rows show at once.
        let third = fresh_id();
        let inside = reading
            .write(|writer| {
                writer.record_channel(&channel(&third, "new"))?;
                writer.reader().channels()
            })
            .unwrap();
        assert_eq!(inside.len(), 3);
        assert_eq!(listed(&reading).len(), 3);
    }

    /// The running total against a count of the rows themselves: every origin but `import`
    /// counted once, a replayed message not again, a channel with none read as zero, and a
    /// marker counting strictly after it.
    #[test]
    fn a_channel_never_marked_read_has_every_message_but_imported_history_unread_counted_once() {
        use crate::store::messages::tests::new_message;
        use crate::store::{Origin, testing::shared_store};
        let store = shared_store();
        let (busy, empty) = (fresh_id(), fresh_id());
        let mut messages = Vec::new();
        for (index, origin) in [
            Origin::Gateway,
            Origin::Backfill,
            Origin::Import,
            Origin::ImportRecent,
            Origin::Sent,
            Origin::Gateway,
        ]
        .into_iter()
        .enumerate()
        {
            let mut message = new_message(busy, "7", &format!("message {index}"));
            message.origin = origin;
            messages.push(message);
        }
        let stored = store
            .write(|writer| {
                let mut stored = 0;
                for message in &messages {
                    stored += u64::from(writer.insert_message(message)?);
                }
                // A replay of what is already stored inserts nothing and counts nothing.
                for message in &messages {
                    stored += u64::from(writer.insert_message(message)?);
                }
                Ok(stored)
            })
            .unwrap();
        assert_eq!(stored, 6);
        let counted_from_rows: i64 = crate::store::testing::connection(&store)
            .query_row(
                "SELECT count(*) FROM messages WHERE channel_id = ?1 AND origin <> 'import'",
                [&busy],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(counted_from_rows, 5);
        store
            .read(|reader| {
                assert_eq!(reader.channel_unread(&busy, None)?, 5);
                assert_eq!(reader.channel_unread(&empty, None)?, 0);
                let fourth = reader.message(&messages[3].message_id)?.unwrap().created_at;
                // Strictly after the marker: the import-recent message read, the sent and the
                // last gateway message unread.
                assert_eq!(reader.channel_unread(&busy, Some(fourth))?, 2);
                assert_eq!(
                    reader.channel_unread(&busy, Some(fourth.plus_micros(-1)))?,
                    3
                );
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn a_channels_running_total_never_shrinks_and_is_never_deleted() {
        use crate::store::testing::shared_store;
        let store = shared_store();
        let connection = crate::store::testing::connection(&store);
        connection
            .execute(
                "INSERT INTO channel_message_totals (channel_id, news) VALUES ('42', 3)",
                [],
            )
            .unwrap();
        let shrink = connection
            .execute(
                "UPDATE channel_message_totals SET news = 2 WHERE channel_id = '42'",
                [],
            )
            .unwrap_err();
        assert!(
            shrink
                .to_string()
                .contains("a channel's message count only grows"),
            "{shrink}"
        );
        let delete = connection
            .execute(
                "DELETE FROM channel_message_totals WHERE channel_id = '42'",
                [],
            )
            .unwrap_err();
        assert!(delete.to_string().contains("is never deleted"), "{delete}");
        connection
            .execute(
                "UPDATE channel_message_totals SET news = 4 WHERE channel_id = '42'",
                [],
            )
            .unwrap();
    }
}
