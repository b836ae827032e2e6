//! Every answer fits an assistant's context window (ARCHITECTURE.md, "Every answer fits a
//! context window").
//!
//! An MCP client reads a tool's answer whole: the structured result and a text block that
//! renders it for a model. Common clients refuse a result over about 25,000 tokens, so every
//! answer is held to [`ANSWER_BYTES`] (about 8,000 tokens at four bytes a token), whatever its
//! inputs. Capabilities build an answer item by item and admit each only while it fits; what
//! does not fit is left for the next page, which the answer points to with an exact cursor.
//!
//! An item's cost counts it twice: once as the JSON of `structuredContent`, once as its line
//! in the text block, which the text rendering keeps no longer than the item's JSON plus
//! [`LINE_OVERHEAD`] (its fences and labels). UTF-8 bytes are counted, not characters, so a
//! script that takes more tokens per character is not undercounted.

use serde::Serialize;

/// The most an answer may hold, structured result and text block together: about 8,000
/// tokens. No input raises it.
pub const ANSWER_BYTES: usize = 32_000;

/// What an answer's frame takes besides its items (headings, cursors, instructions to the
/// reader, JSON punctuation), set aside before any item is admitted.
pub const FRAME_BYTES: usize = 2_000;

/// How much longer an item's text-block line may be than its JSON.
pub const LINE_OVERHEAD: usize = 64;

/// The room left in one answer.
#[derive(Debug, Clone)]
pub struct Budget {
    left: usize,
}

impl Budget {
    /// The whole room of one answer, less its frame.
    pub fn answer() -> Budget {
        Budget {
            left: ANSWER_BYTES - FRAME_BYTES,
        }
    }

    /// Sets `percent` of the room left aside for one section of an answer (an overview, a
    /// list of skipped channels), so that the rest cannot crowd it out, nor it the rest.
    pub fn split_off(&mut self, percent: usize) -> Budget {
        let part = self.left * percent / 100;
        self.left -= part;
        Budget { left: part }
    }

    /// Sets `bytes` aside (all that is left, if less) for the sections after this one, so that
    /// this one cannot crowd them out; given back once this one is done.
    pub fn reserve(&mut self, bytes: usize) -> Budget {
        let part = bytes.min(self.left);
        self.left -= part;
        Budget { left: part }
    }

    /// Returns what a section did not use.
    pub fn give_back(&mut self, part: Budget) {
        self.left += part.left;
    }

    /// What an item costs in an answer: its JSON and its text line.
    pub fn cost<T: Serialize>(item: &T) -> usize {
        2 * serialized_len(item) + LINE_OVERHEAD
    }

    /// Takes `item`'s room if it fits, and says whether it did.
    pub fn admit<T: Serialize>(&mut self, item: &T) -> bool {
        self.take(Budget::cost(item))
    }

    /// Takes `bytes` of room if they fit, and says whether they did.
    pub fn take(&mut self, bytes: usize) -> bool {
        if bytes <= self.left {
            self.left -= bytes;
            true
        } else {
            false
        }
    }

    pub fn left(&self) -> usize {
        self.left
    }
}

/// The length of `item`'s compact JSON, counted without building the text.
pub(crate) fn serialized_len<T: Serialize>(item: &T) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    match serde_json::to_writer(&mut counter, item) {
        Ok(()) => counter.0,
        // A value that cannot be serialized would not reach the answer either; count it as
        // too big to admit rather than as free.
        Err(_) => ANSWER_BYTES,
    }
}

/// Keeps the leading items of `items` that fit in `budget`, and how many were left out.
pub(crate) fn fit<T: Serialize>(items: Vec<T>, budget: &mut Budget) -> (Vec<T>, usize) {
    let total = items.len();
    let mut kept = Vec::new();
    for item in items {
        if !budget.admit(&item) {
            break;
        }
        kept.push(item);
    }
    let left_out = total - kept.len();
    (kept, left_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_costs_its_json_twice_and_a_line_overhead() {
        assert_eq!(serialized_len(&"ab\"c"), 7);
        assert_eq!(Budget::cost(&"ab\"c"), 2 * 7 + LINE_OVERHEAD);
    }

    #[test]
    fn an_item_that_fits_exactly_is_admitted_and_one_byte_more_is_not() {
        let item = "x".repeat(100);
        let cost = Budget::cost(&item);
        let mut exact = Budget { left: cost };
        assert!(exact.admit(&item));
        assert_eq!(exact.left(), 0);
        let mut short = Budget { left: cost - 1 };
        assert!(!short.admit(&item));
        assert_eq!(short.left(), cost - 1);
    }

    #[test]
    fn fit_keeps_the_leading_items_that_fit_and_counts_the_rest() {
        let items: Vec<String> = (0..10).map(|n| format!("item {n}")).collect();
        let one = Budget::cost(&items[0]);
        let mut budget = Budget {
            left: 3 * one + one / 2,
        };
        let (kept, left_out) = fit(items, &mut budget);
        assert_eq!(kept, ["item 0", "item 1", "item 2"]);
        assert_eq!(left_out, 7);
    }

    #[test]
    fn a_section_set_aside_returns_what_it_did_not_use() {
        let mut whole = Budget { left: 1_000 };
        let mut part = whole.split_off(25);
        assert_eq!((whole.left(), part.left()), (750, 250));
        assert!(part.take(100));
        whole.give_back(part);
        assert_eq!(whole.left(), 900);
    }
}
