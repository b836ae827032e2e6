//! 600 `activity_wait` calls sent at once, through rmcp's client, on a quiet store: the 64 the
//! server lets wait at once wait, the other 536 are refused at once in the owner's words, and
//! `ping` still answers within 100 ms each time (a wait holds no thread while it waits).
//! Cancelling the waiting calls (rmcp's client sends `notifications/cancelled` for a call it
//! drops) ends them on the server: their 64 places are free again for new waits, and the
//! session goes on answering.
//!
//! The 100 ms is the behaviour under test (the measure), not a wait for something
//! else; everything else is ordered by the protocol.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::task::JoinSet;

use crate::support::mcp::{ToolResult, decode};
use crate::support::{Activity, Feed, Guild, Store};

/// How many waits the server lets wait at once (docs/json-and-cursors.md, "The MCP server").
const PLACES: usize = 64;
const CALLS: usize = 600;
const PING_WITHIN: Duration = Duration::from_millis(100);
/// An upper bound on the refusals' arrival, never a measurement.
const PATIENCE: Duration = Duration::from_secs(20);

const REFUSAL: &str = "`waitSeconds`: 64 activity_wait calls are already waiting, the most \
                       that may wait at once; call again once one of them has returned, or \
                       without `waitSeconds` to count at once";

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    guild.text_channel("general");
    let store = Store::for_owner(&owner);
    store.play(&Feed::joining(&guild)).await;
    let mcp = Arc::new(store.mcp().await);
    let start: Activity = mcp.call_ok("activity_wait", json!({})).await;
    assert_eq!(start.total, 0, "a quiet store: {start:#?}");

    let wait = |calls: &mut JoinSet<ToolResult>, seconds: u32| {
        let (mcp, after) = (Arc::clone(&mcp), start.cutoff.clone());
        calls.spawn(async move {
            mcp.call(
                "activity_wait",
                json!({"after": after, "waitSeconds": seconds}),
            )
            .await
        });
    };
    let mut waiting = JoinSet::new();
    for _ in 0..CALLS {
        wait(&mut waiting, 60);
    }
    for _ in PLACES..CALLS {
        let refused = tokio::time::timeout(PATIENCE, waiting.join_next())
            .await
            .expect("the calls beyond the bound are refused at once")
            .unwrap()
            .unwrap();
        assert_eq!(refused.refusal(), REFUSAL);
    }
    assert_eq!(waiting.len(), PLACES);

    let mut slowest = Duration::ZERO;
    for _ in 0..20 {
        let sent = tokio::time::Instant::now();
        mcp.ping().await;
        slowest = slowest.max(sent.elapsed());
    }
    eprintln!("slowest ping of 20 while {PLACES} waits wait: {slowest:?}");
    assert!(
        slowest < PING_WITHIN,
        "ping took {slowest:?} while {PLACES} calls waited"
    );
    assert_eq!(waiting.len(), PLACES, "no wait ended before its time");

    // Dropped by the client, each call is cancelled with `notifications/cancelled`.
    waiting.abort_all();
    while let Some(ended) = waiting.join_next().await {
        assert!(ended.unwrap_err().is_cancelled());
    }
    // Their places are free again: as many new waits are let wait (each up to a second, on a
    // quiet store, so each answers zero). The cancellations reach the server just before
    // these calls; a round that still meets a place taken is tried once more.
    let mut rounds = 0;
    loop {
        rounds += 1;
        let mut again = JoinSet::new();
        for _ in 0..PLACES {
            wait(&mut again, 1);
        }
        let results = again.join_all().await;
        let refused = results.iter().filter(|result| result.is_error).count();
        if refused == 0 {
            for result in &results {
                let quiet: Activity = decode("activity_wait", result.structured());
                assert_eq!(quiet.total, 0, "{quiet:#?}");
            }
            break;
        }
        assert!(
            rounds < 2,
            "{refused} of {PLACES} new waits refused after every wait was cancelled"
        );
    }
    mcp.ping().await;
    Arc::into_inner(mcp)
        .expect("every call has ended")
        .stop()
        .await;
}
