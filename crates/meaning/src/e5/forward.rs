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

use super::kernels::{Quantised, add_and_normalise, dot, gelu, multiply_tokens};
use super::weights::{Fault, Weights};

/// The unit vector of each sequence, in order. Each sequence holds `<s>`, its content and
/// `</s>`, at most as many tokens as the model has positions. `split`: the matrix products
/// share their tokens between two threads.
pub(crate) fn encode(
    weights: &Weights,
    sequences: &[Vec<u32>],
    split: bool,
) -> Result<Vec<Vec<f32>>, Fault> {
    let shape = weights.shape;
    let hidden = shape.hidden;
    let tokens: usize = sequences.iter().map(Vec::len).sum();
    // Where each sequence starts, and one past the last.
    let mut starts = Vec::with_capacity(sequences.len() + 1);
    starts.push(0);
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
        for (position, piece) in sequence.iter().enumerate() {
            let row = &mut x[t * hidden..(t + 1) * hidden];
            row.copy_from_slice(&weights.positions[position * hidden..(position + 1) * hidden]);
            weights.table.add_row(*piece, row)?;
            t += 1;
        }
        starts.push(t);
    }
    let norm = &weights.embedding_norm;
    add_and_normalise(&mut x, None, &norm.weight, &norm.bias, shape.epsilon);

    let mut quantised = Quantised::default();
    let mut query = vec![0.0f32; tokens * hidden];
    let mut key = vec![0.0f32; tokens * hidden];
    let mut value = vec![0.0f32; tokens * hidden];
    let mut context = vec![0.0f32; tokens * hidden];
    let mut projected = vec![0.0f32; tokens * hidden];
    let mut middle = vec![0.0f32; tokens * shape.feed_forward];
    let head_size = hidden / shape.heads;
    let scale = 1.0 / (head_size as f32).sqrt();
    let longest = sequences.iter().map(Vec::len).max().unwrap_or(0);
    let mut probabilities = vec![0.0f32; longest];
    for layer in &weights.layers {
        quantised.quantise(&x, hidden);
        multiply_tokens(&layer.query, &quantised, &mut query, split);
        multiply_tokens(&layer.key, &quantised, &mut key, split);
        multiply_tokens(&layer.value, &quantised, &mut value, split);
        for window in starts.windows(2) {
            let (first, end) = (window[0], window[1]);
            for t in first..end {
                for head in 0..shape.heads {
                    let columns = head * head_size..(head + 1) * head_size;
                    let q = &query[t * hidden..][columns.clone()];
                    let probabilities = &mut probabilities[..end - first];
                    let mut largest = f32::NEG_INFINITY;
                    for (s, probability) in (first..end).zip(probabilities.iter_mut()) {
                        let k = &key[s * hidden..][columns.clone()];
                        *probability = dot(q, k) * scale;
                        largest = largest.max(*probability);
                    }
                    let mut total = 0.0;
                    for probability in probabilities.iter_mut() {
                        *probability = (*probability - largest).exp();
                        total += *probability;
                    }
                    let out = &mut context[t * hidden..][columns.clone()];
                    out.fill(0.0);
                    for (s, probability) in (first..end).zip(probabilities.iter()) {
                        let weight = probability / total;
                        let v = &value[s * hidden..][columns.clone()];
                        for (out, v) in out.iter_mut().zip(v) {
                            *out += weight * v;
                        }
                    }
                }
            }
        }
        quantised.quantise(&context, hidden);
        multiply_tokens(&layer.attention_out, &quantised, &mut projected, split);
        let norm = &layer.attention_norm;
        add_and_normalise(
            &mut x,
            Some(&projected),
            &norm.weight,
            &norm.bias,
            shape.epsilon,
        );
        quantised.quantise(&x, hidden);
        multiply_tokens(&layer.feed_in, &quantised, &mut middle, split);
        for value in middle.iter_mut() {
            *value = gelu(*value);
        }
        quantised.quantise(&middle, shape.feed_forward);
        multiply_tokens(&layer.feed_out, &quantised, &mut projected, split);
        let norm = &layer.output_norm;
        add_and_normalise(
            &mut x,
            Some(&projected),
            &norm.weight,
            &norm.bias,
            shape.epsilon,
        );
    }

    Ok(starts
        .windows(2)
        .map(|window| {
            let mut pooled = vec![0.0f32; hidden];
            for t in window[0]..window[1] {
                for (sum, value) in pooled.iter_mut().zip(&x[t * hidden..(t + 1) * hidden]) {
                    *sum += value;
                }
            }
            let length = pooled.iter().map(|value| value * value).sum::<f32>().sqrt();
            let length = length.max(1e-12);
            pooled.iter_mut().for_each(|value| *value /= length);
            pooled
        })
        .collect())
}
