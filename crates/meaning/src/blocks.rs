//! The scan's index as the store keeps it: the sign bits and filter columns of every vector,
//! in blocks of [`BLOCK_KEYS`] consecutive message keys, so a process's first search by
//! meaning reads about 60 bytes a message instead of deriving sign bits from 384.
//!
//! A block is the compact slots of one key range, ascending by key. The embedding pass keeps
//! each block it has built current in the same transaction as the vectors it writes
//! ([`CodeBlock::put`]), and builds the missing ones from the vectors ([`CodeBlock::from_rows`]);
//! a reader loads the blocks and reads only the ranges that have none yet. A load decodes a
//! block into its columns ([`SlotColumns`]), which the index appends as they are, numbering
//! each of the block's channels and authors once.
//!
//! A block's sign bits are taken less the store's centre ([`Centre`]), and the block names
//! the centre it was built with: a block of another centre (the pass made a new one since) is
//! refused as if damaged, and its range is read from the vectors instead.
//!
//! The bytes (little-endian), version 2:
//!
//! | part | bytes |
//! |---|---|
//! | version | 1 (`2`) |
//! | the centre's fingerprint | 8 |
//! | slots `n` | 2 |
//! | channels `c`, then each channel's id | 2, then 8 × `c` |
//! | authors `a`, then each author's id | 2, then 8 × `a` |
//! | each slot's key less the block's first key | 2 × `n` |
//! | each slot's channel and author, as places in the lists above | 2 × `n`, 2 × `n` |
//! | each slot's arrival less the previous slot's (the first: less zero), zigzag varint | 1–10 × `n` |
//! | each slot's Discord timestamp less its arrival, zigzag varint | 1–10 × `n` |
//! | each slot's sign bits | 48 × `n` |
//!
//! About 61 bytes a message for chat that arrives live (the times take 3 or 4 bytes each),
//! where the index in memory takes 80 and the vectors 384.

use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::snowflake::{ChannelId, UserId};

use crate::centre::Centre;
use crate::scan::{Row, Slot, SlotColumns};
use crate::vector::CODE_WORDS;

/// How many consecutive message keys a block covers: block `b` holds keys
/// `b × BLOCK_KEYS` to `(b + 1) × BLOCK_KEYS − 1`.
pub const BLOCK_KEYS: i64 = 4_096;

/// The version byte of the encoding above (1: uncentred sign bits, and no centre named).
const VERSION: u8 = 2;

/// The block a message key belongs to.
pub fn block_of(key: i64) -> i64 {
    key.div_euclid(BLOCK_KEYS)
}

/// The slots of one block's key range, ascending by key, and the centre their sign bits are
/// taken from.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeBlock {
    number: i64,
    centre: Centre,
    slots: Vec<Slot>,
}

impl CodeBlock {
    /// Block `number` built from the stored vectors of its range, less `centre` (rows outside
    /// the range are refused: the caller read the wrong range).
    pub fn from_rows(
        number: i64,
        centre: &Centre,
        rows: impl IntoIterator<Item = Row>,
    ) -> Result<CodeBlock> {
        let mut block = CodeBlock {
            number,
            centre: centre.clone(),
            slots: Vec::new(),
        };
        for row in rows {
            block.put(&row)?;
        }
        Ok(block)
    }

    pub fn number(&self) -> i64 {
        self.number
    }

    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    pub fn into_slots(self) -> Vec<Slot> {
        self.slots
    }

    /// Makes `row` the slot of its message: added, replaced, or (a row that is not a vector)
    /// taken out.
    pub fn put(&mut self, row: &Row) -> Result<()> {
        if block_of(row.key) != self.number {
            return Err(Error::internal(format!(
                "Message {} is not in block {} of the meaning index",
                row.key, self.number
            )));
        }
        let place = self.slots.binary_search_by_key(&row.key, |slot| slot.key);
        match (Slot::of(row, &self.centre), place) {
            (Some(slot), Ok(at)) => self.slots[at] = slot,
            (Some(slot), Err(at)) => self.slots.insert(at, slot),
            (None, Ok(at)) => {
                self.slots.remove(at);
            }
            (None, Err(_)) => {}
        }
        Ok(())
    }

    /// Takes a message's slot out, if it has one.
    pub fn remove(&mut self, key: i64) {
        if let Ok(at) = self.slots.binary_search_by_key(&key, |slot| slot.key) {
            self.slots.remove(at);
        }
    }

    /// The block's bytes (see the module's documentation).
    pub fn encode(&self) -> Vec<u8> {
        let columns = self.columns();
        let first_key = self.number * BLOCK_KEYS;
        let mut bytes =
            Vec::with_capacity(16 + 16 * columns.channels.len() + 62 * columns.keys.len());
        bytes.push(VERSION);
        bytes.extend_from_slice(&self.centre.fingerprint().to_le_bytes());
        // A block holds at most BLOCK_KEYS slots, channels and authors: each fits in a u16.
        bytes.extend_from_slice(&(columns.len() as u16).to_le_bytes());
        let lists = [
            columns
                .channels
                .iter()
                .map(|id| id.get())
                .collect::<Vec<u64>>(),
            columns.authors.iter().map(|id| id.get()).collect(),
        ];
        for list in lists {
            bytes.extend_from_slice(&(list.len() as u16).to_le_bytes());
            for id in list {
                bytes.extend_from_slice(&id.to_le_bytes());
            }
        }
        for key in &columns.keys {
            bytes.extend_from_slice(&((key - first_key) as u16).to_le_bytes());
        }
        for place in columns.channel_places.iter().chain(&columns.author_places) {
            bytes.extend_from_slice(&place.to_le_bytes());
        }
        let mut previous = 0i64;
        for arrived in &columns.arrived {
            put_varint(&mut bytes, zigzag(arrived.wrapping_sub(previous)));
            previous = *arrived;
        }
        for (sent, arrived) in columns.sent.iter().zip(&columns.arrived) {
            put_varint(&mut bytes, zigzag(sent.wrapping_sub(*arrived)));
        }
        for word in columns.codes.iter().flatten() {
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        bytes
    }

    /// Block `number` from its bytes; refused when they are not a block of this version
    /// built with `centre` (the caller builds it again from the vectors).
    pub fn decode(number: i64, bytes: &[u8], centre: &Centre) -> Result<CodeBlock> {
        Ok(CodeBlock {
            number,
            centre: centre.clone(),
            slots: CodeBlock::decode_columns(number, bytes, centre)?.into_slots(),
        })
    }

    /// Block `number`'s slots from its bytes, as columns: what a load appends to the index
    /// ([`ScanIndex::put_columns`](crate::scan::ScanIndex::put_columns)). Refused when they are
    /// not a block of this version built with `centre`, or when a place lies outside its list
    /// or the keys do not ascend.
    pub fn decode_columns(number: i64, bytes: &[u8], centre: &Centre) -> Result<SlotColumns> {
        let damaged = || {
            Error::internal(format!(
                "Block {number} of the meaning index is damaged or of another version"
            ))
        };
        let mut reader = Bytes { bytes, at: 0 };
        if reader.take(1).ok_or_else(damaged)?[0] != VERSION
            || reader.u64().ok_or_else(damaged)? != centre.fingerprint()
        {
            return Err(damaged());
        }
        let count = reader.u16().ok_or_else(damaged)? as usize;
        let mut lists = [Vec::new(), Vec::new()];
        for list in &mut lists {
            let length = reader.u16().ok_or_else(damaged)? as usize;
            for _ in 0..length {
                list.push(reader.u64().ok_or_else(damaged)?);
            }
        }
        let [channels, authors] = lists;
        let channels: Vec<ChannelId> = channels
            .into_iter()
            .map(ChannelId::from_u64)
            .collect::<Option<_>>()
            .ok_or_else(damaged)?;
        let authors: Vec<UserId> = authors
            .into_iter()
            .map(UserId::from_u64)
            .collect::<Option<_>>()
            .ok_or_else(damaged)?;
        let first_key = number * BLOCK_KEYS;
        let keys: Vec<i64> = reader
            .u16s(count)
            .ok_or_else(damaged)?
            .into_iter()
            .map(|offset| first_key + i64::from(offset))
            .collect();
        if keys.windows(2).any(|pair| pair[0] >= pair[1]) {
            return Err(damaged());
        }
        let channel_places = reader.u16s(count).ok_or_else(damaged)?;
        let author_places = reader.u16s(count).ok_or_else(damaged)?;
        let outside = |places: &[u16], list: usize| places.iter().any(|at| *at as usize >= list);
        if outside(&channel_places, channels.len()) || outside(&author_places, authors.len()) {
            return Err(damaged());
        }
        let mut arrived = Vec::with_capacity(count);
        let mut previous = 0i64;
        for _ in 0..count {
            previous = previous.wrapping_add(unzigzag(reader.varint().ok_or_else(damaged)?));
            arrived.push(previous);
        }
        let mut sent = Vec::with_capacity(count);
        for at in &arrived {
            sent.push(at.wrapping_add(unzigzag(reader.varint().ok_or_else(damaged)?)));
        }
        let code_bytes = reader
            .take(count.checked_mul(CODE_WORDS * 8).ok_or_else(damaged)?)
            .ok_or_else(damaged)?;
        let codes = code_bytes
            .chunks_exact(CODE_WORDS * 8)
            .map(|code| {
                let mut words = [0u64; CODE_WORDS];
                for (word, bytes) in words.iter_mut().zip(code.chunks_exact(8)) {
                    *word = u64::from_le_bytes(bytes.try_into().expect("eight bytes"));
                }
                words
            })
            .collect();
        if reader.at != bytes.len() {
            return Err(damaged());
        }
        Ok(SlotColumns {
            centre: centre.fingerprint(),
            channels,
            authors,
            keys,
            channel_places,
            author_places,
            arrived,
            sent,
            codes,
        })
    }

    /// The block's slots as columns: its channels and authors each once, in ascending order,
    /// and each slot's places in those lists.
    pub fn columns(&self) -> SlotColumns {
        let slots = &self.slots;
        let mut channels: Vec<ChannelId> = slots.iter().map(|s| s.channel_id).collect();
        channels.sort_unstable();
        channels.dedup();
        let mut authors: Vec<UserId> = slots.iter().map(|s| s.author_id).collect();
        authors.sort_unstable();
        authors.dedup();
        // Every slot's id is in its list, built from the slots just above.
        let place = |at: std::result::Result<usize, usize>| at.unwrap_or(0) as u16;
        SlotColumns {
            centre: self.centre.fingerprint(),
            keys: slots.iter().map(|s| s.key).collect(),
            channel_places: slots
                .iter()
                .map(|s| place(channels.binary_search(&s.channel_id)))
                .collect(),
            author_places: slots
                .iter()
                .map(|s| place(authors.binary_search(&s.author_id)))
                .collect(),
            arrived: slots.iter().map(|s| s.arrived).collect(),
            sent: slots.iter().map(|s| s.sent).collect(),
            codes: slots.iter().map(|s| s.code).collect(),
            channels,
            authors,
        }
    }
}

/// A cursor over a block's bytes; None past the end.
struct Bytes<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Bytes<'_> {
    fn take(&mut self, length: usize) -> Option<&[u8]> {
        let end = self.at.checked_add(length)?;
        let taken = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(taken)
    }

    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn u16s(&mut self, count: usize) -> Option<Vec<u16>> {
        let taken = self.take(count.checked_mul(2)?)?;
        Some(
            taken
                .chunks_exact(2)
                .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
                .collect(),
        )
    }

    fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.take(1)?[0];
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }
}

fn put_varint(bytes: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        bytes.push((value as u8) | 0x80);
        value >>= 7;
    }
    bytes.push(value as u8);
}

fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

fn unzigzag(value: u64) -> i64 {
    ((value >> 1) as i64) ^ -((value & 1) as i64)
}

#[cfg(test)]
mod tests;
