//! `cargo run --release -p discord-manager-meaning --example throughput`: the encoder's speed
//! over the chat lines of the meaning evaluation set (`benches/eval/meaning.json`, or the
//! JSON file named, with `messages[].text`): messages per second embedded in batches of 64
//! (as the embedding pass does, on two cores) and one at a time, the question's embedding
//! p50 and p95, then recall@10 of meaning alone on its paraphrase queries (no words search,
//! no filters: the model's own share of the benchmark's figure).

use discord_manager_meaning::centre::Centre;
use discord_manager_meaning::model::Encoder;
use discord_manager_meaning::scan::{Row, ScanFilter, ScanIndex, rescore};
use discord_manager_meaning::vector::quantise;

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "benches/eval/meaning.json".into());
    let set: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("the set")).expect("JSON");
    let messages = set["messages"].as_array().expect("messages");
    let texts: Vec<&str> = messages
        .iter()
        .map(|m| m["text"].as_str().expect("text"))
        .collect();
    let loading = std::time::Instant::now();
    let encoder = Encoder::bundled().expect("the encoder");
    println!("loaded in {:.0} ms", loading.elapsed().as_secs_f64() * 1e3);
    encoder.embed_one("warm up").expect("a vector");
    let rounds = 3;
    let started = std::time::Instant::now();
    let mut vectors = Vec::new();
    for _ in 0..rounds {
        vectors = texts
            .chunks(64)
            .flat_map(|batch| encoder.embed_messages(batch).expect("vectors"))
            .collect();
    }
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "batches of 64: {} embeddings in {elapsed:.2} s: {:.0} per second",
        texts.len() * rounds,
        (texts.len() * rounds) as f64 / elapsed
    );
    let started = std::time::Instant::now();
    for text in &texts {
        encoder.embed_one(text).expect("a vector");
    }
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "one at a time: {} embeddings in {elapsed:.2} s: {:.0} per second",
        texts.len(),
        texts.len() as f64 / elapsed
    );
    let questions: Vec<&str> = set["queries"]
        .as_array()
        .expect("queries")
        .iter()
        .map(|query| query["text"].as_str().expect("text"))
        .collect();
    let mut times: Vec<f64> = questions
        .iter()
        .map(|question| {
            let started = std::time::Instant::now();
            encoder.embed_question(question).expect("a vector");
            started.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!(
        "question embedding over {} questions: p50 {:.1} ms, p95 {:.1} ms",
        times.len(),
        times[times.len() / 2],
        times[times.len() * 95 / 100]
    );
    let stored: Vec<Vec<u8>> = vectors
        .iter()
        .map(|vector| quantise(vector).expect("a vector"))
        .collect();
    let centre = Centre::of(stored.iter().map(Vec::as_slice)).expect("vectors");
    let mut index = ScanIndex::new(encoder.identity().clone(), centre.clone());
    for (key, vector) in vectors.iter().enumerate() {
        index.put(Row {
            key: key as i64,
            channel_id: id(1),
            author_id: id(2),
            arrived: 0,
            sent: 0,
            vector: quantise(vector).expect("a vector"),
        });
    }
    let ids: Vec<&str> = messages
        .iter()
        .map(|m| m["id"].as_str().expect("id"))
        .collect();
    let filter = ScanFilter {
        channel_ids: vec![id(1)],
        ..ScanFilter::default()
    };
    let (mut found, mut asked) = (0, 0);
    for query in set["queries"].as_array().expect("queries") {
        if query["kind"] != "paraphrase" {
            continue;
        }
        asked += 1;
        let vector = encoder
            .embed_question(query["text"].as_str().expect("text"))
            .expect("a vector");
        let candidates = index
            .candidates(encoder.identity(), &vector, &filter, 10)
            .expect("a search");
        let stored = candidates
            .into_iter()
            .map(|key| (key, quantise(&vectors[key as usize]).expect("a vector")));
        let hits = rescore(&vector, stored, 10);
        let mut answers = vec![query["target"].as_str().expect("target")];
        if let Some(alternates) = query["alternates"].as_array() {
            answers.extend(alternates.iter().filter_map(|a| a.as_str()));
        }
        if hits
            .iter()
            .any(|hit| answers.contains(&ids[hit.key as usize]))
        {
            found += 1;
        }
    }
    println!("meaning alone: paraphrase recall@10 {found}/{asked}");
    // The example search by meaning was asked to answer, in each language the set asks it in:
    // the rank of the decision (m034) among every message, by cosine.
    let decision = ids.iter().position(|id| *id == "m034");
    for query in set["queries"].as_array().expect("queries") {
        let (Some(decision), Some("m034")) = (decision, query["target"].as_str()) else {
            continue;
        };
        if query["kind"] == "exact" {
            continue;
        }
        let question = encoder
            .embed_question(query["text"].as_str().expect("text"))
            .expect("a vector");
        let cosine =
            |vector: &Vec<f32>| -> f32 { vector.iter().zip(&question).map(|(a, b)| a * b).sum() };
        let score = cosine(&vectors[decision]);
        let rank = 1 + vectors
            .iter()
            .filter(|vector| cosine(vector) > score)
            .count();
        println!(
            "{} ({}): m034 ranks {rank} of {}",
            query["id"].as_str().unwrap_or("?"),
            query["language"].as_str().unwrap_or("en"),
            vectors.len()
        );
    }
    scan_at(1_000_000, &encoder, &vectors, centre);
}

/// The scan over `size` stored vectors (the set's own, repeated with a little noise, in 50
/// channels), one question at a time over every channel: p50 and p95 of 50 searches for ten
/// results. The scan and the rescoring alone: no SQL filter, no read of the candidates'
/// vectors from a store (they are kept here in memory). The sign bits are taken less `centre`,
/// the centre of the set's own vectors, which the noisy copies share.
fn scan_at(size: usize, encoder: &Encoder, vectors: &[Vec<f32>], centre: Centre) {
    let mut index = ScanIndex::new(encoder.identity().clone(), centre);
    let mut stored = Vec::with_capacity(size);
    let mut noise = 0x2545_f491_4f6c_dd1d_u64;
    for key in 0..size {
        let base = &vectors[key % vectors.len()];
        let noisy: Vec<f32> = base
            .iter()
            .map(|x| {
                noise ^= noise << 13;
                noise ^= noise >> 7;
                noise ^= noise << 17;
                x + ((noise % 1000) as f32 / 1000.0 - 0.5) * 0.05
            })
            .collect();
        let vector = quantise(&noisy).expect("a vector");
        stored.push(vector.clone());
        index.put(Row {
            key: key as i64,
            channel_id: id(1 + key as u64 % 50),
            author_id: id(2),
            arrived: key as i64,
            sent: key as i64,
            vector,
        });
    }
    let filter = ScanFilter {
        channel_ids: (1..=50).map(id).collect(),
        ..ScanFilter::default()
    };
    let mut timings: Vec<f64> = (0..50)
        .map(|n| {
            let question = &vectors[(n * 7) % vectors.len()];
            let started = std::time::Instant::now();
            let candidates = index
                .candidates(encoder.identity(), question, &filter, 10)
                .expect("a search");
            let found = rescore(
                question,
                candidates
                    .into_iter()
                    .map(|key| (key, stored[key as usize].clone())),
                10,
            );
            assert_eq!(found.len(), 10);
            started.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    timings.sort_by(f64::total_cmp);
    println!(
        "scan of {size} vectors for 10 results: p50 {:.2} ms, p95 {:.2} ms",
        timings[timings.len() / 2],
        timings[timings.len() * 95 / 100]
    );
}

/// The id numbered `number` (not zero), of whichever kind is wanted.
fn id<Id: std::str::FromStr>(number: u64) -> Id {
    match number.to_string().parse() {
        Ok(id) => id,
        Err(_) => panic!("{number} is an id"),
    }
}
