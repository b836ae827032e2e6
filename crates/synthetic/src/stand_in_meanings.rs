//! Stand-in vectors for a generated store, so the budget gate and the benchmark can search by
//! meaning at any size without embedding every message (the bundled model embeds about 116
//! messages a second: a 1M store would take hours).
//!
//! Each message without a vector of the bundled model gets one of the caller's `bases` (chosen
//! by its key) with a little deterministic noise, written under the bundled model's identity,
//! exactly as the embedding pass writes a real one. What the vectors say is not what they
//! measure: the scan's cost and an answer's size do not depend on it. Real embeddings of real
//! lines make good bases (the benchmark embeds the meaning evaluation set's chat lines); a
//! handful of made-up directions will do for an answer's size.
//!
//! Once the vectors are in, the writer takes their centre and builds every block of codes
//! less it, as the embedding pass does over a store it has walked whole.

use discord_manager_core::business::messages::embedding::{keep_blocks, take_centre};
use discord_manager_meaning::blocks::block_of;
use discord_manager_meaning::model::{DIMENSIONS, Identity};
use discord_manager_meaning::vector::quantise;
use discord_manager_store::{MeaningWalk, Store};
use discord_manager_vocabulary::error::{Error, Result};

use crate::Rng;

/// How many messages one transaction gives vectors, and how many keys one read looks through
/// for messages without one.
const BATCH: usize = 10_000;
const SPAN: i64 = 20_000;

/// How many blocks of codes one transaction builds.
const BLOCKS: i64 = 16;

/// How far each coordinate of a stand-in strays from its base, either way.
const NOISE: f32 = 0.025;

/// Gives every message of `store` that has no vector of the bundled model a stand-in made from
/// `bases` (each of [`DIMENSIONS`] coordinates), and returns how many it wrote. Resumable: a
/// message that has a vector already is left as it is.
pub fn write_stand_in_meanings(store: &Store, bases: &[Vec<f32>]) -> Result<usize> {
    if bases.is_empty() || bases.iter().any(|base| base.len() != DIMENSIONS) {
        return Err(Error::internal(format!(
            "stand-in vectors need at least one base of {DIMENSIONS} coordinates"
        )));
    }
    let identity = Identity::bundled();
    let model = store.write(|writer| writer.meaning_model(identity.as_str()))?;
    let last = store.read(|reader| reader.message_count())? as i64;
    let mut written = 0;
    let mut after = 0;
    while after < last {
        let through = after.saturating_add(SPAN).min(last);
        let keys = store.read(|reader| reader.unembedded_messages(model, after, through, BATCH))?;
        after = match keys.last() {
            Some(key) if keys.len() == BATCH => *key,
            _ => through,
        };
        store.write(|writer| {
            for key in &keys {
                let vector = stand_in(&bases[*key as usize % bases.len()], *key);
                writer.put_meaning(*key, model, 0, &quantise(&vector)?)?;
            }
            Ok(())
        })?;
        written += keys.len();
    }
    if written == 0 {
        return Ok(0);
    }
    // Every message has a vector: the walk covers them all, and the centre is taken of them.
    store.write(|writer| {
        writer.put_meaning_walk(
            model,
            MeaningWalk {
                low_key: 1,
                high_key: last,
            },
        )
    })?;
    take_centre(store, model)?;
    let mut first = 0;
    while first <= block_of(last) {
        let blocks: Vec<i64> = (first..(first + BLOCKS).min(block_of(last) + 1)).collect();
        store.write(|writer| keep_blocks(writer, model, &[], &blocks))?;
        first += BLOCKS;
    }
    Ok(written)
}

/// A direction of its own for the `n`th of a set of made-up bases: pseudo-random coordinates
/// from `n`, the same on every run.
pub fn made_up_base(n: u64) -> Vec<f32> {
    let mut draw = Rng(n);
    (0..DIMENSIONS).map(|_| draw.signed_unit()).collect()
}

/// `base` with noise drawn from `key`.
fn stand_in(base: &[f32], key: i64) -> Vec<f32> {
    let mut noise = Rng(key as u64);
    base.iter()
        .map(|coordinate| coordinate + noise.signed_unit() * NOISE)
        .collect()
}
