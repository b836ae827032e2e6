//! The embedding pass's blocks of codes: built as it writes and walks, always holding every
//! current vector of their range, and never needed for a right answer.

use discord_manager_meaning::blocks::{BLOCK_KEYS, CodeBlock};
use discord_manager_meaning::model::Identity;
use discord_manager_playback::world::World;
use discord_manager_vocabulary::words::SearchMode;
use serde_json::json;

use super::{EmbeddingPass, Step};
use crate::business::kernel::meaning_index::scan_row;
use crate::business::messages::search::{Search, search_messages};
use crate::test_fixtures::WorldContext;

const DRILL: &str = "restore drill went fine, 1.2TB restored in 47 min from the nightly snapshot";
const LUNCH: &str = "friday team lunch at the thai place? need headcount by wed";
const FAILOVER: &str = "pg primary fell over at 02:14, failover to the replica took ~90s";
const QUESTION: &str = "did the recovery test from backups succeed?";

fn model(world: &World) -> i64 {
    world
        .store
        .read(|reader| reader.meaning_model_id(Identity::bundled().as_str()))
        .unwrap()
        .expect("the model is recorded")
}

/// Block 0 as stored, and as it would be built now from the vectors.
fn stored_and_rebuilt(world: &World) -> (Option<CodeBlock>, CodeBlock) {
    let model = model(world);
    world
        .store
        .read(|reader| {
            let stored = reader
                .meaning_block(model, 0)?
                .map(|bytes| CodeBlock::decode(0, &bytes))
                .transpose()?;
            let rows = reader.meanings_of_keys_between(model, 0, BLOCK_KEYS - 1)?;
            let rebuilt = CodeBlock::from_rows(0, rows.into_iter().map(scan_row))?;
            Ok((stored, rebuilt))
        })
        .unwrap()
}

fn run(world: &World) -> usize {
    EmbeddingPass::new()
        .and_then(|mut pass| pass.run_to_end(&world.store))
        .unwrap()
}

/// The messages by meaning, best first, as a fresh process finds them (its index loaded anew).
fn by_meaning(world: &World) -> Vec<String> {
    let input = Search {
        query: QUESTION.to_string(),
        mode: Some(SearchMode::Meaning),
        ..Search::default()
    };
    search_messages(&world.store, input, &world.context())
        .unwrap()
        .results
        .into_iter()
        .map(|result| result.message.body.message_id.to_string())
        .collect()
}

#[test]
fn a_built_block_holds_every_current_vector_of_its_range_through_edits_and_emptied_texts() {
    let world = World::alone();
    let channel = world.channel("general");
    let drill = world.post(channel, "7", DRILL, json!({}));
    let lunch = world.post(channel, "7", LUNCH, json!({}));
    let failover = world.post(channel, "7", FAILOVER, json!({}));
    assert_eq!(run(&world), 3);
    let (stored, rebuilt) = stored_and_rebuilt(&world);
    assert_eq!(stored.as_ref(), Some(&rebuilt));
    assert_eq!(rebuilt.slots().len(), 3);
    // The drill's text moves to the lunch, and the lunch loses its text.
    world.edit(channel, drill, LUNCH, "2026-11-29T12:00:00Z");
    world.edit(channel, lunch, "", "2026-11-29T12:00:01Z");
    assert_eq!(run(&world), 2);
    let (stored, rebuilt) = stored_and_rebuilt(&world);
    assert_eq!(stored.as_ref(), Some(&rebuilt));
    assert_eq!(rebuilt.slots().len(), 2, "the emptied message has no slot");
    assert_eq!(
        by_meaning(&world),
        [failover.to_string(), drill.to_string()]
    );
}

#[test]
fn a_store_embedded_before_blocks_gets_them_as_the_pass_walks_and_a_damaged_one_is_read_from_its_vectors()
 {
    let world = World::alone();
    let channel = world.channel("general");
    let drill = world.post(channel, "7", DRILL, json!({}));
    let lunch = world.post(channel, "7", LUNCH, json!({}));
    assert_eq!(run(&world), 2);
    let found = by_meaning(&world);
    assert_eq!(found, [drill.to_string(), lunch.to_string()]);
    // As an earlier version left it: vectors, no blocks.
    let model = model(&world);
    world
        .store
        .write(|writer| writer.drop_meaning_blocks_except(model + 1))
        .unwrap();
    assert_eq!(stored_and_rebuilt(&world).0, None);
    assert_eq!(by_meaning(&world), found, "read from the vectors");
    let mut pass = EmbeddingPass::new().unwrap();
    assert_eq!(pass.step(&world.store).unwrap(), Step::default());
    let (stored, rebuilt) = stored_and_rebuilt(&world);
    assert_eq!(stored, Some(rebuilt));
    assert!(pass.step(&world.store).unwrap().idle);
    assert_eq!(by_meaning(&world), found, "read from the block");
    // A block that does not decode is read from its range's vectors.
    world
        .store
        .write(|writer| writer.put_meaning_block(model, 0, b"not a block"))
        .unwrap();
    assert_eq!(by_meaning(&world), found, "read from the vectors again");
}
