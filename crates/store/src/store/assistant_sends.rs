//! What an assistant (the MCP surface) asked to post: one row per send, edit (an edit puts new
//! text before people too) or scheduled message of its own as the daemon sends it, written
//! before its request leaves. Counted together with the schedules an assistant added, it is
//! how many posts an assistant started in a window, whichever process served it; alone, how
//! many of its posts went out.

use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId};
use rusqlite::named_params;

use super::{Reader, Writer};

const INSERT_ASSISTANT_SEND: &str =
    "INSERT INTO assistant_sends (created_at, channel_id) VALUES (:created_at, :channel_id)";

const INSERT_ASSISTANT_REACTION: &str = "INSERT INTO assistant_reactions (created_at, channel_id,
         message_id)
     VALUES (:created_at, :channel_id, :message_id)";

const ASSISTANT_REACTIONS_SINCE: &str =
    "SELECT count(*) FROM assistant_reactions WHERE created_at >= :since";

const ASSISTANT_SENDS_SINCE: &str =
    "SELECT count(*) FROM assistant_sends WHERE created_at >= :since";

const SCHEDULES_FROM_SOURCE_SINCE: &str =
    "SELECT count(*) FROM schedules WHERE source = :source AND created_at >= :since";

impl Writer<'_> {
    /// Records that an assistant is about to post in `channel_id`; answers its instant.
    pub fn record_assistant_send(&mut self, channel_id: &ChannelId) -> Result<Instant> {
        let created_at = self.stamp();
        self.transaction.execute(
            INSERT_ASSISTANT_SEND,
            named_params! {":created_at": created_at, ":channel_id": channel_id},
        )?;
        Ok(created_at)
    }

    /// Records that an assistant is about to add or take back the bot's reaction on
    /// `message_id`; answers its instant.
    pub fn record_assistant_reaction(
        &mut self,
        channel_id: &ChannelId,
        message_id: &MessageId,
    ) -> Result<Instant> {
        let created_at = self.stamp();
        self.transaction.execute(
            INSERT_ASSISTANT_REACTION,
            named_params! {
                ":created_at": created_at,
                ":channel_id": channel_id,
                ":message_id": message_id,
            },
        )?;
        Ok(created_at)
    }
}

impl Reader<'_> {
    /// How many reactions an assistant added or took back at or after `since`.
    pub fn assistant_reactions_since(&self, since: Instant) -> Result<u64> {
        let reactions: i64 = self.connection.query_row(
            ASSISTANT_REACTIONS_SINCE,
            named_params! {":since": since},
            |row| row.get(0),
        )?;
        Ok(reactions as u64)
    }

    /// How many posts an assistant started at or after `since`: its sends, and the messages it
    /// scheduled (each will be posted, whenever that is), which the schedules record with
    /// `assistant_source` as their source (the core's word for the MCP surface).
    pub fn assistant_posts_since(&self, since: Instant, assistant_source: &str) -> Result<u64> {
        let sends: i64 = self.connection.query_row(
            ASSISTANT_SENDS_SINCE,
            named_params! {":since": since},
            |row| row.get(0),
        )?;
        let schedules: i64 = self.connection.query_row(
            SCHEDULES_FROM_SOURCE_SINCE,
            named_params! {":source": assistant_source, ":since": since},
            |row| row.get(0),
        )?;
        Ok((sends + schedules) as u64)
    }

    /// How many of an assistant's posts went out at or after `since`: its sends and edits,
    /// and its scheduled messages as they were sent (not as they were added).
    pub fn assistant_sends_since(&self, since: Instant) -> Result<u64> {
        let sends: i64 = self.connection.query_row(
            ASSISTANT_SENDS_SINCE,
            named_params! {":since": since},
            |row| row.get(0),
        )?;
        Ok(sends as u64)
    }
}

#[cfg(test)]
mod tests {
    use crate::store::Store;

    #[test]
    fn counts_the_sends_at_or_after_an_instant_and_not_before() {
        let folder = tempfile::tempdir().unwrap();
        let store = Store::open(&folder.path().join("sends.sqlite3")).unwrap();
        let first = store
            .write(|writer| writer.record_assistant_send(&"1400000000000000001".parse().unwrap()))
            .unwrap();
        let second = store
            .write(|writer| writer.record_assistant_send(&"1400000000000000001".parse().unwrap()))
            .unwrap();
        let count = |since| {
            store
                .read(|reader| reader.assistant_posts_since(since, "mcp"))
                .unwrap()
        };
        assert_eq!(count(first), 2);
        assert_eq!(count(second), 1);
        assert_eq!(count(second.plus_micros(1)), 0);
    }

    #[test]
    fn counts_the_reactions_at_or_after_an_instant_apart_from_the_sends() {
        let folder = tempfile::tempdir().unwrap();
        let store = Store::open(&folder.path().join("reactions.sqlite3")).unwrap();
        let first = store
            .write(|writer| {
                writer.record_assistant_reaction(
                    &"1400000000000000001".parse().unwrap(),
                    &"15".parse().unwrap(),
                )
            })
            .unwrap();
        let second = store
            .write(|writer| {
                writer.record_assistant_reaction(
                    &"1400000000000000001".parse().unwrap(),
                    &"16".parse().unwrap(),
                )
            })
            .unwrap();
        let count = |since| {
            store
                .read(|reader| reader.assistant_reactions_since(since))
                .unwrap()
        };
        assert_eq!(count(first), 2);
        assert_eq!(count(second), 1);
        assert_eq!(count(second.plus_micros(1)), 0);
        let sends = store
            .read(|reader| reader.assistant_posts_since(first, "mcp"))
            .unwrap();
        assert_eq!(sends, 0, "reactions are not posts");
    }
}
