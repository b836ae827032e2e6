//! The scan: every current vector of the store summarised in memory, searched with the
//! search's filters inside the scan, and the best candidates rescored from their stored bytes.
//!
//! Each slot holds a message's key (the store's integer key), its sign bits (48 bytes, derived
//! from its vector at load), and what the filters read: its channel and author (as small
//! numbers into a table of ids) and its two times (arrival and Discord's): 80 bytes a message,
//! where keeping the vectors too took 480 (432 MB at 1M messages). A search passes once over
//! the slots, measuring each one the filter admits by sign bits (a popcount over 48 bytes,
//! with the CPU's instruction where it has one) and counting how many lie at each distance;
//! the counts give the distance within which the best candidates lie, and a second pass over
//! the distances takes them ([`ScanIndex::candidates`]). The caller reads those candidates'
//! 384 bytes from the store and [`rescore`] ranks them exactly by cosine, so the index's lock
//! is never held while the store is read. A slot outside the filter is never a candidate,
//! however close.
//!
//! The index is loaded once and refreshed with what was embedded since ([`ScanIndex::put`]
//! replaces a message's slot when it is embedded again).

use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};
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

/// Every current vector of one model, summarised in memory: its sign bits and what the
/// filters read.
#[derive(Debug)]
pub struct ScanIndex {
    identity: Identity,
    keys: Vec<i64>,
    codes: Vec<[u64; CODE_WORDS]>,
    channels: Vec<u32>,
    authors: Vec<u32>,
    arrived: Vec<i64>,
    sent: Vec<i64>,
    channel_numbers: Ids<ChannelId>,
    author_numbers: Ids<UserId>,
    slots: HashMap<i64, u32>,
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
            Some(slot) => *slot as usize,
            None => {
                let slot = self.keys.len();
                self.slots.insert(row.key, slot as u32);
                self.keys.push(row.key);
                self.codes.push([0; CODE_WORDS]);
                self.channels.push(0);
                self.authors.push(0);
                self.arrived.push(0);
                self.sent.push(0);
                slot
            }
        };
        self.codes[slot] = sign_code(&coordinates);
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
        let (slot, last) = (slot as usize, self.keys.len() - 1);
        if slot != last {
            self.slots.insert(self.keys[last], slot as u32);
        }
        self.keys.swap_remove(slot);
        self.codes.swap_remove(slot);
        self.channels.swap_remove(slot);
        self.authors.swap_remove(slot);
        self.arrived.swap_remove(slot);
        self.sent.swap_remove(slot);
    }

    /// The keys of the messages whose sign bits are nearest `query`'s (a unit vector made by
    /// this index's identity) among those the filter admits: enough candidates that
    /// [`rescore`] of their stored vectors gives the `wanted` closest, in slot order.
    pub fn candidates(
        &self,
        query_identity: &Identity,
        query: &[f32],
        filter: &ScanFilter,
        wanted: usize,
    ) -> discord_manager_vocabulary::error::Result<Vec<i64>> {
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
        // A bound that is not set is not read: an unfiltered search reads only the codes and
        // the channels.
        let within = |times: &[i64], slot: usize, (start, end): (Option<i64>, Option<i64>)| {
            start.is_none_or(|start| times[slot] >= start)
                && end.is_none_or(|end| times[slot] < end)
        };
        let admits = |slot: usize| {
            admitted[self.channels[slot] as usize]
                && author.is_none_or(|author| self.authors[slot] == author)
                && within(&self.arrived, slot, filter.arrived)
                && within(&self.sent, slot, filter.sent)
        };
        let code = query_code(query);
        let room = (wanted * CANDIDATES_PER_RESULT).max(MIN_CANDIDATES);
        let mut distances = vec![EXCLUDED; self.codes.len()];
        let mut histogram = [0usize; DIMENSIONS + 1];
        measure(&self.codes, &code, admits, &mut distances, &mut histogram);
        Ok(nearest_slots(&distances, &histogram, room)
            .into_iter()
            .map(|slot| self.keys[slot])
            .collect())
    }
}

/// The `wanted` of `stored` (each a message's key and its vector's stored bytes, as the
/// store keeps them) closest to `query` by cosine, closest first (ties: the lower key first).
/// Bytes that are not a vector (a message left with no text since) are passed over.
pub fn rescore(
    query: &[f32],
    stored: impl IntoIterator<Item = (i64, Vec<u8>)>,
    wanted: usize,
) -> Vec<Neighbour> {
    let mut rescored: Vec<Neighbour> = stored
        .into_iter()
        .filter_map(|(key, bytes)| {
            let coordinates = coordinates(&bytes)?;
            Some(Neighbour {
                key,
                score: dot(query, &coordinates) * inverse_length(&coordinates),
            })
        })
        .collect();
    rescored.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| Reverse(b.key).cmp(&Reverse(a.key)))
    });
    rescored.truncate(wanted);
    rescored
}

/// The distance of a slot the filter leaves out: farther than any code can be.
const EXCLUDED: u16 = DIMENSIONS as u16 + 1;

/// Each slot's distance in sign bits from `code` (or [`EXCLUDED`] when `admits` says no), and
/// how many admitted slots are at each distance. One pass over the codes, with the CPU's
/// popcount instruction where it has one: the codes of 1M messages are 48 MB, and counting
/// their bits is most of a search's time.
fn measure(
    codes: &[[u64; CODE_WORDS]],
    code: &[u64; CODE_WORDS],
    admits: impl Fn(usize) -> bool,
    distances: &mut [u16],
    histogram: &mut [usize; DIMENSIONS + 1],
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has the POPCNT instruction, checked just above; that is the only
        // requirement of a function compiled with it enabled.
        unsafe { measure_with_popcnt(codes, code, admits, distances, histogram) };
        return;
    }
    measure_portably(codes, code, admits, distances, histogram);
}

/// [`measure_portably`] compiled with the POPCNT instruction: without it, x86-64's baseline
/// counts bits in a dozen instructions a word (three times as slow over 1M codes).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn measure_with_popcnt(
    codes: &[[u64; CODE_WORDS]],
    code: &[u64; CODE_WORDS],
    admits: impl Fn(usize) -> bool,
    distances: &mut [u16],
    histogram: &mut [usize; DIMENSIONS + 1],
) {
    measure_portably(codes, code, admits, distances, histogram);
}

#[inline(always)]
fn measure_portably(
    codes: &[[u64; CODE_WORDS]],
    code: &[u64; CODE_WORDS],
    admits: impl Fn(usize) -> bool,
    distances: &mut [u16],
    histogram: &mut [usize; DIMENSIONS + 1],
) {
    for (slot, (stored, distance)) in codes.iter().zip(distances.iter_mut()).enumerate() {
        if admits(slot) {
            let bits = hamming(code, stored);
            *distance = bits as u16;
            histogram[bits as usize] += 1;
        }
    }
}

/// The `room` admitted slots nearest by sign bits, in slot order: every slot nearer than the
/// distance where `room` is reached, then slots at that distance, lowest first, until `room`
/// are taken. Fewer admitted slots than `room` are all taken.
fn nearest_slots(
    distances: &[u16],
    histogram: &[usize; DIMENSIONS + 1],
    room: usize,
) -> Vec<usize> {
    let mut taken = 0;
    let mut threshold = EXCLUDED;
    for (distance, count) in histogram.iter().enumerate() {
        if taken + count >= room {
            threshold = distance as u16;
            break;
        }
        taken += count;
    }
    // A slot left out is never taken, however few the others.
    let mut ties = if threshold == EXCLUDED {
        0
    } else {
        room - taken
    };
    let mut nearest = Vec::with_capacity(room.min(distances.len()));
    for (slot, distance) in distances.iter().enumerate() {
        if *distance < threshold {
            nearest.push(slot);
        } else if *distance == threshold && ties > 0 {
            ties -= 1;
            nearest.push(slot);
        }
    }
    nearest
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

    /// An index beside the vectors it was given, standing for the store's: a search takes the
    /// candidates from the index and rescores them from these, as the core does.
    struct Indexed {
        index: ScanIndex,
        stored: HashMap<i64, Vec<u8>>,
    }

    impl Indexed {
        fn new() -> Indexed {
            Indexed {
                index: ScanIndex::new(Identity::bundled()),
                stored: HashMap::new(),
            }
        }

        fn put(&mut self, row: Row) -> bool {
            self.stored.insert(row.key, row.vector.clone());
            self.index.put(row)
        }

        fn len(&self) -> usize {
            self.index.len()
        }

        fn search(
            &self,
            identity: &Identity,
            query: &[f32],
            filter: &ScanFilter,
            wanted: usize,
        ) -> discord_manager_vocabulary::error::Result<Vec<Neighbour>> {
            let candidates = self.index.candidates(identity, query, filter, wanted)?;
            let stored = candidates
                .into_iter()
                .filter_map(|key| Some((key, self.stored.get(&key)?.clone())));
            Ok(rescore(query, stored, wanted))
        }
    }

    fn index() -> Indexed {
        let mut index = Indexed::new();
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

    /// Distances and their histogram, as [`measure`] leaves them.
    fn measured(distances: &[u16]) -> [usize; DIMENSIONS + 1] {
        let mut histogram = [0; DIMENSIONS + 1];
        for distance in distances.iter().filter(|distance| **distance != EXCLUDED) {
            histogram[*distance as usize] += 1;
        }
        histogram
    }

    #[test]
    fn the_nearest_slots_stop_at_room_with_ties_taken_lowest_slot_first() {
        let distances = [7, 3, EXCLUDED, 5, 3, 5, 5, 9];
        let histogram = measured(&distances);
        // Room reached exactly below a distance: the three nearest, no tie to break.
        assert_eq!(nearest_slots(&distances, &histogram, 2), vec![1, 4]);
        // One short of the next distance's three: the lowest of them.
        assert_eq!(nearest_slots(&distances, &histogram, 3), vec![1, 3, 4]);
        // All three of that distance exactly.
        assert_eq!(
            nearest_slots(&distances, &histogram, 5),
            vec![1, 3, 4, 5, 6]
        );
        assert_eq!(
            nearest_slots(&distances, &histogram, 6),
            vec![0, 1, 3, 4, 5, 6]
        );
    }

    #[test]
    fn fewer_admitted_slots_than_room_are_all_taken_and_a_slot_left_out_never_is() {
        let distances = [EXCLUDED, 4, EXCLUDED, 0];
        let histogram = measured(&distances);
        assert_eq!(nearest_slots(&distances, &histogram, 3), vec![1, 3]);
        assert_eq!(nearest_slots(&distances, &histogram, 2), vec![1, 3]);
        assert_eq!(
            nearest_slots(&[EXCLUDED; 3], &measured(&[EXCLUDED; 3]), 2),
            Vec::<usize>::new()
        );
    }

    #[test]
    fn the_distances_are_the_sign_bits_that_differ_on_every_path_the_cpu_may_take() {
        let codes: Vec<[u64; CODE_WORDS]> = vec![
            [0; CODE_WORDS],
            [u64::MAX; CODE_WORDS],
            [1, 0, 0, 0, 0, 1 << 63],
            [0b1011, 0, 0, 0, 0, 0],
        ];
        let code = [0b1, 0, 0, 0, 0, 0];
        let admits = |slot: usize| slot != 1;
        let expected = [1, EXCLUDED, 1, 2];
        let mut distances = vec![EXCLUDED; codes.len()];
        let mut histogram = [0; DIMENSIONS + 1];
        measure(&codes, &code, admits, &mut distances, &mut histogram);
        assert_eq!(distances, expected);
        assert_eq!((histogram[1], histogram[2]), (2, 1));
        let mut portable = vec![EXCLUDED; codes.len()];
        let mut portable_histogram = [0; DIMENSIONS + 1];
        measure_portably(
            &codes,
            &code,
            admits,
            &mut portable,
            &mut portable_histogram,
        );
        assert_eq!(portable, expected);
        assert_eq!(portable_histogram, histogram);
    }

    #[test]
    fn more_messages_than_the_candidates_still_answer_the_exact_nearest() {
        // Twice the least room of candidates, all far but a few: the few are found, closest
        // first, whatever slot they sit in.
        let mut index = Indexed::new();
        for key in 0..(2 * MIN_CANDIDATES as i64) {
            index.put(row(
                key + 10,
                "11",
                "20",
                key,
                &towards(100 + (key as usize % 200), 0.0),
            ));
        }
        index.put(row(1, "11", "20", 0, &towards(0, 0.0)));
        index.put(row(2, "11", "20", 0, &towards(0, 0.2)));
        let found = index
            .search(&Identity::bundled(), &towards(0, 0.0), &everywhere(), 2)
            .unwrap();
        assert_eq!(keys(&found), vec![1, 2]);
    }
}
