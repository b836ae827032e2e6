//! `cargo bench --bench meaning`: how well search finds what the owner meant, on the meaning
//! evaluation set (`benches/eval/meaning.json`, rules in docs/performance.md, "Meaning: the
//! evaluation set").
//!
//! It builds the set's store through the real recorders in a temporary folder, sends every
//! query to `messages_search` through the registry, exactly as typed, and prints recall@10
//! (the query's target, or an acceptable alternate, among the first ten results) for the
//! paraphrase queries and the exact ones, per search mode, as a Markdown table, with how many
//! paraphrase queries were answered by their first result, how many of those with a
//! distractor (a message sharing their words, not their meaning) ranked one above every
//! answer, and how many found nothing at all, then which queries a distractor won and the
//! exact queries each mode missed: words
//! (full-text search, the default), meaning (the bundled sentence model over every message's
//! vector, which the store's build makes as the ingest daemon would) and both (the two
//! rankings fused). Recall is a count, not a timing: it is the same on every machine with the
//! same model. Then the translated queries, asked in another language than their target is
//! written in, recall@10 per language asked in and per mode.

#[path = "eval/mod.rs"]
mod eval;

use eval::{QueryKind, Recall};
use serde_json::json;

fn main() {
    let set = eval::load().unwrap_or_else(|error| panic!("{error}"));
    let built = set
        .build_in_temporary_folder()
        .unwrap_or_else(|error| panic!("{error}"));
    let (runtime, services) = (&built.runtime, &built.services);
    eprintln!(
        "bench: meaning set of {} messages, {} queries",
        set.messages.len(),
        set.queries.len()
    );
    // Each mode: its name, and what it adds to every query's arguments.
    let modes = [
        ("words (the default)", json!({})),
        ("meaning", json!({"mode": "meaning"})),
        ("both", json!({"mode": "both"})),
    ];
    println!(
        "| mode | paraphrase recall@{top} | paraphrase answered first | distractor above the answer | exact recall@{top} | paraphrases with no result |",
        top = eval::TOP
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let mut misses = Vec::new();
    for (mode, arguments) in &modes {
        let measure = |kind| {
            eval::recall(&set, runtime, services, kind, arguments)
                .unwrap_or_else(|error| panic!("{mode}: {error}"))
        };
        let paraphrase = measure(QueryKind::Paraphrase);
        let exact = measure(QueryKind::Exact);
        println!(
            "| {mode} | {} | {} | {} of {} | {} | {} |",
            cell(&paraphrase),
            paraphrase.first,
            paraphrase.distracted.len(),
            paraphrase.with_distractors,
            cell(&exact),
            paraphrase.empty
        );
        misses.push((mode, exact, paraphrase.distracted));
    }
    // Translated queries, by the language asked in: English questions for messages in other
    // languages are the `en` row.
    let mut languages: Vec<&str> = set
        .queries
        .iter()
        .filter(|query| query.kind == QueryKind::Translated)
        .map(|query| query.language())
        .collect();
    languages.sort_unstable();
    languages.dedup();
    println!();
    println!(
        "| translated queries, asked in | words recall@{top} | meaning recall@{top} | both recall@{top} |",
        top = eval::TOP
    );
    println!("|---|---:|---:|---:|");
    for language in languages {
        let cells: Vec<String> = modes
            .iter()
            .map(|(mode, arguments)| {
                let recall = eval::recall_of(&set, runtime, services, arguments, |query| {
                    query.kind == QueryKind::Translated && query.language() == language
                })
                .unwrap_or_else(|error| panic!("{mode}: {error}"));
                cell(&recall)
            })
            .collect();
        println!("| {language} | {} |", cells.join(" | "));
    }
    for (mode, _, distracted) in &misses {
        if !distracted.is_empty() {
            println!(
                "{mode}: a distractor above the answer for {}",
                distracted.join(", ")
            );
        }
    }
    for (mode, exact, _) in misses {
        for (query, refusal) in &exact.missed {
            match refusal {
                Some(refusal) => println!("{mode}: exact query {query} refused: {refusal}"),
                None => println!("{mode}: exact query {query} missed its target"),
            }
        }
    }
}

/// `42.5% (85/200)`.
fn cell(recall: &Recall) -> String {
    format!(
        "{:.1}% ({}/{})",
        recall.percent(),
        recall.found,
        recall.queries
    )
}
