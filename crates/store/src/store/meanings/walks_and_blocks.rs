//! Where the embedding pass has walked to, and the scan's codes block by block
//! (`migrations/0029_meaning_walks_and_blocks.sql`). The store keeps a block's bytes and
//! knows nothing of their layout: `discord_manager_meaning::blocks` reads and writes them.

use rusqlite::{OptionalExtension, named_params};

use super::StoredMeaning;
use crate::store::{Reader, Writer};
use discord_manager_vocabulary::error::Result;

/// The keys the embedding pass has covered: every message from `low_key` to `high_key` has a
/// vector of the model (`low_key` above `high_key`: none yet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeaningWalk {
    pub low_key: i64,
    pub high_key: i64,
}

impl Writer<'_> {
    /// Records how far the pass over `model` has walked.
    pub fn put_meaning_walk(&mut self, model: i64, walk: MeaningWalk) -> Result<()> {
        const PUT_WALK: &str = "INSERT INTO meaning_walks (model, low_key, high_key)
             VALUES (:model, :low, :high)
             ON CONFLICT (model) DO UPDATE SET low_key = :low, high_key = :high";
        self.transaction.prepare_cached(PUT_WALK)?.execute(
            named_params! {":model": model, ":low": walk.low_key, ":high": walk.high_key},
        )?;
        Ok(())
    }

    /// Makes `slots` block `block` of `model`'s codes, replacing it.
    pub fn put_meaning_block(&mut self, model: i64, block: i64, slots: &[u8]) -> Result<()> {
        const PUT_BLOCK: &str = "INSERT OR REPLACE INTO meaning_blocks (model, block, slots)
             VALUES (:model, :block, :slots)";
        self.transaction
            .prepare_cached(PUT_BLOCK)?
            .execute(named_params! {":model": model, ":block": block, ":slots": slots})?;
        Ok(())
    }

    /// Drops the blocks and walks of every model but `model` (a model change: another model's
    /// codes are never searched again); how many blocks went.
    pub fn drop_meaning_blocks_except(&mut self, model: i64) -> Result<usize> {
        const DROP_BLOCKS: &str = "DELETE FROM meaning_blocks WHERE model != :model";
        const DROP_WALKS: &str = "DELETE FROM meaning_walks WHERE model != :model";
        let dropped = self
            .transaction
            .prepare_cached(DROP_BLOCKS)?
            .execute(named_params! {":model": model})?;
        self.transaction
            .prepare_cached(DROP_WALKS)?
            .execute(named_params! {":model": model})?;
        Ok(dropped)
    }
}

impl Reader<'_> {
    /// How far the pass over `model` has walked, if it has started.
    pub fn meaning_walk(&self, model: i64) -> Result<Option<MeaningWalk>> {
        const WALK: &str = "SELECT low_key, high_key FROM meaning_walks WHERE model = :model";
        Ok(self
            .connection
            .prepare_cached(WALK)?
            .query_row(named_params! {":model": model}, |row| {
                Ok(MeaningWalk {
                    low_key: row.get(0)?,
                    high_key: row.get(1)?,
                })
            })
            .optional()?)
    }

    /// Up to `limit` message keys from `from` up to (not including) `below`, highest first,
    /// with no vector of `model`: the pass's walk back through the history.
    pub fn unembedded_messages_below(
        &self,
        model: i64,
        from: i64,
        below: i64,
        limit: usize,
    ) -> Result<Vec<i64>> {
        const UNEMBEDDED_BELOW: &str = "SELECT m.seq FROM messages AS m
             WHERE m.seq >= :from AND m.seq < :below
               AND NOT EXISTS (SELECT 1 FROM message_meanings AS v
                               WHERE v.message_key = m.seq AND v.model = :model)
             ORDER BY m.seq DESC LIMIT :limit";
        let mut statement = self.connection.prepare_cached(UNEMBEDDED_BELOW)?;
        let keys = statement
            .query_map(
                named_params! {
                    ":from": from,
                    ":below": below,
                    ":model": model,
                    ":limit": limit as i64,
                },
                |row| row.get(0),
            )?
            .collect::<rusqlite::Result<Vec<i64>>>()?;
        Ok(keys)
    }

    /// Block `block` of `model`'s codes, if it has been built.
    pub fn meaning_block(&self, model: i64, block: i64) -> Result<Option<Vec<u8>>> {
        const BLOCK: &str =
            "SELECT slots FROM meaning_blocks WHERE model = :model AND block = :block";
        Ok(self
            .connection
            .prepare_cached(BLOCK)?
            .query_row(named_params! {":model": model, ":block": block}, |row| {
                row.get(0)
            })
            .optional()?)
    }

    /// The numbers of `model`'s built blocks, ascending (read from the key's index alone).
    pub fn meaning_block_numbers(&self, model: i64) -> Result<Vec<i64>> {
        const NUMBERS: &str =
            "SELECT block FROM meaning_blocks WHERE model = :model ORDER BY block";
        let mut statement = self.connection.prepare_cached(NUMBERS)?;
        let numbers = statement
            .query_map(named_params! {":model": model}, |row| row.get(0))?
            .collect::<rusqlite::Result<Vec<i64>>>()?;
        Ok(numbers)
    }

    /// Up to `limit` of `model`'s built blocks numbered `from` and above, ascending, with
    /// their bytes.
    pub fn meaning_blocks(
        &self,
        model: i64,
        from: i64,
        limit: usize,
    ) -> Result<Vec<(i64, Vec<u8>)>> {
        const BLOCKS: &str = "SELECT block, slots FROM meaning_blocks
             WHERE model = :model AND block >= :from ORDER BY block LIMIT :limit";
        let mut statement = self.connection.prepare_cached(BLOCKS)?;
        let blocks = statement
            .query_map(
                named_params! {":model": model, ":from": from, ":limit": limit as i64},
                |row| Ok((row.get(0)?, row.get(1)?)),
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(blocks)
    }

    /// The vectors of `model` of the messages keyed `first` to `last`, ascending by key, with
    /// what the scan's filters read of each: what a block is built from.
    pub fn meanings_of_keys_between(
        &self,
        model: i64,
        first: i64,
        last: i64,
    ) -> Result<Vec<StoredMeaning>> {
        const MEANINGS_BETWEEN: &str = "SELECT v.seq, v.message_key, m.channel_id, m.author_id,
                 m.created_at, m.sent_at, v.vector
             FROM message_meanings AS v JOIN messages AS m ON m.seq = v.message_key
             WHERE v.message_key BETWEEN :first AND :last AND v.model = :model
             ORDER BY v.message_key";
        let mut statement = self.connection.prepare_cached(MEANINGS_BETWEEN)?;
        let rows = statement
            .query_map(
                named_params! {":first": first, ":last": last, ":model": model},
                super::stored_meaning,
            )?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// The vectors of `model` of the messages `keys` that have one, in the order of `keys`,
    /// with what the scan's filters read of each: what a block is brought up to date with.
    pub fn meanings_of_keys(&self, model: i64, keys: &[i64]) -> Result<Vec<StoredMeaning>> {
        const MEANING_OF_KEY: &str = "SELECT v.seq, v.message_key, m.channel_id, m.author_id,
                 m.created_at, m.sent_at, v.vector
             FROM message_meanings AS v JOIN messages AS m ON m.seq = v.message_key
             WHERE v.message_key = :key AND v.model = :model";
        let mut statement = self.connection.prepare_cached(MEANING_OF_KEY)?;
        let mut rows = Vec::with_capacity(keys.len());
        for key in keys {
            let row = statement
                .query_row(
                    named_params! {":key": key, ":model": model},
                    super::stored_meaning,
                )
                .optional()?;
            rows.extend(row);
        }
        Ok(rows)
    }

    /// The position of the last vector written (0: none): a reader that loads blocks reads
    /// on from here.
    pub fn last_meaning_seq(&self) -> Result<i64> {
        const LAST: &str = "SELECT coalesce(max(seq), 0) FROM message_meanings";
        Ok(self
            .connection
            .prepare_cached(LAST)?
            .query_row([], |row| row.get(0))?)
    }
}
