//! A measurement, not a test: how long the embedding pass takes to give every message of a
//! store its vector, from none, as the daemon does for a store written before search by
//! meaning.
//!
//! `cargo run --release --example embed_from_scratch -- 100000` builds the benchmark's
//! synthetic store of that many messages (default 100,000) in a temporary folder, then runs
//! the pass the daemon runs (`EmbeddingPass`) to its end, printing the pace of each tenth of
//! the store so a reader can see whether it holds as the pass walks on, and the whole. It
//! asserts nothing.

use std::time::Instant;

use discord_manager_core::business::messages::embedding::EmbeddingPass;
use discord_manager_store::Store;
use discord_manager_synthetic::Plan;

fn main() {
    let messages: u64 = match std::env::args().nth(1) {
        Some(count) => count
            .parse()
            .expect("the first argument is a count of messages"),
        None => 100_000,
    };
    let folder = tempfile::tempdir().expect("a temporary folder");
    let store = Store::open(&folder.path().join("store.sqlite3")).expect("the store opens");
    let built = Instant::now();
    let (produced, _timing) = discord_manager_synthetic::build(&store, &Plan::new(messages, 1))
        .expect("the generator runs");
    println!(
        "built {} messages in {:.1} s",
        produced.messages,
        built.elapsed().as_secs_f64()
    );

    let mut pass = EmbeddingPass::new().expect("the bundled model loads");
    let started = Instant::now();
    let tenth = (produced.messages / 10).max(1) as usize;
    let (mut embedded, mut steps) = (0usize, 0u64);
    let (mut next_report, mut tenth_started, mut tenth_embedded) = (tenth, Instant::now(), 0usize);
    loop {
        let step = pass.step(&store).expect("a step of the pass");
        steps += 1;
        embedded += step.embedded;
        if embedded >= next_report {
            let seconds = tenth_started.elapsed().as_secs_f64();
            println!(
                "{embedded:>9} embedded: this tenth {:.0} a second",
                (embedded - tenth_embedded) as f64 / seconds
            );
            (next_report, tenth_started, tenth_embedded) =
                (next_report + tenth, Instant::now(), embedded);
        }
        if step.idle {
            break;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let progress = pass.progress(&store).expect("the progress reads");
    println!(
        "embedded {embedded} messages in {steps} steps, {seconds:.1} s: {:.1} a second; \
         the store says {} of {} embedded",
        embedded as f64 / seconds,
        progress.embedded,
        progress.messages
    );
}
