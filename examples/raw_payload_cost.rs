//! A measurement, not a test: what keeping each message's raw Discord payload beside the
//! fields would cost, on the synthetic generator's history.
//!
//! `cargo run --example raw_payload_cost [messages]` (default 20,000) builds a synthetic store,
//! then prints the store's bytes per message and the raw payloads' bytes per message, each
//! projected to 1M messages. It asserts nothing.

use discord_manager_store::Store;
use discord_manager_synthetic::{Plan, build};

fn main() {
    let messages: u64 = std::env::args()
        .nth(1)
        .and_then(|count| count.parse().ok())
        .unwrap_or(20_000);
    let folder = tempfile::tempdir().expect("a temporary folder");
    let store = Store::open(&folder.path().join("cost.sqlite3")).expect("the store opens");
    let (produced, _) = build(&store, &Plan::new(messages, 7)).expect("the history builds");
    let store_bytes = store.size_on_disk() as f64;
    let payload_bytes = produced.message_payload_bytes as f64;
    let count = produced.messages as f64;
    let per_million = |bytes: f64| bytes / count * 1_000_000.0 / 1e9;
    println!("{} messages", produced.messages);
    println!(
        "store: {:.0} bytes per message, {:.2} GB per 1M",
        store_bytes / count,
        per_million(store_bytes)
    );
    println!(
        "raw payloads: {:.0} bytes per message, {:.2} GB per 1M (compact JSON, uncompressed)",
        payload_bytes / count,
        per_million(payload_bytes)
    );
}
