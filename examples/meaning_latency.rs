//! A measurement, not a test: `messages_search` by meaning and by both on a generated store,
//! in-process through the registry (as the store benchmark calls every reader), p50 and p95.
//!
//! `cargo run --release --example meaning_latency -- 100000`: generates the store (the
//! benchmark's generator), then gives every message a vector made from the meaning evaluation
//! set's chat lines with noise (embedding 100k real messages would take a quarter of an hour;
//! the scan's cost does not depend on what the vectors say), then times 50 questions in each
//! mode after one that loads the index. It prints the figures; it asserts nothing.

#[path = "../benches/support/mod.rs"]
mod support;

use std::time::Instant as Stopwatch;

use discord_manager_meaning::model::Encoder;
use discord_manager_meaning::vector::quantise;
use discord_manager_store::Store;
use discord_manager_synthetic::Plan;
use discord_manager_vocabulary::instant::Instant;
use serde_json::{Value, json};

fn main() {
    let messages: u64 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    let folder = tempfile::tempdir().expect("a folder");
    let path = folder.path().join("meaning.sqlite3");
    let store = Store::open(&path).expect("the store opens");
    let plan = Plan {
        messages,
        seed: 1,
        messages_per_day: 2_000,
        batch: 64,
        end: Instant::now(),
    };
    let started = Stopwatch::now();
    discord_manager_synthetic::build(&store, &plan).expect("the generator runs");
    eprintln!(
        "generated {messages} messages in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    let set: Value = serde_json::from_str(
        &std::fs::read_to_string("benches/eval/meaning.json").expect("the evaluation set"),
    )
    .expect("JSON");
    let lines: Vec<&str> = set["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|message| message["text"].as_str().expect("text"))
        .collect();
    let encoder = Encoder::bundled().expect("the encoder");
    let vectors = encoder.embed(&lines).expect("vectors");
    let started = Stopwatch::now();
    let model = store
        .write(|writer| writer.meaning_model(encoder.identity().as_str()))
        .expect("the model");
    let mut noise = 0x2545_f491_4f6c_dd1d_u64;
    let mut after = 0;
    loop {
        let keys = store
            .read(|reader| reader.unembedded_messages(model, after, 10_000))
            .expect("keys");
        let Some(last) = keys.last() else { break };
        after = *last;
        store
            .write(|writer| {
                for key in &keys {
                    let base = &vectors[*key as usize % vectors.len()];
                    let noisy: Vec<f32> = base
                        .iter()
                        .map(|x| {
                            noise ^= noise << 13;
                            noise ^= noise >> 7;
                            noise ^= noise << 17;
                            x + ((noise % 1000) as f32 / 1000.0 - 0.5) * 0.05
                        })
                        .collect();
                    writer.put_meaning(*key, model, 0, &quantise(&noisy)?)?;
                }
                Ok(())
            })
            .expect("vectors written");
    }
    eprintln!(
        "wrote the vectors in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    eprintln!("store: {size} bytes");
    drop(store);
    let services = support::services(&path);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let questions: Vec<&str> = set["queries"]
        .as_array()
        .expect("queries")
        .iter()
        .map(|query| query["text"].as_str().expect("text"))
        .collect();
    for mode in ["meaning", "both"] {
        let ask = |question: &str| {
            let started = Stopwatch::now();
            let answer = support::call(
                &runtime,
                &services,
                "messages_search",
                &json!({"query": question, "mode": mode, "limit": 10}),
            )
            .expect("an answer");
            assert!(!answer["results"].as_array().expect("results").is_empty());
            started.elapsed().as_secs_f64() * 1000.0
        };
        let first = ask(questions[0]);
        let mut timings: Vec<f64> = questions.iter().skip(1).take(50).map(|q| ask(q)).collect();
        timings.sort_by(f64::total_cmp);
        println!(
            "{messages} messages, mode {mode}: first call (loads the index) {first:.0} ms; \
             then p50 {:.2} ms, p95 {:.2} ms",
            timings[timings.len() / 2],
            timings[timings.len() * 95 / 100]
        );
    }
}
