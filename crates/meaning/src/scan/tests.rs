//! Unit tests of `scan`, kept beside it so the production file reads on its own.

use super::*;
use crate::vector::{quantise, sign_code};

/// A unit vector along coordinate `axis`, tilted a little towards `axis + 1`.
fn towards(axis: usize, tilt: f32) -> Vec<f32> {
    let mut vector = vec![0.01; DIMENSIONS];
    vector[axis] = 1.0;
    vector[axis + 1] = tilt;
    let length = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    vector.into_iter().map(|x| x / length).collect()
}

/// 2026-05-28T20:26:40Z, in microseconds: the test rows' times count seconds from it.
const T0: i64 = 1_780_000_000_000_000;

/// `seconds` after [`T0`], in microseconds.
fn at(seconds: i64) -> i64 {
    T0 + seconds * 1_000_000
}

fn row(key: i64, channel: &str, author: &str, seconds: i64, vector: &[f32]) -> Row {
    Row {
        key,
        channel_id: channel.parse().unwrap(),
        author_id: author.parse().unwrap(),
        arrived: at(seconds),
        sent: at(seconds),
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
            index: ScanIndex::new(Identity::bundled(), Centre::none()),
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

/// The keys `filter` lets through of `index`, closest to axis 0 first.
fn filtered(index: &Indexed, filter: ScanFilter) -> Vec<i64> {
    let query = towards(0, 0.0);
    keys(
        &index
            .search(&Identity::bundled(), &query, &filter, 10)
            .expect("a search"),
    )
}

#[test]
fn author_and_time_filters_hold_inside_the_scan_both_sides_of_each_bound() {
    let index = index();
    let search = |filter: ScanFilter| filtered(&index, filter);
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
    let arrived = |start: i64, end: i64| ScanFilter {
        arrived: (Some(start), Some(end)),
        ..everywhere()
    };
    assert_eq!(search(arrived(at(200), at(400))), [3, 2]);
    assert_eq!(search(arrived(at(200) + 1, at(400) + 1)), [3, 2, 4]);
    let sent_from = |start: i64| ScanFilter {
        sent: (Some(start), None),
        ..everywhere()
    };
    assert_eq!(search(sent_from(at(201))), [3, 4]);
    assert_eq!(search(sent_from(at(200))), [3, 2, 4]);
}

#[test]
fn within_a_bounds_second_the_scan_admits_and_leaves_the_exact_bound_to_the_store() {
    let index = index();
    let search = |filter: ScanFilter| filtered(&index, filter);
    // Message 2 arrived at 200 s exactly: a start half a second later, or an end a
    // microsecond after it, are within its second, and the scan keeps it for the store to
    // judge; a start a second later, or an end at it, leave it out.
    let arrived = |start: Option<i64>, end: Option<i64>| ScanFilter {
        arrived: (start, end),
        ..everywhere()
    };
    assert_eq!(search(arrived(Some(at(200) + 500_000), None)), [3, 2, 4]);
    assert_eq!(search(arrived(Some(at(201)), None)), [3, 4]);
    assert_eq!(search(arrived(None, Some(at(200) + 1))), [1, 2]);
    assert_eq!(search(arrived(None, Some(at(200)))), [1]);
}

#[test]
fn the_scans_seconds_count_from_discords_epoch_and_hold_at_both_ends() {
    let epoch = DISCORD_EPOCH_SECONDS * 1_000_000;
    assert_eq!(second_of(epoch), 0);
    assert_eq!(second_of(epoch - 1), 0);
    assert_eq!(second_of(i64::MIN), 0);
    assert_eq!(second_of(epoch + 1_999_999), 1);
    assert_eq!(second_of(at(0)), 359_929_600);
    assert_eq!(second_of(i64::MAX), u32::MAX);
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
    // The others keep their own vectors and filters.
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
            .starts_with("These vectors were made by multilingual-e5-small-q4/v1 and the question by another/model-v2"),
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
fn the_nearest_slots_are_found_in_every_run_of_distances_the_pass_skips_over() {
    // 100 slots far away but for the first and last of a run, a run's middle, and a slot of
    // the short last run; ties at the threshold span two runs.
    let mut distances = vec![200u16; 100];
    for (slot, distance) in [(0, 9), (31, 4), (32, 5), (47, 5), (63, 5), (99, 1)] {
        distances[slot] = distance;
    }
    distances[64] = EXCLUDED;
    let histogram = measured(&distances);
    assert_eq!(nearest_slots(&distances, &histogram, 2), vec![31, 99]);
    assert_eq!(
        nearest_slots(&distances, &histogram, 4),
        vec![31, 32, 47, 99]
    );
    assert_eq!(
        nearest_slots(&distances, &histogram, 6),
        vec![0, 31, 32, 47, 63, 99]
    );
    // Past them, the far slots in slot order; the one left out, never.
    let all = nearest_slots(&distances, &histogram, 99);
    assert_eq!(all.len(), 99);
    assert!(!all.contains(&64));
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
    measure(&codes, &code, &admits, 0, &mut distances, &mut histogram);
    assert_eq!(distances, expected);
    assert_eq!((histogram[1], histogram[2]), (2, 1));
    let mut portable = vec![EXCLUDED; codes.len()];
    let mut portable_histogram = [0; DIMENSIONS + 1];
    measure_portably(
        &codes,
        &code,
        &admits,
        0,
        &mut portable,
        &mut portable_histogram,
    );
    assert_eq!(portable, expected);
    assert_eq!(portable_histogram, histogram);
}

#[test]
fn a_scan_split_over_threads_measures_every_slot_as_one_thread_does() {
    // Codes from a fixed generator, past the size a scan is split from and not a multiple of
    // the runs, so each run's offset and the short last run are both exercised.
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let codes: Vec<[u64; CODE_WORDS]> = (0..SPLIT_FROM * 2 + 333)
        .map(|_| std::array::from_fn(|_| next()))
        .collect();
    let code: [u64; CODE_WORDS] = std::array::from_fn(|_| next());
    // Every seventh slot is left out, including the first and last of some run.
    let admits = |slot: usize| slot % 7 != 3;
    let mut alone = vec![EXCLUDED; codes.len()];
    let mut alone_counts = [0; DIMENSIONS + 1];
    measure(&codes, &code, &admits, 0, &mut alone, &mut alone_counts);
    assert_eq!(
        alone_counts.iter().sum::<usize>(),
        codes.len() - codes.len().div_ceil(7) + 1
    );
    for parts in 1..=MOST_PARTS {
        let mut split = vec![EXCLUDED; codes.len()];
        let counts = measure_split(&codes, &code, &admits, &mut split, parts);
        assert_eq!(split, alone, "{parts} parts");
        assert_eq!(counts, alone_counts, "{parts} parts");
    }
    // A small index is measured on one thread whatever the parts.
    let few = &codes[..100];
    let mut split = vec![EXCLUDED; few.len()];
    let counts = measure_split(few, &code, &admits, &mut split, 4);
    assert_eq!(split, alone[..100]);
    assert_eq!(counts, measured(&alone[..100]));
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

#[test]
fn slots_put_out_of_key_order_are_found_again_before_and_after_the_index_sorts_them() {
    let mut index = Indexed::new();
    // Newest first, as the embedding pass walks: past the tail's bound, so the index sorts.
    let count = (TAIL + 1_000) as i64;
    for key in (1..=count).rev() {
        let axis = (key % 300) as usize;
        index.put(row(key, "11", "20", key, &towards(axis, 0.0)));
    }
    assert_eq!(index.len(), count as usize);
    assert!(index.index.tail.len() < TAIL, "{}", index.index.tail.len());
    // Each key still has one slot: putting it again moves it, and emptying it removes it.
    index.put(row(7, "11", "20", 7, &towards(350, 0.0)));
    index.put(row(count, "11", "20", count, &towards(350, 0.0)));
    index.put(Row {
        vector: Vec::new(),
        ..row(301, "11", "20", 301, &towards(1, 0.0))
    });
    assert_eq!(index.len(), count as usize - 1);
    let found = index
        .search(&Identity::bundled(), &towards(350, 0.0), &everywhere(), 2)
        .expect("a search");
    assert_eq!(keys(&found), [7, count]);
    // Message 301 was the nearest to axis 1 with 1 and 601..; it is gone, the others are not.
    let found = index
        .search(&Identity::bundled(), &towards(1, 0.0), &everywhere(), 3)
        .expect("a search");
    assert!(!keys(&found).contains(&301), "{found:?}");
    assert_eq!(found.len(), 3);
    // A revived message takes its slot back.
    index.put(row(301, "11", "20", 301, &towards(351, 0.0)));
    assert_eq!(index.len(), count as usize);
    let found = index
        .search(&Identity::bundled(), &towards(351, 0.0), &everywhere(), 1)
        .expect("a search");
    assert_eq!(keys(&found), [301]);
}

/// The columns the index keeps, to compare two indexes.
fn columns(index: &ScanIndex) -> impl PartialEq + std::fmt::Debug {
    (
        index.keys.clone(),
        index.codes.clone(),
        index.channels.clone(),
        index.authors.clone(),
        index.arrived.clone(),
        index.sent.clone(),
        index.sorted,
        index.len(),
    )
}

#[test]
fn a_block_appended_column_by_column_is_the_index_its_slots_put_one_by_one_make() {
    use crate::blocks::CodeBlock;
    let first = vec![
        row(5, "11", "20", 100, &towards(0, 0.0)),
        row(9, "12", "21", 90, &towards(1, 0.2)),
        row(4_000, "11", "22", 300, &towards(2, 0.0)),
    ];
    let second = vec![
        row(4_100, "13", "21", 400, &towards(3, 0.1)),
        row(4_200, "12", "20", 500, &towards(0, 0.3)),
    ];
    let column_of = |number, rows: &[Row]| {
        CodeBlock::from_rows(number, &Centre::none(), rows.to_vec())
            .expect("a block")
            .columns()
    };
    let mut by_block = ScanIndex::new(Identity::bundled(), Centre::none());
    by_block.put_columns(column_of(0, &first)).unwrap();
    by_block.put_columns(column_of(1, &second)).unwrap();
    let mut by_slot = ScanIndex::new(Identity::bundled(), Centre::none());
    for row in first.iter().chain(&second) {
        assert!(by_slot.put(row.clone()));
    }
    assert_eq!(columns(&by_block), columns(&by_slot));
    assert_eq!(by_block.len(), 5);
    // The channels and authors were numbered alike: a filter reads them the same.
    let author: UserId = "21".parse().unwrap();
    let filter = ScanFilter {
        author_id: Some(author),
        ..everywhere()
    };
    let query = towards(1, 0.2);
    let found = by_block
        .candidates(&Identity::bundled(), &query, &filter, 10)
        .unwrap();
    assert_eq!(found, [9, 4_100]);
    assert_eq!(
        by_slot
            .candidates(&Identity::bundled(), &query, &filter, 10)
            .unwrap(),
        found
    );
}

#[test]
fn a_block_before_the_last_slot_is_put_slot_by_slot_and_replaces_what_it_holds() {
    use crate::blocks::CodeBlock;
    let mut index = ScanIndex::new(Identity::bundled(), Centre::none());
    index
        .put_columns(
            CodeBlock::from_rows(
                1,
                &Centre::none(),
                [row(4_100, "13", "21", 400, &towards(3, 0.1))],
            )
            .unwrap()
            .columns(),
        )
        .unwrap();
    // Block 0 after block 1: out of order, so its slots go through the tail.
    let older = [
        row(5, "11", "20", 100, &towards(0, 0.0)),
        row(4_095, "12", "20", 200, &towards(1, 0.0)),
    ];
    index
        .put_columns(
            CodeBlock::from_rows(0, &Centre::none(), older.clone())
                .unwrap()
                .columns(),
        )
        .unwrap();
    assert_eq!(index.len(), 3);
    assert_eq!(index.sorted, 1);
    assert_eq!(index.find(5), Some(1));
    assert_eq!(index.find(4_095), Some(2));
    // The same block again, one message's vector changed: replaced, not added.
    let changed = [
        older[0].clone(),
        row(4_095, "12", "20", 200, &towards(7, 0.0)),
    ];
    let new_code = Slot::of(&changed[1], &Centre::none()).unwrap().code;
    assert_ne!(index.codes[2], new_code);
    index
        .put_columns(
            CodeBlock::from_rows(0, &Centre::none(), changed)
                .unwrap()
                .columns(),
        )
        .unwrap();
    assert_eq!(index.len(), 3);
    assert_eq!(index.keys, [4_100, 5, 4_095]);
    assert_eq!(index.codes[2], new_code);
}

/// A vector of [`DIMENSIONS`] coordinates: `first` at coordinate 0, `-0.01` at the next
/// `disagreeing`, 0.01 at the rest.
fn leaning(first: f32, disagreeing: usize) -> Vec<f32> {
    (0..DIMENSIONS)
        .map(|at| match at {
            0 => first,
            at if at <= disagreeing => -0.01,
            _ => 0.01,
        })
        .collect()
}

#[test]
fn the_questions_coordinates_against_the_sign_bits_are_summed_as_each_bit_says() {
    let query: Vec<f32> = (0..DIMENSIONS)
        .map(|at| ((at * 37 % 101) as f32 - 50.0) / 100.0)
        .collect();
    let ranking = SignRanking::of(&query);
    for seed in 0..4usize {
        let vector: Vec<f32> = (0..DIMENSIONS)
            .map(|at| ((at * 13 + seed * 7) % 17) as f32 - 8.0)
            .collect();
        let code = sign_code(&coordinates(&quantise(&vector).unwrap()).unwrap());
        let expected: f32 = query
            .iter()
            .zip(&vector)
            .map(|(q, x)| if *x > 0.0 { *q } else { -*q })
            .sum();
        let score = ranking.score(&code);
        assert!(
            (score - expected).abs() < 1e-3,
            "{score} against {expected}"
        );
    }
}

#[test]
fn a_slot_the_sign_bits_distance_puts_behind_a_thousand_others_is_found_by_the_questions_coordinates()
 {
    // The question leans on coordinate 0. A thousand slots disagree with it there alone (one
    // sign bit away); message 1 agrees there and disagrees on three small coordinates (three
    // bits away), yet it is by far the closest. Ranked by sign bits alone, the thousand would
    // fill the candidates and leave it out.
    let mut index = Indexed::new();
    for key in 10..1_010 {
        index.put(row(key, "11", "20", key, &leaning(-0.01, 0)));
    }
    index.put(row(1, "11", "20", 1, &leaning(1.0, 3)));
    let query = leaning(1.0, 0);
    let candidates = index
        .index
        .candidates(&Identity::bundled(), &query, &everywhere(), 1)
        .unwrap();
    assert_eq!(candidates.len(), MIN_CANDIDATES);
    assert!(candidates.contains(&1), "{:?}", &candidates[..10]);
    let found = index
        .search(&Identity::bundled(), &query, &everywhere(), 1)
        .unwrap();
    assert_eq!(keys(&found), [1]);
}

/// A unit vector of a part every vector shares (0.5 on every coordinate) and a part of its own
/// drawn from `seed`: -0.2 on about `negative_in_four` quarters of the coordinates, 0.2 on the
/// rest. Its own part never changes a sign, so every such vector has the same sign bits of its
/// own.
fn shared_and_own(seed: u64, negative_in_four: u64) -> Vec<f32> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let vector: Vec<f32> = (0..DIMENSIONS)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            0.5 + if state % 4 < negative_in_four {
                -0.2
            } else {
                0.2
            }
        })
        .collect();
    let length = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    vector.into_iter().map(|x| x / length).collect()
}

#[test]
fn sign_bits_taken_less_the_centre_find_the_nearest_of_vectors_that_share_a_large_part() {
    // 9,000 messages whose vectors share a large part, each with its own part negative on
    // about half the coordinates; the question is message 9,000's own vector, put last, whose
    // own part is negative on about three quarters. Uncentred, every slot has the same sign
    // bits: the shortlist is the first 8,000 slots and leaves it out. Less the centre, the
    // slots' sign bits are their own parts', and so must the question's be: its own bits
    // (all set) would put message 9,000, with the most bits unset, farthest of all.
    let rows: Vec<Row> = (1..=9_000)
        .map(|key| {
            let negative = if key == 9_000 { 3 } else { 2 };
            row(key, "11", "20", key, &shared_and_own(key as u64, negative))
        })
        .collect();
    let centre = Centre::of(rows.iter().map(|row| row.vector.as_slice())).expect("vectors");
    let query = shared_and_own(9_000, 3);
    let found = |centre: Centre| {
        let mut index = ScanIndex::new(Identity::bundled(), centre);
        for row in &rows {
            index.put(row.clone());
        }
        index
            .candidates(&Identity::bundled(), &query, &everywhere(), 1)
            .unwrap()
    };
    let uncentred = found(Centre::none());
    assert_eq!(uncentred.len(), MIN_CANDIDATES);
    assert!(!uncentred.contains(&9_000));
    let centred = found(centre);
    assert_eq!(centred.len(), MIN_CANDIDATES);
    assert!(centred.contains(&9_000), "{:?}", &centred[..10]);
}

#[test]
fn a_block_built_with_another_centre_is_refused_by_the_index() {
    use crate::blocks::CodeBlock;
    let rows = [row(5, "11", "20", 100, &towards(0, 0.0))];
    let centre = Centre::of([rows[0].vector.as_slice()]).expect("a vector");
    let mut index = ScanIndex::new(Identity::bundled(), Centre::none());
    let refusal = index
        .put_columns(
            CodeBlock::from_rows(0, &centre, rows.clone())
                .unwrap()
                .columns(),
        )
        .expect_err("another centre");
    assert_eq!(
        refusal.message(),
        "A block of the meaning index was built with another centre than the index"
    );
    assert!(index.is_empty());
    index
        .put_columns(
            CodeBlock::from_rows(0, &Centre::none(), rows)
                .unwrap()
                .columns(),
        )
        .unwrap();
    assert_eq!(index.len(), 1);
}
