//! When `limit` cuts a page short in the middle of a channel, the watermark is the arrival of
//! the first message left out, not the newest one returned, so passing it back as `since` (as
//! the tool description says) reads everything that was left out and nothing is ever skipped;
//! the overview still counts the channel none of whose messages fit.

use serde_json::json;

use crate::support::{CaughtUp, Feed, Guild, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let general = guild.text_channel("general");
    let releases = guild.announcement_channel("releases");
    let mut feed = Feed::joining(&guild);
    let g1 = feed.post(Post::new(&general, &grace, "Standup in five."));
    let g2 = feed.post(Post::new(&general, &grace, "Notes are in the doc."));
    let g3 = feed.post(Post::new(&general, &grace, "Who is on call this week?"));
    // Arrives after the message that will be left out of #general.
    let r1 = feed.post(Post::new(&releases, &grace, "v2.4.0 is tagged."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let everything: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at()}))
        .await;
    let g3_arrival = everything.messages_in(&general.id)[2].created_at.clone();
    let r1_arrival = everything.messages_in(&releases.id)[0].created_at.clone();
    assert!(g3_arrival < r1_arrival, "the left-out message arrived before #releases' message");

    let first: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at(), "limit": 2}))
        .await;

    assert_eq!(first.ids_in(&general.id), [&g1.id, &g2.id]);
    assert_eq!(first.ids_in(&releases.id), Vec::<&str>::new(), "arrived after the page");
    let overview: Vec<(&str, u64, u64)> = first
        .overview
        .iter()
        .map(|news| (news.channel_id.as_str(), news.messages, news.remaining))
        .collect();
    assert_eq!(
        overview,
        [(general.id.as_str(), 3, 1), (releases.id.as_str(), 1, 1)],
        "every channel with news is counted, busiest first, with what waits"
    );
    assert_eq!(first.remaining, 2);
    assert_eq!(first.watermark, g3_arrival);

    let next: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": first.watermark, "limit": 2}))
        .await;

    assert_eq!(next.ids_in(&general.id), [&g3.id]);
    assert_eq!(next.ids_in(&releases.id), [&r1.id]);
    assert_eq!((next.remaining, next.next_cursor.as_deref()), (0, None));
    assert_eq!(next.watermark, r1_arrival);
    mcp.stop().await;
}
