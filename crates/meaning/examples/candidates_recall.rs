//! `cargo run --release -p discord-manager-meaning --example candidates_recall [sentences]`
//! (default 10,000): how many of the exact ten the scan's candidates keep, on real sentences.
//!
//! The sentences are the meaning evaluation set's chat lines (`benches/eval/meaning.json`) and
//! then doc comments (`///` lines of 40 to 300 characters) of the crate sources cargo has
//! unpacked under `$CARGO_HOME/registry/src` (build the workspace first), in a fixed shuffled
//! order, up to the number asked. Each is embedded by the bundled model as a message, each of
//! the set's questions as a question. For every question, the exact ten are taken by cosine
//! over every stored vector, then the scan's candidates ([`ScanIndex::candidates`], with the
//! product's shortlist and candidate counts) are taken three ways: uncentred sign bits, sign
//! bits less the mean of every vector, and less the mean of 1,000 spread evenly (as the
//! embedding pass takes it, from fewer). It prints how many of the exact ten (and of the exact
//! first) each kept. Embedding takes about 2.5 minutes per 10,000 sentences on two cores.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use discord_manager_meaning::centre::Centre;
use discord_manager_meaning::model::{Encoder, Identity};
use discord_manager_meaning::scan::{Row, ScanFilter, ScanIndex, rescore};
use discord_manager_meaning::vector::quantise;
use discord_manager_vocabulary::snowflake::{ChannelId, UserId};

fn main() {
    let wanted: usize = std::env::args()
        .nth(1)
        .and_then(|count| count.parse().ok())
        .unwrap_or(10_000);
    let set: serde_json::Value =
        serde_json::from_str(include_str!("../../../benches/eval/meaning.json")).expect("JSON");
    let texts = |list: &str| -> Vec<String> {
        set[list]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|item| item["text"].as_str().map(str::to_string))
            .collect()
    };
    let mut sentences = texts("messages");
    let mut seen: HashSet<String> = sentences.iter().cloned().collect();
    for sentence in doc_comments() {
        if sentences.len() >= wanted {
            break;
        }
        if seen.insert(sentence.clone()) {
            sentences.push(sentence);
        }
    }
    let questions = texts("queries");
    println!(
        "{} sentences ({} asked), {} questions",
        sentences.len(),
        wanted,
        questions.len()
    );

    let encoder = Encoder::bundled().expect("the encoder");
    let started = std::time::Instant::now();
    let stored: Vec<Vec<u8>> = sentences
        .chunks(64)
        .flat_map(|batch| {
            let batch: Vec<&str> = batch.iter().map(String::as_str).collect();
            encoder.embed_messages(&batch).expect("vectors")
        })
        .map(|vector| quantise(&vector).expect("a vector"))
        .collect();
    println!(
        "embedded in {:.0} s",
        started.elapsed().as_secs_f64().round()
    );
    let asked: Vec<Vec<f32>> = questions
        .iter()
        .map(|question| encoder.embed_question(question).expect("a vector"))
        .collect();

    let keyed = || {
        stored
            .iter()
            .enumerate()
            .map(|(key, v)| (key as i64, v.clone()))
    };
    let exact: Vec<Vec<i64>> = asked
        .iter()
        .map(|question| {
            rescore(question, keyed(), 10)
                .into_iter()
                .map(|neighbour| neighbour.key)
                .collect()
        })
        .collect();

    let every = Centre::of(stored.iter().map(Vec::as_slice)).expect("vectors");
    let spread = Centre::of(
        (0..1_000)
            .map(|n| stored[n * stored.len() / 1_000].as_slice())
            .take(stored.len()),
    )
    .expect("vectors");
    for (name, centre) in [
        ("uncentred", Centre::none()),
        ("less the mean of all", every),
        ("less the mean of 1,000 spread evenly", spread),
    ] {
        let (kept, first) = kept(encoder.identity(), centre, &stored, &asked, &exact);
        println!(
            "{name}: kept {kept} of the exact ten ({}), the exact first {first} ({})",
            exact.len() * 10,
            exact.len()
        );
    }
}

/// How many of the exact ten, and of the exact firsts, the scan's candidates keep with sign
/// bits less `centre`.
fn kept(
    identity: &Identity,
    centre: Centre,
    stored: &[Vec<u8>],
    asked: &[Vec<f32>],
    exact: &[Vec<i64>],
) -> (usize, usize) {
    let channel = ChannelId::from_u64(1).expect("an id");
    let mut index = ScanIndex::new(identity.clone(), centre);
    index.reserve(stored.len());
    for (key, vector) in stored.iter().enumerate() {
        index.put(Row {
            key: key as i64,
            channel_id: channel,
            author_id: UserId::from_u64(2).expect("an id"),
            arrived: 0,
            sent: 0,
            vector: vector.clone(),
        });
    }
    let filter = ScanFilter {
        channel_ids: vec![channel],
        ..ScanFilter::default()
    };
    let (mut kept, mut first) = (0, 0);
    for (question, exact) in asked.iter().zip(exact) {
        let candidates: HashSet<i64> = index
            .candidates(identity, question, &filter, 10)
            .expect("a search")
            .into_iter()
            .collect();
        kept += exact.iter().filter(|key| candidates.contains(key)).count();
        first += usize::from(exact.first().is_some_and(|key| candidates.contains(key)));
    }
    (kept, first)
}

/// Doc comments of the crate sources cargo has unpacked, in a fixed shuffled order.
fn doc_comments() -> Vec<String> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")))
        .expect("CARGO_HOME or HOME");
    let mut files = Vec::new();
    let registry = home.join("registry").join("src");
    for index in read_dir(&registry) {
        for krate in read_dir(&index) {
            sources(&krate.join("src"), &mut files);
        }
    }
    files.sort();
    let mut lines = Vec::new();
    let mut seen = HashSet::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for line in text.lines() {
            let Some(comment) = line.trim_start().strip_prefix("///") else {
                continue;
            };
            let comment = comment.trim();
            let length = comment.chars().count();
            if (40..=300).contains(&length)
                && !comment.starts_with(['#', '`', '|', '-', '*'])
                && seen.insert(comment.to_string())
            {
                lines.push(comment.to_string());
            }
        }
    }
    // Fisher-Yates with a fixed xorshift: the same order on every run over the same sources.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for at in (1..lines.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        lines.swap(at, (state % (at as u64 + 1)) as usize);
    }
    lines
}

fn read_dir(folder: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    entries.sort();
    entries
}

/// Every `.rs` file under `folder`.
fn sources(folder: &Path, files: &mut Vec<PathBuf>) {
    for path in read_dir(folder) {
        if path.is_dir() {
            sources(&path, files);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
}
