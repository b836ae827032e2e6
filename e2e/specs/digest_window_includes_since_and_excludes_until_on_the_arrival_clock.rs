//! `activity_digest` covers a window of the store's arrival clock, `since` inclusive and
//! `until` exclusive: a message that arrived exactly at `since` is in it, exactly at `until`
//! is not, and moving either end by one microsecond flips it.

use serde_json::json;

use crate::support::{CaughtUp, Digest, Feed, Guild, Post, Store, micro_after};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let linus = guild.member("linus", &[]);
    let margaret = guild.member("margaret", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let first = feed.post(Post::new(&general, &grace, "Standup in five."));
    let second = feed.post(Post::new(&general, &linus, "Running late, start without me."));
    let third = feed.post(Post::new(&general, &margaret, "Notes are in the doc."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;
    let arrivals: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at()}))
        .await;
    assert_eq!(arrivals.ids_in(&general.id), [&first.id, &second.id, &third.id]);
    let second_arrival = arrivals.messages_in(&general.id)[1].created_at.clone();
    let third_arrival = arrivals.messages_in(&general.id)[2].created_at.clone();
    // Each message has its own author, so the authors counted name the messages in the window.
    let authors_in = async |since: &str, until: &str| -> (u64, Vec<String>) {
        let digest: Digest = mcp
            .call_ok("activity_digest", json!({"since": since, "until": until}))
            .await;
        assert_eq!((digest.since.as_str(), digest.until.as_str()), (since, until));
        let mut authors: Vec<String> = digest
            .channels
            .iter()
            .flat_map(|channel| &channel.top_authors)
            .map(|author| author.author_id.clone())
            .collect();
        authors.sort();
        (digest.total_messages, authors)
    };
    let sorted = |ids: &[&String]| {
        let mut ids: Vec<String> = ids.iter().map(|id| id.to_string()).collect();
        ids.sort();
        ids
    };

    assert_eq!(
        authors_in(&second_arrival, &third_arrival).await,
        (1, vec![linus.id.clone()]),
        "since is inclusive, until exclusive"
    );
    assert_eq!(
        authors_in(&micro_after(&second_arrival), &third_arrival).await,
        (0, vec![]),
        "one microsecond after since, the second message is out"
    );
    assert_eq!(
        authors_in(&second_arrival, &micro_after(&third_arrival)).await,
        (2, sorted(&[&linus.id, &margaret.id])),
        "one microsecond after until, the third message is in"
    );
    assert_eq!(
        authors_in(&micro_after(&second_arrival), &micro_after(&third_arrival)).await,
        (1, vec![margaret.id.clone()])
    );
    mcp.stop().await;
}
