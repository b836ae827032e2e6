//! What the bot just did on Discord, recorded from Discord's answer to the request, through the
//! same recorders as the gateway: a message it sent, an edit of its message, a deletion, its
//! reaction. When the gateway later delivers the same event, it is a replay and records
//! nothing, so each appears once.
//!
//! These are what the `DiscordSender` adapters call after a request succeeds, so the business
//! layer never records anything itself: each adapter is built with a [`StoreRecorder`], the
//! port's `AnswerRecorder` over these recorders.

use std::sync::Arc;

use discord_manager_sender::AnswerRecorder;
use discord_manager_store::Store;
use discord_manager_vocabulary::error::{Error, ErrorKind, Result};
use discord_manager_vocabulary::snowflake;
use serde_json::{Value, json};
use serenity::model::channel::Message;
use serenity::model::event::Event;
use serenity::model::id::GuildId;

use super::messages::record_message;
use super::{Origin, Recorded, record_event};
use crate::ids::TypedId;

/// The gateway's recorders of Discord's answers over one store, as the port's
/// [`AnswerRecorder`]: what the Discord crate's REST sender and the playback crate's demo
/// Discord are built with, so the demo records exactly as the real adapter does.
#[derive(Clone)]
pub struct StoreRecorder {
    store: Arc<Store>,
}

impl StoreRecorder {
    /// Records Discord's answers in `store`.
    pub fn new(store: Arc<Store>) -> StoreRecorder {
        StoreRecorder { store }
    }
}

impl AnswerRecorder for StoreRecorder {
    fn sent(&self, answer: &Value) -> Result<()> {
        record_sent_message(&self.store, answer).map(drop)
    }

    fn edited(&self, answer: &Value) -> Result<()> {
        record_edited_message(&self.store, answer).map(drop)
    }

    fn deleted(
        &self,
        channel_id: &snowflake::ChannelId,
        message_id: &snowflake::MessageId,
    ) -> Result<()> {
        record_deleted_message(&self.store, channel_id, message_id).map(drop)
    }

    fn reacted(
        &self,
        channel_id: &snowflake::ChannelId,
        message_id: &snowflake::MessageId,
        emoji: &Value,
        added: bool,
    ) -> Result<()> {
        record_bot_reaction(&self.store, channel_id, message_id, emoji, added).map(drop)
    }
}

/// Records the message Discord created (its JSON answer to `POST /channels/{id}/messages`)
/// and returns its id. Discord's REST answer carries no `guild_id`: the channel's guild is
/// taken from the store, as the gateway would have sent it.
pub fn record_sent_message(
    store: &Store,
    answer: &Value,
) -> Result<(snowflake::MessageId, Recorded)> {
    let mut message: Message = serde_json::from_value(answer.clone()).map_err(|error| {
        Error::new(
            ErrorKind::Discord,
            format!("Discord's answer to the message it posted is not a message: {error}"),
        )
    })?;
    if message.guild_id.is_none() {
        let channel = message.channel_id.typed();
        message.guild_id = guild_of(store, &channel)?.map(|id| GuildId::new(id.get()));
    }
    let recorded = record_message(store, &message, None, Origin::Sent)?;
    Ok((message.id.typed(), recorded))
}

/// Records Discord's answer to `PATCH /channels/{c}/messages/{m}` (the whole message as
/// edited) as the MESSAGE_UPDATE the gateway delivers for it; answers the message's id.
pub fn record_edited_message(
    store: &Store,
    answer: &Value,
) -> Result<(snowflake::MessageId, Recorded)> {
    let id = answer
        .get("id")
        .and_then(Value::as_str)
        .and_then(snowflake::MessageId::parse)
        .ok_or_else(|| not_as_documented("the message it edited", "it has no id"))?;
    let channel = answer
        .get("channel_id")
        .and_then(Value::as_str)
        .and_then(snowflake::ChannelId::parse);
    let mut update = answer.clone();
    if update.get("guild_id").is_none_or(Value::is_null) {
        let guild = match &channel {
            Some(channel) => guild_of(store, channel)?,
            None => None,
        };
        update["guild_id"] = json!(guild);
    }
    let recorded = record_dispatch(store, "MESSAGE_UPDATE", update, "the message it edited")?;
    Ok((id, recorded))
}

/// Records the deletion of a message, as the MESSAGE_DELETE the gateway delivers for it.
pub fn record_deleted_message(
    store: &Store,
    channel_id: &snowflake::ChannelId,
    message_id: &snowflake::MessageId,
) -> Result<Recorded> {
    let deletion = json!({"id": message_id, "channel_id": channel_id,
                          "guild_id": guild_of(store, channel_id)?});
    record_dispatch(store, "MESSAGE_DELETE", deletion, "the deletion")
}

/// Records the bot's own reaction with `emoji` (Discord's emoji object: `{"id", "name",
/// "animated"}`) added or, unless `added`, removed, as the gateway's reaction event.
pub fn record_bot_reaction(
    store: &Store,
    channel_id: &snowflake::ChannelId,
    message_id: &snowflake::MessageId,
    emoji: &Value,
    added: bool,
) -> Result<Recorded> {
    let bot = store
        .read(|reader| reader.identity())?
        .bot_user_id
        .ok_or_else(|| Error::internal("The store does not know the bot's user id yet"))?;
    let reaction = json!({"user_id": bot, "channel_id": channel_id, "message_id": message_id,
                          "guild_id": guild_of(store, channel_id)?, "emoji": emoji,
                          "burst": false, "type": 0});
    let kind = if added {
        "MESSAGE_REACTION_ADD"
    } else {
        "MESSAGE_REACTION_REMOVE"
    };
    record_dispatch(store, kind, reaction, "the reaction")
}

/// The guild of a stored channel (None: a direct message, or a channel not stored).
fn guild_of(
    store: &Store,
    channel_id: &snowflake::ChannelId,
) -> Result<Option<snowflake::GuildId>> {
    store.read(|reader| Ok(reader.channel(channel_id)?.and_then(|c| c.guild_id)))
}

/// Records `data` as the gateway dispatch `kind` through its recorder.
fn record_dispatch(store: &Store, kind: &str, data: Value, what: &str) -> Result<Recorded> {
    // The feed's decoding: serenity's, with the repairs it needs for what Discord does send.
    let event = super::feed::decode_dispatch(0, &json!({"t": kind, "d": data}))
        .map_err(|error| not_as_documented(what, error.message()))?;
    if let Event::Unknown(_) = event {
        return Err(not_as_documented(what, "it does not parse"));
    }
    record_event(store, &event, Origin::Sent)
}

fn not_as_documented(what: &str, why: &str) -> Error {
    Error::new(
        ErrorKind::Discord,
        format!("Discord's answer about {what} is not what Discord documents: {why}"),
    )
}
