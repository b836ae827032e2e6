//! The embedding pass's blocks of codes: built as it writes and walks, always holding every
//! current vector of their range, and never needed for a right answer.

use discord_manager_meaning::blocks::{BLOCK_KEYS, CodeBlock};
use discord_manager_meaning::centre::Centre;
use discord_manager_meaning::model::Identity;
use discord_manager_playback::world::World;
use discord_manager_store::StoredCentre;
use discord_manager_vocabulary::words::SearchMode;
use serde_json::json;

use super::{EmbeddingPass, Step};
use crate::business::kernel::meaning_index::{scan_row, store_centre};
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
            let centre = store_centre(reader, model)?;
            let stored = reader
                .meaning_block(model, 0)?
                .map(|bytes| CodeBlock::decode(0, &bytes, &centre))
                .transpose()?;
            let rows = reader.meanings_of_keys_between(model, 0, BLOCK_KEYS - 1)?;
            let rebuilt = CodeBlock::from_rows(0, &centre, rows.into_iter().map(scan_row))?;
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

/// The store's centre of the bundled model's vectors, as taken: the centre, how many vectors
/// it was taken of, and at how many messages embedded.
fn centre(world: &World) -> Option<(Centre, u64, u64)> {
    let model = model(world);
    world
        .store
        .read(|reader| reader.meaning_centre(model))
        .unwrap()
        .map(|stored| {
            let centre = Centre::from_bytes(&stored.centre).expect("a centre");
            (centre, stored.made_from, stored.reach)
        })
}

/// The centre of the stored vectors of `keys`, as the pass takes it.
fn centre_of(world: &World, keys: &[i64]) -> Centre {
    let model = model(world);
    let vectors = world
        .store
        .read(|reader| reader.meaning_vectors(model, keys))
        .unwrap();
    Centre::of(vectors.iter().map(|(_, vector)| vector.as_slice())).expect("vectors")
}

#[test]
fn the_pass_takes_a_centre_at_three_messages_again_at_six_and_never_after() {
    // In the unit tests a centre is first taken at 3 messages embedded, again when they have
    // doubled, and settles at 6, each of at most 4 vectors spread over the walked keys.
    let world = World::alone();
    let channel = world.channel("general");
    let texts = [
        DRILL,
        LUNCH,
        FAILOVER,
        QUESTION,
        "the deploy is green",
        "who has the pager",
    ];
    world.post(channel, "7", texts[0], json!({}));
    world.post(channel, "7", texts[1], json!({}));
    let mut pass = EmbeddingPass::new().unwrap();
    assert_eq!(pass.run_to_end(&world.store).unwrap(), 2);
    assert_eq!(centre(&world), None, "two messages: no centre yet");
    let (stored, rebuilt) = stored_and_rebuilt(&world);
    assert_eq!(stored.as_ref(), Some(&rebuilt), "uncentred, current");

    world.post(channel, "7", texts[2], json!({}));
    assert_eq!(pass.run_to_end(&world.store).unwrap(), 1);
    let (first, made_from, reach) = centre(&world).expect("a centre at three");
    assert_eq!((made_from, reach), (3, 3));
    assert_eq!(first, centre_of(&world, &[1, 2, 3]));
    // The blocks were dropped with the old centre and built again less the new one.
    let (stored, rebuilt) = stored_and_rebuilt(&world);
    assert_eq!(stored.as_ref(), Some(&rebuilt));
    let found = by_meaning(&world);
    assert_eq!(found.len(), 3);

    // Five: not doubled yet.
    world.post(channel, "7", texts[3], json!({}));
    world.post(channel, "7", texts[4], json!({}));
    assert_eq!(pass.run_to_end(&world.store).unwrap(), 2);
    assert_eq!(centre(&world).map(|(_, made, at)| (made, at)), Some((3, 3)));

    // Six: taken again, of four keys spread over the six, and settled.
    world.post(channel, "7", texts[5], json!({}));
    assert_eq!(pass.run_to_end(&world.store).unwrap(), 1);
    let (second, made_from, reach) = centre(&world).expect("a centre at six");
    assert_eq!((made_from, reach), (4, 6));
    assert_eq!(second, centre_of(&world, &[1, 2, 4, 5]));
    let (stored, rebuilt) = stored_and_rebuilt(&world);
    assert_eq!(stored.as_ref(), Some(&rebuilt));

    // Twelve, in a new pass that reads the centre from the store: it stands.
    for (n, text) in texts.iter().enumerate() {
        world.post(channel, "7", &format!("{text} again {n}"), json!({}));
    }
    let mut later = EmbeddingPass::new().unwrap();
    assert_eq!(later.run_to_end(&world.store).unwrap(), 6);
    assert_eq!(
        centre(&world).map(|(centre, made, at)| (centre == second, made, at)),
        Some((true, 4, 6))
    );
}

#[test]
fn a_damaged_centre_is_searched_as_none_and_taken_again_by_the_next_pass() {
    let world = World::alone();
    let channel = world.channel("general");
    let drill = world.post(channel, "7", DRILL, json!({}));
    let lunch = world.post(channel, "7", LUNCH, json!({}));
    let failover = world.post(channel, "7", FAILOVER, json!({}));
    assert_eq!(run(&world), 3);
    let (taken, _, _) = centre(&world).expect("a centre at three");
    let found = by_meaning(&world);
    assert_eq!(
        found,
        [drill.to_string(), failover.to_string(), lunch.to_string()]
    );
    let model = model(&world);
    world
        .store
        .write(|writer| {
            writer.put_meaning_centre(
                model,
                &StoredCentre {
                    centre: b"not a centre".to_vec(),
                    made_from: 3,
                    reach: 3,
                },
            )
        })
        .unwrap();
    assert_eq!(
        stored_and_rebuilt(&world).0,
        None,
        "the blocks went with it"
    );
    assert_eq!(
        by_meaning(&world),
        found,
        "read from the vectors, uncentred"
    );
    assert_eq!(run(&world), 0);
    assert_eq!(centre(&world).map(|(centre, _, _)| centre), Some(taken));
    let (stored, rebuilt) = stored_and_rebuilt(&world);
    assert_eq!(stored.as_ref(), Some(&rebuilt));
    assert_eq!(by_meaning(&world), found, "read from the blocks, centred");
}
