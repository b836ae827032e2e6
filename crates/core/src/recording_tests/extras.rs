//! The recorders of a message's extras (the ingest crate's `extras`: attachments, embeds,
//! stickers, polls) read back from the store.

use discord_manager_ingest::Recorded;
use discord_manager_playback::world::new_id;
use discord_manager_store::{
    Attachment, Embed, EmbedField, MessageExtras, Poll, PollAnswer, Sticker,
};
use serde_json::{Value, json};

use discord_manager_playback::world::{World, dispatch};

fn extras(world: &World, id: impl std::fmt::Display) -> MessageExtras {
    world
        .store
        .read(|reader| reader.message(&discord_manager_playback::world::id(id)))
        .unwrap()
        .expect("the message is stored")
        .extras
}

fn post(world: &World, channel: impl std::fmt::Display, content: &str, extra: Value) -> String {
    let id = new_id();
    let recorded = dispatch(
        &world.store,
        "MESSAGE_CREATE",
        world.message_payload(&id, channel, "7", content, extra),
    );
    assert_eq!(recorded, Recorded::Stored);
    id
}

/// A screenshot pasted without a word, as the gateway delivers it.
fn screenshot() -> Value {
    json!({"id": "1312000000000000001", "filename": "cat.png", "size": 48213,
           "url": "https://cdn.discordapp.com/attachments/1/1312000000000000001/cat.png?ex=1",
           "proxy_url": "https://media.discordapp.net/attachments/1/1312000000000000001/cat.png",
           "width": 640, "height": 480, "content_type": "image/png",
           "description": "a cat asleep on a keyboard", "placeholder": "abc", "placeholder_version": 1})
}

#[test]
fn an_image_only_message_keeps_its_attachment() {
    let world = World::new();
    let channel = world.channel("general");
    let id = post(&world, channel, "", json!({"attachments": [screenshot()]}));
    let kept = extras(&world, &id);
    assert_eq!(
        kept.attachments,
        vec![Attachment {
            id: discord_manager_playback::world::id("1312000000000000001"),
            filename: "cat.png".into(),
            size: 48213,
            content_type: Some("image/png".into()),
            url: "https://cdn.discordapp.com/attachments/1/1312000000000000001/cat.png?ex=1".into(),
            width: Some(640),
            height: Some(480),
            description: Some("a cat asleep on a keyboard".into()),
            duration_ms: None,
        }]
    );
    assert!(kept.has_image());
    assert_eq!(
        kept.searchable_text(),
        "cat.png\na cat asleep on a keyboard"
    );
}

/// A CI webhook's post: no content, one rich embed.
fn ci_embed() -> Value {
    json!({"type": "rich", "title": "Build #4521 failed", "url": "https://ci.example/builds/4521",
           "description": "lighthouse-api: 3 tests failed on main", "color": 15158332,
           "timestamp": "2026-11-29T10:00:00+00:00",
           "author": {"name": "Lighthouse CI", "icon_url": "https://ci.example/icon.png"},
           "fields": [{"name": "Branch", "value": "main", "inline": true},
                      {"name": "Failing", "value": "test_rollout_gate", "inline": false}],
           "footer": {"text": "ci.example"}})
}

#[test]
fn an_embed_only_webhook_post_keeps_its_embed_and_indexes_its_words() {
    let world = World::new();
    let channel = world.channel("ci");
    let mut webhook = json!({"id": "1100000000000000777", "username": "Lighthouse CI",
                             "discriminator": "0000", "avatar": null, "bot": true});
    webhook["global_name"] = Value::Null;
    let id = post(
        &world,
        channel,
        "",
        json!({"webhook_id": "1100000000000000777", "author": webhook, "embeds": [ci_embed()]}),
    );
    let kept = extras(&world, &id);
    assert_eq!(
        kept.embeds,
        vec![Embed {
            kind: Some("rich".into()),
            title: Some("Build #4521 failed".into()),
            description: Some("lighthouse-api: 3 tests failed on main".into()),
            url: Some("https://ci.example/builds/4521".into()),
            author: Some("Lighthouse CI".into()),
            fields: vec![
                EmbedField {
                    name: "Branch".into(),
                    value: "main".into()
                },
                EmbedField {
                    name: "Failing".into(),
                    value: "test_rollout_gate".into()
                },
            ],
            footer: Some("ci.example".into()),
            provider: None,
            image: None,
        }]
    );
    assert!(!kept.has_image());
    let found = world
        .store
        .read(|reader| {
            reader.search(
                "test_rollout_gate",
                &discord_manager_store::SearchFilter {
                    channel_ids: vec![channel],
                    ..Default::default()
                },
                10,
            )
        })
        .unwrap()
        .unwrap()
        .hits;
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].message.message_id, id);
}

#[test]
fn an_unfurl_by_update_adds_the_embed_and_a_replay_of_it_writes_nothing() {
    let world = World::new();
    let channel = world.channel("general");
    let id = post(
        &world,
        channel,
        "see https://github.com/lighthouse/api/pull/77",
        json!({}),
    );
    assert!(extras(&world, &id).is_plain());
    let unfurl = json!({"id": id, "channel_id": channel, "guild_id": world.guild_id,
        "embeds": [{"type": "article", "url": "https://github.com/lighthouse/api/pull/77",
                    "title": "Retry budget for the rollout gate by grace · Pull Request #77",
                    "description": "Adds a retry budget", "provider": {"name": "GitHub"},
                    "thumbnail": {"url": "https://opengraph.githubassets.com/x", "width": 1200, "height": 600}}]});
    assert_eq!(
        dispatch(&world.store, "MESSAGE_UPDATE", unfurl.clone()),
        Recorded::Stored
    );
    let kept = extras(&world, &id);
    assert_eq!(kept.embeds.len(), 1);
    assert_eq!(kept.embeds[0].provider.as_deref(), Some("GitHub"));
    assert_eq!(
        kept.embeds[0].title.as_deref(),
        Some("Retry budget for the rollout gate by grace · Pull Request #77")
    );
    assert_eq!(
        dispatch(&world.store, "MESSAGE_UPDATE", unfurl),
        Recorded::AlreadyKnown
    );
    // The content is untouched: an unfurl is not an edit.
    let message = world
        .store
        .read(|reader| reader.message(&discord_manager_playback::world::id(&id)))
        .unwrap()
        .unwrap();
    assert!(message.edits.is_empty());
    // A pin afterwards keeps the embed.
    dispatch(
        &world.store,
        "MESSAGE_UPDATE",
        json!({"id": id, "channel_id": channel, "guild_id": world.guild_id, "pinned": true}),
    );
    let pinned = extras(&world, &id);
    assert!(pinned.pinned);
    assert_eq!(pinned.embeds, kept.embeds);
}

#[test]
fn a_sticker_is_kept_by_name() {
    let world = World::new();
    let channel = world.channel("general");
    let id = post(
        &world,
        channel,
        "",
        json!({"sticker_items": [{"id": "749054660769218631", "name": "Wave", "format_type": 3}]}),
    );
    assert_eq!(
        extras(&world, &id).stickers,
        vec![Sticker {
            id: discord_manager_playback::world::id("749054660769218631"),
            name: "Wave".into()
        }]
    );
}

fn poll(results: Value) -> Value {
    let mut poll = json!({"question": {"text": "Ship 2.4 on Thursday?"},
        "answers": [{"answer_id": 1, "poll_media": {"text": "Yes"}},
                    {"answer_id": 2, "poll_media": {"text": "No, Monday"}}],
        "expiry": "2026-11-30T10:00:00+00:00", "allow_multiselect": false, "layout_type": 1});
    if !results.is_null() {
        poll["results"] = results;
    }
    poll
}

#[test]
fn a_poll_keeps_its_question_answers_and_counts_as_discord_reports_them() {
    let world = World::new();
    let channel = world.channel("general");
    let id = post(&world, channel, "", json!({"poll": poll(Value::Null)}));
    let expected = |votes: [Option<u64>; 2], finalized| Poll {
        question: "Ship 2.4 on Thursday?".into(),
        answers: vec![
            PollAnswer {
                answer_id: 1,
                text: "Yes".into(),
                votes: votes[0],
            },
            PollAnswer {
                answer_id: 2,
                text: "No, Monday".into(),
                votes: votes[1],
            },
        ],
        expiry: discord_manager_vocabulary::instant::Instant::parse("2026-11-30T10:00:00Z"),
        allow_multiselect: false,
        finalized,
    };
    assert_eq!(
        extras(&world, &id).poll,
        Some(expected([None, None], false))
    );
    // A later copy with Discord's counts (answers without votes are left out by Discord).
    let counted = post(
        &world,
        channel,
        "",
        json!({"poll": poll(json!({"is_finalized": true,
            "answer_counts": [{"id": 1, "count": 3, "me_voted": false}]}))}),
    );
    assert_eq!(
        extras(&world, &counted).poll,
        Some(expected([Some(3), Some(0)], true))
    );
    assert_eq!(
        extras(&world, &counted).searchable_text(),
        "Ship 2.4 on Thursday?\nYes\nNo, Monday"
    );
}

#[test]
fn poll_votes_the_gateway_delivers_are_counted_once_each_and_a_taken_back_vote_is_not() {
    let world = World::new();
    let channel = world.channel("general");
    let id = post(&world, channel, "", json!({"poll": poll(Value::Null)}));
    let vote = |kind: &str, user: &str, answer: u64| {
        dispatch(
            &world.store,
            kind,
            json!({"user_id": user, "channel_id": channel, "message_id": id,
                   "guild_id": world.guild_id, "answer_id": answer}),
        )
    };
    let counts = || {
        extras(&world, &id)
            .poll
            .unwrap()
            .answers
            .iter()
            .map(|answer| answer.votes)
            .collect::<Vec<_>>()
    };
    assert_eq!(counts(), vec![None, None], "no count before any is known");
    assert_eq!(vote("MESSAGE_POLL_VOTE_ADD", "31", 1), Recorded::Stored);
    assert_eq!(vote("MESSAGE_POLL_VOTE_ADD", "32", 1), Recorded::Stored);
    assert_eq!(vote("MESSAGE_POLL_VOTE_ADD", "33", 2), Recorded::Stored);
    assert_eq!(counts(), vec![Some(2), Some(1)]);
    // A replay after a RESUME changes nothing.
    assert_eq!(
        vote("MESSAGE_POLL_VOTE_ADD", "32", 1),
        Recorded::AlreadyKnown
    );
    assert_eq!(counts(), vec![Some(2), Some(1)]);
    // Taken back, then cast again: counted once.
    assert_eq!(vote("MESSAGE_POLL_VOTE_REMOVE", "32", 1), Recorded::Stored);
    assert_eq!(counts(), vec![Some(1), Some(1)]);
    assert_eq!(
        vote("MESSAGE_POLL_VOTE_REMOVE", "32", 1),
        Recorded::AlreadyKnown
    );
    assert_eq!(vote("MESSAGE_POLL_VOTE_ADD", "32", 1), Recorded::Stored);
    assert_eq!(counts(), vec![Some(2), Some(1)]);
    // Taking back a vote the store never saw cast is nothing to record.
    assert_eq!(
        vote("MESSAGE_POLL_VOTE_REMOVE", "34", 2),
        Recorded::AlreadyKnown
    );
    assert_eq!(counts(), vec![Some(2), Some(1)]);
}

#[test]
fn a_forwarded_message_keeps_what_discord_copied() {
    let world = World::new();
    let channel = world.channel("general");
    // Its own attachment id: the store is shared with other tests, which post `screenshot()`.
    let attachment_id = new_id();
    let mut attachment = screenshot();
    attachment["id"] = json!(attachment_id);
    let id = post(
        &world,
        channel,
        "",
        json!({"message_reference": {"type": 1, "message_id": "1312000000000000099",
                                      "channel_id": "1400000000000000002", "guild_id": world.guild_id},
               "flags": 16384,
               "message_snapshots": [{"message": {"content": "2.4 is out", "timestamp": "2026-11-29T09:00:00+00:00",
                   "edited_timestamp": null, "mentions": [], "mention_roles": [], "attachments": [attachment],
                   "embeds": [], "type": 0, "flags": 0}}]}),
    );
    let kept = extras(&world, &id);
    // Bit 14 (has a snapshot) is newer than serenity 0.12, which drops the bits it does not
    // know: they are read from Discord's JSON of the message instead.
    assert_eq!(kept.flags, 16384);
    let source = kept.refers_to.as_ref().expect("a forward names its source");
    assert_eq!(source.channel_id.to_string(), "1400000000000000002");
    assert_eq!(
        source.message_id.as_ref().map(|id| id.to_string()),
        Some("1312000000000000099".to_string())
    );
    assert_eq!(kept.forwarded.len(), 1);
    assert_eq!(kept.forwarded[0].content, "2.4 is out");
    assert_eq!(kept.forwarded[0].attachments[0].filename, "cat.png");
    assert!(kept.searchable_text().contains("2.4 is out"));
    // A forward is not a reply.
    let message = world
        .store
        .read(|reader| reader.message(&discord_manager_playback::world::id(&id)))
        .unwrap()
        .unwrap();
    assert_eq!(message.reply_to_message_id, None);
    // The snapshot's file is listed for the fetcher, under the forward's own message (the
    // original is often in a channel the bot cannot read).
    let (listed, outcome) = world
        .store
        .read(|reader| {
            Ok((
                reader.attachment(&discord_manager_playback::world::id(&attachment_id))?,
                reader.attachment_outcome(&discord_manager_playback::world::id(&attachment_id))?,
            ))
        })
        .unwrap();
    let listed = listed.expect("the forwarded file is listed");
    assert_eq!(
        (listed.message_id.to_string(), listed.channel_id.to_string()),
        (id, channel.to_string())
    );
    assert_eq!(listed.filename, "cat.png");
    assert_eq!(outcome, None, "pending: nothing became of it yet");
}

#[test]
fn a_forum_posts_first_message_is_recorded_in_the_post_with_its_title_kept() {
    let world = World::new();
    let forum = new_id();
    dispatch(
        &world.store,
        "CHANNEL_CREATE",
        world.channel_payload(&forum, "help", 15, None, json!([])),
    );
    // A forum post is a thread whose id is its first message's.
    let post_id = new_id();
    let mut thread = world.channel_payload(
        &post_id,
        "Rollout stuck at 40%",
        11,
        Some(&forum),
        json!([]),
    );
    thread["applied_tags"] = json!(["1312000000000000500"]);
    dispatch(&world.store, "THREAD_CREATE", thread);
    dispatch(
        &world.store,
        "MESSAGE_CREATE",
        world.message_payload(
            &post_id,
            &post_id,
            "7",
            "the canary never finishes",
            json!({"attachments": [screenshot()]}),
        ),
    );
    let stored = world
        .store
        .read(|reader| reader.message(&discord_manager_playback::world::id(&post_id)))
        .unwrap()
        .unwrap();
    assert_eq!(stored.channel_id, post_id);
    assert_eq!(stored.extras.attachments.len(), 1);
    let channel = world
        .store
        .read(|reader| reader.channel(&discord_manager_playback::world::id(&post_id)))
        .unwrap()
        .unwrap();
    assert_eq!(channel.name, "Rollout stuck at 40%");
    assert_eq!(
        channel.parent_id,
        Some(discord_manager_playback::world::id(&forum))
    );
}

#[test]
fn a_replayed_message_with_extras_writes_nothing_more() {
    let world = World::new();
    let channel = world.channel("general");
    let id = new_id();
    let payload = world.message_payload(&id, channel, "7", "", json!({"embeds": [ci_embed()]}));
    assert_eq!(
        dispatch(&world.store, "MESSAGE_CREATE", payload.clone()),
        Recorded::Stored
    );
    assert_eq!(
        dispatch(&world.store, "MESSAGE_CREATE", payload),
        Recorded::AlreadyKnown
    );
}

#[test]
fn a_plain_message_has_no_extras() {
    let world = World::new();
    let channel = world.channel("general");
    let reply_target = post(&world, channel, "first", json!({}));
    let id = post(
        &world,
        channel,
        "hello",
        json!({"type": 19, "message_reference": {"message_id": reply_target, "channel_id": channel}}),
    );
    assert!(extras(&world, &id).is_plain());
    assert_eq!(
        serde_json::to_string(&extras(&world, &id)).unwrap(),
        "{}",
        "every default is left out"
    );
}

/// A deploy bot's Components V2 alert, as Discord sends it: no content, the flag
/// IS_COMPONENTS_V2 (1 << 15), and its whole text in a Container of TextDisplays.
fn components_v2_alert() -> Value {
    json!({"flags": 32768, "components": [{"type": 17, "id": 1, "components": [
        {"type": 10, "id": 2, "content": "Deploy of quasarwidget failed"},
        {"type": 1, "id": 3, "components": [
            {"type": 2, "id": 4, "style": 5, "label": "Logs", "url": "https://ci.example/7"}]}]}]})
}

#[test]
fn a_components_v2_post_keeps_its_text_labels_and_every_flag_bit() {
    let world = World::new();
    let channel = world.channel("general");
    let id = post(&world, channel, "", components_v2_alert());
    let kept = extras(&world, &id);
    assert_eq!(kept.flags, 32768);
    let read: Vec<(&str, &str)> = kept
        .components
        .iter()
        .map(|part| (part.kind.as_str(), part.text.as_str()))
        .collect();
    assert_eq!(
        read,
        [("text", "Deploy of quasarwidget failed"), ("link", "Logs")]
    );
}

#[test]
fn a_message_stored_before_a_reading_rule_existed_gains_it_from_its_kept_payload() {
    let world = World::new();
    let channel = world.channel("general");
    let id = new_id();
    let payload = world.message_payload(&id, channel, "7", "", components_v2_alert());
    // What a version that did not read Components V2 stored: the message as serenity's model
    // has it (no components), beside its payload as Discord sent it.
    let message: serenity::model::channel::Message =
        serde_json::from_value(payload.clone()).unwrap();
    discord_manager_ingest::messages::record_message(
        &world.store,
        &message,
        None,
        discord_manager_ingest::Origin::Gateway,
    )
    .unwrap();
    let message_id = discord_manager_playback::world::id(&id);
    world
        .store
        .write(|writer| {
            discord_manager_ingest::kept_payload::keep_payload(writer, &message_id, &payload)
        })
        .unwrap();
    assert_eq!(extras(&world, &id).components, []);
    let in_channel = discord_manager_store::SearchFilter {
        channel_ids: vec![discord_manager_playback::world::id(channel)],
        ..discord_manager_store::SearchFilter::default()
    };
    let found = |word: &str| {
        world
            .store
            .read(|reader| reader.search(word, &in_channel, 10))
            .unwrap()
            .unwrap_or_default()
            .hits
            .into_iter()
            .any(|hit| hit.message.message_id == message_id)
    };
    assert!(!found("quasarwidget"));

    // This version reads every kept payload again, page by page.
    let mut after = None;
    loop {
        let page =
            discord_manager_ingest::kept_payload::read_again(&world.store, after.as_ref(), 500)
                .unwrap();
        match page.last {
            Some(last) => after = Some(last),
            None => break,
        }
    }
    let gained = extras(&world, &id);
    assert_eq!(gained.flags, 32768);
    assert_eq!(gained.components.len(), 2);
    assert_eq!(gained.components[0].text, "Deploy of quasarwidget failed");
    assert!(found("quasarwidget"), "the text it gained is searchable");
    // Read again, it changes nothing.
    let again =
        discord_manager_ingest::kept_payload::read_again(&world.store, None, 1_000_000).unwrap();
    assert!(again.read >= 1);
    let after_again = extras(&world, &id);
    assert_eq!(after_again, gained);
}

/// A deferred command reply ("thinking…": no content, the flag LOADING) is completed by a
/// MESSAGE_UPDATE that carries the content and no `edited_timestamp` (Discord shows no
/// "edited" on it): the message reads as its answer. An update with the same content and no
/// edit timestamp (an unfurl, a pin) is still no edit.
#[test]
fn a_deferred_command_reply_completed_without_an_edit_timestamp_reads_as_its_answer() {
    let world = World::new();
    let channel = world.channel("general");
    let id = post(&world, channel, "", json!({"flags": 128, "type": 20}));
    let completed = world.message_payload(
        &id,
        channel,
        "7",
        "Deployed 2.4 to production",
        json!({"type": 20}),
    );
    assert_eq!(
        dispatch(&world.store, "MESSAGE_UPDATE", completed.clone()),
        Recorded::Stored
    );
    let message = |world: &World| {
        world
            .store
            .read(|reader| reader.message(&discord_manager_playback::world::id(&id)))
            .unwrap()
            .unwrap()
    };
    assert_eq!(
        message(&world).current_content(),
        "Deployed 2.4 to production"
    );
    assert_eq!(message(&world).edits.len(), 1);
    // The same update again, and an update that only pins it, add no edit.
    dispatch(&world.store, "MESSAGE_UPDATE", completed);
    let mut pinned = world.message_payload(
        &id,
        channel,
        "7",
        "Deployed 2.4 to production",
        json!({"type": 20}),
    );
    pinned["pinned"] = json!(true);
    dispatch(&world.store, "MESSAGE_UPDATE", pinned);
    assert_eq!(message(&world).edits.len(), 1);
}
