//! `activity_wait` with `waitSeconds` blocks until something arrives: a call made while the
//! store is quiet answers with the message the feed delivers after the call was sent.
//!
//! Ordering comes from the protocol, never from a clock: the waiting call is sent first, then a
//! second, non-waiting call on the same session. The server reads requests in order, so the
//! second answer (zero) proves the message was not there after the server had received the
//! waiting call; only then does the feed deliver it. The waiting call can only have seen it
//! while it waited. (That it wakes within one poll of the arrival, rather than at the end of
//! `waitSeconds`, is a matter of time: the unit test
//! `activity::tests::waiting_wakes_within_one_poll_of_an_arrival` pins it on a virtual clock.)

use serde_json::json;

use crate::support::mcp::decode;
use crate::support::{Activity, ChannelActivity, Feed, Guild, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let margaret = guild.member("margaret", &[]);
    let general = guild.text_channel("general");
    let incidents = guild.text_channel("incidents");
    let mut feed = Feed::joining(&guild);
    feed.post(Post::new(&general, &margaret, "Quiet night so far."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let start: Activity = mcp.call_ok("activity_wait", json!({})).await;
    assert_eq!(start.total, 0, "nothing new yet: {start:#?}");

    let mut news = Feed::new();
    news.post(Post::new(&incidents, &margaret, "Latency spike on eu-west-2, investigating."));
    // Long enough that a server that never wakes fails the assertion below, well within the
    // harness's patience.
    let waiting = mcp.call(
        "activity_wait",
        json!({"after": start.cutoff, "waitSeconds": 30}),
    );
    let deliver = async {
        let probe: Activity = mcp
            .call_ok("activity_wait", json!({"after": start.cutoff}))
            .await;
        assert_eq!(probe.total, 0, "the message is not there yet: {probe:#?}");
        store.play(&news).await;
    };
    let (waited, ()) = tokio::join!(waiting, deliver);

    let waited: Activity = decode("activity_wait", waited.structured());
    assert_eq!(waited.total, 1, "the waiting call saw the arrival: {waited:#?}");
    assert_eq!(
        waited.channels,
        [ChannelActivity {
            channel_id: incidents.id.clone(),
            channel_name: incidents.name.clone(),
            messages: 1,
            edits: 0,
            deletions: 0,
            reactions: 0,
        }]
    );
    let next: Activity = mcp
        .call_ok("activity_wait", json!({"after": waited.cutoff}))
        .await;
    assert_eq!(next.total, 0, "its cutoff is past the message: {next:#?}");
    mcp.stop().await;
}
