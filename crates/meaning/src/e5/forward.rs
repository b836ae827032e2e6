//! The encoder's forward pass over a batch of token sequences, and the sentence vector.
//!
//! The sequences' tokens are laid end to end in one matrix, so every weight matrix is read
//! once for the whole batch; attention looks only within a token's own sequence (the mask),
//! so no padding is needed. For each token: its piece's row of the embedding table, plus its
//! position's row (positions count from 0 at `<s>`; the file's table already starts at
//! XLM-R's position 2) and token type 0's, then layer norm. Each of the layers: query, key and
//! value projections, softmax attention per head scaled by 1/√(head size), the output
//! projection added back and normalised, then the feed-forward (GELU between its two
//! matrices) added back and normalised. The sentence vector is the mean of its tokens' last
//! states, `<s>` and `</s>` included, scaled to length 1.
//!
//! **One text on two cores.** Everything in a layer but attention is done token by token, so
//! a text's tokens are shared between two threads that run the whole pass side by side, each
//! over its own tokens. Attention alone reads the other share's keys and values: each thread
//! publishes its own in an [`Exchange`] and the two meet once a layer before reading them.
//! The exchange keeps two layers' keys and values, so a thread that runs ahead into the next
//! layer writes beside what the other is still reading. Each token's arithmetic is the same
//! on either path, so a shared pass gives the same bits as a pass on one thread.

use std::ops::Range;
use std::sync::{Condvar, Mutex, RwLock, RwLockReadGuard};

use super::kernels::{Quantised, add_and_normalise, dot, exp, gelu_all, multiply};
use super::weights::{Fault, Weights};

/// The unit vector of each sequence, in order. Each sequence holds `<s>`, its content and
/// `</s>`, at most as many tokens as the model has positions. `split`: the tokens are shared
/// between this thread and one more.
pub(crate) fn encode(
    weights: &Weights,
    sequences: &[Vec<u32>],
    split: bool,
) -> Result<Vec<Vec<f32>>, Fault> {
    let shape = weights.shape;
    let hidden = shape.hidden;
    let tokens: usize = sequences.iter().map(Vec::len).sum();
    // Each token's sequence, as the range of tokens it spans.
    let mut spans = Vec::with_capacity(tokens);
    let mut x = vec![0.0f32; tokens * hidden];
    let mut t = 0;
    for sequence in sequences {
        if sequence.len() > shape.positions {
            return Err(format!(
                "a sequence of {} tokens is past the model's {} positions",
                sequence.len(),
                shape.positions
            ));
        }
        let span = t..t + sequence.len();
        for (position, piece) in sequence.iter().enumerate() {
            let row = &mut x[t * hidden..(t + 1) * hidden];
            row.copy_from_slice(&weights.positions[position * hidden..(position + 1) * hidden]);
            weights.table.add_row(*piece, row)?;
            spans.push(span.clone());
            t += 1;
        }
    }
    let norm = &weights.embedding_norm;
    add_and_normalise(&mut x, None, &norm.weight, &norm.bias, shape.epsilon);

    let shares: Vec<Range<usize>> = if split && tokens >= 2 {
        vec![0..tokens / 2, tokens / 2..tokens]
    } else {
        std::iter::once(0..tokens).collect()
    };
    let exchange = Exchange::new(&shares, hidden);
    let pass = Pass {
        weights,
        spans: &spans,
        exchange: &exchange,
    };
    match &shares[..] {
        [_, second] => {
            let (first_x, second_x) = x.split_at_mut(second.start * hidden);
            std::thread::scope(|scope| {
                let helper = scope.spawn(|| pass.share(1, second_x));
                let mine = pass.share(0, first_x);
                let theirs = helper
                    .join()
                    .unwrap_or_else(|_| Err("an embedding thread stopped".into()));
                mine.and(theirs)
            })?;
        }
        _ => pass.share(0, &mut x)?,
    }

    let mut vectors = Vec::with_capacity(sequences.len());
    let mut first = 0;
    for sequence in sequences {
        let mut pooled = vec![0.0f32; hidden];
        for t in first..first + sequence.len() {
            for (sum, value) in pooled.iter_mut().zip(&x[t * hidden..(t + 1) * hidden]) {
                *sum += value;
            }
        }
        first += sequence.len();
        let length = pooled.iter().map(|value| value * value).sum::<f32>().sqrt();
        let length = length.max(1e-12);
        pooled.iter_mut().for_each(|value| *value /= length);
        vectors.push(pooled);
    }
    Ok(vectors)
}

/// What every share of one pass reads.
struct Pass<'a> {
    weights: &'a Weights,
    spans: &'a [Range<usize>],
    exchange: &'a Exchange,
}

impl Pass<'_> {
    /// Every layer over share `index` of the tokens, whose states `x` holds.
    fn share(&self, index: usize, x: &mut [f32]) -> Result<(), Fault> {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: the processor has AVX2, checked just above.
                return unsafe { self.share_avx2(index, x) };
            }
        }
        self.run_layers(index, x)
    }

    /// [`Pass::share`] compiled with AVX2: the attention, the layer norms, GELU and the
    /// quantising run eight values at a time, not four, with the same arithmetic in the same
    /// order (no fused multiply-add), so the same bits.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn share_avx2(&self, index: usize, x: &mut [f32]) -> Result<(), Fault> {
        self.run_layers(index, x)
    }

    #[inline(always)]
    fn run_layers(&self, index: usize, x: &mut [f32]) -> Result<(), Fault> {
        let exchange = self.exchange;
        // Should this thread stop early, the other is not left waiting for it.
        let _leaving = Leaving(&exchange.meeting);
        let shape = self.weights.shape;
        let hidden = shape.hidden;
        let own = exchange.shares[index].clone();
        let tokens = own.len();
        let mut quantised = Quantised::default();
        let mut query = vec![0.0f32; tokens * hidden];
        let mut context = vec![0.0f32; tokens * hidden];
        let mut projected = vec![0.0f32; tokens * hidden];
        let mut middle = vec![0.0f32; tokens * shape.feed_forward];
        let longest = self.spans.iter().map(Range::len).max().unwrap_or(0);
        let mut probabilities = vec![0.0f32; longest];
        for (number, layer) in self.weights.layers.iter().enumerate() {
            let parity = number % 2;
            quantised.quantise(x, hidden);
            multiply(&layer.query, quantised.all(), &mut query);
            {
                let mut published = exchange.layers[parity][index]
                    .write()
                    .map_err(|_| stopped())?;
                let KeysValues { key, value } = &mut *published;
                multiply(&layer.key, quantised.all(), key);
                multiply(&layer.value, quantised.all(), value);
            }
            exchange.meeting.wait()?;
            let read: Vec<RwLockReadGuard<KeysValues>> = exchange.layers[parity]
                .iter()
                .map(|lock| lock.read().map_err(|_| stopped()))
                .collect::<Result<_, _>>()?;
            // Token `s`'s row of keys and of values, wherever its share published it.
            let (keys, values): (Vec<&[f32]>, Vec<&[f32]>) = exchange
                .shares
                .iter()
                .zip(&read)
                .flat_map(|(share, published)| {
                    published
                        .key
                        .chunks_exact(hidden)
                        .zip(published.value.chunks_exact(hidden))
                        .take(share.len())
                })
                .unzip();
            let attended = Attended {
                query: &query,
                keys: &keys,
                values: &values,
                spans: &self.spans[own.clone()],
                heads: shape.heads,
            };
            attended.attend(&mut context, &mut probabilities);
            drop(read);
            quantised.quantise(&context, hidden);
            multiply(&layer.attention_out, quantised.all(), &mut projected);
            let norm = &layer.attention_norm;
            add_and_normalise(x, Some(&projected), &norm.weight, &norm.bias, shape.epsilon);
            quantised.quantise(x, hidden);
            multiply(&layer.feed_in, quantised.all(), &mut middle);
            gelu_all(&mut middle);
            quantised.quantise(&middle, shape.feed_forward);
            multiply(&layer.feed_out, quantised.all(), &mut projected);
            let norm = &layer.output_norm;
            add_and_normalise(x, Some(&projected), &norm.weight, &norm.bias, shape.epsilon);
        }
        Ok(())
    }
}

/// Attention over a share's tokens: each token's heads, over the tokens of its own text.
struct Attended<'a> {
    /// The share's queries, token by token.
    query: &'a [f32],
    /// Every token's keys and values (of both shares), by token.
    keys: &'a [&'a [f32]],
    values: &'a [&'a [f32]],
    /// The text each of the share's tokens is in, as the range of its tokens.
    spans: &'a [Range<usize>],
    heads: usize,
}

impl Attended<'_> {
    /// Writes each token's attended values into `context` (token by token, as `query`).
    #[inline(always)]
    fn attend(&self, context: &mut [f32], probabilities: &mut [f32]) {
        let hidden = self.keys.first().map_or(0, |row| row.len());
        let head_size = hidden / self.heads;
        let scale = 1.0 / (head_size as f32).sqrt();
        for (local, span) in self.spans.iter().enumerate() {
            let keys = &self.keys[span.clone()];
            let values = &self.values[span.clone()];
            let probabilities = &mut probabilities[..span.len()];
            for head in 0..self.heads {
                let columns = head * head_size..(head + 1) * head_size;
                let q = &self.query[local * hidden..][columns.clone()];
                let mut largest = f32::NEG_INFINITY;
                for (key, probability) in keys.iter().zip(probabilities.iter_mut()) {
                    *probability = dot(q, &key[columns.clone()]) * scale;
                    largest = largest.max(*probability);
                }
                // The exponentials first, several at a time, then their sum in order.
                for probability in probabilities.iter_mut() {
                    *probability = exp(*probability - largest);
                }
                let total: f32 = probabilities.iter().sum();
                let out = &mut context[local * hidden..][columns.clone()];
                out.fill(0.0);
                for (value, probability) in values.iter().zip(probabilities.iter()) {
                    let weight = probability / total;
                    for (out, v) in out.iter_mut().zip(&value[columns.clone()]) {
                        *out += weight * v;
                    }
                }
            }
        }
    }
}

fn stopped() -> Fault {
    "an embedding thread stopped".into()
}

/// A share's keys and values of one layer, token by token.
struct KeysValues {
    key: Vec<f32>,
    value: Vec<f32>,
}

/// Where the shares publish their keys and values, and where they meet.
struct Exchange {
    shares: Vec<Range<usize>>,
    /// By the layer's parity, then by share.
    layers: [Vec<RwLock<KeysValues>>; 2],
    meeting: Meeting,
}

impl Exchange {
    fn new(shares: &[Range<usize>], hidden: usize) -> Exchange {
        let layer = || {
            shares
                .iter()
                .map(|share| {
                    RwLock::new(KeysValues {
                        key: vec![0.0; share.len() * hidden],
                        value: vec![0.0; share.len() * hidden],
                    })
                })
                .collect()
        };
        Exchange {
            shares: shares.to_vec(),
            layers: [layer(), layer()],
            meeting: Meeting::new(shares.len()),
        }
    }
}

/// A barrier the shares of one pass meet at, once a layer; unlike `std::sync::Barrier` it
/// lets a thread that stopped early leave, so the other is told instead of waiting forever.
struct Meeting {
    threads: usize,
    state: Mutex<Round>,
    turned: Condvar,
}

#[derive(Default)]
struct Round {
    arrived: usize,
    number: u64,
    broken: bool,
}

impl Meeting {
    fn new(threads: usize) -> Meeting {
        Meeting {
            threads,
            state: Mutex::new(Round::default()),
            turned: Condvar::new(),
        }
    }

    /// Returns once every thread has arrived, or at once when there is only this one.
    fn wait(&self) -> Result<(), Fault> {
        if self.threads == 1 {
            return Ok(());
        }
        let mut round = self.state.lock().map_err(|_| stopped())?;
        if round.broken {
            return Err(stopped());
        }
        round.arrived += 1;
        if round.arrived == self.threads {
            round.arrived = 0;
            round.number += 1;
            self.turned.notify_all();
            return Ok(());
        }
        let number = round.number;
        let round = self
            .turned
            .wait_while(round, |round| round.number == number && !round.broken)
            .map_err(|_| stopped())?;
        if round.number == number {
            return Err(stopped());
        }
        Ok(())
    }
}

/// Marks the meeting broken when its thread leaves it, by returning (a thread that finished
/// has met the other at every layer, so nobody waits for it again), by an error or by
/// unwinding (the other is then told at its next meeting).
struct Leaving<'a>(&'a Meeting);

impl Drop for Leaving<'_> {
    fn drop(&mut self) {
        let mut round = match self.0.state.lock() {
            Ok(round) => round,
            Err(poisoned) => poisoned.into_inner(),
        };
        round.broken = true;
        self.0.turned.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::Meeting;

    #[test]
    fn a_thread_waiting_at_a_meeting_is_told_when_the_other_leaves() {
        let meeting = Meeting::new(2);
        std::thread::scope(|scope| {
            let waiting = scope.spawn(|| meeting.wait());
            // The other thread meets once, then leaves before the second meeting.
            let helper = scope.spawn(|| {
                let _leaving = super::Leaving(&meeting);
                meeting.wait()
            });
            assert_eq!(helper.join().expect("the helper"), Ok(()));
            assert_eq!(waiting.join().expect("the waiter"), Ok(()));
        });
        assert_eq!(
            meeting.wait(),
            Err("an embedding thread stopped".to_string())
        );
        // One thread alone never waits.
        assert_eq!(Meeting::new(1).wait(), Ok(()));
    }
}
