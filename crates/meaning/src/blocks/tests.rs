//! The block codec: what goes in comes out, slot for slot, and damaged bytes are refused.

use super::*;
use crate::vector::quantise;

fn vector(seed: u32) -> Vec<u8> {
    let raw: Vec<f32> = (0..crate::model::DIMENSIONS as u32)
        .map(|i| (((i * 7919 + seed * 104_729) % 1000) as f32 / 500.0) - 1.0)
        .collect();
    quantise(&raw).expect("a vector")
}

/// The centre the blocks are built with: the mean of three of the vectors above.
fn centre() -> Centre {
    Centre::of([vector(1).as_slice(), &vector(2), &vector(3)]).expect("three vectors")
}

fn row(key: i64, channel: u64, author: u64, arrived: i64, sent: i64) -> Row {
    Row {
        key,
        channel_id: ChannelId::from_u64(channel).expect("a channel id"),
        author_id: UserId::from_u64(author).expect("a user id"),
        arrived,
        sent,
        vector: vector(key as u32),
    }
}

#[test]
fn a_block_decodes_to_the_slots_it_was_built_from_in_key_order() {
    // Out of order, times before their arrival and after, a backfilled message whose
    // Discord time is years before it arrived, and ids at the top of their range.
    let rows = vec![
        row(
            8_195,
            1_100_000_000_000_000_001,
            7,
            1_700_000_000_000_000,
            1_699_999_999_000_000,
        ),
        row(
            8_192,
            u64::MAX,
            u64::MAX,
            1_700_000_000_500_000,
            1_700_000_000_500_100,
        ),
        row(
            12_287,
            1_100_000_000_000_000_001,
            9,
            1_700_000_100_000_000,
            1_400_000_000_000_000,
        ),
    ];
    let block = CodeBlock::from_rows(2, &centre(), rows.clone()).expect("a block");
    assert_eq!(
        block
            .slots()
            .iter()
            .map(|slot| slot.key)
            .collect::<Vec<_>>(),
        [8_192, 8_195, 12_287]
    );
    let bytes = block.encode();
    let decoded = CodeBlock::decode(2, &bytes, &centre()).expect("its bytes decode");
    assert_eq!(decoded, block);
    assert_eq!(decoded.slots()[0].channel_id.get(), u64::MAX);
    assert_eq!(decoded.slots()[2].sent, 1_400_000_000_000_000);
    assert_eq!(
        decoded.slots()[1].code,
        Slot::of(&rows[0], &centre()).expect("a slot").code
    );
}

#[test]
fn a_live_message_costs_about_sixty_bytes_in_a_block() {
    let rows = (0..4_096).map(|n| {
        let arrived = 1_700_000_000_000_000 + n * 3_100_000;
        row(
            4_096 + n,
            1_100 + (n as u64 % 12),
            2_000 + (n as u64 % 150),
            arrived,
            arrived - 180_000,
        )
    });
    let bytes = CodeBlock::from_rows(1, &centre(), rows)
        .expect("a block")
        .encode();
    let per_message = bytes.len() as f64 / 4_096.0;
    assert!((60.0..64.0).contains(&per_message), "{per_message}");
}

#[test]
fn a_put_replaces_or_removes_a_slot_and_a_key_of_another_block_is_refused() {
    let mut block =
        CodeBlock::from_rows(0, &centre(), [row(5, 1, 2, 10, 10), row(7, 1, 2, 20, 20)])
            .expect("a block");
    let mut moved = row(5, 3, 4, 30, 31);
    moved.vector = vector(99);
    block.put(&moved).expect("a put");
    assert_eq!(block.slots()[0].channel_id.get(), 3);
    assert_eq!(
        block.slots()[0].code,
        Slot::of(&moved, &centre()).expect("a slot").code
    );
    let mut emptied = row(7, 1, 2, 20, 20);
    emptied.vector = Vec::new();
    block.put(&emptied).expect("a put");
    assert_eq!(block.slots().len(), 1);
    let refusal = block
        .put(&row(4_096, 1, 2, 0, 0))
        .expect_err("another block's key");
    assert_eq!(
        refusal.message(),
        "Message 4096 is not in block 0 of the meaning index"
    );
}

#[test]
fn damaged_bytes_of_every_length_are_refused_not_misread() {
    let block = CodeBlock::from_rows(0, &centre(), [row(5, 1, 2, 10, 10), row(7, 1, 2, 20, 20)])
        .expect("a block");
    let bytes = block.encode();
    for length in 0..bytes.len() {
        let refusal = CodeBlock::decode(0, &bytes[..length], &centre()).expect_err("cut short");
        assert_eq!(
            refusal.message(),
            "Block 0 of the meaning index is damaged or of another version"
        );
    }
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(CodeBlock::decode(0, &longer, &centre()).is_err());
    let mut other_version = bytes;
    other_version[0] = 1;
    assert!(CodeBlock::decode(0, &other_version, &centre()).is_err());
}

#[test]
fn a_blocks_columns_from_its_bytes_are_those_of_the_block_in_memory() {
    let block = CodeBlock::from_rows(
        1,
        &centre(),
        [
            row(4_100, 9, 3, 10, 12),
            row(4_097, 2, 3, 5, 5),
            row(5_000, 9, 1, 20, 19),
        ],
    )
    .expect("a block");
    let decoded =
        CodeBlock::decode_columns(1, &block.encode(), &centre()).expect("its bytes decode");
    assert_eq!(decoded, block.columns());
    assert_eq!(decoded.len(), 3);
    assert_eq!(decoded.keys, [4_097, 4_100, 5_000]);
    assert_eq!(decoded.channel_places, [0, 1, 1]);
    assert_eq!(decoded.author_places, [1, 1, 0]);
    assert_eq!(decoded.into_slots(), block.slots());
}

#[test]
fn a_place_outside_its_list_is_refused() {
    let block = CodeBlock::from_rows(0, &centre(), [row(5, 1, 2, 10, 10), row(7, 1, 2, 20, 20)])
        .expect("a block");
    let mut bytes = block.encode();
    // version, centre, count, one channel, one author, two key offsets: then the channel
    // places.
    let places = 1 + 8 + 2 + (2 + 8) + (2 + 8) + 2 * 2;
    assert_eq!(&bytes[places..places + 4], &[0, 0, 0, 0]);
    bytes[places + 2] = 1;
    let refusal =
        CodeBlock::decode_columns(0, &bytes, &centre()).expect_err("a place past the one channel");
    assert_eq!(
        refusal.message(),
        "Block 0 of the meaning index is damaged or of another version"
    );
    assert!(CodeBlock::decode(0, &bytes, &centre()).is_err());
}

#[test]
fn a_block_names_its_centre_and_is_refused_under_another() {
    let rows = [row(5, 1, 2, 10, 10), row(7, 1, 2, 20, 20)];
    let block = CodeBlock::from_rows(0, &centre(), rows.clone()).expect("a block");
    let bytes = block.encode();
    assert_eq!(bytes[1..9], centre().fingerprint().to_le_bytes());
    for other in [
        Centre::none(),
        Centre::of([vector(4).as_slice()]).expect("a vector"),
    ] {
        let refusal = CodeBlock::decode(0, &bytes, &other).expect_err("another centre");
        assert_eq!(
            refusal.message(),
            "Block 0 of the meaning index is damaged or of another version"
        );
        assert!(CodeBlock::decode_columns(0, &bytes, &other).is_err());
    }
    // The sign bits are taken less the centre: not the vectors' own.
    let own = CodeBlock::from_rows(0, &Centre::none(), rows).expect("a block");
    assert_ne!(own.slots()[0].code, block.slots()[0].code);
    assert_eq!(
        own.slots()[0].code,
        crate::vector::sign_code(&crate::vector::coordinates(&vector(5)).unwrap())
    );
}
