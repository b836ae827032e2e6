//! Every tool answers with `structuredContent` (and the same JSON as text) that fits the output
//! schema it declares in `tools/list`, with every field it sends declared there. The store has
//! an edit, a deletion, a reaction, a reply and an open bookmark, so optional fields are sent
//! both ways. `messages_send` answers only with a Discord to post to: it is called on a second
//! store, which ingest filled from the fake Discord's demo guild, with sends going to that
//! fake, and so do the follow-up actions on the message it sent. A tool still PENDING in `e2e/coverage.rs` is left out until its specs arrive.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::coverage::PENDING;
use crate::support::fake_discord::{FakeDiscord, GENERAL};
use crate::support::live::store_sending_to;
use crate::support::schema::violations;
use crate::support::time::Stamp;
use crate::support::{Emoji, Feed, Guild, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let maintainers = guild.role("maintainers");
    let owner = guild.member("ada", &[&maintainers]);
    let grace = guild.member("grace", &[]);
    let general = guild.text_channel("general");
    guild.channel_without_history("old-announcements");
    let mut feed = Feed::joining(&guild);
    let asked = feed.post(Post::new(&general, &owner, "Who takes the release?"));
    let answer = feed.post(
        Post::new(&general, &grace, format!("{} me!", owner.mention()))
            .mentioning(&owner)
            .replying_to(&asked),
    );
    feed.edit(&answer, "Me, starting Monday!", 2);
    feed.react(&answer, &owner, &Emoji::unicode("🙏"));
    // A screenshot no daemon fetched: attachments_get says it is pending.
    feed.post(Post::new(&general, &grace, "the graph").with(
        "attachments",
        json!([{"id": "1700000000000000077", "filename": "graph.png", "size": 4096,
                "url": "https://cdn.discordapp.com/attachments/1/1700000000000000077/graph.png",
                "proxy_url": "https://media.discordapp.net/attachments/1/1700000000000000077/graph.png",
                "content_type": "image/png"}]),
    ));
    let oops = feed.post(Post::new(&general, &grace, "wrong channel, sorry"));
    feed.delete(&oops);
    let store = Store::for_owner(&owner)
        .with_token()
        .setting("DISCORD_MANAGER_SEND_CHANNELS", &general.id);
    store.play(&feed).await;
    let since = feed.opened_at();
    let in_an_hour = Stamp::parse(&since).plus_minutes(60).iso();
    let mcp = store.mcp().await;
    let schemas: BTreeMap<String, Value> = mcp
        .tools()
        .await
        .into_iter()
        .map(|tool| {
            let schema = tool
                .output_schema
                .unwrap_or_else(|| panic!("{} declares an output schema", tool.name));
            (tool.name.to_string(), Value::Object((*schema).clone()))
        })
        .collect();

    let calls = [
        ("channels_list", json!({"since": since})),
        ("messages_catch_up", json!({"since": since})),
        ("channels_mark_read", json!({"channelId": general.id})),
        ("channels_list", json!({"since": since})),
        ("messages_catch_up", json!({"fromReadMarkers": true})),
        ("mentions_list", json!({"since": since})),
        ("mentions_awaiting_reply", json!({"since": since, "silenceMinutes": 0})),
        ("mentions_dismiss", json!({"messageId": answer.id, "note": "thanked her"})),
        ("messages_history", json!({"channelId": general.id, "limit": 2})),
        ("messages_search", json!({"query": "release"})),
        ("attachments_get", json!({"attachmentId": "1700000000000000077"})),
        ("activity_wait", json!({"after": since})),
        ("bookmarks_add", json!({"messageId": answer.id, "note": "thank Grace", "dueAt": since})),
        ("bookmarks_list", json!({})),
        ("activity_digest", json!({"since": since})),
        ("activity_briefing", json!({"since": since})),
        ("bookmarks_resolve", json!({"messageId": answer.id})),
        ("store_status", json!({})),
        (
            "schedules_add",
            json!({"channelId": general.id, "content": "Release retro at 15:00.",
                   "sendAt": in_an_hour, "replyToMessageId": asked.id}),
        ),
        ("schedules_list", json!({})),
        // The store's first schedule: the one just added.
        ("schedules_cancel", json!({"scheduleId": 1})),
        ("schedules_list", json!({"status": "cancelled"})),
    ];
    let mut called: BTreeSet<&str> = calls.iter().map(|(tool, _)| *tool).collect();
    called.extend(["messages_send", "messages_edit", "messages_delete"]);
    called.extend(["reactions_add", "reactions_remove"]);
    called.extend(PENDING.iter().copied());
    let listed: BTreeSet<&str> = schemas.keys().map(String::as_str).collect();
    assert_eq!(called, listed, "the calls below reach every listed tool but the pending ones");

    let fits = |tool: &str, structured: &Value| {
        let schema = schemas[tool].as_object().expect("an object schema");
        assert_eq!(
            violations(schema, structured),
            Vec::<String>::new(),
            "{tool}'s result fits its output schema: {structured:#}"
        );
    };
    for (tool, arguments) in calls {
        let result = mcp.call(tool, arguments).await;
        fits(tool, result.structured());
    }
    mcp.stop().await;

    let fake = FakeDiscord::start();
    let live = store_sending_to(&fake).setting("DISCORD_MANAGER_SEND_CHANNELS", GENERAL);
    let mcp = live.mcp().await;
    let sent = mcp
        .call(
            "messages_send",
            json!({"channelId": GENERAL, "content": "Schemas hold."}),
        )
        .await;
    fits("messages_send", sent.structured());
    let sent_id = sent.structured()["messageId"].clone();
    for (tool, arguments) in [
        ("reactions_add", json!({"messageId": sent_id, "emoji": "👍"})),
        ("reactions_remove", json!({"messageId": sent_id, "emoji": "👍"})),
        ("messages_edit", json!({"messageId": sent_id, "content": "Schemas still hold."})),
        ("messages_delete", json!({"messageId": sent_id})),
    ] {
        let result = mcp.call(tool, arguments).await;
        fits(tool, result.structured());
    }
    mcp.stop().await;
}
