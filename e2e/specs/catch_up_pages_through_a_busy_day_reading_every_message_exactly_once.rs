//! On a busy day (several hundred messages in many channels), `messages_catch_up` answers in
//! pages that each fit an assistant's context: following `nextCursor` through the real MCP
//! client until it is absent reads every message of the window exactly once, in arrival order.
//! Every page counts every channel with news, and its text block is a rendering for a model
//! (one line per message, the cursor spelled out), not a second copy of the JSON. Polling
//! `activity_wait` with the newest arrival read then reads zero.

use std::collections::HashSet;

use serde_json::json;

use crate::support::{Activity, CaughtUp, Feed, Guild, Post, Store};

/// What the product promises for one answer, structured result and text together.
const ANSWER_BYTES: usize = 32_000;

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let people: Vec<_> = ["grace", "linus", "margaret", "ken", "barbara"]
        .iter()
        .map(|name| guild.member(name, &[]))
        .collect();
    let channels: Vec<_> = (0..12)
        .map(|n| guild.text_channel(&format!("team-{n:02}")))
        .collect();
    let mut feed = Feed::joining(&guild);
    let mut posted = Vec::new();
    let mut with_news = HashSet::new();
    for n in 0..420 {
        // Uneven traffic: some channels much busier than others.
        let channel = &channels[(n * n / 7 + n) % channels.len()];
        with_news.insert(channel.id.clone());
        let author = &people[n % people.len()];
        let words = "status update on the rollout and the storage benchmarks ".repeat(1 + n % 4);
        posted.push(feed.post(Post::new(channel, author, format!("{n}: {words}"))).id);
    }
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let mut read: Vec<String> = Vec::new();
    let mut arrivals: Vec<String> = Vec::new();
    let mut pages = 0;
    let mut previous_watermark: Option<String> = None;
    let mut arguments = json!({"since": feed.opened_at(), "limit": 500});
    loop {
        let result = mcp.call("messages_catch_up", arguments.clone()).await;
        let text = result.text().to_string();
        let structured = result.structured().clone();
        let size = serde_json::to_string(&structured).unwrap().len() + text.len();
        assert!(size <= ANSWER_BYTES, "page {pages} is {size} bytes");
        let page: CaughtUp = serde_json::from_value(structured).unwrap();
        pages += 1;
        let news: u64 = page.overview.iter().map(|channel| channel.messages).sum();
        assert_eq!(
            (page.overview.len(), page.overview_left_out, news),
            (with_news.len(), 0, posted.len() as u64),
            "every page counts every channel of the whole window"
        );
        let mut on_page: Vec<(String, String)> = page
            .channels
            .iter()
            .flat_map(|group| &group.messages)
            .map(|message| (message.created_at.clone(), message.message_id.clone()))
            .collect();
        on_page.sort();
        assert!(!on_page.is_empty(), "a page always moves on");
        if let Some(watermark) = &previous_watermark {
            assert_eq!(
                &on_page[0].0, watermark,
                "the page starts exactly at the first message the previous one left out"
            );
        }
        for (arrival, id) in on_page {
            assert!(text.contains(&id), "the text block has a line for {id}");
            arrivals.push(arrival);
            read.push(id);
        }
        match page.next_cursor {
            Some(cursor) => {
                assert!(text.contains(&cursor), "the text block spells out the cursor");
                assert!(&page.watermark > arrivals.last().unwrap());
                previous_watermark = Some(page.watermark.clone());
                arguments = json!({"cursor": cursor, "limit": 500});
            }
            None => {
                assert_eq!(page.remaining, 0);
                assert_eq!(&page.watermark, arrivals.last().unwrap());
                break;
            }
        }
    }
    assert!(pages >= 3, "a busy day takes several pages, took {pages}");
    let unique: HashSet<&String> = read.iter().collect();
    assert_eq!(unique.len(), read.len(), "no message is read twice");
    assert_eq!(read, posted, "every message, once, in arrival order");
    let mut sorted = arrivals.clone();
    sorted.sort();
    assert_eq!(arrivals, sorted, "pages follow the arrival clock");

    let quiet: Activity = mcp
        .call_ok("activity_wait", json!({"after": arrivals.last().unwrap()}))
        .await;
    assert_eq!(quiet.total, 0, "nothing arrived after the last message read");
    mcp.stop().await;
}
