//! Claude Code's channel events (`notifications/claude/channel`) are not part of MCP: the
//! official SDK clients know no such notification. They still get every tool's answer while
//! the server pushes them. The TypeScript SDK (`@modelcontextprotocol/sdk`) and the Python SDK
//! (`mcp`), pinned in `e2e/clients/`, each start the real server on a copy of the demo store.
//! The server pushes the demo's open mentions as the session starts; each client waits until
//! one has reached it, lists the tools and makes every demonstration the registry declares
//! (`business::kernel::examples`), those acting on Discord through a fake Discord that holds
//! the demo's messages. Halfway through the calls it pauses, Grace mentions the owner (stored
//! through the recorders), and it goes on once that push has reached it. rmcp's client does
//! the same on a third copy. Each SDK lists exactly the registry's tools with rmcp's
//! descriptions, receives the events rmcp does, and gets for every call the answer rmcp gets:
//! the same content blocks and structured result, but for the fence's per-answer nonce and
//! what the sessions themselves minted (the instants they stamped or counted back from, the
//! ids of the messages they sent or were mentioned in).

use std::collections::BTreeSet;
use std::time::{SystemTime, UNIX_EPOCH};

use discord_manager_core::business::kernel::examples::{Sample, demo};
use discord_manager_core::registry::{capabilities, in_demo_order};
use discord_manager_vocabulary::instant::Instant;
use serde_json::{Value, json};

use crate::support::fake_discord::{FakeDiscord, GENERAL, OWNER, RELEASES};
use crate::support::time::Stamp;
use crate::support::{Store, fresh_id};
use crate::support::sdk::{self, Sdk, SdkRun};

/// The demo's feed: what the fake Discord holds, so the demonstrations that act on Discord
/// find their messages there.
const DEMO_FEED: &str = include_str!("../../seed/demo.jsonl");

/// Discord's epoch, in milliseconds since 1970: a snowflake's time is counted from it.
const DISCORD_EPOCH_MS: i64 = 1_420_070_400_000;

pub async fn spec() {
    let sample = Sample::of_the_demo();
    let calls: Vec<(String, Value)> = in_demo_order()
        .into_iter()
        .flat_map(|capability| {
            let tool = capability.name.to_string();
            capability
                .examples(&sample)
                .demo
                .into_iter()
                .map(move |arguments| (tool.clone(), arguments))
        })
        .collect();
    let registered: Vec<String> = capabilities()
        .iter()
        .map(|capability| capability.name.to_string())
        .collect();
    let demonstrated: BTreeSet<&String> = calls.iter().map(|(tool, _)| tool).collect();
    assert_eq!(
        demonstrated,
        registered.iter().collect::<BTreeSet<_>>(),
        "the calls reach every registered tool"
    );

    let [for_rmcp, for_typescript, for_python] = <[Store; 3]>::try_from(
        Store::copies_of_the_demo(3),
    )
    .unwrap_or_else(|_| unreachable!("three copies were asked for"));
    let minted_from = micros_now();

    // Halfway through the calls, Grace mentions the owner: pushed while the tools answer. One
    // mention, under one id, played into each session's own store: the answers that show it
    // are then the same in every session.
    let halfway = calls.len() / 2;
    let mention = live_mention();

    let (fake, store) = sending_to_a_fake_discord(for_rmcp);
    let mcp = store.mcp().await;
    let rmcp_tools: Vec<(String, Option<String>)> = mcp
        .tools()
        .await
        .into_iter()
        .map(|tool| (tool.name.to_string(), tool.description.map(String::from)))
        .collect();
    assert_eq!(
        rmcp_tools.iter().map(|(name, _)| name).collect::<Vec<_>>(),
        registered.iter().collect::<Vec<_>>(),
        "tools/list is the registry, in its order"
    );
    let replayed = mcp.wait_for_pushed(1).await[0].clone();
    let mut rmcp_results = Vec::new();
    let mut rmcp_live = Value::Null;
    for (tool, arguments) in &calls {
        if rmcp_results.len() == halfway {
            store.play_lines(&mention.line).await;
            let pushed = mcp
                .wait_until_pushed("the live mention", |pushed| {
                    pushed.iter().any(|event| event["meta"]["message_id"] == mention.id)
                })
                .await;
            rmcp_live = pushed.last().unwrap().clone();
        }
        let result = mcp.call_as_sent(tool, arguments.clone()).await;
        assert_ne!(
            result["isError"],
            json!(true),
            "{tool} {arguments} is answered on the demo store: {result:#}"
        );
        rmcp_results.push(result);
    }
    mcp.stop().await;
    assert_sent_to(&fake, 1);

    for (sdk, store) in [(Sdk::TypeScript, for_typescript), (Sdk::Python, for_python)] {
        let (fake, store) = sending_to_a_fake_discord(store);
        let mut session = sdk::start(sdk, &store, &calls, 1, halfway);
        session.paused().await;
        store.play_lines(&mention.line).await;
        let run = session.finish().await;
        assert_eq!(
            run.tools
                .iter()
                .map(|tool| (tool.name.clone(), tool.description.clone()))
                .collect::<Vec<_>>(),
            rmcp_tools,
            "the {sdk:?} SDK {} lists the registry's tools as rmcp does",
            run.sdk
        );
        assert_eq!(run.results.len(), calls.len());
        let run_time = Minted {
            from: minted_from,
            until: micros_now(),
        };
        assert_pushed_while_answering(sdk, &run, &replayed, (halfway, &mention, &rmcp_live), run_time);
        for (((tool, arguments), by_sdk), by_rmcp) in
            calls.iter().zip(&run.results).zip(&rmcp_results)
        {
            assert_eq!(by_sdk["tool"], json!(tool));
            let (by_sdk, by_rmcp) = (as_compared(by_sdk, run_time), as_compared(by_rmcp, run_time));
            assert!(
                by_sdk == by_rmcp,
                "the {sdk:?} SDK {} gets {tool} {arguments} answered otherwise than rmcp: {}",
                run.sdk,
                first_difference("", &by_sdk, &by_rmcp)
            );
        }
        assert_sent_to(&fake, 1);
    }
}

/// A message posted while a session runs, as a feed line.
struct LiveMention {
    id: String,
    line: String,
}

/// Grace mentioning the owner in #incidents now, under a fresh id: the demo's open mention
/// (`seed/demo.jsonl`) posted again with another text.
fn live_mention() -> LiveMention {
    let open_mention = DEMO_FEED
        .lines()
        .find(|line| line.contains(&format!("\"id\": \"{}\"", demo::OPEN_MENTION)))
        .expect("the demo's open mention");
    let mut line: Value = serde_json::from_str(open_mention).unwrap();
    let id = fresh_id();
    line["d"]["id"] = json!(id);
    line["d"]["timestamp"] = json!(Stamp::now().wire());
    line["d"]["content"] = json!(format!(
        "<@{OWNER}> the rollout is stuck at 40%, can you look now?"
    ));
    LiveMention {
        id,
        line: line.to_string(),
    }
}

/// A fake Discord holding the demo's messages, and `store` sending to it with the channels
/// the demonstrations post in listed (`DISCORD_MANAGER_SEND_CHANNELS`).
fn sending_to_a_fake_discord(store: Store) -> (FakeDiscord, Store) {
    let fake = FakeDiscord::start();
    fake.post_offline(DEMO_FEED);
    let store = store
        .sending_to(&fake)
        .setting("DISCORD_MANAGER_SEND_CHANNELS", &format!("{GENERAL},{RELEASES}"));
    (fake, store)
}

/// The session posted `count` messages on the fake Discord: the demonstrations' calls did
/// reach it.
fn assert_sent_to(fake: &FakeDiscord, count: usize) {
    assert_eq!(fake.posts().len(), count, "{:#?}", fake.requests());
}

/// The SDK's client received, before its first call (it waited for one), the event rmcp's
/// client received first, replayed from the demo's open mentions; and, while it paused after
/// `halfway` calls, the push of the mention stored then, as rmcp's client received its own.
fn assert_pushed_while_answering(
    sdk: Sdk,
    run: &SdkRun,
    replayed: &Value,
    (halfway, mention, rmcp_live): (usize, &LiveMention, &Value),
    minted: Minted,
) {
    let first = run
        .pushed
        .first()
        .unwrap_or_else(|| panic!("the {sdk:?} SDK's client received no channel event"));
    assert_eq!(first.calls_answered, 0, "{:#?}", run.pushed);
    assert_eq!(
        without_nonce(&first.params),
        without_nonce(replayed),
        "the {sdk:?} SDK's client received the event rmcp's did"
    );
    let live = run
        .pushed
        .iter()
        .find(|event| event.params["meta"]["message_id"] == mention.id)
        .unwrap_or_else(|| panic!("the {sdk:?} client got no push of the live mention: {:#?}", run.pushed));
    assert_eq!(live.calls_answered, halfway, "pushed while the client paused halfway");
    assert_eq!(live.params["meta"]["kind"], "mention");
    let compared = |event: &Value| map_strings(&without_nonce(event), &|text| mask_minted(text, minted));
    assert_eq!(compared(&live.params), compared(rmcp_live));
}

/// The stretch of time the sessions ran in, in microseconds since 1970.
#[derive(Clone, Copy)]
struct Minted {
    from: i64,
    until: i64,
}

impl Minted {
    /// Whether `instant` was made by a session rather than by the seed: stamped while one ran,
    /// or a default window a call counted back from that moment in whole days ("the last
    /// day", a week's lookback). The seed's instants all lie before `from`.
    fn holds(self, instant: i64) -> bool {
        const DAY: i64 = 86_400_000_000;
        (0..=30).any(|days| (self.from..=self.until).contains(&(instant + days * DAY)))
    }
}

/// A result as two clients can be held to give the same: its content blocks (a text's text, an
/// image's type and bytes), its structured result and whether it is an error, the fence's
/// nonce (new in every answer) named alike, and what the sessions minted (an instant they
/// stamped or counted from, a snowflake Discord gave them) written `<minted>`.
fn as_compared(result: &Value, minted: Minted) -> Value {
    let content: Vec<Value> = result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("a result has content: {result:#}"))
        .iter()
        .map(|block| match block["type"].as_str() {
            Some("text") => json!({"type": "text", "text": block["text"]}),
            Some("image") => {
                json!({"type": "image", "mimeType": block["mimeType"], "data": block["data"]})
            }
            _ => block.clone(),
        })
        .collect();
    let compared = json!({
        "isError": result["isError"].as_bool().unwrap_or(false),
        "content": content,
        "structuredContent": result["structuredContent"],
    });
    let compared = without_nonce(&compared);
    map_strings(&compared, &|text| mask_minted(text, minted))
}

/// Where `left` and `right` first differ, by JSON path (and, in a text, the line), with both.
fn first_difference(path: &str, left: &Value, right: &Value) -> String {
    match (left, right) {
        (Value::Object(l), Value::Object(r)) if l.keys().eq(r.keys()) => l
            .iter()
            .find(|(key, value)| r[*key] != **value)
            .map(|(key, value)| first_difference(&format!("{path}/{key}"), value, &r[key]))
            .unwrap_or_default(),
        (Value::Array(l), Value::Array(r)) if l.len() == r.len() => l
            .iter()
            .zip(r)
            .enumerate()
            .find(|(_, (l, r))| l != r)
            .map(|(index, (l, r))| first_difference(&format!("{path}/{index}"), l, r))
            .unwrap_or_default(),
        (Value::String(l), Value::String(r)) => {
            let line = l.lines().zip(r.lines()).find(|(l, r)| l != r);
            format!("at {path}, {line:?}")
        }
        _ => format!("at {path}: {left} against {right}"),
    }
}

/// `value` with the nonce of each fence it carries written `nonce`.
fn without_nonce(value: &Value) -> Value {
    let mut nonces = Vec::new();
    for text in strings(value) {
        let mut rest = text;
        while let Some(start) = rest.find("Text between ‹") {
            let after = &rest[start + "Text between ‹".len()..];
            let Some(end) = after.find('›') else { break };
            nonces.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    map_strings(value, &|text| {
        nonces.iter().fold(text.to_string(), |text, nonce| {
            text.replace(&format!("‹{nonce}›"), "‹nonce›")
                .replace(&format!("‹/{nonce}›"), "‹/nonce›")
        })
    })
}

/// Every string in `value`, keys aside.
fn strings(value: &Value) -> Vec<&str> {
    match value {
        Value::String(text) => vec![text.as_str()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        Value::Object(map) => map.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

/// `value` with `change` applied to every string in it, keys left as they are.
fn map_strings(value: &Value, change: &dyn Fn(&str) -> String) -> Value {
    match value {
        Value::String(text) => Value::String(change(text)),
        Value::Array(items) => items.iter().map(|item| map_strings(item, change)).collect(),
        Value::Object(map) => map
            .iter()
            .map(|(key, item)| (key.clone(), map_strings(item, change)))
            .collect(),
        other => other.clone(),
    }
}

/// `text` with every instant (written out, or in microseconds) and every snowflake the
/// sessions minted written `<minted>`.
fn mask_minted(text: &str, minted: Minted) -> String {
    let is_word = |c: char| c.is_ascii_alphanumeric() || ":.-+".contains(c);
    let mut masked = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(is_word) {
        masked.push_str(&rest[..start]);
        let word = &rest[start..];
        let end = word.find(|c: char| !is_word(c)).unwrap_or(word.len());
        let word = &word[..end];
        let token = word.trim_end_matches(['.', ':', '-']);
        let minted = if token.len() >= 16 && token.bytes().all(|b| b.is_ascii_digit()) {
            // A snowflake, or an instant in microseconds (as a cursor carries one).
            token.parse::<i64>().is_ok_and(|number| {
                minted.holds(((number >> 22) + DISCORD_EPOCH_MS) * 1000) || minted.holds(number)
            })
        } else {
            Instant::parse(token).is_some_and(|instant| {
                // One written to the second (a text's time) is held from that second on.
                let micros = instant.as_micros();
                minted.holds(micros) || (!token.contains('.') && minted.holds(micros + 999_999))
            })
        };
        if minted {
            masked.push_str("<minted>");
            masked.push_str(&word[token.len()..]);
        } else {
            masked.push_str(word);
        }
        rest = &rest[start + end..];
    }
    masked.push_str(rest);
    masked
}

/// Now, in microseconds since 1970.
fn micros_now() -> i64 {
    let since_1970 = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("the clock is after 1970");
    i64::try_from(since_1970.as_micros()).expect("microseconds fit")
}
