//! A measurement, not a test: what keeping each message's payload as Discord sent it costs
//! (`message_payloads`, deflated against a preset dictionary), on the synthetic generator's
//! history, whose messages carry the fields Discord's gateway sends today.
//!
//! `cargo run --example raw_payload_cost [messages]` (default 20,000) builds a synthetic store,
//! prints its bytes per message, then copies it, drops the kept payloads from the copy and
//! vacuums both, so the difference is what the payloads cost a message, SQLite's pages and
//! keys included; beside it the payloads' own JSON and deflated bytes. Each figure is also
//! projected to 1M messages. It asserts nothing.

use discord_manager_store::Store;
use discord_manager_synthetic::{Plan, build};

fn main() {
    let messages: u64 = std::env::args()
        .nth(1)
        .and_then(|count| count.parse().ok())
        .unwrap_or(20_000);
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("cost.sqlite3");
    let store = Store::open(&path).expect("the store opens");
    let started = std::time::Instant::now();
    let (produced, timing) = build(&store, &Plan::new(messages, 7)).expect("the history builds");
    let built_in = started.elapsed();
    drop(store);
    let count = produced.messages as f64;
    let per_message = |bytes: f64| bytes / count;
    let per_million = |bytes: f64| bytes / count * 1_000_000.0 / 1e9;

    let vacuumed_size = |path: &std::path::Path| {
        let connection = rusqlite::Connection::open(path).expect("the copy opens");
        connection
            .execute_batch("PRAGMA wal_checkpoint(TRUNCATE); VACUUM;")
            .expect("vacuum");
        drop(connection);
        std::fs::metadata(path).expect("its size").len() as f64
    };
    let with_payloads = vacuumed_size(&path);
    let (deflated, kept): (f64, f64) = {
        let connection = rusqlite::Connection::open(&path).expect("the store opens");
        connection
            .query_row(
                "SELECT total(length(payload)), count(*) FROM message_payloads",
                [],
                |row| Ok((row.get(0)?, row.get::<_, i64>(1)? as f64)),
            )
            .expect("the payloads' size")
    };
    let without = folder.path().join("without.sqlite3");
    std::fs::copy(&path, &without).expect("a copy");
    {
        let connection = rusqlite::Connection::open(&without).expect("the copy opens");
        connection
            .execute_batch("DROP TABLE message_payloads;")
            .expect("the payloads dropped");
    }
    let without_payloads = vacuumed_size(&without);
    let events = produced.events as f64;
    println!(
        "{} messages, {} events, built in {:.1} s ({:.0} events a second recording)",
        produced.messages,
        produced.events,
        built_in.as_secs_f64(),
        events / timing.recording.as_secs_f64()
    );
    println!(
        "store with payloads: {:.0} bytes per message, {:.3} GB per 1M",
        per_message(with_payloads),
        per_million(with_payloads)
    );
    println!(
        "store without them:  {:.0} bytes per message, {:.3} GB per 1M",
        per_message(without_payloads),
        per_million(without_payloads)
    );
    println!(
        "kept payloads: +{:.0} bytes per message in the store ({kept} rows); their JSON {:.0} \
         bytes a message, deflated {:.0}",
        per_message(with_payloads - without_payloads),
        per_message(produced.message_payload_bytes as f64),
        per_message(deflated)
    );
}
