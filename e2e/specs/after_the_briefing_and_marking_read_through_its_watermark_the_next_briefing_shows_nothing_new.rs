//! The owner's loop: a briefing, then `channels_mark_read` through its watermark, then a
//! briefing again, which shows nothing new in any section; and what arrives after the
//! watermark is news again, in its own section.

use serde_json::{Value, json};

use crate::support::{Feed, Guild, Post, Store};

const SECTIONS: &[&str] = &["needsYou", "keywords", "due", "conversations", "mostActive", "rest"];

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let linus = guild.member("linus", &[]);
    let general = guild.text_channel("general");
    let incidents = guild.text_channel("incidents");
    let mut feed = Feed::joining(&guild);
    let mine = feed.post(Post::new(&general, &owner, "Who takes the release?"));
    feed.post(Post::new(&general, &grace, "I can.").replying_to(&mine));
    feed.post(Post::new(&incidents, &linus, "Can you look at this?").mentioning(&owner));
    for n in 0..6 {
        let author = if n % 2 == 0 { &grace } else { &linus };
        feed.post(Post::new(&incidents, author, format!("latency update {n}")));
    }
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let first: Value = mcp.call_ok("activity_briefing", json!({})).await;
    assert_eq!(first["window"], "readMarkers");
    assert_eq!(first["needsYou"]["total"], 2, "the mention and the reply to the owner");
    assert_eq!(first["conversations"]["total"], 1);
    let watermark = first["watermark"].as_str().unwrap().to_string();
    assert_eq!(first["through"], first["watermark"]);

    let marked: Value = mcp
        .call_ok("channels_mark_read", json!({"through": watermark}))
        .await;
    assert_eq!(marked["through"], watermark.as_str());

    let again: Value = mcp.call_ok("activity_briefing", json!({})).await;
    for section in SECTIONS {
        assert_eq!(again[*section]["total"], 0, "{section} after marking read: {again:#}");
        assert_eq!(again[*section]["items"], json!([]), "{section}");
    }
    assert_eq!(again["needsYou"]["closed"], 0);

    // What arrives after the watermark is news again.
    let mut later = Feed::new();
    let ping = later.post(Post::new(&incidents, &grace, "Back again?").mentioning(&owner));
    store.play(&later).await;
    let third: Value = mcp.call_ok("activity_briefing", json!({})).await;
    assert_eq!(third["needsYou"]["total"], 1);
    assert_eq!(third["needsYou"]["items"][0]["messageId"], ping.id.as_str());
    assert_eq!(third["rest"]["total"], 1, "its channel has news: one quiet message");
    assert_eq!(third["rest"]["quietChannels"], 1);
    assert_eq!(third["conversations"]["total"], 0, "the owner wrote only in #general");
}
