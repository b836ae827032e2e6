//! The scan: every current vector of the store summarised in memory, searched with the
//! search's filters inside the scan, and the best candidates rescored from their stored bytes.
//!
//! Each slot holds a message's key (the store's integer key), its sign bits (48 bytes, of its
//! unit vector less the store's centre, [`Centre`]), and what the filters read: its channel and author (as small
//! numbers into a table of ids) and its two times (arrival and Discord's): 80 bytes a message,
//! where keeping the vectors too took 480 (432 MB at 1M messages). A search passes once over
//! the slots, measuring each one the filter admits by sign bits (a popcount over 48 bytes,
//! with the CPU's instruction where it has one) and counting how many lie at each distance;
//! the counts give the distance within which a shortlist lies, and a second pass over the
//! distances takes it. The shortlist is ranked again by the question's own coordinates (less
//! the centre too) against each slot's sign bits, from memory, and its best are the candidates
//! ([`ScanIndex::candidates`]). The caller reads those candidates' 384 bytes from the store and
//! [`rescore`] ranks them exactly by cosine, so the index's lock is never held while the store
//! is read. A slot outside the filter is never a candidate, however close.
//!
//! The index is loaded once and refreshed with what was embedded since ([`ScanIndex::put`]
//! replaces a message's slot when it is embedded again).

use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use crate::centre::Centre;
use crate::model::{DIMENSIONS, Identity};
use crate::resident::prefer_huge_pages;
use crate::vector::{CODE_WORDS, coordinates, dot, hamming, inverse_length, query_code};
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

/// One message's slot: what the scan reads of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    pub key: i64,
    pub channel_id: ChannelId,
    pub author_id: UserId,
    /// Arrival on the store's clock, in microseconds.
    pub arrived: i64,
    /// Discord's timestamp, in microseconds.
    pub sent: i64,
    pub code: [u64; CODE_WORDS],
}

impl Slot {
    /// The slot of a stored vector, its sign bits taken less `centre`; None for a row whose
    /// bytes are not a vector (a message left with no text has no slot).
    pub fn of(row: &Row, centre: &Centre) -> Option<Slot> {
        let coordinates = coordinates(&row.vector)?;
        Some(Slot {
            key: row.key,
            channel_id: row.channel_id,
            author_id: row.author_id,
            arrived: row.arrived,
            sent: row.sent,
            code: centre.code(&coordinates),
        })
    }
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

/// Slots of consecutive keys as columns, as a block of the store lays them out
/// ([`crate::blocks`]): what a load appends to the index ([`ScanIndex::put_columns`]) without
/// making a [`Slot`] of each message, numbering each channel and author once rather than once
/// a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotColumns {
    /// The fingerprint of the centre the sign bits were taken less ([`Centre::fingerprint`]).
    pub(crate) centre: u64,
    /// The block's channels and authors, each once.
    pub(crate) channels: Vec<ChannelId>,
    pub(crate) authors: Vec<UserId>,
    /// Each slot's key, ascending.
    pub(crate) keys: Vec<i64>,
    /// Each slot's channel and author, as places in the lists above (each within them).
    pub(crate) channel_places: Vec<u16>,
    pub(crate) author_places: Vec<u16>,
    pub(crate) arrived: Vec<i64>,
    pub(crate) sent: Vec<i64>,
    pub(crate) codes: Vec<[u64; CODE_WORDS]>,
}

impl SlotColumns {
    /// How many slots the block holds.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The block's slots, in key order.
    pub fn into_slots(self) -> Vec<Slot> {
        (0..self.keys.len())
            .map(|n| Slot {
                key: self.keys[n],
                channel_id: self.channels[self.channel_places[n] as usize],
                author_id: self.authors[self.author_places[n] as usize],
                arrived: self.arrived[n],
                sent: self.sent[n],
                code: self.codes[n],
            })
            .collect()
    }
}

/// Ids of one kind as small numbers, for the per-slot columns. A refresh numbers two ids for
/// each message it reads (a load, each block's ids once), so they are hashed with foldhash's
/// fast hasher (already in the build, through hashbrown), not SipHash: Discord chooses ids,
/// not whoever could send messages.
#[derive(Debug)]
struct Ids<Id> {
    numbers: HashMap<Id, u32, foldhash::fast::FixedState>,
}

impl<Id> Default for Ids<Id> {
    fn default() -> Self {
        Ids {
            numbers: HashMap::default(),
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
///
/// Slots are found by key without a map of every key: the first `sorted` slots are in
/// ascending key order (a load reads blocks in key order, and new messages have higher keys),
/// found by binary search; a slot added out of order goes to a tail found through a small
/// map, and the whole is sorted again when the tail grows past [`TAIL`] or an eighth of the
/// index. A message taken out leaves a tombstone ([`REMOVED`] as its channel) that the scan
/// passes over and a later put of the same message revives.
#[derive(Debug)]
pub struct ScanIndex {
    identity: Identity,
    /// What every slot's sign bits, and the question's, are taken less.
    centre: Centre,
    keys: Vec<i64>,
    codes: Vec<[u64; CODE_WORDS]>,
    channels: Vec<u32>,
    authors: Vec<u32>,
    /// Arrival and Discord's timestamp to the second ([`second_of`]): 8 bytes a message where
    /// microseconds took 16. The scan admits by them at that grain, never leaving out a
    /// message its exact bounds would admit; the store's own filter then holds them exactly.
    arrived: Vec<u32>,
    sent: Vec<u32>,
    channel_numbers: Ids<ChannelId>,
    author_numbers: Ids<UserId>,
    /// How many of the first slots are in ascending key order.
    sorted: usize,
    /// The slots after `sorted`, by key.
    tail: HashMap<i64, u32>,
    /// How many slots are tombstones.
    removed: usize,
    /// The highest change the index has read, for the next refresh.
    pub seen_through: i64,
}

/// Discord's epoch (2015-01-01T00:00:00Z), in seconds since 1970: the scan's times count from
/// it.
const DISCORD_EPOCH_SECONDS: i64 = 1_420_070_400;

/// An instant in microseconds as the scan keeps it: whole seconds since [`DISCORD_EPOCH_SECONDS`],
/// held at 0 before it and at `u32::MAX` after 2151. The mapping never goes down as time goes
/// on, so a bound compared through it admits every message the exact bound admits (and at
/// most the rest of the bound's second, or what lies beyond either end, besides).
fn second_of(micros: i64) -> u32 {
    let seconds = micros.div_euclid(1_000_000) - DISCORD_EPOCH_SECONDS;
    seconds.clamp(0, i64::from(u32::MAX)) as u32
}

/// The channel number of a tombstone: no channel has it, so no filter admits it.
const REMOVED: u32 = u32::MAX;

/// How many slots out of key order the index keeps before sorting again (or an eighth of
/// the index, when that is more).
const TAIL: usize = 4_096;

/// How many slots the sign bits' distance shortlists: this many times what is wanted, and
/// never fewer than [`MIN_SHORTLIST`]. Each costs a ranking in memory (48 table lookups), never
/// a read.
const SHORTLIST_PER_RESULT: usize = 800;
const MIN_SHORTLIST: usize = 8_000;

/// How many of the shortlist, ranked by the question's own coordinates against their sign
/// bits ([`SignRanking`]), are the candidates the caller reads from the store and rescores
/// exactly: this many times what is wanted, and never fewer than [`MIN_CANDIDATES`]. Each is a
/// read of the store, a random one when its page is not cached: over 40,153 real sentences,
/// 500 of a shortlist of 8,000 kept 773 of the 188 questions' exact ten, where the 1,000
/// nearest by sign bits alone kept 705, for half the reads (docs/performance.md, "Search by
/// meaning: candidates").
const CANDIDATES_PER_RESULT: usize = 50;
const MIN_CANDIDATES: usize = 500;

impl ScanIndex {
    /// An empty index of `identity`'s vectors, their sign bits taken less `centre`.
    pub fn new(identity: Identity, centre: Centre) -> ScanIndex {
        ScanIndex {
            identity,
            centre,
            keys: Vec::new(),
            codes: Vec::new(),
            channels: Vec::new(),
            authors: Vec::new(),
            arrived: Vec::new(),
            sent: Vec::new(),
            channel_numbers: Ids::default(),
            author_numbers: Ids::default(),
            sorted: 0,
            tail: HashMap::new(),
            removed: 0,
            seen_through: 0,
        }
    }

    pub fn identity(&self) -> &Identity {
        &self.identity
    }

    pub fn centre(&self) -> &Centre {
        &self.centre
    }

    /// How many messages have a vector.
    pub fn len(&self) -> usize {
        self.keys.len() - self.removed
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Makes room for `additional` more slots at once, so a load that knows how many it will
    /// read grows each column once instead of doubling it (a doubled column's old copy is
    /// freed to the allocator, which keeps it).
    pub fn reserve(&mut self, additional: usize) {
        self.keys.reserve_exact(additional);
        self.codes.reserve_exact(additional);
        self.channels.reserve_exact(additional);
        self.authors.reserve_exact(additional);
        self.arrived.reserve_exact(additional);
        self.sent.reserve_exact(additional);
        prefer_huge_pages(self.keys.spare_capacity_mut());
        prefer_huge_pages(self.codes.spare_capacity_mut());
        prefer_huge_pages(self.channels.spare_capacity_mut());
        prefer_huge_pages(self.authors.spare_capacity_mut());
        prefer_huge_pages(self.arrived.spare_capacity_mut());
        prefer_huge_pages(self.sent.spare_capacity_mut());
    }

    /// Adds a message's vector, or replaces it when the message has one already. A row whose
    /// bytes are not a vector (the empty row of a message left with no text) takes the
    /// message out of the index, so the meaning of its old text is never found again; false
    /// is returned.
    pub fn put(&mut self, row: Row) -> bool {
        match Slot::of(&row, &self.centre) {
            Some(slot) => {
                self.put_slot(slot);
                true
            }
            None => {
                self.remove(row.key);
                false
            }
        }
    }

    /// Adds a block's slots. A block past the last slot of a sorted index (every block a load
    /// reads, in key order) is appended column by column, its channels and authors numbered
    /// once each; any other is put slot by slot. A block whose sign bits were taken less
    /// another centre is refused: its bits and the index's mean different things.
    pub fn put_columns(
        &mut self,
        block: SlotColumns,
    ) -> discord_manager_vocabulary::error::Result<()> {
        if block.centre != self.centre.fingerprint() {
            return Err(discord_manager_vocabulary::error::Error::internal(
                "A block of the meaning index was built with another centre than the index",
            ));
        }
        let appended = block.keys.first().is_none_or(|first| self.appends(*first));
        if !appended {
            for slot in block.into_slots() {
                self.put_slot(slot);
            }
            return Ok(());
        }
        let channels: Vec<u32> = block
            .channels
            .iter()
            .map(|id| self.channel_numbers.number(id))
            .collect();
        let authors: Vec<u32> = block
            .authors
            .iter()
            .map(|id| self.author_numbers.number(id))
            .collect();
        self.keys.extend_from_slice(&block.keys);
        self.codes.extend_from_slice(&block.codes);
        // The places lie within their lists: `SlotColumns` is made only so.
        self.channels
            .extend(block.channel_places.iter().map(|at| channels[*at as usize]));
        self.authors
            .extend(block.author_places.iter().map(|at| authors[*at as usize]));
        self.arrived
            .extend(block.arrived.iter().map(|micros| second_of(*micros)));
        self.sent
            .extend(block.sent.iter().map(|micros| second_of(*micros)));
        self.sorted = self.keys.len();
        Ok(())
    }

    /// Adds a message's slot (as a block of the store holds it), or replaces its slot.
    pub fn put_slot(&mut self, slot: Slot) {
        let channel = self.channel_numbers.number(&slot.channel_id);
        let author = self.author_numbers.number(&slot.author_id);
        // A slot past the last of a sorted index (every slot a load reads, and new
        // messages) is appended without looking for it first.
        let appended = self.appends(slot.key);
        let found = if appended { None } else { self.find(slot.key) };
        let at = match found {
            Some(at) => {
                if self.channels[at] == REMOVED {
                    self.removed -= 1;
                }
                at
            }
            None => {
                let at = self.keys.len();
                if appended {
                    self.sorted += 1;
                } else {
                    self.tail.insert(slot.key, at as u32);
                }
                self.keys.push(slot.key);
                self.codes.push([0; CODE_WORDS]);
                self.channels.push(0);
                self.authors.push(0);
                self.arrived.push(0);
                self.sent.push(0);
                at
            }
        };
        self.codes[at] = slot.code;
        self.channels[at] = channel;
        self.authors[at] = author;
        self.arrived[at] = second_of(slot.arrived);
        self.sent[at] = second_of(slot.sent);
        if self.tail.len() > TAIL.max(self.keys.len() / 8) {
            self.sort();
        }
    }

    /// Whether a slot of `key` goes after every slot of a sorted index, so it is appended
    /// without looking for it.
    fn appends(&self, key: i64) -> bool {
        self.sorted == self.keys.len() && self.keys.last().is_none_or(|last| *last < key)
    }

    /// The slot of `key`, tombstone or not.
    fn find(&self, key: i64) -> Option<usize> {
        match self.keys[..self.sorted].binary_search(&key) {
            Ok(at) => Some(at),
            Err(_) => self.tail.get(&key).map(|at| *at as usize),
        }
    }

    /// Takes a message's slot out: it becomes a tombstone.
    fn remove(&mut self, key: i64) {
        if let Some(at) = self.find(key)
            && self.channels[at] != REMOVED
        {
            self.channels[at] = REMOVED;
            self.removed += 1;
        }
    }

    /// Puts every live slot in ascending key order and drops the tombstones.
    fn sort(&mut self) {
        let mut order: Vec<usize> = (0..self.keys.len())
            .filter(|at| self.channels[*at] != REMOVED)
            .collect();
        order.sort_unstable_by_key(|at| self.keys[*at]);
        fn reorder<T: Copy>(column: &mut Vec<T>, order: &[usize]) {
            *column = order.iter().map(|at| column[*at]).collect();
        }
        reorder(&mut self.keys, &order);
        reorder(&mut self.codes, &order);
        reorder(&mut self.channels, &order);
        reorder(&mut self.authors, &order);
        reorder(&mut self.arrived, &order);
        reorder(&mut self.sent, &order);
        self.sorted = self.keys.len();
        self.tail = HashMap::new();
        self.removed = 0;
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
        let admission = Admission {
            channels: &self.channels,
            admitted,
            author: author.map(|author| (author, &self.authors[..])),
            arrived: Bounds::of(filter.arrived, &self.arrived),
            sent: Bounds::of(filter.sent, &self.sent),
        };
        // The question's coordinates less the centre, as every slot's: both its sign bits and
        // the ranking of the shortlist are taken of them (over 10,000 real sentences, ranking by
        // the question as it is kept 1,700 of the exact ten where this kept 1,816).
        let centred = self.centre.question(query);
        let code = query_code(&centred);
        let shortlist = (wanted * SHORTLIST_PER_RESULT).max(MIN_SHORTLIST);
        let room = (wanted * CANDIDATES_PER_RESULT).max(MIN_CANDIDATES);
        let mut distances = vec![EXCLUDED; self.codes.len()];
        let histogram = measure_split(&self.codes, &code, &admission, &mut distances, parts());
        let shortlisted = nearest_slots(&distances, &histogram, shortlist);
        Ok(SignRanking::best(&centred, &self.codes, shortlisted, room)
            .into_iter()
            .map(|slot| self.keys[slot])
            .collect())
    }
}

/// Whether a slot is measured: the scan asks it of every slot, so it is inlined into the
/// counting loop (the filter as a closure, which the compiler left as a call once a slot,
/// took as much of a 1M scan as counting the bits did).
pub(crate) trait Admits: Sync {
    fn admits(&self, slot: usize) -> bool;
}

impl<F: Fn(usize) -> bool + Sync> Admits for F {
    #[inline(always)]
    fn admits(&self, slot: usize) -> bool {
        self(slot)
    }
}

/// What a search's filter admits, slot by slot. A bound that is not set is not read: an
/// unfiltered search reads only the codes and the channels.
struct Admission<'a> {
    channels: &'a [u32],
    /// By channel number.
    admitted: Vec<bool>,
    /// The author's number, and every slot's.
    author: Option<(u32, &'a [u32])>,
    arrived: Option<Bounds<'a>>,
    sent: Option<Bounds<'a>>,
}

impl Admits for Admission<'_> {
    #[inline(always)]
    fn admits(&self, slot: usize) -> bool {
        // A tombstone's channel, REMOVED, is past every channel number: never admitted.
        // `&`, not `&&`: every test is taken, with no branch to mispredict.
        self.admitted
            .get(self.channels[slot] as usize)
            .copied()
            .unwrap_or(false)
            & self
                .author
                .is_none_or(|(author, authors)| authors[slot] == author)
            & self.arrived.as_ref().is_none_or(|bounds| bounds.hold(slot))
            & self.sent.as_ref().is_none_or(|bounds| bounds.hold(slot))
    }
}

/// A time filter as the scan holds it: taken to the second, widened (the start's second and
/// the last second before the end are in), over every slot's seconds.
struct Bounds<'a> {
    first: u32,
    last: u32,
    seconds: &'a [u32],
}

impl<'a> Bounds<'a> {
    /// None when neither end is set.
    fn of((start, end): (Option<i64>, Option<i64>), seconds: &'a [u32]) -> Option<Bounds<'a>> {
        if start.is_none() && end.is_none() {
            return None;
        }
        Some(Bounds {
            first: start.map_or(0, second_of),
            last: end.map_or(u32::MAX, |end| second_of(end.saturating_sub(1))),
            seconds,
        })
    }

    #[inline(always)]
    fn hold(&self, slot: usize) -> bool {
        (self.first..=self.last).contains(&self.seconds[slot])
    }
}

/// The question's own coordinates held against a slot's sign bits: the sum of the coordinates
/// where the slot's vector is positive less those where it is not. Unlike the distance between
/// two sets of sign bits, it weighs each disagreement by how much that coordinate counts in the
/// question, so it ranks the shortlist closer to the exact cosine, from memory alone. Kept as
/// one table per byte of the sign bits (48 of 256 sums), so a slot costs 48 lookups.
struct SignRanking {
    sums: Vec<[f32; 256]>,
}

impl SignRanking {
    fn of(query: &[f32]) -> SignRanking {
        let sums = query
            .chunks(8)
            .take(CODE_WORDS * 8)
            .map(|coordinates| {
                // Byte 0 is every coordinate taken against; each byte adds twice the coordinate
                // of its lowest bit to the byte without that bit: 256 additions a table.
                let mut sums = [0f32; 256];
                sums[0] = -coordinates.iter().sum::<f32>();
                for byte in 1..256usize {
                    let lowest = byte.trailing_zeros() as usize;
                    let x = coordinates.get(lowest).copied().unwrap_or(0.0);
                    sums[byte] = sums[byte & (byte - 1)] + 2.0 * x;
                }
                sums
            })
            .collect();
        SignRanking { sums }
    }

    /// How the question's coordinates hold against `code`.
    fn score(&self, code: &[u64; CODE_WORDS]) -> f32 {
        let mut total = 0f32;
        for (word, tables) in code.iter().zip(self.sums.chunks_exact(8)) {
            for (at, sums) in tables.iter().enumerate() {
                total += sums[((word >> (at * 8)) & 0xff) as usize];
            }
        }
        total
    }

    /// The `room` of `slots` whose sign bits `query` ranks best (ties: the lower slot), in
    /// slot order; all of them, and no table built, when there are no more.
    fn best(
        query: &[f32],
        codes: &[[u64; CODE_WORDS]],
        slots: Vec<usize>,
        room: usize,
    ) -> Vec<usize> {
        if slots.len() <= room {
            return slots;
        }
        // The shortlist's codes gathered first, in a loop of loads alone: they lie anywhere in
        // the column, and scoring each as it is read would leave the processor waiting on one
        // miss at a time behind each score's 48 additions.
        let gathered: Vec<[u64; CODE_WORDS]> = slots.iter().map(|&slot| codes[slot]).collect();
        let ranking = SignRanking::of(query);
        let mut scored: Vec<(f32, usize)> = gathered
            .iter()
            .zip(&slots)
            .map(|(code, &slot)| (ranking.score(code), slot))
            .collect();
        scored.select_nth_unstable_by(room - 1, |a, b| {
            b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1))
        });
        let mut best: Vec<usize> = scored[..room].iter().map(|(_, slot)| *slot).collect();
        best.sort_unstable();
        best
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

/// How many threads a scan is split over: each of the machine's cores, up to [`MOST_PARTS`].
fn parts() -> usize {
    std::thread::available_parallelism().map_or(1, |cores| cores.get().min(MOST_PARTS))
}

/// The most threads one scan takes.
const MOST_PARTS: usize = 4;

/// Fewer slots than this are measured on the calling thread: a thread would cost more than it
/// saves.
const SPLIT_FROM: usize = 65_536;

/// [`measure`] over `parts` runs of slots at once, one a thread (the calling thread takes the
/// first), their counts of slots at each distance added up: a scan of 1M codes is most of a
/// search's time, and the threads share nothing but what they read.
fn measure_split(
    codes: &[[u64; CODE_WORDS]],
    code: &[u64; CODE_WORDS],
    admits: &impl Admits,
    distances: &mut [u16],
    parts: usize,
) -> [usize; DIMENSIONS + 1] {
    let mut histogram = [0usize; DIMENSIONS + 1];
    if parts <= 1 || codes.len() < SPLIT_FROM {
        measure(codes, code, admits, 0, distances, &mut histogram);
        return histogram;
    }
    let run = codes.len().div_ceil(parts);
    let counts: Vec<[usize; DIMENSIONS + 1]> = std::thread::scope(|scope| {
        let mut runs = codes.chunks(run).zip(distances.chunks_mut(run)).enumerate();
        let first = runs.next();
        let others: Vec<_> = runs
            .map(|(part, (codes, distances))| {
                scope.spawn(move || {
                    let mut counts = [0usize; DIMENSIONS + 1];
                    let offset = part * run;
                    measure(codes, code, admits, offset, distances, &mut counts);
                    counts
                })
            })
            .collect();
        let mut all = Vec::with_capacity(parts);
        if let Some((_, (codes, distances))) = first {
            let mut counts = [0usize; DIMENSIONS + 1];
            measure(codes, code, admits, 0, distances, &mut counts);
            all.push(counts);
        }
        // A thread that panicked (it cannot: it only counts bits) would leave its run's
        // slots out, never misread.
        all.extend(others.into_iter().filter_map(|thread| thread.join().ok()));
        all
    });
    for counts in counts {
        for (total, count) in histogram.iter_mut().zip(counts) {
            *total += count;
        }
    }
    histogram
}

/// Each slot's distance in sign bits from `code` (or [`EXCLUDED`] when `admits` says no), and
/// how many admitted slots are at each distance; `admits` is asked of slot `offset + i` for
/// the `i`th code here. One pass over the codes, with the CPU's popcount instruction where it
/// has one: the codes of 1M messages are 48 MB, and counting their bits is most of a search's
/// time.
fn measure(
    codes: &[[u64; CODE_WORDS]],
    code: &[u64; CODE_WORDS],
    admits: &impl Admits,
    offset: usize,
    distances: &mut [u16],
    histogram: &mut [usize; DIMENSIONS + 1],
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has the POPCNT instruction, checked just above; that is the only
        // requirement of a function compiled with it enabled.
        unsafe { measure_with_popcnt(codes, code, admits, offset, distances, histogram) };
        return;
    }
    measure_portably(codes, code, admits, offset, distances, histogram);
}

/// [`measure_portably`] compiled with the POPCNT instruction: without it, x86-64's baseline
/// counts bits in a dozen instructions a word (three times as slow over 1M codes).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn measure_with_popcnt(
    codes: &[[u64; CODE_WORDS]],
    code: &[u64; CODE_WORDS],
    admits: &impl Admits,
    offset: usize,
    distances: &mut [u16],
    histogram: &mut [usize; DIMENSIONS + 1],
) {
    measure_portably(codes, code, admits, offset, distances, histogram);
}

/// Slots counted into this many histograms in turn: consecutive slots mostly lie at nearby
/// distances, and one histogram would make each count wait for the last one's store.
const INTERLEAVED: usize = 4;

#[inline(always)]
fn measure_portably(
    codes: &[[u64; CODE_WORDS]],
    code: &[u64; CODE_WORDS],
    admits: &impl Admits,
    offset: usize,
    distances: &mut [u16],
    histogram: &mut [usize; DIMENSIONS + 1],
) {
    let mut counts = [[0u32; DIMENSIONS + 1]; INTERLEAVED];
    // Without a branch on the filter: a search over some of the channels admits slots in no
    // order a processor could predict, and every code is read either way.
    for (slot, (stored, distance)) in codes.iter().zip(distances.iter_mut()).enumerate() {
        let admitted = admits.admits(offset + slot);
        let bits = hamming(code, stored);
        *distance = if admitted { bits as u16 } else { EXCLUDED };
        counts[slot % INTERLEAVED][bits as usize] += u32::from(admitted);
    }
    for counts in counts {
        for (total, count) in histogram.iter_mut().zip(counts) {
            *total += count as usize;
        }
    }
}

/// Distances [`nearest_slots`] tests at once.
const RUN: usize = 32;

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
    // Runs of slots all past the threshold (nearly all of them) are passed over whole: the
    // test of a run is one vector comparison.
    for (run, chunk) in distances.chunks(RUN).enumerate() {
        if chunk
            .iter()
            .fold(true, |past, distance| past & (*distance > threshold))
        {
            continue;
        }
        for (at, distance) in chunk.iter().enumerate() {
            if *distance < threshold {
                nearest.push(run * RUN + at);
            } else if *distance == threshold && ties > 0 {
                ties -= 1;
                nearest.push(run * RUN + at);
            }
        }
    }
    nearest
}

#[cfg(test)]
mod tests;
