//! Reactions as events, and the per-emoji counts derived by replaying them.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId, UserId};
use discord_manager_vocabulary::words::word_enum;
use rusqlite::{Connection, named_params};

use super::words::word;
use super::{Reader, Writer};

/// The spelling of an added reaction ([`ReactionEventKind::Add`]), as a macro so that a
/// statement can `concat!` it: a partial index is on `kind = 'add'`
/// (`migrations/0012_mention_dismissals.sql`), and SQLite uses it only for a query that names
/// the same literal.
macro_rules! reaction_added {
    () => {
        "add"
    };
}
pub(crate) use reaction_added;

word_enum! {
    /// What a reaction event did: `reaction_events.kind`.
    pub(crate) enum ReactionEventKind {
        Add = reaction_added!(),
        Remove = "remove",
        Clear = "clear",
        ClearEmoji = "clear_emoji",
    }
}

/// One reaction event as Discord reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReactionChange {
    Add {
        message_id: MessageId,
        channel_id: ChannelId,
        user_id: UserId,
        emoji: String,
    },
    Remove {
        message_id: MessageId,
        channel_id: ChannelId,
        user_id: UserId,
        emoji: String,
    },
    Clear {
        message_id: MessageId,
        channel_id: ChannelId,
    },
    ClearEmoji {
        message_id: MessageId,
        channel_id: ChannelId,
        emoji: String,
    },
}

/// How many users currently react to a message with an emoji.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReactionCount {
    pub emoji: String,
    pub count: u64,
}

/// Current reactors per emoji, from events replayed in arrival order.
type Reactors = BTreeMap<String, BTreeSet<UserId>>;

fn apply(
    reactors: &mut Reactors,
    kind: ReactionEventKind,
    user_id: Option<UserId>,
    emoji: Option<String>,
) {
    match (kind, user_id, emoji) {
        (ReactionEventKind::Add, Some(user), Some(emoji)) => {
            reactors.entry(emoji).or_default().insert(user);
        }
        (ReactionEventKind::Remove, Some(user), Some(emoji)) => {
            if let Some(users) = reactors.get_mut(&emoji) {
                users.remove(&user);
                if users.is_empty() {
                    reactors.remove(&emoji);
                }
            }
        }
        (ReactionEventKind::Clear, _, _) => reactors.clear(),
        (ReactionEventKind::ClearEmoji, _, Some(emoji)) => {
            reactors.remove(&emoji);
        }
        _ => {}
    }
}

fn counts(reactors: Reactors) -> Vec<ReactionCount> {
    let mut counts: Vec<ReactionCount> = reactors
        .into_iter()
        .map(|(emoji, users)| ReactionCount {
            emoji,
            count: users.len() as u64,
        })
        .collect();
    counts.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.emoji.cmp(&b.emoji)));
    counts
}

/// Reaction counts for the messages whose ids are in the JSON array `ids_json` (each id once).
pub(super) fn reaction_counts(
    connection: &Connection,
    ids_json: &str,
) -> Result<HashMap<MessageId, Vec<ReactionCount>>> {
    const REACTIONS_OF_MESSAGES: &str = "SELECT r.message_id, r.kind, r.user_id, r.emoji
         FROM json_each(:message_ids) AS j JOIN reaction_events AS r ON r.message_id = j.value
         ORDER BY r.seq";
    let mut statement = connection.prepare_cached(REACTIONS_OF_MESSAGES)?;
    let mut rows = statement.query(named_params! {":message_ids": ids_json})?;
    let mut reactors: HashMap<MessageId, Reactors> = HashMap::new();
    while let Some(row) = rows.next()? {
        let message_id: MessageId = row.get(0)?;
        apply(
            reactors.entry(message_id).or_default(),
            word(row, 1)?,
            row.get(2)?,
            row.get(3)?,
        );
    }
    Ok(reactors
        .into_iter()
        .map(|(id, reactors)| (id, counts(reactors)))
        .collect())
}

fn reactors_of(connection: &Connection, message_id: &MessageId) -> Result<Reactors> {
    const REACTIONS_OF_MESSAGE: &str = "SELECT kind, user_id, emoji FROM reaction_events
         WHERE message_id = :message_id ORDER BY seq";
    let mut statement = connection.prepare_cached(REACTIONS_OF_MESSAGE)?;
    let mut rows = statement.query(named_params! {":message_id": message_id})?;
    let mut reactors = Reactors::new();
    while let Some(row) = rows.next()? {
        apply(&mut reactors, word(row, 0)?, row.get(1)?, row.get(2)?);
    }
    Ok(reactors)
}

impl Reader<'_> {
    /// The emoji `user_id` currently reacts to a message with, as the store writes them.
    pub fn emojis_reacted_by(
        &self,
        message_id: &MessageId,
        user_id: &UserId,
    ) -> Result<Vec<String>> {
        Ok(reactors_of(self.connection, message_id)?
            .into_iter()
            .filter(|(_, users)| users.contains(user_id))
            .map(|(emoji, _)| emoji)
            .collect())
    }
}

impl Writer<'_> {
    /// Records a reaction event if it changes the message's reactions, so a replayed event
    /// is recorded once. Returns whether it was recorded.
    pub fn record_reaction(&mut self, change: &ReactionChange) -> Result<bool> {
        let (message_id, channel_id, kind, user_id, emoji) = match change {
            ReactionChange::Add {
                message_id,
                channel_id,
                user_id,
                emoji,
            } => (
                message_id,
                channel_id,
                ReactionEventKind::Add,
                Some(user_id),
                Some(emoji),
            ),
            ReactionChange::Remove {
                message_id,
                channel_id,
                user_id,
                emoji,
            } => (
                message_id,
                channel_id,
                ReactionEventKind::Remove,
                Some(user_id),
                Some(emoji),
            ),
            ReactionChange::Clear {
                message_id,
                channel_id,
            } => (message_id, channel_id, ReactionEventKind::Clear, None, None),
            ReactionChange::ClearEmoji {
                message_id,
                channel_id,
                emoji,
            } => (
                message_id,
                channel_id,
                ReactionEventKind::ClearEmoji,
                None,
                Some(emoji),
            ),
        };
        let before = reactors_of(&self.transaction, message_id)?;
        let mut after = before.clone();
        apply(&mut after, kind, user_id.cloned(), emoji.cloned());
        if before == after {
            return Ok(false);
        }
        const INSERT_REACTION_EVENT: &str = "INSERT INTO reaction_events (created_at, message_id,
                 channel_id, kind, user_id, emoji)
             VALUES (:created_at, :message_id, :channel_id, :kind, :user_id, :emoji)";
        let created_at = self.stamp();
        self.transaction
            .prepare_cached(INSERT_REACTION_EVENT)?
            .execute(named_params! {
                ":created_at": created_at,
                ":message_id": message_id,
                ":channel_id": channel_id,
                ":kind": kind.as_str(),
                ":user_id": user_id,
                ":emoji": emoji,
            })?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::testing::{connection, shared_store};

    #[test]
    fn an_added_reaction_is_named_with_the_partial_index_literal() {
        // The literal `reacted_to_by` composes is the vocabulary's one spelling...
        assert_eq!(reaction_added!(), ReactionEventKind::Add.as_str());
        assert_eq!(reaction_added!(), "add");
        // ...and the term the index by message and user is partial on.
        let term = concat!("kind = '", reaction_added!(), "'");
        let index: String = connection(&shared_store())
            .query_row(
                "SELECT sql FROM sqlite_master WHERE name = 'reaction_events_by_message_user'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert!(index.ends_with(&format!("WHERE {term}")), "{index}");
    }
}
