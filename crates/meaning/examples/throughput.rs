//! `RAYON_NUM_THREADS=1 cargo run --release -p discord-manager-meaning --example throughput`:
//! embeddings per second on one thread, over the chat lines of the meaning evaluation set
//! (`benches/eval/meaning.json`, or the JSON file named, with `messages[].text`), three times
//! over after one warm-up, and recall@10 of meaning alone on its paraphrase queries (no words
//! search, no filters: the model's own share of the benchmark's figure).

use discord_manager_meaning::model::Encoder;
use discord_manager_meaning::scan::{Row, ScanFilter, ScanIndex};
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
    let encoder = Encoder::bundled().expect("the encoder");
    encoder.embed_one("warm up").expect("a vector");
    let started = std::time::Instant::now();
    let mut vectors = Vec::new();
    let rounds = 3;
    for _ in 0..rounds {
        vectors = texts
            .iter()
            .map(|text| encoder.embed_one(text).expect("a vector"))
            .collect();
    }
    let elapsed = started.elapsed().as_secs_f64();
    println!(
        "{} embeddings in {elapsed:.2} s: {:.0} per second",
        texts.len() * rounds,
        (texts.len() * rounds) as f64 / elapsed
    );
    let mut index = ScanIndex::new(encoder.identity().clone());
    for (key, vector) in vectors.iter().enumerate() {
        index.put(Row {
            key: key as i64,
            channel_id: "c".into(),
            author_id: "a".into(),
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
        channel_ids: vec!["c".into()],
        ..ScanFilter::default()
    };
    let (mut found, mut asked) = (0, 0);
    for query in set["queries"].as_array().expect("queries") {
        if query["kind"] != "paraphrase" {
            continue;
        }
        asked += 1;
        let vector = encoder
            .embed_one(query["text"].as_str().expect("text"))
            .expect("a vector");
        let hits = index
            .search(encoder.identity(), &vector, &filter, 10)
            .expect("a search");
        let mut answers = vec![query["target"].as_str().expect("target")];
        if let Some(alternates) = query["alternates"].as_array() {
            answers.extend(alternates.iter().filter_map(|a| a.as_str()));
        }
        if answers.contains(&ids[hits[0].key as usize]) && query["distractors"].as_array().is_some()
        {
            println!("first: {} {}", query["id"], query["text"]);
        }
        if hits
            .iter()
            .any(|hit| answers.contains(&ids[hit.key as usize]))
        {
            found += 1;
        }
    }
    println!("meaning alone: paraphrase recall@10 {found}/{asked}");
}
