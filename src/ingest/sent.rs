//! A message the bot just sent, recorded from Discord's answer to the request, through the
//! same recorder as the gateway: when the gateway later delivers the same message, that
//! MESSAGE_CREATE is a replay and records nothing, so the message appears once.

use serde_json::Value;
use serenity::model::channel::Message;
use serenity::model::id::GuildId;

use super::messages::record_message;
use super::{Origin, Recorded};
use crate::error::{Error, ErrorKind, Result};
use crate::store::Store;

/// Records the message Discord created (its JSON answer to `POST /channels/{id}/messages`)
/// and returns its id. Discord's REST answer carries no `guild_id`: the channel's guild is
/// taken from the store, as the gateway would have sent it.
pub fn record_sent_message(store: &Store, answer: &Value) -> Result<(String, Recorded)> {
    let mut message: Message = serde_json::from_value(answer.clone()).map_err(|error| {
        Error::new(
            ErrorKind::Discord,
            format!("Discord's answer to the message it posted is not a message: {error}"),
        )
    })?;
    if message.guild_id.is_none() {
        let channel = message.channel_id.to_string();
        let guild = store.read(|reader| Ok(reader.channel(&channel)?.and_then(|c| c.guild_id)))?;
        message.guild_id = guild
            .and_then(|id| id.parse::<u64>().ok())
            .filter(|id| *id != 0)
            .map(GuildId::new);
    }
    let recorded = record_message(store, &message, Origin::Sent)?;
    Ok((message.id.to_string(), recorded))
}
