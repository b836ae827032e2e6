//! The exact scan: every current vector of the store in memory, searched with the search's
//! filters inside the scan.
//!
//! Each slot holds a message's key (the store's integer key), its 384 signed bytes, its
//! length and sign bits (derived at load), and what the filters read: its channel and
//! author (as small numbers into a table of ids) and its two times (arrival and Discord's).
//! A search passes over the slots the filter admits, keeps the best candidates by sign bits
//! (a popcount over 48 bytes each), rescores those exactly from their bytes, and returns the
//! best by cosine. A slot outside the filter is never a candidate, however close.
//!
//! The index is loaded once and refreshed with what was embedded since ([`ScanIndex::put`]
//! replaces a message's slot when it is embedded again).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::hash::Hash;

use crate::model::{DIMENSIONS, Identity};
use crate::vector::{CODE_WORDS, coordinates, dot, hamming, inverse_length, query_code, sign_code};
use discord_manager_vocabulary::snowflake::{ChannelId, UserId};

/// One stored vector with what the filters read of its message.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The message's integer key in the store.
    pub key: i64,
    pub channel_id: ChannelId,
    pub author_id: UserId,
    /// Arrival on the store's clock, in microseconds.
    pub arrived: i64,
    /// Discord's timestamp, in microseconds.
    pub sent: i64,
    /// The stored form (see [`crate::vector`]).
    pub vector: Vec<u8>,
}

/// What a search may see: the channels (the readable ones in scope, narrowed by a channel or
/// server filter), an author, and two ranges of time (start inclusive, end exclusive, in
/// microseconds).
#[derive(Debug, Clone, Default)]
pub struct ScanFilter {
    pub channel_ids: Vec<ChannelId>,
    pub author_id: Option<UserId>,
    pub arrived: (Option<i64>, Option<i64>),
    pub sent: (Option<i64>, Option<i64>),
}

/// A message found by meaning: its key and its cosine with the question.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Neighbour {
    pub key: i64,
    pub score: f32,
}

/// Ids of one kind as small numbers, for the per-slot columns.
#[derive(Debug)]
struct Ids<Id> {
    numbers: HashMap<Id, u32>,
}

impl<Id> Default for Ids<Id> {
    fn default() -> Self {
        Ids {
            numbers: HashMap::new(),
        }
    }
}

impl<Id: Clone + Eq + Hash> Ids<Id> {
    fn number(&mut self, id: &Id) -> u32 {
        let next = self.numbers.len() as u32;
        match self.numbers.get(id) {
            Some(number) => *number,
            None => {
                self.numbers.insert(id.clone(), next);
                next
            }
        }
    }

    fn known(&self, id: &Id) -> Option<u32> {
        self.numbers.get(id).copied()
    }
}

/// Every current vector of one model, in memory.
#[derive(Debug)]
pub struct ScanIndex {
    identity: Identity,
    keys: Vec<i64>,
    vectors: Vec<i8>,
    inverse_lengths: Vec<f32>,
    codes: Vec<[u64; CODE_WORDS]>,
    channels: Vec<u32>,
    authors: Vec<u32>,
    arrived: Vec<i64>,
    sent: Vec<i64>,
    channel_numbers: Ids<ChannelId>,
    author_numbers: Ids<UserId>,
    slots: HashMap<i64, usize>,
    /// The highest change the index has read, for the next refresh.
    pub seen_through: i64,
}

/// How many candidates the sign bits pass to the exact rescoring: this many times what is
/// wanted, and never fewer than [`MIN_CANDIDATES`].
const CANDIDATES_PER_RESULT: usize = 20;
const MIN_CANDIDATES: usize = 1_000;

impl ScanIndex {
    pub fn new(identity: Identity) -> ScanIndex {
        ScanIndex {
            identity,
            keys: Vec::new(),
            vectors: Vec::new(),
            inverse_lengths: Vec::new(),
            codes: Vec::new(),
            channels: Vec::new(),
            authors: Vec::new(),
            arrived: Vec::new(),
            sent: Vec::new(),
            channel_numbers: Ids::default(),
            author_numbers: Ids::default(),
            slots: HashMap::new(),
            seen_through: 0,
        }
    }

    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    /// How many messages have a vector.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Adds a message's vector, or replaces it when the message has one already. A row whose
    /// bytes are not a vector (the empty row of a message left with no text) takes the
    /// message out of the index, so the meaning of its old text is never found again; false
    /// is returned.
    pub fn put(&mut self, row: Row) -> bool {
        let Some(coordinates) = coordinates(&row.vector) else {
            self.remove(row.key);
            return false;
        };
        let channel = self.channel_numbers.number(&row.channel_id);
        let author = self.author_numbers.number(&row.author_id);
        let slot = match self.slots.get(&row.key) {
            Some(slot) => *slot,
            None => {
                let slot = self.keys.len();
                self.slots.insert(row.key, slot);
                self.keys.push(row.key);
                self.vectors.extend_from_slice(&[0; DIMENSIONS]);
                self.inverse_lengths.push(0.0);
                self.codes.push([0; CODE_WORDS]);
                self.channels.push(0);
                self.authors.push(0);
                self.arrived.push(0);
                self.sent.push(0);
                slot
            }
        };
        self.inverse_lengths[slot] = inverse_length(&coordinates);
        self.codes[slot] = sign_code(&coordinates);
        self.vectors[slot * DIMENSIONS..(slot + 1) * DIMENSIONS].copy_from_slice(&coordinates);
        self.channels[slot] = channel;
        self.authors[slot] = author;
        self.arrived[slot] = row.arrived;
        self.sent[slot] = row.sent;
        true
    }

    /// Takes a message's slot out: the last slot moves into its place.
    fn remove(&mut self, key: i64) {
        let Some(slot) = self.slots.remove(&key) else {
            return;
        };
        let last = self.keys.len() - 1;
        if slot != last {
            self.slots.insert(self.keys[last], slot);
            self.vectors.copy_within(
                last * DIMENSIONS..(last + 1) * DIMENSIONS,
                slot * DIMENSIONS,
            );
        }
        self.vectors.truncate(last * DIMENSIONS);
        self.keys.swap_remove(slot);
        self.inverse_lengths.swap_remove(slot);
        self.codes.swap_remove(slot);
        self.channels.swap_remove(slot);
        self.authors.swap_remove(slot);
        self.arrived.swap_remove(slot);
        self.sent.swap_remove(slot);
    }

    /// The `wanted` messages closest to `query` (a unit vector made by this index's
    /// identity) among those the filter admits, closest first (ties: the lower key first).
    pub fn search(
        &self,
        query_identity: &Identity,
        query: &[f32],
        filter: &ScanFilter,
        wanted: usize,
    ) -> discord_manager_vocabulary::error::Result<Vec<Neighbour>> {
        query_identity.require_same(&self.identity)?;
        if wanted == 0 || query.len() != DIMENSIONS {
            return Ok(Vec::new());
        }
        let channels: HashSet<u32> = filter
            .channel_ids
            .iter()
            .filter_map(|id| self.channel_numbers.known(id))
            .collect();
        if channels.is_empty() {
            return Ok(Vec::new());
        }
        let mut admitted = vec![false; self.channel_numbers.numbers.len()];
        for channel in channels {
            admitted[channel as usize] = true;
        }
        let author = match &filter.author_id {
            Some(id) => match self.author_numbers.known(id) {
                Some(number) => Some(number),
                None => return Ok(Vec::new()),
            },
            None => None,
        };
        let within = |value: i64, (start, end): (Option<i64>, Option<i64>)| {
            start.is_none_or(|start| value >= start) && end.is_none_or(|end| value < end)
        };
        let code = query_code(query);
        let room = (wanted * CANDIDATES_PER_RESULT).max(MIN_CANDIDATES);
        // The farthest of the best `room` so far on top: (distance, slot).
        let mut best: BinaryHeap<(u32, usize)> = BinaryHeap::with_capacity(room + 1);
        for slot in 0..self.keys.len() {
            if !admitted[self.channels[slot] as usize]
                || author.is_some_and(|author| self.authors[slot] != author)
                || !within(self.arrived[slot], filter.arrived)
                || !within(self.sent[slot], filter.sent)
            {
                continue;
            }
            let distance = hamming(&code, &self.codes[slot]);
            if best.len() < room {
                best.push((distance, slot));
            } else if best
                .peek()
                .is_some_and(|(farthest, _)| distance < *farthest)
            {
                best.pop();
                best.push((distance, slot));
            }
        }
        let mut rescored: Vec<Neighbour> = best
            .into_iter()
            .map(|(_, slot)| Neighbour {
                key: self.keys[slot],
                score: dot(
                    query,
                    &self.vectors[slot * DIMENSIONS..(slot + 1) * DIMENSIONS],
                ) * self.inverse_lengths[slot],
            })
            .collect();
        rescored.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| Reverse(b.key).cmp(&Reverse(a.key)))
        });
        rescored.truncate(wanted);
        Ok(rescored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vector::quantise;

    /// A unit vector along coordinate `axis`, tilted a little towards `axis + 1`.
    fn towards(axis: usize, tilt: f32) -> Vec<f32> {
        let mut vector = vec![0.01; DIMENSIONS];
        vector[axis] = 1.0;
        vector[axis + 1] = tilt;
        let length = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        vector.into_iter().map(|x| x / length).collect()
    }

    fn row(key: i64, channel: &str, author: &str, at: i64, vector: &[f32]) -> Row {
        Row {
            key,
            channel_id: channel.parse().unwrap(),
            author_id: author.parse().unwrap(),
            arrived: at,
            sent: at,
            vector: quantise(vector).expect("a vector"),
        }
    }

    fn keys(found: &[Neighbour]) -> Vec<i64> {
        found.iter().map(|neighbour| neighbour.key).collect()
    }

    fn index() -> ScanIndex {
        let mut index = ScanIndex::new(Identity::bundled());
        index.put(row(1, "11", "20", 100, &towards(0, 0.0)));
        index.put(row(2, "12", "20", 200, &towards(0, 0.1)));
        index.put(row(3, "13", "21", 300, &towards(0, 0.05)));
        index.put(row(4, "11", "21", 400, &towards(10, 0.0)));
        index
    }

    fn everywhere() -> ScanFilter {
        ScanFilter {
            channel_ids: vec![
                "11".parse().unwrap(),
                "12".parse().unwrap(),
                "13".parse().unwrap(),
            ],
            ..ScanFilter::default()
        }
    }

    #[test]
    fn the_closest_come_first_and_a_channel_out_of_the_filter_never_appears() {
        let index = index();
        let query = towards(0, 0.0);
        let all = index
            .search(&Identity::bundled(), &query, &everywhere(), 10)
            .expect("a search");
        assert_eq!(keys(&all), [1, 3, 2, 4]);
        assert!(all[0].score > 0.99, "{all:?}");
        // The closest but one is in a channel the search may not see.
        let readable = ScanFilter {
            channel_ids: vec!["11".parse().unwrap(), "12".parse().unwrap()],
            ..ScanFilter::default()
        };
        let found = index
            .search(&Identity::bundled(), &towards(0, 0.06), &readable, 10)
            .expect("a search");
        assert_eq!(keys(&found), [2, 1, 4]);
        let nothing = ScanFilter::default();
        assert!(
            index
                .search(&Identity::bundled(), &query, &nothing, 10)
                .expect("a search")
                .is_empty()
        );
    }

    #[test]
    fn author_and_time_filters_hold_inside_the_scan_both_sides_of_each_bound() {
        let index = index();
        let query = towards(0, 0.0);
        let search = |filter: ScanFilter| {
            keys(
                &index
                    .search(&Identity::bundled(), &query, &filter, 10)
                    .expect("a search"),
            )
        };
        let by_bo = ScanFilter {
            author_id: Some("21".parse().unwrap()),
            ..everywhere()
        };
        assert_eq!(search(by_bo), [3, 4]);
        let unknown_author = ScanFilter {
            author_id: Some("29".parse().unwrap()),
            ..everywhere()
        };
        assert!(search(unknown_author).is_empty());
        // Start inclusive, end exclusive.
        let from_200_to_400 = ScanFilter {
            arrived: (Some(200), Some(400)),
            ..everywhere()
        };
        assert_eq!(search(from_200_to_400), [3, 2]);
        let sent_from_201 = ScanFilter {
            sent: (Some(201), None),
            ..everywhere()
        };
        assert_eq!(search(sent_from_201), [3, 4]);
    }

    #[test]
    fn a_message_embedded_again_takes_its_new_place_and_keeps_one_slot() {
        let mut index = index();
        index.put(row(1, "11", "20", 100, &towards(10, 0.0)));
        assert_eq!(index.len(), 4);
        let found = index
            .search(&Identity::bundled(), &towards(10, 0.0), &everywhere(), 2)
            .expect("a search");
        assert_eq!(keys(&found), [1, 4]);
    }

    #[test]
    fn a_message_left_with_no_text_leaves_the_index_and_the_others_keep_their_vectors() {
        let mut index = index();
        // Message 1 is edited to nothing: the pass writes an empty row for it.
        let emptied = Row {
            vector: Vec::new(),
            ..row(1, "11", "20", 100, &towards(0, 0.0))
        };
        assert!(!index.put(emptied));
        assert_eq!(index.len(), 3);
        let found = index
            .search(&Identity::bundled(), &towards(0, 0.0), &everywhere(), 10)
            .expect("a search");
        assert_eq!(keys(&found), [3, 2, 4]);
        // The last slot (message 4) moved into the freed one with its own vector and filters.
        let by_21 = ScanFilter {
            author_id: Some("21".parse().unwrap()),
            ..everywhere()
        };
        let found = index
            .search(&Identity::bundled(), &towards(10, 0.0), &by_21, 1)
            .expect("a search");
        assert_eq!(keys(&found), [4]);
        assert!(found[0].score > 0.99, "{found:?}");
        // Emptied again (no slot now), then given text again: one slot, found again.
        assert!(!index.put(Row {
            vector: Vec::new(),
            ..row(1, "11", "20", 100, &towards(0, 0.0))
        }));
        assert!(index.put(row(1, "11", "20", 100, &towards(0, 0.0))));
        assert_eq!(index.len(), 4);
        let found = index
            .search(&Identity::bundled(), &towards(0, 0.0), &everywhere(), 1)
            .expect("a search");
        assert_eq!(keys(&found), [1]);
    }

    #[test]
    fn a_question_of_another_model_is_refused() {
        let bundled = Identity::bundled();
        let other = Identity::from_stored(
            bundled
                .as_str()
                .replace(&bundled.name(), "another/model-v2"),
        );
        let refusal = index()
            .search(&other, &towards(0, 0.0), &everywhere(), 10)
            .expect_err("another model");
        assert!(
            refusal
                .message()
                .starts_with("These vectors were made by pocket-encoder/minilm-l3-q4-g32-v1 and the question by another/model-v2"),
            "{}",
            refusal.message()
        );
    }
}
