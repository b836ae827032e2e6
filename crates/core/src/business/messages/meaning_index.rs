//! The vectors a process searches by meaning: loaded from the store once, then refreshed
//! with what was embedded since (new messages, and messages embedded again after their text
//! changed) before each search. The MCP server loads them at its first search by meaning and
//! keeps them; a one-shot CLI command pays one load.
//!
//! Only the bundled model's vectors are loaded: a vector another model made is never
//! compared with a question (the scan refuses another identity too).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use discord_manager_meaning::model::{Encoder, Identity};
use discord_manager_meaning::scan::{Row, ScanIndex};
use discord_manager_store::{MeaningProgress, Reader, Store};
use discord_manager_vocabulary::error::{Error, Result};

/// How many vectors a refresh reads at a time, each batch in a read of its own (two in the
/// unit tests, so their few messages load over several reads, as a large store does).
#[cfg(not(test))]
const LOAD_BATCH: usize = 20_000;
#[cfg(test)]
const LOAD_BATCH: usize = 2;

/// Each store's index in this process, by the store's path.
fn indexes() -> &'static Mutex<HashMap<PathBuf, Arc<Mutex<ScanIndex>>>> {
    static INDEXES: OnceLock<Mutex<HashMap<PathBuf, Arc<Mutex<ScanIndex>>>>> = OnceLock::new();
    INDEXES.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Runs `search` with the store's index brought up to date, and the encoder to embed the
/// question with. Refused, saying why and what to do, when the store holds no vector of the
/// bundled model yet.
pub(crate) fn with_index<T>(
    store: &Store,
    search: impl FnOnce(&ScanIndex, &Encoder) -> Result<T>,
) -> Result<T> {
    let encoder = Encoder::bundled()?;
    let index = {
        let mut indexes = indexes()
            .lock()
            .map_err(|_| Error::internal("The index of meanings is poisoned"))?;
        Arc::clone(
            indexes
                .entry(store.path().to_path_buf())
                .or_insert_with(|| Arc::new(Mutex::new(ScanIndex::new(Identity::bundled())))),
        )
    };
    let mut index = index
        .lock()
        .map_err(|_| Error::internal("The index of meanings is poisoned"))?;
    // One read per batch, each within a read's time limit: the first load of a 1M store from
    // a cold disk took longer than that in one read.
    while store.read(|reader| refresh(reader, &mut index))? {}
    if index.is_empty() {
        let progress = store.read(|reader| progress(reader, encoder.identity()))?;
        if progress.messages > 0 {
            return Err(not_embedded_yet(store, encoder.identity())?);
        }
    }
    search(&index, &encoder)
}

/// Reads the next batch of what was embedded since the index last looked; whether there may
/// be more.
fn refresh(reader: &Reader<'_>, index: &mut ScanIndex) -> Result<bool> {
    let Some(model) = reader.meaning_model_id(index.identity().as_str())? else {
        return Ok(false);
    };
    let rows = reader.meanings_after(model, index.seen_through, LOAD_BATCH)?;
    let more = rows.len() == LOAD_BATCH;
    if let Some(last) = rows.last() {
        index.seen_through = last.seq;
        for row in rows {
            index.put(Row {
                key: row.key,
                channel_id: row.channel_id,
                author_id: row.author_id,
                arrived: row.arrived,
                sent: row.sent,
                vector: row.vector,
            });
        }
    }
    Ok(more)
}

/// How far the store's vectors of `identity` are.
pub(crate) fn progress(reader: &Reader<'_>, identity: &Identity) -> Result<MeaningProgress> {
    let model = reader.meaning_model_id(identity.as_str())?;
    reader.meaning_progress(model)
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
