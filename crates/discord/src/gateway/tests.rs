//! Unit tests of `gateway`, kept beside it so the production file reads on its own.

use discord_manager_playback::payload::{self, User};

use super::*;

fn message(content: &str, guild: bool, bot: bool) -> Message {
    let author = User {
        id: "1000000000000000002".into(),
        username: "grace".into(),
        global_name: None,
        bot,
    };
    let value = payload::Message {
        id: "1500000000000000001",
        channel_id: "1400000000000000001",
        guild_id: guild.then_some("1200000000000000001"),
        author,
        content,
        timestamp: "2026-11-29T12:00:00Z",
        ..payload::Message::default()
    }
    .to_json();
    serde_json::from_value(value).unwrap()
}

/// A writer over `store` whose outlets the test keeps.
fn writer(
    store: &Arc<Store>,
) -> (
    Writer,
    mpsc::UnboundedReceiver<Batch>,
    mpsc::UnboundedReceiver<Notice>,
) {
    let (backfill, batches) = mpsc::unbounded_channel();
    let (notices, noticed) = mpsc::unbounded_channel();
    let writer = Writer {
        store: Arc::clone(store),
        guild_scope: GuildScope::every_guild(),
        run_started_at: Instant::now(),
        backfill,
        notices,
        stored: Arc::new(AtomicU64::new(0)),
    };
    (writer, batches, noticed)
}

/// A dispatch (`{"t", "d"}`) as the gateway tap hands it over.
fn received(payload: &serde_json::Value) -> Received {
    let data = serde_json::value::RawValue::from_string(payload["d"].to_string()).unwrap();
    Received {
        dispatch: RawDispatch {
            name: payload["t"].as_str().unwrap().to_string(),
            sequence: 1,
            data,
        },
        at: Instant::now(),
    }
}

#[test]
fn a_message_that_cannot_be_stored_holds_back_none_of_the_burst_it_came_in() {
    use discord_manager_playback::world::{World, new_id};
    let world = World::alone();
    let channel = world.channel("general");
    let ids = [new_id(), new_id(), new_id()];
    world.store.refuse_message(&ids[1]);
    let (queue, queued) = mpsc::unbounded_channel();
    for id in &ids {
        let data = world.message_payload(id, channel, "7", "burst", serde_json::json!({}));
        let payload = serde_json::json!({"t": "MESSAGE_CREATE", "d": data});
        queue.send(received(&payload)).unwrap();
    }
    // All three are queued before the writer starts: one burst.
    drop(queue);
    let (writer, mut batches, _) = writer(&world.store);
    let stored = Arc::clone(&writer.stored);
    writer.run(queued);

    let kept: Vec<bool> = ids
        .iter()
        .map(|id| {
            world
                .store
                .read(|reader| reader.message(&id.parse().unwrap()))
                .unwrap()
                .is_some()
        })
        .collect();
    assert_eq!(kept, [true, false, true]);
    assert_eq!(stored.load(Ordering::Relaxed), 2);
    let gaps = world.store.read(|reader| reader.gaps()).unwrap();
    assert_eq!(gaps.len(), 1);
    assert_eq!(gaps[0].kind, GapKind::Event);
    assert_eq!(
        gaps[0].channel_id.as_ref().map(|id| id.to_string()),
        Some(channel.to_string())
    );
    assert!(
        gaps[0]
            .detail
            .starts_with("A MESSAGE_CREATE event could not be stored: "),
        "{}",
        gaps[0].detail
    );
    let repair = batches
        .try_recv()
        .expect("the channel is repaired by backfill");
    assert_eq!(repair.reason, "repair");
    let repaired: Vec<String> = repair
        .channels
        .iter()
        .map(|job| job.channel_id.to_string())
        .collect();
    assert_eq!(repaired, [channel]);
    assert!(batches.try_recv().is_err());
}

#[test]
fn a_burst_is_stored_in_the_order_received_and_a_guild_create_in_it_plans_its_backfill() {
    use discord_manager_playback::world::{World, new_id};
    let world = World::alone();
    let channel = world.channel("general");
    let (first, last) = (new_id(), new_id());
    let message = |id: &str| {
        let data = world.message_payload(id, channel, "7", "burst", serde_json::json!({}));
        serde_json::json!({"t": "MESSAGE_CREATE", "d": data})
    };
    let mut guild_create = world.guild_payload();
    guild_create["name"] = "Burst Guild".into();
    let guild = serde_json::json!({"t": "GUILD_CREATE", "d": guild_create});
    let (queue, queued) = mpsc::unbounded_channel();
    for payload in [message(&first), guild, message(&last)] {
        queue.send(received(&payload)).unwrap();
    }
    drop(queue);
    let (writer, mut batches, _) = writer(&world.store);
    let stored = Arc::clone(&writer.stored);
    writer.run(queued);

    assert_eq!(stored.load(Ordering::Relaxed), 3);
    let arrived: Vec<Instant> = [&first, &last]
        .iter()
        .map(|id| {
            world
                .store
                .read(|reader| reader.message(&id.parse().unwrap()))
                .unwrap()
                .unwrap()
                .created_at
        })
        .collect();
    assert!(arrived[0] < arrived[1], "stored in the order received");
    // The GUILD_CREATE's backfill plan, made from the store after its commit.
    let plan = batches.try_recv().expect("a backfill plan for the guild");
    assert_eq!(plan.label, "guild Burst Guild");
    assert_eq!(plan.reason, "joined");
    let planned: Vec<String> = plan
        .channels
        .iter()
        .map(|job| job.channel_id.to_string())
        .collect();
    assert_eq!(planned, [channel]);
}

#[test]
fn warns_once_when_the_twentieth_empty_message_in_a_row_arrives() {
    let mut watch = ContentWatch::default();
    for n in 1..EMPTY_CONTENT_WARNING_AFTER {
        assert!(!watch.observe(&message("", true, false)), "message {n}");
    }
    assert!(watch.observe(&message("", true, false)));
    assert!(!watch.observe(&message("", true, false)));
}

#[test]
fn a_message_with_content_restarts_the_count() {
    let mut watch = ContentWatch::default();
    for _ in 1..EMPTY_CONTENT_WARNING_AFTER {
        watch.observe(&message("", true, false));
    }
    assert!(!watch.observe(&message("hello", true, false)));
    for n in 1..EMPTY_CONTENT_WARNING_AFTER {
        assert!(!watch.observe(&message("", true, false)), "message {n}");
    }
    assert!(watch.observe(&message("", true, false)));
}

#[test]
fn bots_and_direct_messages_do_not_count() {
    let mut watch = ContentWatch::default();
    for _ in 0..EMPTY_CONTENT_WARNING_AFTER * 2 {
        assert!(!watch.observe(&message("", true, true)));
        assert!(!watch.observe(&message("", false, false)));
    }
}

#[test]
fn a_payloads_channel_id_is_a_string_of_digits_and_never_zero() {
    let read = |value: serde_json::Value| channel_id_in(&value).map(ChannelId::get);
    assert_eq!(
        read(serde_json::json!("1400000000000000001")),
        Some(1_400_000_000_000_000_001)
    );
    assert_eq!(read(serde_json::json!("0")), None);
    assert_eq!(read(serde_json::json!("14a")), None);
    assert_eq!(read(serde_json::json!(14)), None);
}
