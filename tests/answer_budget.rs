//! The budget gate: every tool's answer fits an assistant's context window (ARCHITECTURE.md,
//! "Every answer fits a context window").
//!
//! On a generated store large enough to overflow every reader (10,000 messages in 500
//! channels, hundreds of mentions, 80 open bookmarks, 300 scheduled messages of the longest
//! content), each tool is called with its default inputs and with each bound at the largest
//! value its schema accepts (search in each mode: every message has a stand-in vector), and
//! the answer an MCP client receives (the structured result and the text block together) must
//! stay within the budget. The cases are each capability's own
//! examples (`business::kernel::examples`): its default and its largest inputs. The readers
//! whose largest answer must fill more than half of the budget are the registry's too: every
//! capability that only reads and whose output declares where to read on or how much it left
//! out ([`cut_by_the_budget`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use discord_manager_core::business::kernel::budget::ANSWER_BYTES;
use discord_manager_core::business::kernel::examples::{Sample, from_now, long_text};
use discord_manager_core::business::mentions::list::{ListMentions, list_mentions};
use discord_manager_core::business::{OwnerContext, Source};
use discord_manager_core::config::GuildScope;
use discord_manager_core::registry::{self, Capability, Services};
use discord_manager_ingest::sent::StoreRecorder;
use discord_manager_playback::demo::DemoDiscord;
use discord_manager_store::Store;
use discord_manager_synthetic::stand_in_meanings::{made_up_base, write_stand_in_meanings};
use discord_manager_synthetic::{OWNER_ID, Plan};
use discord_manager_vocabulary::instant::Instant;
use serde_json::{Value, json};

struct World {
    _folder: tempfile::TempDir,
    services: Services,
    sample: Sample,
}

/// The generated store, with 300 scheduled messages of the longest content (enough to
/// overflow `schedules_list`) and one message of the bot's own, and the sample of it every
/// capability's examples point into.
async fn world() -> World {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("budget.sqlite3");
    let store = Arc::new(Store::open(&path).expect("the store opens"));
    let (produced, _) = discord_manager_synthetic::build(&store, &Plan::new(10_000, 20_261_201))
        .expect("the generator runs");
    // Every message a vector, so the searches by meaning and by both find their fill.
    let bases: Vec<Vec<f32>> = (0..8).map(made_up_base).collect();
    write_stand_in_meanings(&store, &bases).expect("stand-in vectors");
    let context = OwnerContext {
        token_configured: true,
        ..OwnerContext::with_unset_settings(
            Some(OWNER_ID.parse().expect("the generator's owner id")),
            GuildScope::every_guild(),
            Source::Cli,
        )
    };
    let channel_id = produced
        .busiest_readable_channel
        .expect("the busiest channel's id");
    let first_arrival = produced.first_arrival.expect("a first arrival");
    let message = store
        .read(|reader| {
            Ok(reader
                .messages_arrived_from(&[&channel_id], first_arrival, 1)?
                .remove(0)
                .message_id)
        })
        .expect("a message of the busiest channel");
    let mention = list_mentions(
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
    let services = Services {
        store: Arc::clone(&store),
        context,
        sender: Some(Arc::new(DemoDiscord::new(
            Arc::clone(&store),
            StoreRecorder::new(store),
        ))),
    };
    let call = async |tool: &str, arguments: Value| {
        registry::find(tool)
            .unwrap()
            .call(arguments, &services)
            .await
            .unwrap_or_else(|error| panic!("{tool}: {}", error.message()))
            .to_json()
    };
    let bot_message = call(
        "messages_send",
        json!({"channelId": channel_id, "content": "the bot's own"}),
    )
    .await["messageId"]
        .as_str()
        .expect("the bot posts a message of its own")
        .to_string();
    let mut schedules = Vec::new();
    for n in 0..300 {
        let arguments = json!({"channelId": channel_id, "content": long_text(2000),
                               "sendAt": from_now(200 * 86_400 + n)});
        schedules.push(call("schedules_add", arguments).await["scheduleId"].clone());
    }
    let attachment = discord_manager::seed::play_kept_text_attachment(&services.store, &channel_id)
        .await
        .expect("a kept text attachment plays into the busiest channel");
    let sample = Sample {
        channel: channel_id,
        message,
        bot_message: bot_message.parse().expect("the bot's message id"),
        mention,
        word: discord_manager_synthetic::search_word(),
        attachment,
        schedule_id: schedules[0].as_i64().expect("a schedule's id"),
        first_arrival,
        newest: produced.last_arrival.expect("a last arrival"),
    };
    World {
        services,
        sample,
        _folder: folder,
    }
}

#[tokio::test]
async fn every_answer_fits_the_budget_with_default_and_largest_inputs() {
    let world = world().await;
    let mut largest: BTreeMap<&str, usize> = BTreeMap::new();
    // In registry order, so bookmarks_add comes before bookmarks_resolve and schedules_add
    // before schedules_cancel.
    for capability in registry::capabilities() {
        let examples = capability.examples(&world.sample);
        assert!(
            examples.on_a_generated_store().next().is_some(),
            "{} declares no call for the budget gate",
            capability.name
        );
        for arguments in examples.on_a_generated_store() {
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
    // gate would prove nothing on small answers. The readers are the registry's: every
    // capability that only reads and whose answer the budget cuts.
    eprintln!("largest answers in bytes: {largest:?}");
    let cut: Vec<&Capability> = registry::capabilities()
        .iter()
        .filter(|capability| cut_by_the_budget(capability))
        .collect();
    assert!(
        cut.len() >= 7,
        "the registry's readers that page: {:?}",
        cut.iter()
            .map(|capability| capability.name)
            .collect::<Vec<_>>()
    );
    for capability in cut {
        let tool = capability.name;
        assert!(
            largest[tool] > ANSWER_BYTES / 2,
            "{tool}'s largest answer is only {} bytes: the store does not fill it",
            largest[tool]
        );
    }
}

/// Whether the budget cuts a capability's answer: it only reads, and its output declares
/// where to read on (`nextCursor`, `olderCursor`) or how much it left out (`channelsLeftOut`).
fn cut_by_the_budget(capability: &Capability) -> bool {
    capability.effect.read_only()
        && capability
            .output_schema
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|properties| {
                properties
                    .keys()
                    .any(|field| field.ends_with("Cursor") || field.ends_with("LeftOut"))
            })
}
