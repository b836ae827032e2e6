//! The budget gate: every tool's answer fits an assistant's context window (ARCHITECTURE.md,
//! "Every answer fits a context window").
//!
//! On a generated store large enough to overflow every reader (10,000 messages in 500
//! channels, hundreds of mentions, 80 open bookmarks, 300 scheduled messages of the longest
//! content), each tool is called with its default inputs and with each bound at the largest
//! value its schema accepts, and the answer an MCP client receives (the structured result and
//! the text block together) must stay within the budget. The cases are listed per tool and
//! the list is held against the registry, so a new tool without cases fails here.

use std::collections::BTreeMap;
use std::sync::Arc;

use discord_manager::business::budget::ANSWER_BYTES;
use discord_manager::business::mentions::{ListMentions, list_mentions};
use discord_manager::business::{OwnerContext, Source};
use discord_manager::config::GuildScope;
use discord_manager::discord::sender::RECORDERS;
use discord_manager::instant::Instant;
use discord_manager::registry::{self, Services};
use discord_manager::seed::DemoDiscord;
use discord_manager::store::Store;
use discord_manager_synthetic::{self as synthetic, OWNER_ID, Plan};
use serde_json::{Value, json};

/// A long text of `length` characters with the escaping JSON pays most for in ordinary text.
fn long_text(length: usize) -> String {
    "\"quoted\" line\n".chars().cycle().take(length).collect()
}

/// An instant `days` days and `seconds` seconds from now: within the year a schedule may be.
fn in_days(days: i64, seconds: i64) -> String {
    Instant::now()
        .plus_seconds(days * 86_400 + seconds)
        .to_string()
}

struct World {
    _folder: tempfile::TempDir,
    services: Services,
    busiest_channel: String,
    first_arrival: String,
    a_message: String,
    a_mention: String,
}

fn world() -> World {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("budget.sqlite3");
    let store = Arc::new(Store::open(&path).expect("the store opens"));
    let (produced, _) =
        synthetic::build(&store, &Plan::new(10_000, 20_261_201)).expect("the generator runs");
    let context = OwnerContext {
        owner_id: Some(OWNER_ID.to_string()),
        guild_scope: GuildScope::every_guild(),
        token_configured: true,
        read_only: false,
        send_channel_ids: None,
        allow_dms: false,
        link_previews: false,
        confirm_posts: false,
        owner_approval: None,
        keywords: Default::default(),
        source: Source::Cli,
    };
    let a_message = store
        .read(|reader| {
            Ok(reader
                .messages_arrived_from(
                    &[produced.busiest_readable_channel.as_str()],
                    produced.first_arrival.expect("a first arrival"),
                    1,
                )?
                .remove(0)
                .message_id)
        })
        .expect("a message of the busiest channel");
    let a_mention = list_mentions(
        &store,
        ListMentions {
            since: Some(Instant::from_micros(0)),
            ..ListMentions::default()
        },
        &context,
    )
    .expect("the generated store's mentions")
    .mentions
    .remove(0)
    .message
    .body
    .message_id;
    World {
        services: Services {
            store: Arc::clone(&store),
            context,
            sender: Some(Arc::new(DemoDiscord::new(store, RECORDERS))),
        },
        busiest_channel: produced.busiest_readable_channel,
        first_arrival: produced.first_arrival.expect("a first arrival").to_string(),
        a_message,
        a_mention,
        _folder: folder,
    }
}

/// Every tool's cases: its defaults, then each bound at its largest; `bot_message` is one of
/// the bot's own, for the edit and the deletion.
fn cases(world: &World, bot_message: &str) -> BTreeMap<&'static str, Vec<Value>> {
    let channel = world.busiest_channel.as_str();
    let since = world.first_arrival.as_str();
    let message = world.a_message.as_str();
    BTreeMap::from([
        (
            "channels_list",
            vec![json!({}), json!({"since": since, "limit": 500})],
        ),
        (
            "channels_mark_read",
            vec![json!({}), json!({"channelId": channel, "through": since})],
        ),
        (
            "messages_catch_up",
            vec![
                json!({}),
                json!({"fromReadMarkers": true, "limit": 500}),
                json!({"since": since, "limit": 500}),
                json!({"since": since, "channelId": channel, "limit": 500}),
            ],
        ),
        (
            "messages_history",
            vec![
                json!({"channelId": channel}),
                json!({"channelId": channel, "limit": 200}),
                json!({"channelId": channel, "around": message, "limit": 200}),
                json!({"channelId": channel, "after": message, "limit": 200}),
            ],
        ),
        (
            "messages_search",
            vec![
                json!({"query": "the"}),
                json!({"query": "the OR a OR to OR and", "limit": 100}),
            ],
        ),
        (
            "messages_send",
            vec![
                json!({"channelId": channel, "content": long_text(2000), "replyToMessageId": message}),
            ],
        ),
        (
            "messages_edit",
            vec![json!({"messageId": bot_message, "content": long_text(2000)})],
        ),
        ("messages_delete", vec![json!({"messageId": bot_message})]),
        (
            "reactions_add",
            vec![json!({"messageId": message, "emoji": "👍"})],
        ),
        (
            "reactions_remove",
            vec![json!({"messageId": message, "emoji": "👍"})],
        ),
        (
            "mentions_list",
            vec![json!({}), json!({"since": since, "limit": 500})],
        ),
        (
            "mentions_awaiting_reply",
            vec![
                json!({}),
                json!({"since": since, "silenceMinutes": 0, "limit": 500}),
            ],
        ),
        (
            "mentions_dismiss",
            vec![json!({"messageId": world.a_mention, "note": long_text(1000)})],
        ),
        (
            "activity_wait",
            vec![json!({}), json!({"after": since, "waitSeconds": 0})],
        ),
        ("activity_digest", vec![json!({}), json!({"since": since})]),
        (
            "activity_briefing",
            vec![json!({}), json!({"since": since, "lookbackDays": 30})],
        ),
        (
            "bookmarks_add",
            vec![json!({"messageId": message, "note": long_text(1000), "dueAt": in_days(3, 0)})],
        ),
        ("bookmarks_list", vec![json!({}), json!({"limit": 500})]),
        ("bookmarks_resolve", vec![json!({"messageId": message})]),
        ("store_status", vec![json!({}), json!({"since": since})]),
        (
            "schedules_add",
            vec![json!({"channelId": channel, "content": long_text(2000),
                        "sendAt": in_days(100, 0), "replyToMessageId": message})],
        ),
        ("schedules_list", vec![json!({}), json!({"limit": 500})]),
        ("schedules_cancel", vec![json!({"scheduleId": 1})]),
    ])
}

#[tokio::test]
async fn every_answer_fits_the_budget_with_default_and_largest_inputs() {
    let world = world();
    let sent = registry::find("messages_send")
        .unwrap()
        .call(
            json!({"channelId": world.busiest_channel, "content": "the bot's own"}),
            &world.services,
        )
        .await
        .expect("the bot posts a message of its own")
        .to_json();
    let cases = cases(&world, sent["messageId"].as_str().expect("its id"));
    let registered: Vec<&str> = registry::capabilities().iter().map(|c| c.name).collect();
    let listed: Vec<&str> = cases.keys().copied().collect();
    let mut sorted = registered.clone();
    sorted.sort();
    assert_eq!(
        listed, sorted,
        "every tool has budget cases, and only tools do"
    );

    // Enough scheduled messages of the longest content to overflow `schedules_list`.
    let add = registry::find("schedules_add").unwrap();
    for n in 0..300 {
        let arguments = json!({"channelId": world.busiest_channel, "content": long_text(2000),
                               "sendAt": in_days(200, n)});
        add.call(arguments, &world.services)
            .await
            .expect("a schedule is added");
    }

    let mut largest: BTreeMap<&str, usize> = BTreeMap::new();
    // In registry order, so bookmarks_add comes before bookmarks_resolve and schedules_add
    // before schedules_cancel.
    for capability in registry::capabilities() {
        for arguments in &cases[capability.name] {
            let outcome = capability
                .call(arguments.clone(), &world.services)
                .await
                .unwrap_or_else(|error| {
                    panic!("{} {arguments}: {}", capability.name, error.message())
                });
            let json = serde_json::to_string(&outcome.to_json()).unwrap();
            let answer = json.len() + outcome.to_text().len();
            assert!(
                answer <= ANSWER_BYTES,
                "{} {arguments} answers {answer} bytes, over the {ANSWER_BYTES} budget",
                capability.name
            );
            let entry = largest.entry(capability.name).or_default();
            *entry = (*entry).max(answer);
        }
    }
    // The store does overflow the readers, which fill most of the budget before they stop: the
    // gate would prove nothing on small answers.
    eprintln!("largest answers in bytes: {largest:?}");
    for tool in [
        "channels_list",
        "messages_catch_up",
        "messages_history",
        "mentions_list",
        "bookmarks_list",
        "schedules_list",
        "store_status",
    ] {
        assert!(
            largest[tool] > ANSWER_BYTES / 2,
            "{tool}'s largest answer is only {} bytes: the store does not fill it",
            largest[tool]
        );
    }
}
