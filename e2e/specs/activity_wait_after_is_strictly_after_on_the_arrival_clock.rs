//! `activity_wait` counts what arrived strictly after `after`, on the store's arrival clock: a
//! message whose `createdAt` equals `after` is not counted, and one microsecond earlier it is.

use serde_json::json;

use crate::support::{Activity, CaughtUp, Feed, Guild, Post, Store, micro_before};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let first = feed.post(Post::new(&general, &grace, "The storage PR is ready for review."));
    let second = feed.post(Post::new(&general, &grace, "Benchmarks are in the PR description."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let arrivals: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at()}))
        .await;
    assert_eq!(arrivals.ids_in(&general.id), [&first.id, &second.id]);
    let first_arrival = arrivals.messages_in(&general.id)[0].created_at.clone();
    let second_arrival = arrivals.messages_in(&general.id)[1].created_at.clone();

    let messages_after = async |after: &str| -> (u64, u64) {
        let activity: Activity = mcp.call_ok("activity_wait", json!({"after": after})).await;
        let in_general = activity
            .channels
            .iter()
            .filter(|channel| channel.channel_id == general.id)
            .map(|channel| channel.messages)
            .sum();
        (activity.total, in_general)
    };

    assert_eq!(messages_after(&micro_before(&first_arrival)).await, (2, 2));
    assert_eq!(messages_after(&first_arrival).await, (1, 1));
    assert_eq!(messages_after(&micro_before(&second_arrival)).await, (1, 1));
    assert_eq!(messages_after(&second_arrival).await, (0, 0));
    mcp.stop().await;
}
