//! `messages_catch_up` reads `since` inclusively on the store's arrival clock: a message whose
//! `createdAt` equals `since` is returned, and one microsecond later it is not.

use serde_json::json;

use crate::support::{CaughtUp, Feed, Guild, Post, Store, micro_after};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let first = feed.post(Post::new(&general, &grace, "Morning all! Standup notes are in the team doc."));
    let second = feed.post(Post::new(&general, &grace, "The storage PR is ready for review."));
    let third = feed.post(Post::new(&general, &grace, "Benchmarks are in the PR description."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    // A first read learns when each message arrived.
    let everything: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at()}))
        .await;
    assert_eq!(everything.ids_in(&general.id), [&first.id, &second.id, &third.id]);
    let arrived = everything.messages_in(&general.id);
    let second_arrival = arrived[1].created_at.clone();
    let third_arrival = arrived[2].created_at.clone();

    // `since` exactly at the second message's arrival: it is included.
    let at_second: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": second_arrival}))
        .await;
    assert_eq!(at_second.message_ids(), [&second.id, &third.id]);

    // One microsecond later: it is not.
    let after_second: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": micro_after(&second_arrival)}))
        .await;
    assert_eq!(after_second.message_ids(), [&third.id]);

    // The same on the newest message.
    let at_third: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": third_arrival}))
        .await;
    assert_eq!(at_third.message_ids(), [&third.id]);
    let after_third: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": micro_after(&third_arrival)}))
        .await;
    assert_eq!(after_third.channels, []);
    mcp.stop().await;
}
