//! The embedding pass: every stored message gets one current vector of the bundled model,
//! made from the text full-text search indexes for it, and a message whose text changed
//! (an edit, new embed text, a kept text file) gets a new one.
//!
//! **Newest first.** The pass walks the store from its newest message back to its oldest
//! (message keys, which follow arrival), so after an upgrade or a model change the last days
//! are searchable within minutes and the years behind them follow. What it has covered is a
//! range of keys, `MeaningWalk`: every message in it has a vector of the model. A step first
//! embeds messages that arrived above the range (in arrival order), then, with the batch's room
//! left, walks down below it; `store_status` reads how far back the range reaches.
//!
//! The pass is resumable and safe to stop anywhere: each [`EmbeddingPass::step`] reads a
//! batch of messages with no vector of this model (none, or another model's: a model change
//! re-embeds everything) and of messages whose text may have changed since the pass last
//! looked, embeds them outside any transaction, and writes the batch's vectors, the walk's new
//! range and the scan's blocks of codes (`discord_manager_meaning::blocks`) in one
//! transaction. A block, once built, is brought up to date with every vector written into its
//! range, so it always holds every current vector of it; a range with no block yet gets one
//! when the pass writes into it or walks over it ([`BLOCKS_PER_STEP`] a step). A message whose
//! text is the same as when it was embedded (its fingerprint) is not embedded again. Killed
//! mid-batch, the batch is simply done again: the store holds one row per message, replaced,
//! never two.
//!
//! **The centre.** Sign bits tell messages apart only less the centre of the store's vectors
//! (`discord_manager_meaning::centre`), so the pass takes one from a sample of the vectors once
//! the model has embedded [`CENTRE_FROM`] messages, and again each time that number has doubled,
//! until it has taken one over [`CENTRE_SETTLED`] messages: a handful of times in a store's
//! life, each while the store's blocks are few. A new centre drops the model's blocks in the
//! same transaction, and the pass builds them again, centred.
//!
//! The ingest daemon runs it on a blocking thread beside the gateway, never inside the
//! gateway writer's transactions; tests, the seed and the benchmark run it to the end.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::business::kernel::meaning_index::{scan_row, store_centre};
use discord_manager_meaning::blocks::{BLOCK_KEYS, CodeBlock, block_of};
use discord_manager_meaning::centre::Centre;
use discord_manager_meaning::model::Encoder;
use discord_manager_meaning::text::{MessageText, fingerprint};
use discord_manager_meaning::vector::quantise;
use discord_manager_store::{
    MeaningProgress, MeaningWalk, Reader, Store, StoredCentre, TextChanges, Writer,
};
use discord_manager_vocabulary::error::{Error, Result};

/// How many messages a step embeds at most (of each kind: new, and changed).
pub const BATCH: usize = 64;

/// How many message keys a step looks through at most for messages with no vector: each
/// costs a probe of the vectors' index, so a store already embedded is walked in reads of a
/// few milliseconds (a whole 1M store in one read took 16 s from a cold cache, past a read's
/// 10 s limit), and a walk over nothing to embed moves on without embedding.
pub const SPAN: i64 = 20_000;

/// How many missing blocks of codes a step builds from the vectors of the range it has
/// walked (each reads up to 4,096 vectors, about 1.6 MB): a store embedded before blocks
/// existed gets them 245 steps after an upgrade at 1M messages.
pub const BLOCKS_PER_STEP: usize = 2;

/// How many messages the model has embedded when the pass takes its first centre: fewer are
/// all rescored by every search anyway (the scan's shortlist is longer). Three in the unit
/// tests, so a few messages take the path a large store takes.
#[cfg(not(test))]
pub const CENTRE_FROM: u64 = 1_000;
#[cfg(test)]
pub const CENTRE_FROM: u64 = 3;

/// How many messages the model has embedded when the pass takes its last centre; it is taken
/// of [`CENTRE_SAMPLE`] vectors spread evenly over them, and stands from then on (six in the
/// unit tests).
#[cfg(not(test))]
pub const CENTRE_SETTLED: u64 = 20_000;
#[cfg(test)]
pub const CENTRE_SETTLED: u64 = 6;

/// How many messages' vectors a centre is taken of at most, spread evenly over the keys the
/// pass has walked (10,000 random reads, a handful of times). Over 10,000 real sentences, a
/// centre taken of 500 of them served as well as one taken of all (docs/performance.md,
/// "Search by meaning: candidates"). Four in the unit tests.
#[cfg(not(test))]
pub const CENTRE_SAMPLE: u64 = 10_000;
#[cfg(test)]
pub const CENTRE_SAMPLE: u64 = 4;

/// What one step did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Step {
    /// Messages given a new vector (messages with no text count, with an empty one).
    pub embedded: usize,
    /// Messages looked at whose text was as embedded.
    pub unchanged: usize,
    /// Nothing was left to look at: the pass is done until something new arrives.
    pub idle: bool,
}

/// How many texts are embedded together before the pass looks whether it was asked to stop:
/// eight of the longest texts (512 tokens) take about a second on two cores.
const CHUNK: usize = 8;

/// A pass over one store, from where it left off.
pub struct EmbeddingPass {
    encoder: Encoder,
    /// Set by the daemon when it stops: a step gives up between chunks, writing nothing (the
    /// batch is done again at the next start).
    stop: Arc<AtomicBool>,
    /// The store's number for the bundled model, once recorded.
    model: Option<i64>,
    /// Where the reading of changed texts is.
    changes: TextChanges,
    /// How many keys a step looks through ([`SPAN`]).
    span: i64,
    /// How many messages the model will have embedded when the centre is next taken (None:
    /// not read from the store yet; `u64::MAX`: never again).
    centre_due_at: Option<u64>,
}

/// What a step read: the keys to embed and where the walk stands after them.
struct Planned {
    keys: Vec<i64>,
    walk: MeaningWalk,
    changes: TextChanges,
    /// Blocks of the walked range that have none yet, to build this step.
    missing_blocks: Vec<i64>,
    /// Keys are left to look at, above or below the walk.
    more: bool,
}

impl EmbeddingPass {
    /// A pass from where the store's walk stands (the first call in a process loads the
    /// model's weights).
    pub fn new() -> Result<EmbeddingPass> {
        Ok(EmbeddingPass {
            encoder: Encoder::bundled()?,
            stop: Arc::new(AtomicBool::new(false)),
            model: None,
            changes: TextChanges::default(),
            span: SPAN,
            centre_due_at: None,
        })
    }

    /// The flag that stops a step between chunks of texts: the daemon sets it when it stops,
    /// so a batch of long texts does not hold the shutdown.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    /// A pass that looks through `span` keys a step, so a test walks a small store in spans.
    #[cfg(test)]
    pub(crate) fn with_span(span: i64) -> Result<EmbeddingPass> {
        Ok(EmbeddingPass {
            span,
            ..EmbeddingPass::new()?
        })
    }

    /// Embeds the next batch; see the module's documentation.
    pub fn step(&mut self, store: &Store) -> Result<Step> {
        let model = match self.model {
            Some(model) => model,
            None => {
                let identity = self.encoder.identity().as_str().to_string();
                let model = store.write(|writer| {
                    let model = writer.meaning_model(&identity)?;
                    // Another model's codes are never searched again.
                    writer.drop_meaning_blocks_except(model)?;
                    Ok(model)
                })?;
                *self.model.insert(model)
            }
        };
        self.keep_centre(store, model)?;
        let (changes, span) = (self.changes, self.span);
        let planned = store.read(|reader| {
            let last = reader.message_count()? as i64;
            let mut walk = reader.meaning_walk(model)?.unwrap_or(MeaningWalk {
                low_key: last + 1,
                high_key: last,
            });
            // Above the walk first: what arrived since, in arrival order.
            let mut keys = Vec::new();
            if walk.high_key < last {
                let through = walk.high_key.saturating_add(span).min(last);
                keys = reader.unembedded_messages(model, walk.high_key, through, BATCH)?;
                walk.high_key = match keys.last() {
                    Some(key) if keys.len() == BATCH => *key,
                    _ => through,
                };
            }
            // Then back through the history, newest first, with the room left.
            let room = BATCH - keys.len();
            if room > 0 && walk.low_key > 1 {
                let from = walk.low_key.saturating_sub(span).max(1);
                let below = reader.unembedded_messages_below(model, from, walk.low_key, room)?;
                walk.low_key = match below.last() {
                    Some(key) if below.len() == room => *key,
                    _ => from,
                };
                keys.extend(below);
            }
            let (changed, read_to) = reader.changed_texts(changes, BATCH)?;
            keys.extend(changed);
            keys.sort_unstable();
            keys.dedup();
            let built: BTreeSet<i64> = reader.meaning_block_numbers(model)?.into_iter().collect();
            let missing_blocks = if walk.low_key <= walk.high_key {
                (block_of(walk.low_key)..=block_of(walk.high_key))
                    .rev()
                    .filter(|block| !built.contains(block))
                    .take(BLOCKS_PER_STEP)
                    .collect()
            } else {
                Vec::new()
            };
            Ok(Planned {
                keys,
                walk,
                changes: read_to,
                missing_blocks,
                more: walk.high_key < last || walk.low_key > 1,
            })
        })?;
        let texts = store.read(|reader| reader.texts_to_embed(&planned.keys))?;
        // Each message to embed (None: it has no text, and gets an empty vector), then the
        // batch's texts embedded together (E5's `passage: ` side, on two cores).
        let mut pending = Vec::new();
        let mut unchanged = 0;
        for text in &texts {
            let message = MessageText {
                content: &text.content,
                extras: &text.extras,
                files: text.files.iter().map(String::as_str).collect(),
            };
            let to_embed = message.to_embed();
            let print = fingerprint(to_embed.as_deref().unwrap_or(""));
            if text.stored == Some((model, print)) {
                unchanged += 1;
                continue;
            }
            pending.push((text.key, print, to_embed));
        }
        let batch: Vec<&str> = pending
            .iter()
            .filter_map(|(_, _, to_embed)| to_embed.as_deref())
            .collect();
        let mut all = Vec::with_capacity(batch.len());
        for chunk in batch.chunks(CHUNK) {
            if self.stop.load(Ordering::Relaxed) {
                return Ok(Step::default());
            }
            all.extend(self.encoder.embed_messages(chunk)?);
        }
        let mut embedded = all.into_iter();
        let mut vectors = Vec::with_capacity(pending.len());
        for (key, print, to_embed) in &pending {
            let vector = match to_embed {
                Some(_) => match embedded.next() {
                    Some(vector) => quantise(&vector)?,
                    None => {
                        return Err(Error::internal(
                            "The sentence encoder returned fewer vectors than texts",
                        ));
                    }
                },
                None => Vec::new(),
            };
            vectors.push((*key, *print, vector));
        }
        store.write(|writer| {
            for (key, print, vector) in &vectors {
                writer.put_meaning(*key, model, *print, vector)?;
            }
            writer.put_meaning_walk(model, planned.walk)?;
            let written: Vec<i64> = vectors.iter().map(|(key, _, _)| *key).collect();
            keep_blocks(writer, model, &written, &planned.missing_blocks)
        })?;
        // Read on after what was looked at: a change recorded meanwhile comes later.
        self.changes = planned.changes;
        Ok(Step {
            embedded: vectors.len(),
            unchanged,
            idle: planned.keys.is_empty() && !planned.more && planned.missing_blocks.is_empty(),
        })
    }

    /// Takes the centre of the model's vectors when it is due (see the module's
    /// documentation): from up to [`CENTRE_SAMPLE`] vectors spread evenly over the walked keys,
    /// written with the blocks dropped in one transaction.
    fn keep_centre(&mut self, store: &Store, model: i64) -> Result<()> {
        let due_at = match self.centre_due_at {
            Some(due_at) => due_at,
            None => *self.centre_due_at.insert(store.read(|reader| {
                let stored = reader.meaning_centre(model)?;
                Ok(match stored {
                    Some(stored) if Centre::from_bytes(&stored.centre).is_ok() => {
                        next_centre_at(stored.reach)
                    }
                    // None yet, or damaged: taken again.
                    _ => CENTRE_FROM,
                })
            })?),
        };
        if due_at == u64::MAX {
            return Ok(());
        }
        let embedded = store.read(|reader| Ok(reader.meaning_progress(Some(model))?.embedded))?;
        if embedded < due_at {
            return Ok(());
        }
        let embedded = take_centre(store, model)?;
        self.centre_due_at = Some(next_centre_at(embedded));
        Ok(())
    }

    /// Steps until nothing is left (the seed, tests and the benchmark); how many were embedded.
    pub fn run_to_end(&mut self, store: &Store) -> Result<usize> {
        let mut embedded = 0;
        loop {
            let step = self.step(store)?;
            embedded += step.embedded;
            if step.idle {
                return Ok(embedded);
            }
        }
    }

    /// How far the store's vectors are, for the bundled model.
    pub fn progress(&self, store: &Store) -> Result<MeaningProgress> {
        let identity = self.encoder.identity().as_str().to_string();
        store.read(|reader| {
            let model = reader.meaning_model_id(&identity)?;
            reader.meaning_progress(model)
        })
    }
}

/// Takes the centre of `model`'s vectors now, from up to [`CENTRE_SAMPLE`] of them spread
/// evenly over the keys the pass has walked, and writes it with the model's blocks dropped, in
/// one transaction (no centre is written when the sample holds no vector): how many messages
/// the model had embedded. Called by the pass when a centre is due, and by the benchmark's
/// stand-in writer once its vectors are in.
pub fn take_centre(store: &Store, model: i64) -> Result<u64> {
    let (embedded, vectors) = store.read(|reader| {
        let embedded = reader.meaning_progress(Some(model))?.embedded;
        Ok((embedded, sample_vectors(reader, model)?))
    })?;
    if let Some(centre) = Centre::of(vectors.iter().map(Vec::as_slice)) {
        let made_from = vectors.iter().filter(|vector| !vector.is_empty()).count() as u64;
        store.write(|writer| {
            writer.put_meaning_centre(
                model,
                &StoredCentre {
                    centre: centre.to_bytes(),
                    made_from,
                    reach: embedded,
                },
            )
        })?;
    }
    Ok(embedded)
}

/// When the centre taken at `reach` messages embedded is next taken: at twice as many, or
/// never (`u64::MAX`) once it was taken at [`CENTRE_SETTLED`].
fn next_centre_at(reach: u64) -> u64 {
    if reach >= CENTRE_SETTLED {
        u64::MAX
    } else {
        reach.saturating_mul(2).max(CENTRE_FROM)
    }
}

/// Up to [`CENTRE_SAMPLE`] of `model`'s vectors, of keys spread evenly over the range the
/// pass has walked (empty ones among them: messages with no text).
fn sample_vectors(reader: &Reader<'_>, model: i64) -> Result<Vec<Vec<u8>>> {
    let Some(walk) = reader.meaning_walk(model)? else {
        return Ok(Vec::new());
    };
    let keys = (walk.high_key - walk.low_key + 1).max(0) as u64;
    let sample = keys.min(CENTRE_SAMPLE);
    let spread: Vec<i64> = (0..sample)
        .map(|n| walk.low_key + (n * keys / sample) as i64)
        .collect();
    Ok(reader
        .meaning_vectors(model, &spread)?
        .into_iter()
        .map(|(_, vector)| vector)
        .collect())
}

/// Brings the blocks of codes up to date with the vectors just `written` (a block not built
/// yet is built whole from its range), and builds the `missing` blocks: to be called in the
/// transaction that wrote the vectors, by every writer of vectors (the pass, and the
/// benchmark's stand-ins), so a built block always holds every current vector of its range.
pub fn keep_blocks(
    writer: &mut Writer<'_>,
    model: i64,
    written: &[i64],
    missing: &[i64],
) -> Result<()> {
    let centre = store_centre(&writer.reader(), model)?;
    let mut touched: BTreeSet<i64> = written.iter().map(|key| block_of(*key)).collect();
    touched.extend(missing);
    for number in touched {
        let built = writer.reader().meaning_block(model, number)?;
        let block = match built.map(|bytes| CodeBlock::decode(number, &bytes, &centre)) {
            Some(Ok(mut block)) => {
                let in_block: Vec<i64> = written
                    .iter()
                    .copied()
                    .filter(|key| block_of(*key) == number)
                    .collect();
                let rows = writer.reader().meanings_of_keys(model, &in_block)?;
                // A vector replaced by another model's, or taken out: the message leaves.
                for key in &in_block {
                    if !rows.iter().any(|row| row.key == *key) {
                        block.remove(*key);
                    }
                }
                for row in rows {
                    block.put(&scan_row(row))?;
                }
                block
            }
            // Not built yet, or unreadable (or of another centre): built from every vector of
            // its range.
            _ => {
                let first = number * BLOCK_KEYS;
                let rows = writer.reader().meanings_of_keys_between(
                    model,
                    first,
                    first + BLOCK_KEYS - 1,
                )?;
                CodeBlock::from_rows(number, &centre, rows.into_iter().map(scan_row))?
            }
        };
        writer.put_meaning_block(model, number, &block.encode())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
