//! The embedding pass: every stored message gets one current vector of the bundled model,
//! made from the text full-text search indexes for it, and a message whose text changed
//! (an edit, new embed text, a kept text file) gets a new one.
//!
//! The pass is resumable and safe to stop anywhere: each [`EmbeddingPass::step`] reads a
//! batch of messages with no vector of this model (none, or another model's: a model change
//! re-embeds everything) and of messages whose text may have changed since the pass last
//! looked, embeds them outside any transaction, and writes the batch's vectors in one
//! transaction. A message whose text is the same as when it was embedded (its fingerprint)
//! is not embedded again. Killed mid-batch, the batch is simply done again: the store holds
//! one row per message, replaced, never two.
//!
//! The ingest daemon runs it on a blocking thread beside the gateway, never inside the
//! gateway writer's transactions; tests, the seed and the benchmark run it to the end.

use discord_manager_meaning::model::Encoder;
use discord_manager_meaning::text::{MessageText, fingerprint};
use discord_manager_meaning::vector::quantise;
use discord_manager_store::{MeaningProgress, Store, TextChanges};
use discord_manager_vocabulary::error::{Error, Result};

/// How many messages a step embeds at most (of each kind: new, and changed).
pub const BATCH: usize = 64;

/// How many message keys a step looks through at most for messages with no vector: each
/// costs a probe of the vectors' index, so a store already embedded is walked in reads of a
/// few milliseconds (a whole 1M store in one read took 16 s from a cold cache, past a read's
/// 10 s limit), and a walk over nothing to embed moves on without embedding.
pub const SPAN: i64 = 20_000;

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

/// A pass over one store, from where it left off.
pub struct EmbeddingPass {
    encoder: Encoder,
    /// The store's number for the bundled model, once recorded.
    model: Option<i64>,
    /// The last message key looked at for a missing vector.
    after: i64,
    /// Where the reading of changed texts is.
    changes: TextChanges,
    /// How many keys a step looks through ([`SPAN`]).
    span: i64,
}

impl EmbeddingPass {
    /// A pass from the start (the first call in a process loads the model's weights).
    pub fn new() -> Result<EmbeddingPass> {
        Ok(EmbeddingPass {
            encoder: Encoder::bundled()?,
            model: None,
            after: 0,
            changes: TextChanges::default(),
            span: SPAN,
        })
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
                let model = store.write(|writer| writer.meaning_model(&identity))?;
                *self.model.insert(model)
            }
        };
        let (after, changes, span) = (self.after, self.changes, self.span);
        let (keys, read_after, read_to, more) = store.read(|reader| {
            let last = reader.message_count()? as i64;
            let through = after.saturating_add(span).min(last).max(after);
            let unembedded = reader.unembedded_messages(model, after, through, BATCH)?;
            // A full batch reads on after its last key; a short one looked at every key of
            // the span.
            let read_after = match unembedded.last() {
                Some(key) if unembedded.len() == BATCH => *key,
                _ => through,
            };
            let (changed, read_to) = reader.changed_texts(changes, BATCH)?;
            let mut keys = unembedded;
            keys.extend(changed);
            keys.sort_unstable();
            keys.dedup();
            Ok((keys, read_after, read_to, read_after < last))
        })?;
        if keys.is_empty() {
            self.after = read_after;
            self.changes = read_to;
            return Ok(Step {
                idle: !more,
                ..Step::default()
            });
        }
        let texts = store.read(|reader| reader.texts_to_embed(&keys))?;
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
        let mut embedded = self.encoder.embed_messages(&batch)?.into_iter();
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
            Ok(())
        })?;
        // Read on after what was looked at: a message stored meanwhile has a higher key.
        self.after = read_after;
        self.changes = read_to;
        Ok(Step {
            embedded: vectors.len(),
            unchanged,
            idle: false,
        })
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
