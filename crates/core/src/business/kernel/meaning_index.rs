//! The vectors a process searches by meaning: their sign bits and what the filters read,
//! loaded from the store once, then refreshed with what was embedded since (new messages, and
//! messages embedded again after their text changed) before each search; each search's
//! candidates are rescored from their vectors as the store holds them.
//!
//! The load reads the blocks of codes the embedding pass keeps (`discord_manager_meaning::blocks`,
//! about 61 bytes a message) in key order, on two threads of their own ([`read_ahead`]), while
//! the calling thread appends each to the index column by column (`ScanIndex::put_columns`,
//! into columns reserved once for every message); it reads the vectors only of ranges that
//! have no block yet; then it reads on from the last vector written before it began, so a
//! vector written during the load is applied after it. The question is embedded on another
//! thread while the index loads or refreshes.
//!
//! The index is no process-wide state: it belongs to the owner context ([`MeaningIndex`] in
//! `OwnerContext::meanings`), so the MCP server's calls, which clone one context, share one
//! index and load it at their first search by meaning, and a one-shot CLI command pays one
//! load. Its lock is held only while the index itself is read or changed, never while the
//! store is read: a refresh reads its batch first and applies it after, and a search takes its
//! candidates, lets go, then reads their vectors.
//!
//! Every slot's sign bits, and the question's, are taken less the centre the store held when
//! the index was loaded ([`store_centre`]); a block built with another centre (the pass took a
//! new one since) is read from the vectors instead, so one index never mixes two centres.
//!
//! Only the bundled model's vectors are loaded: a vector another model made is never
//! compared with a question (the scan refuses another identity too).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use discord_manager_meaning::blocks::{BLOCK_KEYS, CodeBlock, block_of};
use discord_manager_meaning::centre::Centre;
use discord_manager_meaning::model::{Encoder, Identity};
use discord_manager_meaning::scan::{Neighbour, Row, ScanFilter, ScanIndex, SlotColumns, rescore};
use discord_manager_store::{MeaningProgress, Reader, Store, StoredMeaning};
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How many vectors a refresh reads at a time, each batch in a read of its own (two in the
/// unit tests, so their few messages load over several reads, as a large store does).
#[cfg(not(test))]
const LOAD_BATCH: usize = 20_000;
#[cfg(test)]
const LOAD_BATCH: usize = 2;

/// How many blocks of codes a load reads at a time, each group in a read of its own (one in
/// the unit tests): about 2 MB, so the group read ahead and the one appended stay small.
#[cfg(not(test))]
const LOAD_BLOCKS: i64 = 8;
#[cfg(test)]
const LOAD_BLOCKS: i64 = 1;

/// How many threads read a load's blocks at once.
const LOAD_READERS: usize = 2;

/// The index of meanings of the store an owner context reads. Cloning it shares it: the
/// contexts of one server's calls hold the same one. Empty until the first search by meaning.
#[derive(Debug, Clone, Default)]
pub struct MeaningIndex {
    shared: Arc<Mutex<Loaded>>,
}

/// An index and the store it was loaded from (None: nothing loaded yet).
#[derive(Debug)]
struct Loaded {
    store: Option<PathBuf>,
    index: ScanIndex,
    /// The blocks have been read: from here on, refreshes read on.
    from_blocks: bool,
}

impl Default for Loaded {
    fn default() -> Loaded {
        Loaded {
            store: None,
            index: ScanIndex::new(Identity::bundled(), Centre::none()),
            from_blocks: false,
        }
    }
}

/// One batch of what was embedded since `after`, read outside the index's lock.
struct Batch {
    after: i64,
    rows: Vec<StoredMeaning>,
}

impl MeaningIndex {
    /// The index, loaded for `store` (a fresh one when it held another store's, or none).
    fn lock(&self, store: &Path) -> Result<MutexGuard<'_, Loaded>> {
        let mut loaded = self
            .shared
            .lock()
            .map_err(|_| Error::internal("The index of meanings is poisoned"))?;
        if loaded.store.as_deref() != Some(store) {
            *loaded = Loaded {
                store: Some(store.to_path_buf()),
                ..Loaded::default()
            };
        }
        Ok(loaded)
    }

    /// Brings the index up to date with `store`: batches read without the lock, each applied
    /// only if no other call applied one since it was read (else it is read again from where
    /// the index now is). Whether the index holds no vector.
    fn refresh(&self, store: &Store) -> Result<bool> {
        let (identity, from_blocks) = {
            let loaded = self.lock(store.path())?;
            (loaded.index.identity().clone(), loaded.from_blocks)
        };
        if !from_blocks && let Some(index) = load(store, &identity)? {
            let mut loaded = self.lock(store.path())?;
            if !loaded.from_blocks {
                loaded.index = index;
                loaded.from_blocks = true;
            }
        }
        loop {
            let (identity, after) = {
                let loaded = self.lock(store.path())?;
                (loaded.index.identity().clone(), loaded.index.seen_through)
            };
            // One read per batch, each within a read's time limit: the first load of a 1M
            // store from a cold disk took longer than that in one read.
            let batch = store.read(|reader| read_batch(reader, &identity, after))?;
            let mut loaded = self.lock(store.path())?;
            let index = &mut loaded.index;
            let Some(batch) = batch else {
                return Ok(index.is_empty());
            };
            if index.seen_through != batch.after {
                continue;
            }
            let more = batch.rows.len() == LOAD_BATCH;
            apply(index, batch);
            if !more {
                return Ok(index.is_empty());
            }
        }
    }

    /// The keys of the messages whose sign bits are nearest `question` among those `filter`
    /// admits (see [`ScanIndex::candidates`]).
    fn candidates(
        &self,
        store: &Store,
        identity: &Identity,
        question: &[f32],
        filter: &ScanFilter,
        wanted: usize,
    ) -> Result<Vec<i64>> {
        let loaded = self.lock(store.path())?;
        loaded.index.candidates(identity, question, filter, wanted)
    }
}

/// The index of `identity`'s vectors from the store's blocks of codes, and from the vectors
/// of the ranges that have no block yet, in key order; it reads on from the last vector
/// written before the load began. None when the model has embedded nothing.
fn load(store: &Store, identity: &Identity) -> Result<Option<ScanIndex>> {
    let begun = store.read(|reader| {
        let Some(model) = reader.meaning_model_id(identity.as_str())? else {
            return Ok(None);
        };
        let messages = reader.message_count()?;
        let centre = store_centre(reader, model)?;
        Ok(Some((model, reader.last_meaning_seq()?, messages, centre)))
    })?;
    let Some((model, through, messages, centre)) = begun else {
        return Ok(None);
    };
    let last_block = block_of(messages as i64);
    let mut index = ScanIndex::new(identity.clone(), centre.clone());
    // At most one slot a message: each column grows once, and room it never fills is never
    // touched, so never resident.
    index.reserve(messages as usize);
    let groups: Vec<(i64, i64)> = (0..=last_block)
        .step_by(LOAD_BLOCKS as usize)
        .map(|first| (first, (first + LOAD_BLOCKS - 1).min(last_block)))
        .collect();
    // Threads of their own read the groups of blocks while this one appends them in order, so
    // the disk's reads (answered sooner two at a time) and the kernel's first touch of the
    // index's memory overlap.
    read_ahead(
        &groups,
        LOAD_READERS,
        |(first, last)| store.read(|reader| read_blocks(reader, model, &centre, *first, *last)),
        |blocks| {
            for block in blocks {
                index.put_columns(block)?;
            }
            Ok(())
        },
    )?;
    index.seen_through = through;
    Ok(Some(index))
}

/// Reads each of `parts` with `read` on `readers` threads of their own (part `n` by reader
/// `n % readers`, each one part ahead at most), and gives what each read to `take` in `parts`'
/// order. The first failure in that order (of a read, or of a take) is returned, and nothing
/// after it is taken; the readers stop.
fn read_ahead<Part: Sync, Read: Send>(
    parts: &[Part],
    readers: usize,
    read: impl Fn(&Part) -> Result<Read> + Sync,
    mut take: impl FnMut(Read) -> Result<()>,
) -> Result<()> {
    let readers = readers.clamp(1, parts.len().max(1));
    std::thread::scope(|scope| {
        let read = &read;
        let receivers: Vec<_> = (0..readers)
            .map(|first| {
                let (sender, receiver) = std::sync::mpsc::sync_channel(1);
                scope.spawn(move || {
                    for part in parts.iter().skip(first).step_by(readers) {
                        let result = read(part);
                        let failed = result.is_err();
                        // A closed channel: the caller stopped at an earlier failure.
                        if sender.send(result).is_err() || failed {
                            return;
                        }
                    }
                });
                receiver
            })
            .collect();
        for at in 0..parts.len() {
            let result = receivers[at % readers]
                .recv()
                .unwrap_or_else(|_| Err(Error::internal("A read of the store stopped early")));
            take(result?)?;
        }
        Ok(())
    })
}

/// The centre of `model`'s vectors as the store holds it; none when the pass has not taken
/// one yet, or when it is damaged (the pass takes it again).
pub(crate) fn store_centre(reader: &Reader<'_>, model: i64) -> Result<Centre> {
    Ok(reader
        .meaning_centre(model)?
        .and_then(|stored| Centre::from_bytes(&stored.centre).ok())
        .unwrap_or_else(Centre::none))
}

/// Blocks `first` to `last` of `model`'s codes: as built, or, for one not built yet (or
/// unreadable, or built with another centre than `centre`), built here from its range's
/// vectors.
fn read_blocks(
    reader: &Reader<'_>,
    model: i64,
    centre: &Centre,
    first: i64,
    last: i64,
) -> Result<Vec<SlotColumns>> {
    let mut built = reader
        .meaning_blocks(model, first, (last - first + 1) as usize)?
        .into_iter()
        .peekable();
    let mut blocks = Vec::new();
    for number in first..=last {
        let kept = match built.next_if(|(at, _)| *at == number) {
            Some((_, bytes)) => CodeBlock::decode_columns(number, &bytes, centre).ok(),
            None => None,
        };
        let block = match kept {
            Some(block) => block,
            None => {
                let start = number * BLOCK_KEYS;
                let rows = reader.meanings_of_keys_between(model, start, start + BLOCK_KEYS - 1)?;
                CodeBlock::from_rows(number, centre, rows.into_iter().map(scan_row))?.columns()
            }
        };
        blocks.push(block);
    }
    Ok(blocks)
}

/// The next batch of what `identity` embedded after `after`; None when there is nothing new
/// (or the model has embedded nothing).
fn read_batch(reader: &Reader<'_>, identity: &Identity, after: i64) -> Result<Option<Batch>> {
    let Some(model) = reader.meaning_model_id(identity.as_str())? else {
        return Ok(None);
    };
    let rows = reader.meanings_after(model, after, LOAD_BATCH)?;
    Ok((!rows.is_empty()).then_some(Batch { after, rows }))
}

/// Puts a batch's vectors in the index and moves its cursor past them.
fn apply(index: &mut ScanIndex, batch: Batch) {
    for row in batch.rows {
        index.seen_through = index.seen_through.max(row.seq);
        index.put(scan_row(row));
    }
}

/// A stored vector as the scan reads it.
pub(crate) fn scan_row(row: StoredMeaning) -> Row {
    Row {
        key: row.key,
        channel_id: row.channel_id,
        author_id: row.author_id,
        arrived: row.arrived,
        sent: row.sent,
        vector: row.vector,
    }
}

/// A search by meaning over the store's index, brought up to date first: [`Searcher::search`]
/// gives the messages closest to the question. Refused, saying why and what to do, when the
/// store holds no vector of the bundled model yet.
pub(crate) struct Searcher<'a> {
    store: &'a Store,
    index: &'a MeaningIndex,
    identity: Identity,
    question: Vec<f32>,
}

impl<'a> Searcher<'a> {
    /// The index brought up to date while `question` is embedded on a second thread.
    pub(crate) fn new(
        store: &'a Store,
        index: &'a MeaningIndex,
        question: &str,
    ) -> Result<Searcher<'a>> {
        let (embedded, refreshed) = std::thread::scope(|scope| {
            let embedding = scope.spawn(|| {
                let encoder = Encoder::bundled()?;
                let question = encoder.embed_question(question)?;
                Ok::<_, Error>((encoder.identity().clone(), question))
            });
            let refreshed = index.refresh(store);
            let embedded = embedding
                .join()
                .unwrap_or_else(|_| Err(Error::internal("The question's embedding failed")));
            (embedded, refreshed)
        });
        let (identity, question) = embedded?;
        if refreshed? {
            let progress = store.read(|reader| progress(reader, &identity))?;
            if progress.messages > 0 {
                return Err(not_embedded_yet(store, &identity)?);
            }
        }
        Ok(Searcher {
            store,
            index,
            identity,
            question,
        })
    }

    /// The `wanted` messages closest to `question` (its vector) that `filter` admits, closest
    /// first: the index's candidates, rescored from their vectors as the store holds them.
    pub(crate) fn search(&self, filter: &ScanFilter, wanted: usize) -> Result<Vec<Neighbour>> {
        let (identity, question) = (&self.identity, &self.question);
        let candidates = self
            .index
            .candidates(self.store, identity, question, filter, wanted)?;
        let stored =
            self.store
                .read(|reader| match reader.meaning_model_id(identity.as_str())? {
                    Some(model) => reader.meaning_vectors(model, &candidates),
                    None => Ok(Vec::new()),
                })?;
        Ok(rescore(question, stored, wanted))
    }
}

/// How far the store's vectors of `identity` are.
pub(crate) fn progress(reader: &Reader<'_>, identity: &Identity) -> Result<MeaningProgress> {
    let model = reader.meaning_model_id(identity.as_str())?;
    reader.meaning_progress(model)
}

/// How far search by meaning reaches: messages embedded of all, and, while the embedding
/// pass is still walking back through the history, the Discord time of the oldest message it
/// has reached (absent once it has reached the first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MeaningReach {
    /// Messages embedded by this binary's model (a message with no text counts once looked
    /// at).
    pub embedded: u64,
    /// Messages in the store.
    pub messages: u64,
    /// Search by meaning finds messages sent from about this time on: the pass embeds newest
    /// first and has not reached older ones yet. Absent when it has walked the whole history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reaches_back: Option<Instant>,
}

impl MeaningReach {
    /// Every message has a vector of the model.
    pub fn complete(&self) -> bool {
        self.embedded >= self.messages
    }
}

/// How far search by meaning with `identity` reaches (see [`MeaningReach`]).
pub(crate) fn reach(reader: &Reader<'_>, identity: &Identity) -> Result<MeaningReach> {
    let model = reader.meaning_model_id(identity.as_str())?;
    let counts = reader.meaning_progress(model)?;
    let walk = match model {
        Some(model) => reader.meaning_walk(model)?,
        None => None,
    };
    let reaches_back = match walk {
        Some(walk) if walk.low_key > 1 && walk.low_key <= walk.high_key => reader
            .messages_by_keys(&[walk.low_key])?
            .into_iter()
            .next()
            .map(|(_, message)| message.sent_at),
        _ => None,
    };
    Ok(MeaningReach {
        embedded: counts.embedded,
        messages: counts.messages,
        reaches_back,
    })
}

/// The refusal of a search by meaning over a store with no vector of this model: whether
/// another model's vectors are there (never compared; re-embedded by ingest) or none at all.
fn not_embedded_yet(store: &Store, identity: &Identity) -> Result<Error> {
    let others = store.read(|reader| reader.meaning_models_other_than(identity.as_str()))?;
    Ok(match others.first() {
        Some(other) => Error::conflict(format!(
            "No message is embedded by this binary's model ({}) yet: the vectors in the store \
             were made by {}, and vectors of another model are never compared with a \
             question. `discord-manager ingest` re-embeds every message in the background; \
             `store_status` shows how far it is. Meanwhile search with mode \"words\"",
            identity.name(),
            Identity::from_stored(other.clone()).name()
        )),
        None => Error::conflict(
            "No message is embedded yet: `discord-manager ingest` embeds every message in \
             the background, and `store_status` shows how far it is. Meanwhile search with \
             mode \"words\"",
        ),
    })
}

#[cfg(test)]
mod tests;
