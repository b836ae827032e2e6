//! `messages_search` filters by arrival on the store's clock: `since` includes a message that
//! arrived exactly then, `until` excludes it; one microsecond later, the reverse.

use serde_json::json;

use crate::support::{CaughtUp, Feed, Guild, Post, SearchResults, Store, micro_after};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let releases = guild.announcement_channel("releases");
    let mut feed = Feed::joining(&guild);
    let first = feed.post(Post::new(&releases, &grace, "Deploy one: the storage engine."));
    let second = feed.post(Post::new(&releases, &grace, "Deploy two: the new scheduler."));
    let third = feed.post(Post::new(&releases, &grace, "Deploy three: the search index."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let arrivals: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at()}))
        .await;
    assert_eq!(arrivals.ids_in(&releases.id), [&first.id, &second.id, &third.id]);
    let arrived = arrivals.messages_in(&releases.id)[1].created_at.clone();
    let search = async |window: serde_json::Value| -> Vec<String> {
        let mut arguments = json!({"query": "deploy"});
        for (field, value) in window.as_object().expect("a window") {
            arguments[field] = value.clone();
        }
        let found: SearchResults = mcp.call_ok("messages_search", arguments).await;
        found.sorted_ids().into_iter().map(str::to_string).collect()
    };

    assert_eq!(search(json!({"since": arrived})).await, [second.id.clone(), third.id.clone()]);
    assert_eq!(search(json!({"since": micro_after(&arrived)})).await, vec![third.id.clone()]);
    assert_eq!(search(json!({"until": arrived})).await, vec![first.id.clone()]);
    assert_eq!(
        search(json!({"until": micro_after(&arrived)})).await,
        [first.id.clone(), second.id.clone()]
    );
    assert_eq!(
        search(json!({"since": arrived, "until": micro_after(&arrived)})).await,
        vec![second.id.clone()]
    );
    mcp.stop().await;
}
