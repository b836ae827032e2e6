//! Counting what arrived: the cursor tool's counts, the digest's window.

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{ChannelId, UserId, sql_id_array};
use rusqlite::named_params;

use super::messages::{imported_origin, message_columns, message_from_row};
use super::{MessageRecord, Reader};

/// What arrived in one channel after an instant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChannelActivity {
    pub messages: u64,
    pub edits: u64,
    pub deletions: u64,
    pub reactions: u64,
}

impl ChannelActivity {
    pub fn total(&self) -> u64 {
        self.messages + self.edits + self.deletions + self.reactions
    }
}

/// What one channel received in a window (see [`Reader::channels_window`]).
#[derive(Debug, Clone, Default)]
pub struct WindowActivity {
    pub messages: u64,
    pub top_authors: Vec<AuthorCount>,
    pub reacted: Vec<MessageRecord>,
}

/// An author's number of messages in a window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorCount {
    pub author_id: UserId,
    pub author_name: String,
    pub messages: u64,
}

/// Per table, the term that leaves imported history out of its news: an `import` message, and
/// the edit recorded with one, are history, not activity (`migrations/0015_history_import.sql`).
/// The arrival indexes are partial on the same terms, so a count still reads no row.
macro_rules! messages_news_only {
    () => {
        concat!(" AND origin <> '", imported_origin!(), "'")
    };
}
macro_rules! message_edits_news_only {
    () => {
        " AND imported = 0"
    };
}

/// Per channel, what each table received strictly after `:after`: one range of its arrival
/// index.
const MESSAGES_PER_CHANNEL_AFTER: &str = concat!(
    "SELECT channel_id, count(*) FROM messages INDEXED BY messages_by_arrival
     WHERE created_at > :after",
    messages_news_only!(),
    " GROUP BY channel_id"
);
const EDITS_PER_CHANNEL_AFTER: &str = concat!(
    "SELECT channel_id, count(*) FROM message_edits INDEXED BY message_edits_by_arrival
     WHERE created_at > :after",
    message_edits_news_only!(),
    " GROUP BY channel_id"
);
const DELETIONS_PER_CHANNEL_AFTER: &str = "SELECT channel_id, count(*)
     FROM message_deletions INDEXED BY message_deletions_by_arrival
     WHERE created_at > :after GROUP BY channel_id";
const REACTIONS_PER_CHANNEL_AFTER: &str = "SELECT channel_id, count(*)
     FROM reaction_events INDEXED BY reaction_events_by_arrival
     WHERE created_at > :after GROUP BY channel_id";

/// What each table received in one channel strictly after `:after`.
const CHANNEL_MESSAGES_AFTER: &str = concat!(
    "SELECT count(*) FROM messages WHERE channel_id = :channel_id AND created_at > :after",
    messages_news_only!()
);
const CHANNEL_EDITS_AFTER: &str = concat!(
    "SELECT count(*) FROM message_edits WHERE channel_id = :channel_id AND created_at > :after",
    message_edits_news_only!()
);
const CHANNEL_DELETIONS_AFTER: &str = "SELECT count(*) FROM message_deletions
     WHERE channel_id = :channel_id AND created_at > :after";
const CHANNEL_REACTIONS_AFTER: &str = "SELECT count(*) FROM reaction_events
     WHERE channel_id = :channel_id AND created_at > :after";

const CLOCK_NOW: &str = "SELECT last_micros FROM clock WHERE id = 1";

impl Reader<'_> {
    /// The newest instant the store has handed out: every later commit is stamped after it.
    pub fn clock_now(&self) -> Result<Instant> {
        let last: i64 = self
            .connection
            .prepare_cached(CLOCK_NOW)?
            .query_row([], |row| row.get(0))?;
        Ok(Instant::from_micros(last))
    }

    /// Per channel, the messages, edits, deletions and reaction events stamped strictly after
    /// `after`; channels with none are absent. Imported history is not activity (see
    /// `messages_news_only!`). One range of each table's arrival index: the cost follows what arrived,
    /// not the history or the number of channels.
    pub fn activity_after(
        &self,
        after: Instant,
    ) -> Result<std::collections::HashMap<ChannelId, ChannelActivity>> {
        let mut activity: std::collections::HashMap<ChannelId, ChannelActivity> =
            std::collections::HashMap::new();
        type Field = fn(&mut ChannelActivity) -> &mut u64;
        let tables: [(&str, Field); 4] = [
            (MESSAGES_PER_CHANNEL_AFTER, |counts| &mut counts.messages),
            (EDITS_PER_CHANNEL_AFTER, |counts| &mut counts.edits),
            (DELETIONS_PER_CHANNEL_AFTER, |counts| &mut counts.deletions),
            (REACTIONS_PER_CHANNEL_AFTER, |counts| &mut counts.reactions),
        ];
        for (counts_per_channel, field) in tables {
            let mut statement = self.connection.prepare_cached(counts_per_channel)?;
            let mut rows = statement.query(named_params! {":after": after})?;
            while let Some(row) = rows.next()? {
                let channel_id: ChannelId = row.get(0)?;
                let count: i64 = row.get(1)?;
                *field(activity.entry(channel_id).or_default()) = count as u64;
            }
        }
        Ok(activity)
    }

    /// Messages, edits, deletions and reaction events of a channel stamped strictly after `after`.
    pub fn channel_activity_after(
        &self,
        channel_id: &ChannelId,
        after: Instant,
    ) -> Result<ChannelActivity> {
        let count = |count_after: &str| -> Result<u64> {
            let count: i64 = self.connection.prepare_cached(count_after)?.query_row(
                named_params! {":channel_id": channel_id, ":after": after},
                |row| row.get(0),
            )?;
            Ok(count as u64)
        };
        Ok(ChannelActivity {
            messages: count(CHANNEL_MESSAGES_AFTER)?,
            edits: count(CHANNEL_EDITS_AFTER)?,
            deletions: count(CHANNEL_DELETIONS_AFTER)?,
            reactions: count(CHANNEL_REACTIONS_AFTER)?,
        })
    }

    /// What each of `channel_ids` received in `[since, until)`, position for position: how many
    /// messages, its `top` most active authors (most messages first, then by author id), and
    /// the messages of the window that were ever reacted to (in arrival order, hydrated).
    ///
    /// Two statements walk the channels (a JSON array) and read each one's own range of the
    /// `(channel_id, created_at)` index, then one hydration covers every reacted message: the
    /// cost follows the window, not the history, and does not multiply by the channels.
    pub fn channels_window(
        &self,
        channel_ids: &[&ChannelId],
        since: Instant,
        until: Instant,
        top: usize,
    ) -> Result<Vec<WindowActivity>> {
        let ids = sql_id_array(channel_ids.iter().copied());
        let mut windows = vec![WindowActivity::default(); channel_ids.len()];

        const AUTHORS_PER_CHANNEL_IN_WINDOW: &str = concat!(
            "SELECT c.key, m.author_id, max(m.author_name), count(*)
             FROM json_each(:channel_ids) AS c
             JOIN messages AS m
               ON m.channel_id = c.value AND m.created_at >= :since AND m.created_at < :until
                  AND m.origin <> '",
            imported_origin!(),
            "' GROUP BY c.key, m.author_id"
        );
        let mut authors = self
            .connection
            .prepare_cached(AUTHORS_PER_CHANNEL_IN_WINDOW)?;
        let mut rows = authors.query(named_params! {
            ":channel_ids": ids,
            ":since": since,
            ":until": until,
        })?;
        while let Some(row) = rows.next()? {
            let position = row.get::<_, i64>(0)? as usize;
            let count = AuthorCount {
                author_id: row.get(1)?,
                author_name: row.get(2)?,
                messages: row.get::<_, i64>(3)? as u64,
            };
            if let Some(window) = windows.get_mut(position) {
                window.messages += count.messages;
                window.top_authors.push(count);
            }
        }
        drop(rows);
        for window in &mut windows {
            window.top_authors.sort_by(|a, b| {
                b.messages
                    .cmp(&a.messages)
                    .then_with(|| a.author_id.cmp(&b.author_id))
            });
            window.top_authors.truncate(top);
        }

        // Each message of the window probes its own reactions; the unary `+` keeps SQLite from
        // probing by channel instead, which would read the channel's every reaction per message.
        const REACTED_PER_CHANNEL_IN_WINDOW: &str = concat!(
            "SELECT ",
            message_columns!("m."),
            ", c.key
             FROM json_each(:channel_ids) AS c
             JOIN messages AS m
               ON m.channel_id = c.value AND m.created_at >= :since AND m.created_at < :until
                  AND m.origin <> '",
            imported_origin!(),
            "' WHERE EXISTS (SELECT 1 FROM reaction_events AS r
                           WHERE r.message_id = m.message_id AND +r.channel_id = c.value)
             ORDER BY c.key, m.created_at"
        );
        let mut reacted = self
            .connection
            .prepare_cached(REACTED_PER_CHANNEL_IN_WINDOW)?;
        let mut positions = Vec::new();
        let mut records = Vec::new();
        let mut rows = reacted.query(named_params! {
            ":channel_ids": ids,
            ":since": since,
            ":until": until,
        })?;
        while let Some(row) = rows.next()? {
            positions.push(row.get::<_, i64>(14)? as usize);
            records.push(message_from_row(row)?);
        }
        drop(rows);
        for (position, record) in positions.into_iter().zip(self.hydrate(records)?) {
            if let Some(window) = windows.get_mut(position) {
                window.reacted.push(record);
            }
        }
        Ok(windows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ReactionChange;
    use crate::store::messages::tests::new_message;
    use crate::store::testing::{fresh_id, shared_store};

    #[test]
    fn a_window_counts_each_channel_ranks_its_authors_and_keeps_what_was_ever_reacted_to() {
        let store = shared_store();
        let (busy, quiet, silent): (ChannelId, ChannelId, ChannelId) =
            (fresh_id(), fresh_id(), fresh_id());
        // In arrival order: one before the window, five inside it, one at its end (excluded).
        let rows = vec![
            new_message(busy, "7", "before"),
            new_message(busy, "8", "first inside"),
            new_message(busy, "7", "reacted, then cleared"),
            new_message(quiet, "9", "quiet"),
            new_message(busy, "7", "reacted"),
            new_message(busy, "6", "last inside"),
            new_message(busy, "8", "at until"),
        ];
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
                for index in [0, 2, 4, 6] {
                    writer.record_reaction(&ReactionChange::Add {
                        message_id: rows[index].message_id,
                        channel_id: rows[index].channel_id,
                        user_id: "5".parse().unwrap(),
                        emoji: "👍".into(),
                    })?;
                }
                writer.record_reaction(&ReactionChange::Clear {
                    message_id: rows[2].message_id,
                    channel_id: busy,
                })?;
                Ok(stamped)
            })
            .unwrap();
        let (since, until) = (stamped[1], stamped[6]);
        let windows = store
            .read(|reader| reader.channels_window(&[&silent, &busy, &quiet], since, until, 2))
            .unwrap();
        assert_eq!(windows.len(), 3);
        assert_eq!(windows[0].messages, 0);
        assert!(windows[0].top_authors.is_empty() && windows[0].reacted.is_empty());

        assert_eq!(windows[1].messages, 4);
        let author = |id: &str, messages| AuthorCount {
            author_id: id.parse().unwrap(),
            author_name: format!("user {id}"),
            messages,
        };
        // 7 wrote two; 6 and 8 one each, and the tie goes to the smaller id; `top` is 2.
        assert_eq!(windows[1].top_authors, vec![author("7", 2), author("6", 1)]);
        let reacted: Vec<(&str, usize)> = windows[1]
            .reacted
            .iter()
            .map(|m| (m.original_content.as_str(), m.reactions.len()))
            .collect();
        assert_eq!(reacted, vec![("reacted, then cleared", 0), ("reacted", 1)]);

        assert_eq!(windows[2].messages, 1);
        assert_eq!(windows[2].top_authors, vec![author("9", 1)]);
        assert!(windows[2].reacted.is_empty());

        // Both edges: from the message before `since` and up to just after `until`, the
        // window holds the message before and the one at `until` too.
        let wider = store
            .read(|reader| reader.channels_window(&[&busy], stamped[0], until.plus_micros(1), 5))
            .unwrap();
        assert_eq!(wider[0].messages, 6);
        assert_eq!(wider[0].reacted.len(), 4);
    }
}
