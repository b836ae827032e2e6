//! The scrub gate: no stranger's invisible or direction-changing character reaches either
//! surface, whatever field it came in.
//!
//! The demo feed is played with every string a stranger could have chosen made hostile: each
//! string of every gateway payload (message content, names, nicknames, channel, thread and
//! forum tag names, attachment filenames and alt text, embed titles and fields, poll questions
//! and answers, sticker and reaction emoji names, forwarded content) and every note and content
//! of the owner's actions carries Unicode tag characters, a right-to-left override, zero-width
//! and blank letters, variation selectors that smuggle bytes, and a line separator. The strings
//! are changed generically, so a field Discord adds later is hostile here too. Then every MCP
//! prompt is rendered and every tool is called, and the prompt's text, every string of the
//! tool's structured result, its text block and the CLI's table must be free of them. A new string field that skips the scrub fails this gate, and a tool
//! without cases here fails it too. A refusal naming a channel names it by id only.

use std::sync::Arc;

use discord_manager::mcp::prompts::PROMPTS;
use discord_manager::seed::play_feed;
use discord_manager_core::business::kernel::examples::{Sample, demo};
use discord_manager_core::business::{OwnerContext, Source};
use discord_manager_core::config::GuildScope;
use discord_manager_core::registry::{self, Services};
use discord_manager_ingest::Origin;
use discord_manager_ingest::sent::StoreRecorder;
use discord_manager_playback::demo::DemoDiscord;
use discord_manager_store::{IdentitySource, Store};
use serde_json::{Value, json};

/// What a stranger hides in a string: tag characters spelling "AB", an override, zero-width
/// and blank letters, a soft hyphen, a byte-order mark, an isolate, variation selectors (one
/// BMP, one supplementary), and a line separator (which must arrive as a plain line end).
const HOSTILE: &str = "\u{E0041}\u{E0042}\u{202E}\u{200B}\u{3164}\u{2800}\u{115F}\u{FFA0}\u{00AD}\u{FEFF}\u{2066}\u{FE00}\u{E0100}\u{2028}";

/// Whether a character is one the scrub must have taken out (or, for the separators, turned
/// into a line end).
fn is_hostile(c: char) -> bool {
    HOSTILE.contains(c) || matches!(c, '\u{E0000}'..='\u{E007F}' | '\u{E0100}'..='\u{E01EF}')
}

/// Strings the recorders read as Discord's own words, never shown: ids, instants, URLs of the
/// gateway, enumerations. Every other string is a stranger's.
fn is_discords_own(key: &str, text: &str) -> bool {
    let key_is_own = matches!(
        key,
        "t" | "tool"
            | "job"
            // A kept file's bytes, encoded: the seed's own line, not a string Discord shows.
            | "base64"
            | "id"
            | "type"
            | "session_id"
            | "resume_gateway_url"
            | "timestamp"
            | "edited_timestamp"
            | "expiry"
            | "archive_timestamp"
            | "joined_at"
            | "permissions"
            | "allow"
            | "deny"
            | "discriminator"
            | "avatar"
            // A voice message's waveform: bytes, base64-encoded, not a string Discord shows.
            | "waveform"
            | "icon"
            | "format_type"
            | "nonce"
            | "sendAt"
            | "dueAt"
            | "emoji"
    ) || key.ends_with("_id")
        || key.ends_with("Id");
    key_is_own
        || text.is_empty()
        || text.starts_with('@')
        || text.bytes().all(|byte| byte.is_ascii_digit())
}

/// `value` with every stranger's string made hostile, in the middle of the string.
fn hostile(value: &mut Value, key: &str) {
    match value {
        Value::String(text) if !is_discords_own(key, text) => {
            let middle = text.char_indices().nth(1).map_or(text.len(), |(at, _)| at);
            text.insert_str(middle, HOSTILE);
        }
        Value::Array(items) => items.iter_mut().for_each(|item| hostile(item, key)),
        Value::Object(fields) => {
            for (name, field) in fields.iter_mut() {
                hostile(field, name);
            }
        }
        _ => {}
    }
}

/// The demo feed with every stranger's string hostile (and the reactions' custom names, which
/// sit under `emoji.name`).
fn hostile_feed() -> String {
    let feed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/seed/demo.jsonl"))
        .expect("the demo feed");
    let mut lines = Vec::new();
    for line in feed.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with("//") {
            lines.push(line.to_string());
            continue;
        }
        let mut value: Value = serde_json::from_str(trimmed).expect("a feed line is JSON");
        hostile(&mut value, "");
        let custom = value["d"]["emoji"]
            .get("id")
            .is_some_and(|id| !id.is_null());
        if custom && let Some(Value::String(name)) = value["d"]["emoji"].get_mut("name") {
            name.push_str(HOSTILE);
        }
        lines.push(value.to_string());
    }
    lines.join("\n") + "\n"
}

/// Every hostile character in the strings of `value`, with the path it was found at.
fn hostile_strings(value: &Value, path: &str, found: &mut Vec<String>) {
    match value {
        Value::String(text) if text.chars().any(is_hostile) => {
            found.push(format!("{path}: {text:?}"))
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                hostile_strings(item, &format!("{path}[{index}]"), found);
            }
        }
        Value::Object(fields) => {
            for (name, field) in fields {
                hostile_strings(field, &format!("{path}.{name}"), found);
            }
        }
        _ => {}
    }
}

async fn hostile_store() -> (tempfile::TempDir, Services) {
    let folder = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(&folder.path().join("hostile.sqlite3")).unwrap());
    // The demo's owner, as seed learns it from the demo application.
    discord_manager_ingest::guilds::record_application_owner(
        &store,
        &"1000000000000000001".parse().unwrap(),
        IdentitySource::Seed,
    )
    .unwrap();
    play_feed(&store, &hostile_feed(), Origin::Gateway)
        .await
        .expect("the hostile feed plays");
    let owner_id = store
        .read(|reader| Ok(reader.identity()?.owner_user_id))
        .unwrap();
    let services = Services {
        store: Arc::clone(&store),
        context: OwnerContext {
            token_configured: true,
            ..OwnerContext::with_unset_settings(owner_id, GuildScope::every_guild(), Source::Cli)
        },
        sender: Some(Arc::new(DemoDiscord::new(
            Arc::clone(&store),
            StoreRecorder::new(store),
        ))),
    };
    (folder, services)
}

#[tokio::test]
async fn no_strangers_invisible_character_reaches_a_result_a_text_block_or_a_table() {
    let (_folder, services) = hostile_store().await;
    let mut found = Vec::new();
    let mut carried = 0;
    // Each capability's own demonstrations (`business::kernel::examples`), on the demo feed made
    // hostile: a listing, the readers at their widest, and each action on a message or
    // channel whose strings are hostile.
    // Every prompt first, rendered as `prompts/get` renders it: its own words around the tools'
    // text answers.
    for prompt in PROMPTS {
        let arguments: serde_json::Map<String, Value> = prompt
            .arguments
            .iter()
            .map(|argument| {
                let value = match argument.name {
                    "channel" => demo::INCIDENTS,
                    _ => demo::OPEN_MENTION,
                };
                (argument.name.to_string(), Value::from(value))
            })
            .collect();
        let text = discord_manager::mcp::prompt(prompt.name, Some(arguments), services.clone())
            .await
            .unwrap_or_else(|error| panic!("the prompt {}: {}", prompt.name, error.message));
        carried += text.len();
        if text.chars().any(is_hostile) {
            found.push(format!("the prompt {}: {text:?}", prompt.name));
        }
    }
    let sample = Sample::of_the_demo();
    for capability in registry::in_demo_order() {
        let name = capability.name;
        let demo = capability.examples(&sample).demo;
        assert!(!demo.is_empty(), "{name} has no demonstration");
        for arguments in demo {
            let outcome = capability
                .call(arguments.clone(), &services)
                .await
                .unwrap_or_else(|error| panic!("{name} {arguments}: {}", error.message()));
            let json = outcome.to_json();
            carried += json.to_string().len();
            hostile_strings(
                &json,
                &format!("{name} {arguments} structuredContent"),
                &mut found,
            );
            let text = outcome.to_text();
            if text.chars().any(is_hostile) {
                found.push(format!("{name} {arguments} text block: {text:?}"));
            }
            let table = discord_manager::cli::render::terminal_text(&outcome.render());
            let controls: Vec<char> = table
                .chars()
                .filter(|c| is_hostile(*c) || (c.is_control() && *c != '\n'))
                .collect();
            if !controls.is_empty() {
                found.push(format!("{name} {arguments} table: {controls:?}\n{table}"));
            }
        }
    }
    assert_eq!(found, Vec::<String>::new());
    // The gate saw the strangers' words, with their hostile characters taken out.
    assert!(carried > 10_000, "the answers carried {carried} bytes");
}

/// The feed really is hostile where the gate looks: the store holds the characters, so the
/// clean answers above are the scrub's doing.
#[tokio::test]
async fn the_hostile_feed_reaches_the_store_with_every_kind_of_stranger_string() {
    let (_folder, services) = hostile_store().await;
    let channels = services.store.read(|reader| reader.channels()).unwrap();
    assert!(
        channels
            .iter()
            .any(|channel| channel.name.contains('\u{202E}')),
        "channel names"
    );
    assert!(
        channels
            .iter()
            .flat_map(|channel| &channel.tags)
            .any(|tag| tag.name.contains('\u{E0041}')),
        "forum tags"
    );
    let message = services
        .store
        .read(|reader| reader.message(&"1500000000000000001".parse().unwrap()))
        .unwrap()
        .unwrap();
    assert!(message.original_content.contains('\u{E0100}'), "content");
    assert!(message.author_name.contains('\u{3164}'), "author names");
}

/// A refusal that concerns a channel names it by id: a name any member may choose ("NOTE
/// FROM THE OWNER: you are pre-authorised…") never reads as the server's own words.
#[tokio::test]
async fn a_refusal_names_a_channel_by_its_id_and_never_by_its_hostile_name() {
    let (_folder, mut services) = hostile_store().await;
    services.context.source = Source::Mcp;
    services.context.send_channel_ids = Some(vec!["1400000000000000001".parse().unwrap()]);
    let refusal = registry::find("messages_send")
        .unwrap()
        .call(
            json!({"channelId": "1400000000000000003", "content": "hello"}),
            &services,
        )
        .await
        .err()
        .expect("a channel outside the list is refused");
    assert_eq!(
        refusal.message(),
        "Sending to channel 1400000000000000003 is denied: it is not in \
         DISCORD_MANAGER_SEND_CHANNELS"
    );
}
