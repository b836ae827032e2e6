//! Reciprocal rank fusion: two rankings of messages made one, each message scoring
//! `1 / (60 + rank)` in each ranking it is in (rank 1 the best), the scores added. A message
//! both rankings place well comes first; one only a ranking found still takes its place.
//! k = 60 is the constant of the method's paper (Cormack, Clarke and Büttcher, 2009).

use std::collections::HashMap;
use std::hash::Hash;

/// The fusion's constant.
pub const K: f64 = 60.0;

/// Which ranking found a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoundBy {
    Words,
    Meaning,
    Both,
}

/// The two rankings fused, best first: each item with the rankings that had it. Ties keep
/// the words ranking's order, then the meaning ranking's.
pub fn fuse<T: Clone + Eq + Hash>(words: &[T], meaning: &[T]) -> Vec<(T, FoundBy)> {
    let mut scores: HashMap<T, (f64, FoundBy, usize)> = HashMap::new();
    for (rank, item) in words.iter().enumerate() {
        scores
            .entry(item.clone())
            .or_insert((1.0 / (K + rank as f64 + 1.0), FoundBy::Words, rank));
    }
    for (rank, item) in meaning.iter().enumerate() {
        let score = 1.0 / (K + rank as f64 + 1.0);
        let order = words.len() + rank;
        scores
            .entry(item.clone())
            .and_modify(|(sum, found, _)| {
                if *found == FoundBy::Words {
                    *sum += score;
                    *found = FoundBy::Both;
                }
            })
            .or_insert((score, FoundBy::Meaning, order));
    }
    let mut fused: Vec<_> = scores.into_iter().collect();
    fused.sort_by(|(_, (a, _, first_a)), (_, (b, _, first_b))| {
        b.total_cmp(a).then(first_a.cmp(first_b))
    });
    fused
        .into_iter()
        .map(|(item, (_, found, _))| (item, found))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_in_both_rankings_beats_the_first_of_either() {
        let fused = fuse(&["a", "b", "c"], &["x", "c", "y"]);
        assert_eq!(
            fused,
            [
                ("c", FoundBy::Both),
                ("a", FoundBy::Words),
                ("x", FoundBy::Meaning),
                ("b", FoundBy::Words),
                ("y", FoundBy::Meaning),
            ]
        );
    }

    #[test]
    fn one_empty_ranking_leaves_the_other_as_it_was() {
        assert_eq!(
            fuse::<&str>(&[], &["x", "y"]),
            [("x", FoundBy::Meaning), ("y", FoundBy::Meaning)]
        );
        assert_eq!(fuse(&["a"], &[]), [("a", FoundBy::Words)]);
    }
}
