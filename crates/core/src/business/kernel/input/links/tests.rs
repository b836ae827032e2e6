//! Unit tests of resolving links against a store, kept beside it.

use discord_manager_playback::world::World;
use serde_json::json;

use super::*;
use crate::registry::find;

fn send_schema() -> Map<String, Value> {
    find("messages_send").unwrap().input_schema.clone()
}

fn fields(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(fields) => fields,
        _ => unreachable!("an object"),
    }
}

#[test]
fn links_resolve_to_their_ids_and_a_channel_field_takes_a_messages_channel() {
    let world = World::new();
    let channel = world.channel("general");
    let message = world.post(channel, world.owner_id, "hello", json!({}));
    let guild = &world.guild_id;
    let resolved = resolve_links(
        &send_schema(),
        fields(json!({
            "channelId": format!("https://ptb.discord.com/channels/{guild}/{channel}/{message}"),
            "replyToMessageId": format!("https://discord.com/channels/{guild}/{channel}/{message}"),
            "content": "hi",
        })),
        &world.store,
    )
    .unwrap();
    assert_eq!(
        Value::Object(resolved),
        json!({"channelId": channel.to_string(), "replyToMessageId": message.to_string(), "content": "hi"})
    );
    // Ids pass unchanged.
    let given = fields(json!({"channelId": channel.to_string(), "content": "hi"}));
    assert_eq!(
        resolve_links(&send_schema(), given.clone(), &world.store).unwrap(),
        given
    );
}

#[test]
fn an_at_me_link_to_a_servers_channel_is_refused_naming_the_field() {
    let world = World::new();
    let channel = world.channel("general");
    let guild = &world.guild_id;
    let error = resolve_links(
        &send_schema(),
        fields(json!({
            "channelId": format!("https://discord.com/channels/@me/{channel}"),
            "content": "hi",
        })),
        &world.store,
    )
    .unwrap_err();
    assert_eq!(
        error.message(),
        format!(
            "`channelId`: that link puts channel {channel} in a direct message (@me), but the \
             store has it in server {guild}; copy the link again from Discord"
        )
    );
}

#[test]
fn a_link_that_skipped_the_check_is_still_refused_in_the_owners_words() {
    let world = World::new();
    let error = resolve_links(
        &send_schema(),
        fields(json!({"channelId": "https://discord.com/channels/1/2?x", "content": "hi"})),
        &world.store,
    )
    .unwrap_err();
    assert_eq!(
        error.message(),
        "`channelId` must be a channel id (a string of digits such as \"1189078123456789012\") \
         or a Discord link to the channel or to a message in it \
         (https://discord.com/channels/<server>/<channel>); a Discord link has no ?… or #… \
         part; leave out everything from the ? or #"
    );
}
