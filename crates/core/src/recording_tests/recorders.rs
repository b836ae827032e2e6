//! The recorders (the ingest crate's `record_event`) read back through the owner's
//! capabilities: what each Discord event leaves in the record.

use discord_manager_ingest::Recorded;
use discord_manager_playback::world::{BOT_ID, VIEW, World, dispatch, new_id};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::permissions::ChannelAccess;
use serde_json::json;

use crate::business::messages::catch_up::{CatchUp, catch_up};
use crate::test_fixtures::WorldContext;

fn messages_of(
    world: &World,
    channel: impl std::fmt::Display,
) -> Vec<crate::business::kernel::model::MessageBody> {
    let input = CatchUp {
        since: Some(Instant::from_micros(0)),
        channel_id: discord_manager_playback::world::id_as(channel),
        limit: Some(500),
        cursor: None,
        from_read_markers: None,
    };
    let result = catch_up(&world.store, input, &world.context()).unwrap();
    result
        .channels
        .into_iter()
        .flat_map(|channel| channel.messages)
        .collect()
}

fn access(world: &World, channel: impl std::fmt::Display) -> ChannelAccess {
    world
        .store
        .read(|reader| reader.channel(&discord_manager_playback::world::id(channel)))
        .unwrap()
        .unwrap()
        .access
}

#[test]
fn a_replayed_message_is_recorded_once() {
    let world = World::new();
    let channel = world.channel("general");
    let id = new_id();
    let payload = world.message_payload(&id, channel, "7", "once", json!({}));
    assert_eq!(
        dispatch(&world.store, "MESSAGE_CREATE", payload.clone()),
        Recorded::Stored
    );
    assert_eq!(
        dispatch(&world.store, "MESSAGE_CREATE", payload),
        Recorded::AlreadyKnown
    );
    assert_eq!(messages_of(&world, channel).len(), 1);
}

#[test]
fn replayed_edits_deletions_and_reactions_are_recorded_once() {
    let world = World::new();
    let channel = world.channel("general");
    let id = world.post(channel, "7", "v1", json!({}));
    assert_eq!(
        world.edit(channel, id, "v2", "2026-11-29T12:00:00Z"),
        Recorded::Stored
    );
    assert_eq!(
        world.edit(channel, id, "v2", "2026-11-29T12:00:00Z"),
        Recorded::AlreadyKnown
    );
    assert_eq!(
        world.react("MESSAGE_REACTION_ADD", channel, id, "8", "👍"),
        Recorded::Stored
    );
    assert_eq!(
        world.react("MESSAGE_REACTION_ADD", channel, id, "8", "👍"),
        Recorded::AlreadyKnown
    );
    assert_eq!(
        world.react("MESSAGE_REACTION_REMOVE", channel, id, "9", "👍"),
        Recorded::AlreadyKnown
    );
    assert_eq!(world.delete(channel, id), Recorded::Stored);
    assert_eq!(world.delete(channel, id), Recorded::AlreadyKnown);
    let message = &messages_of(&world, channel)[0];
    assert_eq!(message.content, "v2");
    assert_eq!(message.reactions[0].count, 1);
    assert!(message.deleted);
}

#[test]
fn an_edit_and_a_reaction_that_arrive_before_their_message_are_applied() {
    let world = World::new();
    let channel = world.channel("general");
    let id = new_id();
    assert_eq!(
        world.edit(channel, &id, "the edited text", "2026-11-29T12:00:00Z"),
        Recorded::Stored
    );
    assert_eq!(
        world.react("MESSAGE_REACTION_ADD", channel, &id, "8", "🎉"),
        Recorded::Stored
    );
    dispatch(
        &world.store,
        "MESSAGE_CREATE",
        world.message_payload(&id, channel, "7", "the first text", json!({})),
    );
    let message = &messages_of(&world, channel)[0];
    assert_eq!(message.content, "the edited text");
    assert_eq!(message.edited_at, Instant::parse("2026-11-29T12:00:00Z"));
    assert_eq!(message.reactions[0].emoji, "🎉");
}

#[test]
fn edits_apply_in_discords_order_whatever_order_they_arrive_in() {
    let world = World::new();
    let channel = world.channel("general");
    let id = world.post(channel, "7", "v1", json!({}));
    world.edit(channel, id, "v3", "2026-11-29T13:00:00Z");
    world.edit(channel, id, "v2", "2026-11-29T12:00:00Z");
    assert_eq!(messages_of(&world, channel)[0].content, "v3");
}

#[test]
fn an_update_without_an_edit_timestamp_is_not_an_edit() {
    let world = World::new();
    let channel = world.channel("general");
    let id = world.post(channel, "7", "v1", json!({}));
    let recorded = dispatch(
        &world.store,
        "MESSAGE_UPDATE",
        json!({"id": id, "channel_id": channel, "guild_id": world.guild_id, "embeds": []}),
    );
    // Its (empty) embeds are what the message already had: nothing to write.
    assert_eq!(recorded, Recorded::AlreadyKnown);
    assert_eq!(messages_of(&world, channel)[0].edited_at, None);
}

#[test]
fn a_bulk_deletion_deletes_every_message_named() {
    let world = World::new();
    let channel = world.channel("general");
    let first = world.post(channel, "7", "a", json!({}));
    let second = world.post(channel, "7", "b", json!({}));
    let kept = world.post(channel, "7", "c", json!({}));
    dispatch(
        &world.store,
        "MESSAGE_DELETE_BULK",
        json!({"ids": [first, second], "channel_id": channel, "guild_id": world.guild_id}),
    );
    let deleted: Vec<bool> = messages_of(&world, channel)
        .iter()
        .map(|m| m.deleted)
        .collect();
    assert_eq!(deleted, vec![true, true, false]);
    assert!(
        !messages_of(&world, channel)
            .iter()
            .any(|m| m.message_id == kept && m.deleted)
    );
}

#[test]
fn clearing_reactions_removes_them_all_or_one_emoji() {
    let world = World::new();
    let channel = world.channel("general");
    let id = world.post(channel, "7", "react", json!({}));
    world.react("MESSAGE_REACTION_ADD", channel, id, "8", "👍");
    world.react("MESSAGE_REACTION_ADD", channel, id, "8", "🎉");
    // Exactly as Discord sends it: without the `burst` and `type` serenity 0.12.5 requires.
    dispatch(
        &world.store,
        "MESSAGE_REACTION_REMOVE_EMOJI",
        json!({"channel_id": channel, "message_id": id, "guild_id": world.guild_id, "emoji": {"id": null, "name": "👍"}}),
    );
    let reactions = &messages_of(&world, channel)[0].reactions;
    assert_eq!(
        reactions
            .iter()
            .map(|r| r.emoji.as_str())
            .collect::<Vec<_>>(),
        vec!["🎉"]
    );
    dispatch(
        &world.store,
        "MESSAGE_REACTION_REMOVE_ALL",
        json!({"channel_id": channel, "message_id": id, "guild_id": world.guild_id}),
    );
    assert_eq!(messages_of(&world, channel)[0].reactions.len(), 0);
}

#[test]
fn readability_follows_role_changes_and_threads_follow_their_parent() {
    let world = World::new();
    let channel = world.channel("general");
    let thread = new_id();
    dispatch(
        &world.store,
        "THREAD_CREATE",
        world.channel_payload(&thread, "t", 11, Some(&channel.to_string()), json!([])),
    );
    assert_eq!(access(&world, channel), ChannelAccess::Readable);
    // @everyone loses View Channel: the channel and its thread become unreadable.
    dispatch(
        &world.store,
        "GUILD_ROLE_UPDATE",
        json!({"guild_id": world.guild_id, "role": {"id": world.guild_id, "name": "@everyone", "color": 0,
            "colors": {"primary_color": 0, "secondary_color": null, "tertiary_color": null},
            "hoist": false, "managed": false, "mentionable": false, "permissions": "65536", "position": 0, "flags": 0}}),
    );
    assert_eq!(access(&world, channel), ChannelAccess::NoView);
    assert_eq!(access(&world, &thread), ChannelAccess::NoView);
    // The bot is given a role that may view: readable again.
    let role = new_id();
    dispatch(
        &world.store,
        "GUILD_ROLE_CREATE",
        json!({"guild_id": world.guild_id, "role": {"id": role, "name": "bots", "color": 0,
            "colors": {"primary_color": 0, "secondary_color": null, "tertiary_color": null},
            "hoist": false, "managed": false, "mentionable": false, "permissions": VIEW.to_string(), "position": 1, "flags": 0}}),
    );
    dispatch(
        &world.store,
        "GUILD_MEMBER_UPDATE",
        json!({"guild_id": world.guild_id, "roles": [role], "user": {"id": BOT_ID, "username": "keeper", "discriminator": "0", "avatar": null, "bot": true},
               "joined_at": "2026-01-01T00:00:00Z", "deaf": false, "mute": false, "pending": false, "flags": 0}),
    );
    assert_eq!(access(&world, channel), ChannelAccess::Readable);
    assert_eq!(access(&world, &thread), ChannelAccess::Readable);
}

#[test]
fn a_guild_outage_is_not_a_removal() {
    let world = World::new();
    let recorded = dispatch(
        &world.store,
        "GUILD_DELETE",
        json!({"id": world.guild_id, "unavailable": true}),
    );
    assert_eq!(recorded, Recorded::Ignored);
    let recorded = dispatch(&world.store, "GUILD_DELETE", json!({"id": world.guild_id}));
    assert_eq!(recorded, Recorded::Stored);
    assert!(
        world
            .store
            .read(|reader| reader.guild(&world.guild_id))
            .unwrap()
            .unwrap()
            .removed
    );
}
