//! XLM-R's SentencePiece unigram tokenizer: a text to the ids of its pieces.
//!
//! 1. Each character goes through the normaliser's map (NFKC folding, control characters
//!    dropped, tabs, newlines and other spaces made a plain space), then runs of spaces become
//!    one.
//! 2. A space starts every word: one is put before the text unless it begins with one, and
//!    every space is written as the marker `▁` (U+2581).
//! 3. The pieces are chosen by Viterbi: of every way to cut the text into pieces of the
//!    vocabulary, the one whose scores (log probabilities) sum highest. A character no piece
//!    covers is `<unk>`, scored 10 below the lowest piece; a run of them is one `<unk>`, as
//!    SentencePiece merges them. Control pieces (`<s>`, `</s>`, `<pad>`, `<unk>`, `<mask>`)
//!    are never matched in the text.
//!
//! [`Tokenizer::encode`] gives the content's ids only; the forward pass adds `<s>` and `</s>`.

use super::weights::Vocabulary;

/// The word marker.
const MARKER: char = '\u{2581}';

/// The vocabulary and a hash table of its pieces.
pub(crate) struct Tokenizer {
    vocabulary: Vocabulary,
    /// Open addressing: piece index + 1, 0 for an empty slot.
    slots: Vec<u32>,
    /// The lowest piece score less 10: what an unknown character costs.
    unknown_score: f32,
    /// The longest piece, in bytes.
    longest: usize,
}

fn hash(bytes: &[u8]) -> u64 {
    // FNV-1a.
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Tokenizer {
    pub(crate) fn new(vocabulary: Vocabulary) -> Tokenizer {
        let pieces = vocabulary.scores.len();
        let size = (pieces * 2).next_power_of_two();
        let mask = size - 1;
        let mut slots = vec![0u32; size];
        let mut unknown_score = f32::MAX;
        let mut longest = 1;
        for index in 0..pieces {
            let piece = vocabulary.piece(index);
            unknown_score = unknown_score.min(vocabulary.scores[index]);
            longest = longest.max(piece.len());
            if piece.is_empty() || vocabulary.control[index] {
                continue;
            }
            let mut slot = hash(piece) as usize & mask;
            while slots[slot] != 0 {
                slot = (slot + 1) & mask;
            }
            slots[slot] = index as u32 + 1;
        }
        Tokenizer {
            vocabulary,
            slots,
            unknown_score: unknown_score - 10.0,
            longest,
        }
    }

    pub(crate) fn bos(&self) -> u32 {
        self.vocabulary.bos
    }

    pub(crate) fn eos(&self) -> u32 {
        self.vocabulary.eos
    }

    fn find(&self, bytes: &[u8]) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut slot = hash(bytes) as usize & mask;
        loop {
            match self.slots[slot] {
                0 => return None,
                entry => {
                    let index = entry as usize - 1;
                    if self.vocabulary.piece(index) == bytes {
                        return Some(index);
                    }
                }
            }
            slot = (slot + 1) & mask;
        }
    }

    /// The text after normalisation, with its word markers.
    pub(crate) fn normalise(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 4);
        let mut after_space = false;
        let mut push = |character: char, out: &mut String| {
            if character == ' ' {
                if !after_space {
                    out.push(MARKER);
                }
                after_space = true;
            } else {
                out.push(character);
                after_space = false;
            }
        };
        push(' ', &mut out);
        for character in text.chars() {
            let code = u32::from(character);
            match self
                .vocabulary
                .normal
                .binary_search_by_key(&code, |(from, _)| *from)
            {
                Ok(at) => {
                    for replaced in &self.vocabulary.normal[at].1 {
                        push(*replaced, &mut out);
                    }
                }
                Err(_) => push(character, &mut out),
            }
        }
        out
    }

    /// The ids of the text's pieces, in order, without `<s>` and `</s>`.
    pub(crate) fn encode(&self, text: &str) -> Vec<u32> {
        let normal = self.normalise(text);
        let bytes = normal.as_bytes();
        // Character boundaries, in bytes, and one past the end.
        let starts: Vec<usize> = normal
            .char_indices()
            .map(|(at, _)| at)
            .chain([bytes.len()])
            .collect();
        let characters = starts.len() - 1;
        // best[i]: the best score of a cut of the first i characters; from[i]: where its last
        // piece starts and which it is (None: an unknown character).
        let mut best = vec![f32::NEG_INFINITY; characters + 1];
        let mut from = vec![(0usize, None::<u32>); characters + 1];
        best[0] = 0.0;
        for i in 0..characters {
            if best[i] == f32::NEG_INFINITY {
                continue;
            }
            for end in i + 1..=characters {
                let length = starts[end] - starts[i];
                if length > self.longest {
                    break;
                }
                if let Some(index) = self.find(&bytes[starts[i]..starts[end]]) {
                    let score = best[i] + self.vocabulary.scores[index];
                    if score > best[end] {
                        best[end] = score;
                        from[end] = (i, Some(index as u32));
                    }
                }
            }
            let score = best[i] + self.unknown_score;
            if score > best[i + 1] {
                best[i + 1] = score;
                from[i + 1] = (i, None);
            }
        }
        let mut ids = Vec::new();
        let mut at = characters;
        while at > 0 {
            let (start, piece) = from[at];
            match piece {
                Some(piece) => ids.push(piece),
                // A run of unknown characters is one <unk>.
                None if ids.last() == Some(&self.vocabulary.unk) => {}
                None => ids.push(self.vocabulary.unk),
            }
            at = start;
        }
        ids.reverse();
        ids
    }
}

impl Vocabulary {
    fn piece(&self, index: usize) -> &[u8] {
        &self.bytes[self.offsets[index] as usize..self.offsets[index + 1] as usize]
    }
}
