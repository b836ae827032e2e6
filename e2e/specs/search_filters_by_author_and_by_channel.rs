//! `messages_search` narrows to one author (`authorId`), one channel (`channelId`), or both.

use serde_json::json;

use crate::support::{Feed, Guild, Post, SearchResults, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let linus = guild.member("linus", &[]);
    let general = guild.text_channel("general");
    let ci = guild.text_channel("ci");
    let mut feed = Feed::joining(&guild);
    let grace_general = feed.post(Post::new(&general, &grace, "The flaky test is back."));
    let linus_general = feed.post(Post::new(&general, &linus, "Which flaky test?"));
    let grace_ci = feed.post(Post::new(&ci, &grace, "Quarantined the flaky integration test."));
    feed.post(Post::new(&ci, &linus, "Green again."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let search = async |filters: serde_json::Value| -> Vec<String> {
        let mut arguments = json!({"query": "flaky"});
        for (field, value) in filters.as_object().expect("filters are an object") {
            arguments[field] = value.clone();
        }
        let found: SearchResults = mcp.call_ok("messages_search", arguments).await;
        found.sorted_ids().into_iter().map(str::to_string).collect()
    };
    let sorted = |ids: &[&String]| {
        let mut ids: Vec<String> = ids.iter().map(|id| id.to_string()).collect();
        ids.sort();
        ids
    };

    assert_eq!(
        search(json!({})).await,
        sorted(&[&grace_general.id, &linus_general.id, &grace_ci.id])
    );
    assert_eq!(
        search(json!({"authorId": grace.id})).await,
        sorted(&[&grace_general.id, &grace_ci.id])
    );
    assert_eq!(
        search(json!({"channelId": general.id})).await,
        sorted(&[&grace_general.id, &linus_general.id])
    );
    assert_eq!(
        search(json!({"authorId": grace.id, "channelId": general.id})).await,
        vec![grace_general.id.clone()]
    );
    assert_eq!(search(json!({"authorId": linus.id, "channelId": ci.id})).await, Vec::<String>::new());
    mcp.stop().await;
}
