//! The dev-seed coverage gate: build a fresh demo store exactly as a self-hoster does (the
//! real binary's `seed`), then call every registered tool with the real owner context and
//! check that each answers something demo-meaningful, not merely that it does not crash.
//!
//! The calls are each capability's own demonstrations (`business::kernel::examples`); what their
//! answers must show is checked here. Exhaustive both ways: a registered tool with no check
//! (and not declared unseedable with a reason) fails the run, and so does a check for a tool
//! that no longer exists. Read-only demonstrations run before the ones that change the store.
//!
//! Every MCP prompt (`src/mcp/prompts.rs`) is rendered on the same store first, as
//! `prompts/get` renders it, and checked alike, exhaustively both ways: real ids, real text,
//! fenced.

use std::collections::BTreeSet;
use std::sync::Arc;

use assert_cmd::Command;
use discord_manager::mcp::prompts::PROMPTS;
use discord_manager_core::business::Source;
use discord_manager_core::business::kernel::context::build_owner_context;
use discord_manager_core::business::kernel::examples::Sample;
use discord_manager_core::config::Config;
use discord_manager_core::registry::{Services, capabilities, in_demo_order};
use discord_manager_ingest::sent::StoreRecorder;
use discord_manager_playback::demo::DemoDiscord;
use discord_manager_sender::DiscordSender;
use discord_manager_store::Store;
use serde_json::{Value, json};

type Check = fn(&[Value]) -> Result<(), String>;

/// Tools that cannot answer without live Discord, with the reason. Empty: the seed serves all.
const DECLARED_UNSEEDABLE: &[(&str, &str)] = &[];

fn messages(result: &Value) -> Vec<&Value> {
    result["channels"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| c["messages"].as_array().unwrap())
        .collect()
}

fn ensure(condition: bool, what: &str) -> Result<(), String> {
    if condition {
        Ok(())
    } else {
        Err(what.to_string())
    }
}

/// The demo bot (seed/demo.jsonl's READY).
const DEMO_BOT: &str = "1100000000000000001";

/// What each capability's demonstrations must show, given their answers in order.
fn checks() -> Vec<(&'static str, Check)> {
    vec![
        ("channels_list", |results| {
            let result = &results[0];
            let channels = result["channels"].as_array().unwrap();
            let threads_of = |kind: &'static str| {
                channels
                    .iter()
                    .filter(move |c| c["kind"] == kind)
                    .flat_map(|c| c["threads"].as_array().into_iter().flatten())
            };
            ensure(
                threads_of("forum").any(|post| {
                    post["kind"] == "public_thread"
                        && post["tags"].as_array().is_some_and(|tags| !tags.is_empty())
                }),
                "a forum post with its tags, under its forum",
            )?;
            ensure(channels.len() >= 5, "at least five channels")?;
            ensure(
                channels
                    .iter()
                    .any(|c| c["readable"] == false && c["unreadableReason"].is_string()),
                "an unreadable channel with its reason",
            )?;
            ensure(
                threads_of("news").any(|thread| thread["kind"] == "public_thread"),
                "a thread under its channel",
            )?;
            ensure(
                channels.iter().any(|c| c["newSince"].as_u64() > Some(1)),
                "a channel with new messages",
            )?;
            // #general was marked read before the bot's reminder was sent there.
            let general = channels
                .iter()
                .find(|c| c["channelId"] == "1400000000000000001")
                .unwrap();
            ensure(
                general["readThrough"].is_string() && general["unread"] == 1,
                "a channel marked read, with what arrived after",
            )?;
            ensure(
                channels
                    .iter()
                    .any(|c| c["readThrough"].is_null() && c["unread"].as_u64() > Some(1)),
                "a channel never marked read, all unread",
            )
        }),
        ("messages_catch_up", |results| {
            let result = &results[0];
            let all = messages(result);
            ensure(
                result["channels"].as_array().unwrap().len() >= 3,
                "news in three channels",
            )?;
            ensure(
                result["skippedChannels"].as_array().unwrap().len() >= 2,
                "skipped channels (no view, no history)",
            )?;
            ensure(
                all.iter().any(|m| m["editedAt"].is_string()),
                "an edited message",
            )?;
            for kind in ["owner", "thisBot", "webhook", "person"] {
                ensure(
                    all.iter().any(|m| m["authorKind"] == kind),
                    "a message of each kind of author",
                )?;
            }
            ensure(
                all.iter().any(|m| m["deleted"] == true),
                "a deleted message",
            )?;
            ensure(
                all.iter()
                    .any(|m| m["reactions"].as_array().is_some_and(|r| !r.is_empty())),
                "reactions",
            )?;
            let has = |field: &str| {
                all.iter()
                    .any(|m| m[field].as_array().is_some_and(|list| !list.is_empty()))
            };
            ensure(has("attachments"), "a message with an attachment")?;
            ensure(
                all.iter()
                    .any(|m| m["content"] == "" && m["embeds"].is_array()),
                "an embed-only post",
            )?;
            ensure(all.iter().any(|m| m["poll"].is_object()), "a poll")?;
            ensure(
                all.iter().any(|m| m["replyToMessageId"].is_string()),
                "a reply",
            )?;
            ensure(result["watermark"].is_string(), "a watermark")
        }),
        ("mentions_list", |results| {
            let result = &results[0];
            let mentions = result["mentions"].as_array().unwrap();
            ensure(
                mentions.len() >= 4,
                "direct, role, @here and reply mentions",
            )?;
            ensure(
                mentions.iter().all(|m| m["mentionsOwner"] == true),
                "every mention mentions the owner",
            )?;
            let closed = |id: &str| {
                mentions
                    .iter()
                    .find(|m| m["messageId"] == id)
                    .map(|m| m["closed"].clone())
            };
            ensure(
                closed("1500000000000000002") == Some(json!("wroteAfter")),
                "a mention the owner answered in its channel, closed as wroteAfter",
            )?;
            ensure(
                closed("1500000000000000007") == Some(json!("reacted")),
                "a mention the owner reacted to, closed as reacted",
            )?;
            ensure(
                closed("1500000000000000012") == Some(json!("dismissed")),
                "a mention the owner dismissed, closed as dismissed",
            )?;
            ensure(
                closed("1500000000000000013") == Some(Value::Null),
                "a mention still open",
            )
        }),
        ("bookmarks_list", |results| {
            let result = &results[0];
            let bookmarks = result["bookmarks"].as_array().unwrap();
            ensure(bookmarks.len() >= 2, "open bookmarks")?;
            ensure(
                bookmarks.iter().any(|b| b["message"]["deleted"] == true),
                "a bookmark whose message was deleted",
            )?;
            ensure(
                bookmarks
                    .iter()
                    .any(|b| b["message"]["content"] != b["contentWhenBookmarked"]),
                "a bookmark whose message was edited",
            )?;
            ensure(
                bookmarks[0]["messageId"] == "1500000000000000009"
                    && bookmarks[0]["overdue"] == true,
                "an overdue bookmark listed first",
            )?;
            ensure(
                bookmarks[1]["dueAt"].is_string() && bookmarks[1]["overdue"].is_null(),
                "a bookmark due later, listed next",
            )
        }),
        ("messages_history", |results| {
            let result = &results[0];
            let messages = result["messages"].as_array().unwrap();
            ensure(messages.len() >= 3, "the incidents channel's history")?;
            ensure(
                messages.iter().any(|m| {
                    m["edits"].as_array().is_some_and(|e| !e.is_empty())
                        && m["originalContent"] != m["content"]
                }),
                "a message with its earlier version",
            )?;
            ensure(
                messages.iter().any(|m| m["deletedAt"].is_string()),
                "a deleted message with its deletion",
            )?;
            let kept: Vec<(&str, bool)> = messages
                .iter()
                .flat_map(|m| m["attachments"].as_array().into_iter().flatten())
                .map(|a| (a["attachmentId"].as_str().unwrap_or(""), a["kept"] == true))
                .collect();
            ensure(
                kept == [("1600000000000000001", true), ("1600000000000000002", true)],
                "the incident's graph and timeline, each with its id, kept",
            )
        }),
        ("attachments_get", |results| {
            let graph = &results[0];
            ensure(
                graph["state"] == "kept"
                    && graph["image"]["width"] == 1280
                    && graph["image"]["height"] == 720
                    && graph["image"]["servedWidth"] == 1280,
                "the incident's latency graph, kept, shown at its own size",
            )?;
            let log = &results[1];
            ensure(
                log["state"] == "kept"
                    && log["text"]["content"]
                        .as_str()
                        .is_some_and(|text| text.contains("resolved; follow-up"))
                    && log["text"]["nextCursor"].is_null(),
                "the incident's timeline, whole, in one page",
            )
        }),
        ("messages_search", |results| {
            let result = &results[0];
            let results = result["results"].as_array().unwrap();
            ensure(!results.is_empty(), "a result")?;
            ensure(
                results[0]["snippet"]
                    .as_str()
                    .is_some_and(|s| s.contains("[cache]")),
                "a snippet with the match marked",
            )
        }),
        ("mentions_awaiting_reply", |results| {
            let result = &results[0];
            let mentions = result["mentions"].as_array().unwrap();
            ensure(mentions.len() >= 3, "mentions awaiting a reply")?;
            ensure(
                mentions.iter().all(|m| {
                    ![
                        "1500000000000000002",
                        "1500000000000000007",
                        "1500000000000000012",
                    ]
                    .contains(&m["messageId"].as_str().unwrap())
                }),
                "not the mentions the owner answered, reacted to or dismissed",
            )
        }),
        ("activity_wait", |results| {
            let result = &results[0];
            ensure(
                result["total"].as_u64() > Some(10),
                "counts of new activity",
            )?;
            ensure(
                result["channels"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|c| c["edits"].as_u64() > Some(0) && c["reactions"].as_u64() > Some(0)),
                "edits and reactions counted",
            )?;
            ensure(result["cutoff"].is_string(), "a cutoff")
        }),
        ("activity_digest", |results| {
            let result = &results[0];
            let channels = result["channels"].as_array().unwrap();
            ensure(channels.len() >= 3, "busy channels")?;
            ensure(
                channels
                    .iter()
                    .any(|c| c["mostReacted"].as_array().is_some_and(|m| !m.is_empty())),
                "most-reacted messages",
            )?;
            ensure(
                result["unansweredMentions"]
                    .as_array()
                    .is_some_and(|m| !m.is_empty()),
                "unanswered mentions",
            )?;
            ensure(
                result["openBookmarks"]
                    .as_array()
                    .is_some_and(|b| b.len() >= 2),
                "open bookmarks",
            )?;
            ensure(
                result["openBookmarks"][0]["overdue"] == true,
                "the overdue bookmark first",
            )
        }),
        ("activity_briefing", |results| {
            let result = &results[0];
            let needs = &result["needsYou"];
            ensure(
                needs["total"].as_u64() >= Some(2),
                "open items addressed to the owner",
            )?;
            ensure(
                needs["closed"].as_u64() >= Some(1),
                "closed mentions counted",
            )?;
            ensure(
                needs["items"][0]["reason"] == "mention",
                "a direct mention before @here",
            )?;
            ensure(
                result["keywords"]["total"].as_u64() >= Some(1),
                "a message holding a keyword",
            )?;
            let due = result["due"]["items"].as_array().unwrap();
            ensure(
                due.iter().any(|item| item["kind"] == "bookmark")
                    && due.iter().any(|item| item["kind"] == "failedSchedule"),
                "an overdue bookmark and a failed schedule",
            )?;
            ensure(
                result["conversations"]["total"].as_u64() >= Some(1),
                "a conversation the owner is in",
            )?;
            ensure(
                result["mostActive"]["total"].as_u64() >= Some(1),
                "a busy discussion",
            )?;
            ensure(result["rest"]["total"].as_u64() >= Some(1), "the rest")?;
            ensure(result["watermark"] == result["through"], "the watermark")
        }),
        ("store_status", |results| {
            let result = &results[0];
            // The demo store was built by `seed`, not by `ingest`: it says so, and says that
            // every readable channel holds only what the feed delivered.
            ensure(
                result["ingest"]["state"] == "never-ran",
                "the daemon never ran on the demo",
            )?;
            ensure(
                result["messageCount"].as_u64() >= Some(10),
                "the demo's message count",
            )?;
            ensure(
                result["neverBackfilled"]
                    .as_array()
                    .is_some_and(|channels| channels.len() >= 3),
                "the readable channels never backfilled",
            )?;
            ensure(
                result["newestGatewayEvent"].is_string(),
                "when the newest gateway event arrived",
            )?;
            ensure(result["storeBytes"].as_u64() > Some(0), "the store's size")
        }),
        ("schedules_list", |results| {
            let result = &results[0];
            let schedules = result["schedules"].as_array().unwrap();
            let with_status = |status: &str| {
                schedules
                    .iter()
                    .filter(|s| s["status"] == status)
                    .collect::<Vec<_>>()
            };
            ensure(
                with_status("sent")
                    .iter()
                    .any(|s| s["messageId"].is_string() && s["finishedAt"].is_string()),
                "a sent scheduled message with the message Discord created",
            )?;
            ensure(
                with_status("failed").iter().any(|s| {
                    s["reason"]
                        .as_str()
                        .is_some_and(|r| r.contains("Send Messages is denied"))
                }),
                "a failed scheduled message with why",
            )?;
            ensure(
                !with_status("pending").is_empty(),
                "a pending scheduled message",
            )?;
            ensure(
                !with_status("cancelled").is_empty(),
                "a cancelled scheduled message",
            )
        }),
        ("bookmarks_add", |results| {
            let result = &results[0];
            ensure(
                result["contentWhenBookmarked"]
                    .as_str()
                    .is_some_and(|c| !c.is_empty()),
                "the bookmarked content",
            )?;
            ensure(result["source"] == "cli", "the source")
        }),
        ("bookmarks_resolve", |results| {
            let result = &results[0];
            ensure(
                result["resolvedAt"].is_string() && result["note"] == "answer Margaret",
                "the resolution with its note",
            )
        }),
        ("channels_mark_read", |results| {
            ensure(
                results[0]["channels"]
                    == json!([{"channelId": "1400000000000000005",
                                                  "channelName": "v2.4 rollout"}]),
                "the one channel marked when one is named",
            )?;
            let result = &results[1];
            ensure(result["through"].is_string(), "the instant read through")?;
            ensure(
                result["channels"].as_array().is_some_and(|c| c.len() >= 3),
                "every readable channel marked",
            )?;
            ensure(result["source"] == "cli", "the source")
        }),
        ("mentions_dismiss", |results| {
            let result = &results[0];
            ensure(
                result["mention"]["closed"] == "dismissed",
                "the mention closed as dismissed",
            )?;
            ensure(result["source"] == "cli", "the source")?;
            ensure(result["dismissedAt"].is_string(), "when it was dismissed")
        }),
        // The seed posted, edited and deleted the bot's messages in #releases and acknowledged
        // the CI build with the bot's ✅: each follow-up acts on that state.
        ("messages_edit", |results| {
            let result = &results[0];
            ensure(result["authorKind"] == "thisBot", "the bot's own message")?;
            ensure(
                result["content"] == "Deploy window for v2.4.0 opens at 15:30 UTC.",
                "the new text",
            )?;
            ensure(result["editedAt"].is_string(), "when it was edited")
        }),
        ("reactions_remove", |results| {
            let result = &results[0];
            // The bot's 🚀 of `reactions_add`, which runs before, stays.
            ensure(
                result["reactions"] == json!([{"emoji": "🚀", "count": 1}]),
                "the bot's ✅, which the seed added, taken back",
            )
        }),
        ("reactions_add", |results| {
            let result = &results[0];
            ensure(
                result["reactions"].as_array().is_some_and(|reactions| {
                    reactions.contains(&json!({"emoji": "🚀", "count": 1}))
                }),
                "the bot's reaction counted once",
            )?;
            ensure(
                result["authorKind"] == "webhook",
                "on the CI build's message",
            )
        }),
        ("messages_delete", |results| {
            let result = &results[0];
            ensure(result["deleted"] == true, "the message shown deleted")?;
            ensure(
                result["content"] == "Deploy window for v2.4.0 opens at 15:30 UTC.",
                "what it said, which the store keeps",
            )
        }),
        ("messages_send", |results| {
            let result = &results[0];
            ensure(result["authorId"] == DEMO_BOT, "the bot as the author")?;
            ensure(
                result["replyToMessageId"] == "1500000000000000004",
                "the reply target",
            )?;
            ensure(
                result["guildId"] == "1200000000000000001",
                "the guild, which Discord's answer to a send leaves out",
            )?;
            ensure(
                result["createdAt"].is_string(),
                "when the store recorded it",
            )
        }),
        ("schedules_add", |results| {
            let result = &results[0];
            ensure(result["status"] == "pending", "a pending scheduled message")?;
            ensure(result["channelName"] == "releases", "the channel by name")?;
            ensure(result["scheduleId"] == 5, "the next schedule id")
        }),
        ("schedules_cancel", |results| {
            let result = &results[0];
            ensure(result["status"] == "cancelled", "the cancellation")?;
            ensure(
                result["content"] == "Release retro at 15:00 UTC.",
                "the message that will not be sent",
            )?;
            ensure(result["finishedAt"].is_string(), "when it was cancelled")
        }),
    ]
}

type PromptCheck = fn(&str) -> Result<(), String>;

/// Whether `text` shows `words` fenced as other people's text (between a nonce's markers).
fn fenced(text: &str, words: &str) -> bool {
    text.match_indices(words)
        .any(|(at, _)| text[..at].ends_with('›') && text[at + words.len()..].starts_with("‹/"))
}

/// What each prompt must show rendered on the demo store: (prompt, its arguments, the check).
fn prompt_checks() -> Vec<(&'static str, Value, PromptCheck)> {
    vec![
        ("what-did-i-miss", json!({}), |text| {
            ensure(
                text.contains("## Needs you: 3 open"),
                "the three open items that need the owner",
            )?;
            ensure(
                text.contains(
                    "message 1500000000000000014 (https://discord.com/channels/\
                     1200000000000000001/1400000000000000003/1500000000000000014) in",
                ) && fenced(
                    text,
                    "Grace: @Ada are you around for the incident review tomorrow?",
                ),
                "the open mention by its id and its link, its text fenced",
            )?;
            ensure(
                text.contains("## Your keywords (postmortem, cache node): 2")
                    && text.contains("[postmortem, cache node] message 1500000000000000009 ("),
                "the owner's keywords, found",
            )?;
            ensure(
                text.contains("channels_mark_read {\"through\":"),
                "the briefing's watermark for channels_mark_read",
            )?;
            ensure(
                text.contains("Then offer to act, and act only on what the owner chooses"),
                "the offer to act",
            )
        }),
        ("triage-my-mentions", json!({}), |text| {
            ensure(
                text.contains("3 mentions of the owner:"),
                "every mention awaiting a reply",
            )?;
            for (id, words) in [
                (
                    "1500000000000000008",
                    "@here latency spike on eu-west, investigating.",
                ),
                (
                    "1500000000000000013",
                    "@Ada could you write the v2.4.0 announcement?",
                ),
                (
                    "1500000000000000014",
                    "@Ada are you around for the incident review tomorrow?",
                ),
            ] {
                ensure(
                    text.contains(&format!("msg {id} ")) && fenced(text, words),
                    "each mention by its id, its text fenced",
                )?;
            }
            ensure(
                text.contains("dismiss it with mentions_dismiss"),
                "the triage's choices",
            )
        }),
        (
            "reply-to-a-message",
            // The link the owner pastes, as Discord copies it.
            json!({"message": "https://discord.com/channels/1200000000000000001/1400000000000000003/1500000000000000014"}),
            |text| {
                ensure(
                    text.starts_with("The owner wants to reply to message 1500000000000000014."),
                    "the message to answer",
                )?;
                ensure(
                    text.contains("msg 1500000000000000014 by")
                        && fenced(
                            text,
                            "@Ada are you around for the incident review tomorrow?",
                        ),
                    "the message, its text fenced",
                )?;
                ensure(
                    text.contains("msg 1500000000000000008 by")
                        && fenced(text, "@here latency spike on eu-west, investigating."),
                    "the conversation before it",
                )?;
                ensure(
                    text.contains("post it with messages_send"),
                    "how to post the approved reply",
                )
            },
        ),
    ]
}

#[tokio::test]
async fn every_tool_answers_meaningfully_from_a_freshly_seeded_store() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("demo.sqlite3");
    Command::cargo_bin("discord-manager")
        .unwrap()
        .env_clear()
        .args(["seed", "--db"])
        .arg(&path)
        .assert()
        .success();
    let store = Arc::new(Store::open(&path).unwrap());
    // A deployment that may send: a token is configured (never used: sends go to the seed's
    // stand-in for Discord, as they did when the seed ran the scheduler's job).
    // The owner's keywords too, so the briefing shows what they find.
    let config = Config::from_lookup(|name| match name {
        "DISCORD_TOKEN" => Some("demo-token.never.sent".to_string()),
        "DISCORD_MANAGER_KEYWORDS" => Some(r#"postmortem, "cache node""#.to_string()),
        _ => None,
    })
    .unwrap();
    let context = build_owner_context(&config, &store, Source::Cli).unwrap();
    assert_eq!(
        context.owner_id.as_ref().map(|id| id.to_string()),
        Some("1000000000000000001".to_string()),
        "the demo owner is learned from the store"
    );
    let services = Services {
        sender: Some(Arc::new(DemoDiscord::new(
            Arc::clone(&store),
            StoreRecorder::new(Arc::clone(&store)),
        )) as Arc<dyn DiscordSender>),
        store,
        context,
    };

    let registered: BTreeSet<&str> = capabilities().iter().map(|c| c.name).collect();
    let checks = checks();
    let checked: BTreeSet<&str> = checks.iter().map(|(name, _)| *name).collect();
    let unseedable: BTreeSet<&str> = DECLARED_UNSEEDABLE.iter().map(|(name, _)| *name).collect();
    let covered: BTreeSet<&str> = checked.union(&unseedable).copied().collect();
    assert_eq!(
        covered, registered,
        "every registered tool needs a check of its demonstrations (or an unseedable reason), and only those"
    );
    assert!(checked.is_disjoint(&unseedable));

    // Each prompt, rendered as `prompts/get` renders it, before any demonstration changes the
    // store.
    let prompt_checks = prompt_checks();
    assert_eq!(
        prompt_checks
            .iter()
            .map(|(name, _, _)| *name)
            .collect::<BTreeSet<_>>(),
        PROMPTS.iter().map(|prompt| prompt.name).collect(),
        "every prompt needs a check of its rendering on the demo store, and only those"
    );
    for (name, arguments, check) in prompt_checks {
        let text =
            discord_manager::mcp::prompt(name, arguments.as_object().cloned(), services.clone())
                .await
                .unwrap_or_else(|error| {
                    panic!(
                        "the prompt {name} failed on the demo store: {}",
                        error.message
                    )
                });
        if let Err(missing) = check(&text) {
            panic!("the prompt {name} renders without {missing} from the demo store:\n{text}");
        }
    }

    // Each capability's own demonstrations (`business::kernel::examples`), read-only ones first.
    let sample = Sample::of_the_demo();
    for capability in in_demo_order() {
        let tool = capability.name;
        let Some((_, check)) = checks.iter().find(|(name, _)| *name == tool) else {
            continue;
        };
        let demo = capability.examples(&sample).demo;
        assert!(!demo.is_empty(), "{tool} has no demonstration");
        let mut results = Vec::new();
        for arguments in demo {
            let outcome = capability.call(arguments.clone(), &services).await;
            results.push(
                outcome
                    .unwrap_or_else(|error| {
                        panic!(
                            "{tool} {arguments} failed on the demo store: {}",
                            error.message()
                        )
                    })
                    .to_json(),
            );
        }
        if let Err(missing) = check(&results) {
            panic!("{tool} answers without {missing} from the demo store:\n{results:#?}");
        }
    }
}

#[test]
fn seed_refuses_a_store_that_is_not_empty_and_replaces_it_when_told() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("demo.sqlite3");
    let seed = |extra: &[&str]| {
        Command::cargo_bin("discord-manager")
            .unwrap()
            .env_clear()
            .args(["seed", "--db"])
            .arg(&path)
            .args(extra)
            .assert()
    };
    seed(&[]).success();
    let refused = seed(&[]).failure().code(4);
    let stderr = String::from_utf8(refused.get_output().stderr.clone()).unwrap();
    assert_eq!(
        stderr.trim(),
        format!(
            "error: The store at {} is not empty: seed writes only into an empty store (pass --replace to delete it and start over)",
            path.display()
        )
    );
    seed(&["--replace"]).success();
}

/// `seed --replace` deletes only a demo store seed made: never a store ingest recorded into
/// (the default production store, when `--db` is left out), never one whose ingest lock is
/// held, and never one another process has open.
#[test]
fn seed_replace_refuses_a_store_seed_did_not_make_and_one_ingest_holds() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.sqlite3");
    let seed = |extra: &[&str]| {
        Command::cargo_bin("discord-manager")
            .unwrap()
            .env_clear()
            .args(["seed", "--db"])
            .arg(&path)
            .args(extra)
            .assert()
    };
    // A store ingest recorded into.
    {
        let store = Arc::new(Store::open(&path).unwrap());
        discord_manager_ingest::guilds::record_application_owner(
            &store,
            &"1000000000000000009".parse().unwrap(),
            discord_manager_store::IdentitySource::Application,
        )
        .unwrap();
    }
    let refused = seed(&["--replace"]).failure().code(4);
    let stderr = String::from_utf8(refused.get_output().stderr.clone()).unwrap();
    assert_eq!(
        stderr.trim(),
        format!(
            "error: The store at {} was not created by seed: --replace deletes only a demo store \
             seed made, never one ingest recorded into (delete it yourself if you mean to)",
            path.display()
        )
    );
    let kept = Store::open(&path).unwrap();
    assert_eq!(
        kept.read(|reader| reader.identity())
            .unwrap()
            .owner_user_id
            .as_ref()
            .map(|id| id.to_string()),
        Some("1000000000000000009".to_string()),
        "the store was left as it was"
    );
    drop(kept);

    // A demo store, while an ingest holds it.
    let demo = folder.path().join("demo.sqlite3");
    let seed_demo = |extra: &[&str]| {
        Command::cargo_bin("discord-manager")
            .unwrap()
            .env_clear()
            .args(["seed", "--db"])
            .arg(&demo)
            .args(extra)
            .assert()
    };
    seed_demo(&[]).success();
    let holder = Store::open(&demo).unwrap();
    let claim = holder.claim_ingest().unwrap();
    let refused = seed_demo(&["--replace"]).failure().code(4);
    let stderr = String::from_utf8(refused.get_output().stderr.clone()).unwrap();
    assert_eq!(
        stderr.trim(),
        format!(
            "error: The store at {} is in use by `discord-manager ingest`: stop it before \
             replacing the store",
            demo.display()
        )
    );
    drop(claim);
    // Without its claim the holder still has the store open: what it wrote later would go to
    // the deleted file.
    let refused = seed_demo(&["--replace"]).failure().code(4);
    let stderr = String::from_utf8(refused.get_output().stderr.clone()).unwrap();
    assert_eq!(
        stderr.trim(),
        format!(
            "error: The store at {} is open in another discord-manager process (an `mcp` \
             server, `ingest`, or a command reading it): stop it before replacing the store, or \
             what it writes later would be lost with the deleted file",
            demo.display()
        )
    );
    drop(holder);
    seed_demo(&["--replace"]).success();
}
