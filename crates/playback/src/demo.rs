//! A stand-in for Discord's REST API, for the demo store and the tests: it answers a bot's
//! post, edit, deletion and reaction as Discord does, and nothing leaves the machine.
//!
//! Like the real adapter, it records each answer in the store through the gateway's recorders.
//! Those live in the ingest crate, which the demo does not depend on (only this crate's test
//! world does, behind its feature), so whoever builds a [`DemoDiscord`] hands it the port's
//! [`AnswerRecorder`] to record through: the ingest crate's `sent::StoreRecorder`, as the real
//! adapter is built with.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use discord_manager_sender::{
    AnswerRecorder, BotReaction, Delivered, Delivery, DiscordSender, MessageEdit, MessageToDelete,
    OutgoingMessage, SUPPRESS_EMBEDS, SendFailure,
};
use discord_manager_store::Store;
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::{MessageId, UserId};
use serde_json::Value;

use crate::payload::{Message, User};

/// A stand-in for Discord's REST API that answers a bot's post as Discord does: with the
/// created message, authored by the bot the store knows (from READY), without `guild_id` (as
/// Discord's REST answers are), and, like `enforce_nonce`, with the same message again for a
/// nonce it has seen. An edit answers the stored message with its new content; a deletion and
/// a reaction are done. Like the real adapter, it records each answer in the store through the
/// gateway's recorders.
pub struct DemoDiscord {
    store: Arc<Store>,
    recorder: Box<dyn AnswerRecorder>,
    created: Mutex<HashMap<String, Value>>,
}

impl DemoDiscord {
    /// A demo Discord that knows what `store` holds (the bot, the messages it edits), recording
    /// its answers through `recorder`.
    pub fn new(store: Arc<Store>, recorder: impl AnswerRecorder + 'static) -> DemoDiscord {
        DemoDiscord {
            store,
            recorder: Box::new(recorder),
            created: Mutex::new(HashMap::new()),
        }
    }

    /// How many messages it created (a repeated nonce creates none).
    pub fn created(&self) -> usize {
        self.created.lock().map_or(0, |created| created.len())
    }

    /// Discord's side of a post: the created message (the same one again for a nonce it has
    /// seen), not yet recorded anywhere.
    pub fn create(&self, message: &OutgoingMessage) -> Result<Value, SendFailure> {
        let mut created = self.created.lock().map_err(|_| SendFailure::Unavailable {
            reason: "the demo Discord failed".into(),
        })?;
        if let Some(existing) = created.get(&message.nonce) {
            return Ok(existing.clone());
        }
        let identity = self
            .store
            .read(|reader| reader.identity())
            .map_err(|error| SendFailure::Unavailable {
                reason: error.message().to_string(),
            })?;
        let Some(bot_id) = identity.bot_user_id else {
            return Err(SendFailure::Refused {
                status: 401,
                code: Some(0),
                message: "401: Unauthorized (the demo knows no bot: no READY was played)".into(),
            });
        };
        let timestamp = Instant::now();
        let channel_id = message.channel_id.to_string();
        let reply_to = message.reply_to_message_id.map(|id| id.to_string());
        let answer = Message {
            id: &snowflake(timestamp),
            channel_id: &channel_id,
            author: bot(&bot_id, identity.bot_name),
            content: &message.content,
            timestamp: &timestamp.to_iso(),
            flags: if message.suppress_embeds {
                SUPPRESS_EMBEDS
            } else {
                0
            },
            nonce: Some(&message.nonce),
            reply_to: reply_to.as_deref(),
            ..Message::default()
        }
        .to_json();
        created.insert(message.nonce.clone(), answer.clone());
        Ok(answer)
    }
}

impl DemoDiscord {
    /// Discord's answer to an edit of a stored message: the message with its new content and
    /// the time of the edit, as `PATCH /channels/{c}/messages/{m}` answers it.
    fn edited(&self, edit: &MessageEdit) -> Result<Value, SendFailure> {
        let unavailable = |error: Error| SendFailure::Unavailable {
            reason: error.message().to_string(),
        };
        let Some(message) = self
            .store
            .read(|reader| reader.message(&edit.message_id))
            .map_err(unavailable)?
        else {
            return Err(unknown_message());
        };
        let identity = self
            .store
            .read(|reader| reader.identity())
            .map_err(unavailable)?;
        let (id, channel_id) = (
            message.message_id.to_string(),
            message.channel_id.to_string(),
        );
        Ok(Message {
            id: &id,
            channel_id: &channel_id,
            author: bot(&message.author_id, identity.bot_name),
            content: &edit.content,
            timestamp: &message.sent_at.to_iso(),
            edited_timestamp: Some(&Instant::now().to_iso()),
            flags: SUPPRESS_EMBEDS,
            ..Message::default()
        }
        .to_json())
    }
}

/// The bot as the author of its own messages: Discord's user object for it, named as READY
/// named it.
fn bot(id: &UserId, name: Option<String>) -> User {
    User {
        id: id.to_string(),
        username: name.unwrap_or_default(),
        global_name: None,
        bot: true,
    }
}

/// Discord's 404 for a message it does not know.
fn unknown_message() -> SendFailure {
    SendFailure::Refused {
        status: 404,
        code: Some(10008),
        message: "Unknown Message".into(),
    }
}

impl DiscordSender for DemoDiscord {
    fn post_message<'a>(&'a self, message: &'a OutgoingMessage) -> Delivery<'a> {
        Box::pin(async move {
            let answer = self.create(message)?;
            let recorded = self.recorder.sent(&answer);
            let id = answer["id"]
                .as_str()
                .and_then(MessageId::parse)
                .ok_or_else(|| SendFailure::Unavailable {
                    reason: "the demo's answer has no message id".into(),
                })?;
            Ok(Delivered::of(&id, recorded))
        })
    }

    fn edit_message<'a>(&'a self, edit: &'a MessageEdit) -> Delivery<'a> {
        Box::pin(async move {
            let answer = self.edited(edit)?;
            let recorded = self.recorder.edited(&answer);
            Ok(Delivered::of(&edit.message_id, recorded))
        })
    }

    fn delete_message<'a>(&'a self, target: &'a MessageToDelete) -> Delivery<'a> {
        Box::pin(async move {
            let recorded = self
                .recorder
                .deleted(&target.channel_id, &target.message_id);
            Ok(Delivered::of(&target.message_id, recorded))
        })
    }

    fn react<'a>(&'a self, reaction: &'a BotReaction, add: bool) -> Delivery<'a> {
        Box::pin(async move {
            let recorded = self.recorder.reacted(
                &reaction.channel_id,
                &reaction.message_id,
                &reaction.emoji.discord_object(),
                add,
            );
            Ok(Delivered::of(&reaction.message_id, recorded))
        })
    }
}

/// A Discord snowflake for a message created at `at`: milliseconds since Discord's epoch
/// (2015), and a sequence number so that two in one millisecond differ.
fn snowflake(at: Instant) -> String {
    static SEQUENCE: AtomicU64 = AtomicU64::new(0);
    let sequence = SEQUENCE.fetch_add(1, Ordering::Relaxed) & 0xfff;
    discord_manager_vocabulary::snowflake::snowflake_at(at, sequence).to_string()
}
