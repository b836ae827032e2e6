//! `messages_search` in each mode on a generated store: words, meaning and both, asked the
//! meaning evaluation set's questions in the owner's words (issue 26's figures).
//!
//! The store's messages get stand-in vectors first (`discord_manager_synthetic::
//! stand_in_meanings`): the evaluation set's chat lines embedded by the bundled model, with
//! noise. Embedding every generated message would take hours at 1M, and the scan's cost does
//! not depend on what the vectors say. Each call embeds its question, as the owner's would.
//! The first call of a process loads the vectors (reported apart); the rest are timed.

use std::path::Path;
use std::time::{Duration, Instant as Stopwatch};

use discord_manager_core::registry::Services;
use discord_manager_meaning::model::Encoder;
use discord_manager_store::Store;
use discord_manager_synthetic::stand_in_meanings::write_stand_in_meanings;
use serde_json::{Value, json};

use super::{Repeat, Samples, call, round3};

/// The modes measured, in the order reported.
pub const MODES: [&str; 3] = ["words", "meaning", "both"];

/// The evaluation set, as the repository holds it.
fn evaluation_set() -> Result<Value, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/eval/meaning.json");
    let text = std::fs::read_to_string(&path).map_err(|error| format!("{path:?}: {error}"))?;
    serde_json::from_str(&text).map_err(|error| format!("{path:?}: {error}"))
}

/// The texts of one list of the evaluation set (`messages` or `queries`).
fn texts(set: &Value, list: &str) -> Vec<String> {
    set[list]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item["text"].as_str().map(str::to_string))
        .collect()
}

/// The questions the owner asks in the evaluation set.
pub fn questions() -> Result<Vec<String>, String> {
    Ok(texts(&evaluation_set()?, "queries"))
}

/// The evaluation set's chat lines, embedded by the bundled model: the bases of the stand-in
/// vectors.
pub fn embedded_chat_lines() -> Result<Vec<Vec<f32>>, String> {
    let lines = texts(&evaluation_set()?, "messages");
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let encoder = Encoder::bundled().map_err(|error| error.message().to_string())?;
    encoder
        .embed_messages(&lines)
        .map_err(|error| error.message().to_string())
}

/// Gives every message of the store at `path` without a vector a stand-in made from `bases`:
/// how many were written, and how long it took.
pub fn write_vectors(path: &Path, bases: &[Vec<f32>]) -> Result<(usize, Duration), String> {
    let started = Stopwatch::now();
    let store = Store::open_as(path, super::page_compression())
        .map_err(|error| error.message().to_string())?;
    let written =
        write_stand_in_meanings(&store, bases).map_err(|error| error.message().to_string())?;
    Ok((written, started.elapsed()))
}

/// Each mode's first call (which loads the vectors, for meaning and both) and its timed
/// calls, the questions taken in turn, with `limit` 10; the result counts are summed, so a
/// mode that found nothing shows it.
pub fn measure(
    runtime: &tokio::runtime::Runtime,
    services: &Services,
    repeat: Repeat,
    questions: &[String],
) -> Result<Value, String> {
    let mut figures = serde_json::Map::new();
    for mode in MODES {
        let mut asked = 0;
        let mut results = 0;
        let mut ask = || {
            let question = &questions[asked % questions.len()];
            asked += 1;
            let answer = call(
                runtime,
                services,
                "messages_search",
                &json!({"query": question, "mode": mode, "limit": 10}),
            )?;
            results += answer["results"].as_array().map_or(0, Vec::len);
            Ok::<_, String>(())
        };
        let first = Stopwatch::now();
        ask()?;
        let first = first.elapsed();
        let samples: Samples = super::measure(repeat, &mut ask)?;
        let mut record = samples.to_json();
        record["firstCallMs"] = json!(round3(first.as_secs_f64() * 1_000.0));
        record["questions"] = json!(asked);
        record["results"] = json!(results);
        figures.insert(mode.to_string(), record);
    }
    Ok(Value::Object(figures))
}
