//! Unit tests of `coverage`, kept beside it so the production file reads on its own.

use super::*;
use crate::store::testing::{fresh_id, shared_store};

#[test]
fn a_channels_coverage_is_the_highest_point_proved_whatever_the_order() {
    let store = shared_store();
    let channel: ChannelId = fresh_id();
    for (after, through) in [(10, 500), (10, 300)] {
        store
            .write(|writer| {
                writer.record_coverage(&NewCoverage {
                    channel_id: channel,
                    started_after: after,
                    complete_through: through,
                    fetched: 3,
                    stored: 1,
                    reason: "repair",
                })
            })
            .unwrap();
    }
    let coverage = store
        .read(|reader| reader.channel_coverage(&channel))
        .unwrap()
        .unwrap();
    assert_eq!(coverage.complete_through, 500);
    let listed = store.read(|reader| reader.coverages()).unwrap();
    assert_eq!(
        listed
            .iter()
            .filter(|listed| listed.channel_id == channel)
            .collect::<Vec<_>>(),
        vec![&coverage]
    );
}

#[test]
fn a_channel_never_backfilled_has_no_coverage() {
    let store = shared_store();
    let channel: ChannelId = fresh_id();
    assert_eq!(
        store
            .read(|reader| reader.channel_coverage(&channel))
            .unwrap(),
        None
    );
    // Mutation check of the absence above: the same query finds a row once there is one.
    store
        .write(|writer| {
            writer.record_coverage(&NewCoverage {
                channel_id: channel,
                started_after: 1,
                complete_through: 2,
                fetched: 0,
                stored: 0,
                reason: "start",
            })
        })
        .unwrap();
    assert!(
        store
            .read(|reader| reader.channel_coverage(&channel))
            .unwrap()
            .is_some()
    );
}

#[test]
fn a_messages_gap_is_open_until_a_backfill_from_at_or_before_it_completes() {
    let store = shared_store();
    let channel: ChannelId = fresh_id();
    let open = |after| {
        store
            .read(|reader| reader.open_messages_gap(&channel, after))
            .unwrap()
    };
    assert!(!open(100));
    store
        .write(|writer| {
            writer.record_gap(&NewGap {
                kind: GapKind::Messages,
                channel_id: Some(channel),
                from_at: Instant::now(),
                until_at: Instant::now(),
                after_message_id: Some(100),
                detail: "403".into(),
            })
        })
        .unwrap();
    assert!(open(100));
    assert!(!open(101), "another point is another gap");
    let backfill = |started_after| {
        store
            .write(|writer| {
                writer.record_coverage(&NewCoverage {
                    channel_id: channel,
                    started_after,
                    complete_through: 900,
                    fetched: 0,
                    stored: 0,
                    reason: "repair",
                })
            })
            .unwrap()
    };
    backfill(101);
    assert!(open(100), "a backfill from after the gap does not close it");
    backfill(100);
    assert!(!open(100));
}

#[test]
fn a_channels_beginning_is_its_first_sighting_and_later_ones_do_not_move_it() {
    let store = shared_store();
    let channel: ChannelId = fresh_id();
    let read = || {
        store
            .read(|reader| reader.channel_beginning(&channel))
            .unwrap()
    };
    assert_eq!(read(), None);
    let first = ChannelBeginning::of(700, Some(1_000));
    assert_eq!(
        first,
        ChannelBeginning {
            after_message_id: 1_000,
            source: BeginningSource::LastMessageId
        }
    );
    let kept = store
        .write(|writer| writer.record_channel_beginning(&channel, first))
        .unwrap();
    assert_eq!(kept, first);
    // A restart after messages were posted while down sees a higher last_message_id: the
    // beginning stays where the first sighting put it.
    let later = store
        .write(|writer| {
            writer.record_channel_beginning(&channel, ChannelBeginning::of(700, Some(1_500)))
        })
        .unwrap();
    assert_eq!(later, first);
    assert_eq!(read(), Some(first));
}

#[test]
fn a_channel_without_messages_begins_just_below_its_own_id() {
    // A forum post's thread has the id of its first message: that message is after it.
    assert_eq!(
        ChannelBeginning::of(1_400_000_000_000_000_009, None),
        ChannelBeginning {
            after_message_id: 1_400_000_000_000_000_008,
            source: BeginningSource::ChannelId
        }
    );
    let store = shared_store();
    let channel: ChannelId = fresh_id();
    let beginning = ChannelBeginning::of(42, None);
    store
        .write(|writer| writer.record_channel_beginning(&channel, beginning))
        .unwrap();
    assert_eq!(
        store
            .read(|reader| reader.channel_beginning(&channel))
            .unwrap(),
        Some(beginning)
    );
}

#[test]
fn the_latest_discord_clock_reading_gives_the_hosts_offset_either_way() {
    // Its own file: the latest reading is store-wide, and other tests record some.
    let folder = tempfile::tempdir().unwrap();
    let store = Store::open(&folder.path().join("clock.sqlite3")).unwrap();
    assert_eq!(
        store.read(|reader| reader.latest_discord_clock()).unwrap(),
        None
    );
    let discord = Instant::parse("2026-12-01T07:00:00Z").unwrap();
    let behind = DiscordClockReading {
        discord_at: discord,
        host_at: discord.minus_seconds(300).plus_micros(250_000),
    };
    assert_eq!(behind.host_ahead_ms(), -299_750);
    let ahead = DiscordClockReading {
        discord_at: discord,
        host_at: discord.plus_seconds(2),
    };
    assert_eq!(ahead.host_ahead_ms(), 2_000);
    for reading in [behind, ahead] {
        store
            .write(|writer| writer.record_discord_clock(reading))
            .unwrap();
    }
    assert_eq!(
        store.read(|reader| reader.latest_discord_clock()).unwrap(),
        Some(ahead)
    );
}

#[test]
fn gaps_round_trip_with_every_field() {
    let store = shared_store();
    let channel: ChannelId = fresh_id();
    let from = Instant::parse("2026-11-29T10:00:00Z").unwrap();
    let until = Instant::parse("2026-11-29T11:00:00Z").unwrap();
    let gap = NewGap {
        kind: GapKind::Messages,
        channel_id: Some(channel),
        from_at: from,
        until_at: until,
        after_message_id: Some(1_500_000_000_000_000_001),
        detail: "Discord answered 503 five times".into(),
    };
    store.write(|writer| writer.record_gap(&gap)).unwrap();
    let gaps = store.read(|reader| reader.gaps()).unwrap();
    let found: Vec<_> = gaps
        .into_iter()
        .filter(|gap| gap.channel_id.as_ref() == Some(&channel.to_string().parse().unwrap()))
        .collect();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].kind, GapKind::Messages);
    assert_eq!(found[0].from_at, from);
    assert_eq!(found[0].until_at, until);
    assert_eq!(found[0].after_message_id, Some(1_500_000_000_000_000_001));
    assert_eq!(found[0].detail, "Discord answered 503 five times");
}
