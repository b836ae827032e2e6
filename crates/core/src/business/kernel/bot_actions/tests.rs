//! The follow-up actions over the real store with a recording stand-in for Discord: every
//! refusal is checked with its exact message and no request made; every success is what the
//! store recorded, once, though the gateway echoes it.

use std::time::Duration;

use discord_manager_ingest::Recorded;
use discord_manager_playback::world::{
    Acted, Answer, BOT_ID, ScriptedDiscord, World, dispatch, new_id,
};
use discord_manager_sender::BotReaction;
use discord_manager_sender::MessageEdit;
use discord_manager_sender::MessageToDelete;
use discord_manager_sender::emoji::Emoji;
use discord_manager_vocabulary::snowflake::{ChannelId, MessageId};
use serde_json::json;

use super::*;
use crate::business::Source;
use crate::business::kernel::model::Reaction;
use crate::business::kernel::outbox::ASSISTANT_POSTS_PER_MINUTE;
use crate::business::messages::delete::DeleteMessage;
use crate::business::messages::delete::delete_message;
use crate::business::messages::edit::EditMessage;
use crate::business::messages::edit::edit_message;
use crate::business::reactions::add::AddReaction;
use crate::business::reactions::add::add_reaction;
use crate::business::reactions::remove::RemoveReaction;
use crate::business::reactions::remove::remove_reaction;
use crate::test_fixtures::WorldContext;

fn id<Id: std::str::FromStr>(text: impl std::fmt::Display) -> Id {
    discord_manager_playback::world::id(text)
}

fn edit_input(message: &str, content: &str) -> EditMessage {
    EditMessage {
        message_id: id(message),
        content: content.to_string(),
    }
}

fn sender(discord: &ScriptedDiscord) -> Option<&dyn DiscordSender> {
    Some(discord as &dyn DiscordSender)
}

/// Each of the four actions on `message`, by name, as `context` asks for it.
async fn every_action(
    world: &World,
    discord: &ScriptedDiscord,
    context: &OwnerContext,
    message: &str,
) -> Vec<(&'static str, Result<Message>)> {
    let store = &world.store;
    vec![
        (
            "edit",
            edit_message(
                store,
                edit_input(message, "fixed"),
                context,
                sender(discord),
            )
            .await,
        ),
        (
            "delete",
            delete_message(
                store,
                DeleteMessage {
                    message_id: id(message),
                },
                context,
                sender(discord),
            )
            .await,
        ),
        (
            "react",
            add_reaction(
                store,
                AddReaction {
                    message_id: id(message),
                    emoji: "👍".into(),
                },
                context,
                sender(discord),
            )
            .await,
        ),
        (
            "unreact",
            remove_reaction(
                store,
                RemoveReaction {
                    message_id: id(message),
                    emoji: "👍".into(),
                },
                context,
                sender(discord),
            )
            .await,
        ),
    ]
}

fn refusal(result: &Result<Message>) -> (ErrorKind, String) {
    let error = result.as_ref().unwrap_err();
    (error.kind(), error.explained().to_string())
}

/// An edit asks Discord for no link preview, as a post does, unless the owner turned previews
/// on: a message the bot posted before (or other software posted as the bot) cannot be edited
/// into a link Discord fetches.
#[tokio::test]
async fn an_edit_suppresses_link_previews_unless_the_owner_turned_them_on() {
    let world = World::new();
    let general = world.channel("general");
    let mine = world.post(general, BOT_ID, "deploy at 5", json!({}));
    let suppressed = |previews: bool| {
        let world = &world;
        let (general, mine) = (general, mine);
        async move {
            let discord = ScriptedDiscord::new(&world.store, vec![]);
            let context = OwnerContext {
                link_previews: previews,
                ..world.sending_context()
            };
            edit_message(
                &world.store,
                edit_input(&mine.to_string(), "see https://example.invalid/x"),
                &context,
                sender(&discord),
            )
            .await
            .unwrap();
            match discord.actions().as_slice() {
                [(_, Acted::Edit(edit))] => {
                    assert_eq!((&edit.channel_id, &edit.message_id), (&general, &mine));
                    edit.suppress_embeds
                }
                other => panic!("one edit, not {other:?}"),
            }
        }
    };
    assert!(suppressed(false).await);
    assert!(!suppressed(true).await);
}

#[tokio::test]
async fn an_edit_of_the_bots_message_is_what_the_store_recorded_once_though_the_gateway_echoes_it()
{
    let world = World::new();
    let general = world.channel("general");
    let mine = world.post(general, BOT_ID, "deploy at 5", json!({}));
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let edited = edit_message(
        &world.store,
        edit_input(&mine.to_string(), "deploy at 6"),
        &world.sending_context(),
        sender(&discord),
    )
    .await
    .unwrap();
    assert_eq!(
        discord
            .actions()
            .into_iter()
            .map(|(_, acted)| acted)
            .collect::<Vec<_>>(),
        [Acted::Edit(MessageEdit {
            channel_id: general,
            message_id: mine,
            content: "deploy at 6".into(),
            suppress_embeds: true,
        })]
    );
    assert_eq!(edited.body.content, "deploy at 6");
    assert_eq!(edited.body.message_id, mine);
    let record = world
        .store
        .read(|reader| reader.message(&mine))
        .unwrap()
        .unwrap();
    assert_eq!(record.original_content, "deploy at 5");
    assert_eq!(record.edits.len(), 1);
    assert_eq!(edited.body.edited_at, Some(record.edits[0].edited_at));
    let echo = json!({"id": mine, "channel_id": general, "guild_id": world.guild_id,
                      "content": "deploy at 6", "edited_timestamp": record.edits[0].edited_at.to_iso(),
                      "mentions": [], "mention_roles": []});
    assert_eq!(
        dispatch(&world.store, "MESSAGE_UPDATE", echo),
        Recorded::AlreadyKnown
    );
}

#[tokio::test]
async fn a_deletion_is_recorded_once_and_a_second_is_refused_with_no_request() {
    let world = World::new();
    let general = world.channel("general");
    let mine = world.post(general, BOT_ID, "wrong channel, sorry", json!({}));
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let input = || DeleteMessage {
        message_id: id(mine),
    };
    let context = world.sending_context();
    let deleted = delete_message(&world.store, input(), &context, sender(&discord))
        .await
        .unwrap();
    assert!(deleted.body.deleted);
    assert_eq!(deleted.body.content, "wrong channel, sorry");
    assert_eq!(world.delete(general, mine), Recorded::AlreadyKnown);
    let again = delete_message(&world.store, input(), &context, sender(&discord)).await;
    assert_eq!(
        refusal(&again),
        (
            ErrorKind::Conflict,
            format!("Message {mine} is already deleted")
        )
    );
    assert_eq!(
        discord
            .actions()
            .into_iter()
            .map(|(_, acted)| acted)
            .collect::<Vec<_>>(),
        [Acted::Delete(MessageToDelete {
            channel_id: general,
            message_id: mine,
        })]
    );
}

#[tokio::test]
async fn the_bots_reaction_is_added_once_and_taken_back_and_a_repeat_is_refused() {
    let world = World::new();
    let general = world.channel("general");
    let theirs = world.post(general, world.owner_id, "shipped!", json!({}));
    world.react("MESSAGE_REACTION_ADD", general, theirs, "7", "🎉");
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let context = world.sending_context();
    let thumbs = |message: &str| AddReaction {
        message_id: id(message),
        emoji: "👍".into(),
    };
    let reacted = add_reaction(
        &world.store,
        thumbs(&theirs.to_string()),
        &context,
        sender(&discord),
    )
    .await
    .unwrap();
    let counts = |message: &Message| -> Vec<(String, u64)> {
        let reactions: &[Reaction] = &message.body.reactions;
        reactions
            .iter()
            .map(|r| (r.emoji.to_string(), r.count))
            .collect()
    };
    assert_eq!(
        counts(&reacted),
        [("🎉".to_string(), 1), ("👍".to_string(), 1)]
    );
    assert_eq!(
        world.react("MESSAGE_REACTION_ADD", general, theirs, BOT_ID, "👍"),
        Recorded::AlreadyKnown,
        "the gateway's echo"
    );
    let again = add_reaction(
        &world.store,
        thumbs(&theirs.to_string()),
        &context,
        sender(&discord),
    )
    .await;
    assert_eq!(
        refusal(&again),
        (
            ErrorKind::Conflict,
            format!("The bot already reacted to message {theirs} with 👍")
        )
    );
    let remove = || RemoveReaction {
        message_id: id(theirs),
        emoji: "👍".into(),
    };
    let taken_back = remove_reaction(&world.store, remove(), &context, sender(&discord))
        .await
        .unwrap();
    assert_eq!(counts(&taken_back), [("🎉".to_string(), 1)]);
    let again = remove_reaction(&world.store, remove(), &context, sender(&discord)).await;
    assert_eq!(
        refusal(&again),
        (
            ErrorKind::Conflict,
            format!("The bot has no 👍 reaction on message {theirs}")
        )
    );
    let acted: Vec<Acted> = discord.actions().into_iter().map(|(_, a)| a).collect();
    let reaction = BotReaction {
        channel_id: general,
        message_id: theirs,
        emoji: Emoji::Unicode("👍".into()),
    };
    assert_eq!(
        acted,
        [
            Acted::React(reaction.clone(), true),
            Acted::React(reaction, false)
        ]
    );
}

#[tokio::test]
async fn a_custom_emoji_others_used_animated_is_the_same_reaction_when_the_owner_omits_it() {
    let world = World::new();
    let general = world.channel("general");
    let theirs = world.post(general, world.owner_id, "party time", json!({}));
    dispatch(
        &world.store,
        "MESSAGE_REACTION_ADD",
        json!({"user_id": "7", "channel_id": general, "message_id": theirs, "guild_id": world.guild_id,
               "emoji": {"id": "4242424242", "name": "parrot", "animated": true}, "burst": false, "type": 0}),
    );
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let reacted = add_reaction(
        &world.store,
        AddReaction {
            message_id: id(theirs),
            emoji: "parrot:4242424242".into(),
        },
        &world.sending_context(),
        sender(&discord),
    )
    .await
    .unwrap();
    assert_eq!(
        reacted.body.reactions,
        [Reaction {
            emoji: "<a:parrot:4242424242>".into(),
            count: 2
        }]
    );
}

#[tokio::test]
async fn read_only_mode_and_a_missing_token_refuse_every_action_before_any_request() {
    let world = World::new();
    let general = world.channel("general");
    let mine = world.post(general, BOT_ID, "hello", json!({}));
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let read_only = OwnerContext {
        read_only: true,
        ..world.sending_context()
    };
    let results = every_action(&world, &discord, &read_only, &mine.to_string()).await;
    let doing = ["Editing", "Deleting", "Reacting", "Reacting"];
    for ((name, result), doing) in results.iter().zip(doing) {
        assert_eq!(
            refusal(result),
            (
                ErrorKind::Denied,
                format!("{doing} is turned off: DISCORD_MANAGER_READ_ONLY is 1")
            ),
            "{name}"
        );
    }
    let results = every_action(&world, &discord, &world.context(), &mine.to_string()).await;
    for ((name, result), doing) in results.iter().zip(doing) {
        assert_eq!(
            refusal(result),
            (
                ErrorKind::Denied,
                format!("{doing} needs the bot's token: set DISCORD_TOKEN")
            ),
            "{name}"
        );
    }
    assert_eq!(discord.actions(), Vec::new());
    let record = world
        .store
        .read(|reader| reader.message(&mine))
        .unwrap()
        .unwrap();
    assert_eq!((record.edits.len(), record.deleted), (0, false));
    assert_eq!(record.reactions, Vec::new());
}

#[tokio::test]
async fn only_the_bots_own_message_is_edited_or_deleted() {
    let world = World::new();
    let general = world.channel("general");
    let theirs = world.post(general, world.owner_id, "my words", json!({}));
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let results = every_action(
        &world,
        &discord,
        &world.sending_context(),
        &theirs.to_string(),
    )
    .await;
    assert_eq!(
        refusal(&results[0].1),
        (
            ErrorKind::Denied,
            format!(
                "Message {theirs} was written by user {}, not the bot: the bot may edit only its \
                 own messages",
                world.owner_id
            )
        )
    );
    assert_eq!(
        refusal(&results[1].1),
        (
            ErrorKind::Denied,
            format!(
                "Message {theirs} was written by user {}, not the bot: the bot may delete only \
                 its own messages",
                world.owner_id
            )
        )
    );
    // Reacting to someone else's message is what reactions are for.
    assert!(results[2].1.is_ok() && results[3].1.is_ok());
    let acted = discord.actions();
    assert_eq!(acted.len(), 2, "only the two reactions: {acted:?}");
    assert!(
        acted
            .iter()
            .all(|(_, acted)| matches!(acted, Acted::React(..)))
    );
}

#[tokio::test]
async fn an_unknown_or_deleted_message_is_refused_with_no_request() {
    let world = World::new();
    let general = world.channel("general");
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let context = world.sending_context();
    let missing = new_id();
    for (name, result) in every_action(&world, &discord, &context, &missing).await {
        assert_eq!(
            refusal(&result),
            (
                ErrorKind::NotFound,
                format!("`messageId`: no message with id {missing} is in the store")
            ),
            "{name}"
        );
    }
    let gone = world.post(general, BOT_ID, "gone", json!({}));
    world.delete(general, gone);
    let results = every_action(&world, &discord, &context, &gone.to_string()).await;
    let changed = format!("Message {gone} was deleted: there is nothing left to change");
    assert_eq!(
        refusal(&results[0].1),
        (ErrorKind::Conflict, changed.clone())
    );
    assert_eq!(
        refusal(&results[1].1),
        (
            ErrorKind::Conflict,
            format!("Message {gone} is already deleted")
        )
    );
    assert_eq!(
        refusal(&results[2].1),
        (ErrorKind::Conflict, changed.clone())
    );
    assert_eq!(refusal(&results[3].1), (ErrorKind::Conflict, changed));
    assert_eq!(discord.actions(), Vec::new());
}

fn assistant(world: &World, allowed: Option<&[&ChannelId]>) -> OwnerContext {
    OwnerContext {
        source: Source::Mcp,
        send_channel_ids: allowed.map(|ids| ids.iter().map(id).collect()),
        ..world.sending_context()
    }
}

#[tokio::test]
async fn an_assistant_acts_only_in_the_channels_the_owner_allowed() {
    let world = World::alone();
    let general = world.channel("general");
    let other = world.channel("elsewhere");
    let mine = world.post(general, BOT_ID, "hello", json!({}));
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let unlisted = every_action(
        &world,
        &discord,
        &assistant(&world, None),
        &mine.to_string(),
    )
    .await;
    let verbs = [
        ("edit the bot's messages", "edit"),
        ("delete the bot's messages", "delete"),
        ("react to messages", "reactions add"),
        ("react to messages", "reactions add"),
    ];
    for ((name, result), (verb, command)) in unlisted.iter().zip(verbs) {
        assert_eq!(
            refusal(result),
            (
                ErrorKind::Denied,
                format!(
                    "An assistant may not {verb}: no channel is allowed for it\nHint: To allow \
                     some, list their ids in DISCORD_MANAGER_SEND_CHANNELS (comma-separated) and \
                     restart the MCP server\nHint: `discord-manager {command}` from the \
                     terminal is not limited by it"
                )
            ),
            "{name}"
        );
    }
    let elsewhere = every_action(
        &world,
        &discord,
        &assistant(&world, Some(&[&other])),
        &mine.to_string(),
    )
    .await;
    let doing = ["Editing", "Deleting", "Reacting", "Reacting"];
    for ((name, result), doing) in elsewhere.iter().zip(doing) {
        assert_eq!(
            refusal(result),
            (
                ErrorKind::Denied,
                format!(
                    "{doing} in channel {general} is denied: it is not in DISCORD_MANAGER_SEND_CHANNELS"
                )
            ),
            "{name}"
        );
    }
    assert_eq!(discord.actions(), Vec::new());
}

#[tokio::test]
async fn an_assistants_edits_count_toward_its_cap_on_posts_and_its_reactions_do_not() {
    let world = World::alone();
    let general = world.channel("general");
    let mine = world.post(general, BOT_ID, "hello", json!({}));
    let context = assistant(&world, Some(&[&general]));
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    for n in 0..ASSISTANT_POSTS_PER_MINUTE {
        edit_message(
            &world.store,
            edit_input(&mine.to_string(), &format!("hello {n}")),
            &context,
            sender(&discord),
        )
        .await
        .unwrap();
    }
    let capped = edit_message(
        &world.store,
        edit_input(&mine.to_string(), "one too many"),
        &context,
        sender(&discord),
    )
    .await;
    assert_eq!(
        refusal(&capped),
        (
            ErrorKind::Denied,
            "An assistant may post at most 5 messages a minute (sends, edits and schedules \
             together), and that many were started in the last minute; nothing was sent: wait a \
             minute, or send it from the terminal with `discord-manager send`"
                .to_string()
        )
    );
    let reacted = add_reaction(
        &world.store,
        AddReaction {
            message_id: id(mine),
            emoji: "✅".into(),
        },
        &context,
        sender(&discord),
    )
    .await;
    assert!(reacted.is_ok(), "{reacted:?}");
    assert_eq!(discord.actions().len(), 6);
}

/// An assistant's reactions have a cap of their own (letter and keycap emoji can spell text):
/// five added or taken back in a minute, the sixth refused before any request; a minute later
/// it may react again, and the owner's own reactions are never capped.
#[tokio::test]
async fn an_assistant_reacts_at_most_five_times_a_minute_and_the_owner_is_not_capped() {
    use crate::business::kernel::outbox::ASSISTANT_REACTIONS_PER_MINUTE;
    let world = World::alone();
    let general = world.channel("general");
    let messages: Vec<MessageId> = (0..8)
        .map(|n| world.post(general, world.owner_id, &format!("line {n}"), json!({})))
        .collect();
    let context = assistant(&world, Some(&[&general]));
    let discord = ScriptedDiscord::new(&world.store, vec![]);
    let react = |message: &MessageId, emoji: &str, context: &OwnerContext| {
        let input = AddReaction {
            message_id: id(message),
            emoji: emoji.into(),
        };
        let (store, context, discord) = (&world.store, context.clone(), &discord);
        async move { add_reaction(store, input, &context, sender(discord)).await }
    };
    // Four added and one taken back: five.
    for message in &messages[..4] {
        react(message, "👀", &context).await.unwrap();
    }
    remove_reaction(
        &world.store,
        RemoveReaction {
            message_id: id(messages[0]),
            emoji: "👀".into(),
        },
        &context,
        sender(&discord),
    )
    .await
    .unwrap();
    assert_eq!(
        discord.actions().len() as u64,
        ASSISTANT_REACTIONS_PER_MINUTE
    );
    let capped = react(&messages[4], "🚀", &context).await;
    assert_eq!(
        refusal(&capped),
        (
            ErrorKind::Denied,
            "An assistant may react at most 5 times a minute (adding and taking back together), \
             and that many were made in the last minute; nothing was sent: wait a minute, or \
             react from the terminal with `discord-manager reactions add`"
                .to_string()
        )
    );
    assert_eq!(discord.actions().len(), 5, "the sixth made no request");
    // Posts are counted apart: the assistant may still edit the bot's message.
    let mine = world.post(general, BOT_ID, "hello", json!({}));
    edit_message(
        &world.store,
        edit_input(&mine.to_string(), "hello again"),
        &context,
        sender(&discord),
    )
    .await
    .unwrap();
    // The owner's terminal is not capped.
    react(&messages[5], "🚀", &world.sending_context())
        .await
        .unwrap();
    assert_eq!(discord.actions().len(), 7);
}

#[tokio::test(start_paused = true)]
async fn an_edit_retried_after_a_5xx_is_one_edit_and_one_that_keeps_failing_says_retrying_is_safe()
{
    let world = World::new();
    let general = world.channel("general");
    let mine = world.post(general, BOT_ID, "v1", json!({}));
    let unavailable = || {
        Answer::Fail(SendFailure::Unavailable {
            reason: "HTTP 503".into(),
        })
    };
    let discord = ScriptedDiscord::new(&world.store, vec![unavailable()]);
    let context = world.sending_context();
    let edited = edit_message(
        &world.store,
        edit_input(&mine.to_string(), "v2"),
        &context,
        sender(&discord),
    )
    .await
    .unwrap();
    assert_eq!(edited.body.content, "v2");
    let at: Vec<Duration> = discord.actions().iter().map(|(at, _)| *at).collect();
    assert_eq!(at, [Duration::ZERO, Duration::from_secs(1)]);
    let record = world
        .store
        .read(|reader| reader.message(&mine))
        .unwrap()
        .unwrap();
    assert_eq!(record.edits.len(), 1);

    discord.then(vec![unavailable(), unavailable(), unavailable()]);
    let failed = edit_message(
        &world.store,
        edit_input(&mine.to_string(), "v3"),
        &context,
        sender(&discord),
    )
    .await;
    assert_eq!(
        refusal(&failed),
        (
            ErrorKind::Discord,
            "Discord did not confirm it after 3 attempts (HTTP 503): asking again is safe, \
             since an edit done twice is done once"
                .to_string()
        )
    );
    let record = world
        .store
        .read(|reader| reader.message(&mine))
        .unwrap()
        .unwrap();
    assert_eq!(record.current_content(), "v2");
}

#[tokio::test]
async fn discords_refusal_of_an_action_is_in_the_owners_words_and_not_retried() {
    let world = World::new();
    let general = world.channel("general");
    let theirs = world.post(general, world.owner_id, "hi", json!({}));
    let discord = ScriptedDiscord::new(
        &world.store,
        vec![Answer::Fail(SendFailure::Refused {
            status: 400,
            code: Some(10014),
            message: "Unknown Emoji".into(),
        })],
    );
    let refused = add_reaction(
        &world.store,
        AddReaction {
            message_id: id(theirs),
            emoji: "nope:123456789".into(),
        },
        &world.sending_context(),
        sender(&discord),
    )
    .await;
    assert_eq!(
        refusal(&refused),
        (
            ErrorKind::Discord,
            "Discord does not know that emoji: Unknown Emoji (400, code 10014); nothing was \
             changed"
                .to_string()
        )
    );
    assert_eq!(discord.actions().len(), 1);
    let record = world
        .store
        .read(|reader| reader.message(&theirs))
        .unwrap()
        .unwrap();
    assert_eq!(record.reactions, Vec::new());
}

#[tokio::test]
async fn without_a_discord_client_a_checked_action_says_so() {
    let world = World::new();
    let general = world.channel("general");
    let mine = world.post(general, BOT_ID, "hello", json!({}));
    let error = delete_message(
        &world.store,
        DeleteMessage {
            message_id: id(mine),
        },
        &world.sending_context(),
        None,
    )
    .await
    .unwrap_err();
    assert_eq!(
        error.message(),
        "Acting on Discord is not available: no Discord client was set up for it"
    );
}
