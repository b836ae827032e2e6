//! The Discord side of the business layer's port (the sender crate's [`DiscordSender`]): each
//! request goes out through [`Rest`], one attempt each (the business layer retries; a post
//! with the same nonce), and Discord's answer is recorded here, through the gateway's recorders
//! ([`StoreRecorder`], over the store the sender is built with), so the business layer gets
//! back what the store holds and never records anything itself.
//!
//! The daemon's scheduler sends through a [`RestSender`] on its own client; the CLI and the MCP
//! server get a [`LazySender`]: most of their commands never send, so the HTTP client (and its
//! TLS set-up) is built on the first request, not at every start.

use std::sync::{Arc, OnceLock};

use discord_manager_core::config::Token;
use discord_manager_ingest::sent::StoreRecorder;
use discord_manager_sender::{
    AnswerRecorder, BotReaction, Delivered, Delivery, DiscordSender, MessageEdit, MessageToDelete,
    OutgoingMessage, SendFailure,
};
use discord_manager_store::Store;
use discord_manager_vocabulary::snowflake::MessageId;

use super::rest::{Rest, RetryPolicy};

/// The port on a [`Rest`] client: each request through it, each answer recorded in the store
/// it was built with.
pub struct RestSender {
    rest: Arc<Rest>,
    recorder: StoreRecorder,
}

impl RestSender {
    /// Sends through `rest` and records Discord's answers in `store`.
    pub fn new(rest: Arc<Rest>, store: Arc<Store>) -> RestSender {
        RestSender {
            rest,
            recorder: StoreRecorder::new(store),
        }
    }
}

impl DiscordSender for RestSender {
    fn post_message<'a>(&'a self, message: &'a OutgoingMessage) -> Delivery<'a> {
        Box::pin(async move {
            let answer = self.rest.post_message(message).await?;
            recorded_answer(&answer, self.recorder.sent(&answer))
        })
    }

    fn edit_message<'a>(&'a self, edit: &'a MessageEdit) -> Delivery<'a> {
        Box::pin(async move {
            let answer = self.rest.edit_message(edit).await?;
            recorded_answer(&answer, self.recorder.edited(&answer))
        })
    }

    fn delete_message<'a>(&'a self, target: &'a MessageToDelete) -> Delivery<'a> {
        Box::pin(async move {
            self.rest.delete_message(target).await?;
            let recorded = self
                .recorder
                .deleted(&target.channel_id, &target.message_id);
            Ok(Delivered::of(&target.message_id, recorded))
        })
    }

    fn react<'a>(&'a self, reaction: &'a BotReaction, add: bool) -> Delivery<'a> {
        Box::pin(async move {
            self.rest.react(reaction, add).await?;
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

/// What the store holds of a message Discord answered with: its id, and how recording it went.
/// An answer without a message id is one Discord may or may not have acted on (the posting
/// outcome already refuses one; a retry with the same nonce answers it).
fn recorded_answer(
    answer: &serde_json::Value,
    recorded: discord_manager_vocabulary::error::Result<()>,
) -> Result<Delivered, SendFailure> {
    let id = answer
        .get("id")
        .and_then(serde_json::Value::as_str)
        .and_then(MessageId::parse)
        .ok_or_else(|| SendFailure::Unavailable {
            reason: "Discord answered without the id of the message it acted on".into(),
        })?;
    Ok(Delivered::of(&id, recorded))
}

/// A [`RestSender`] whose client is built when the first request is made.
pub struct LazySender {
    token: Token,
    api_base: Option<String>,
    store: Arc<Store>,
    sender: OnceLock<Result<RestSender, String>>,
}

impl LazySender {
    /// A sender with the bot's token, posting to `api_base` (`DISCORD_API_BASE`) or Discord,
    /// recording Discord's answers in `store`.
    pub fn new(token: Token, api_base: Option<String>, store: Arc<Store>) -> LazySender {
        LazySender {
            token,
            api_base,
            store,
            sender: OnceLock::new(),
        }
    }

    /// The sender on its client, built on first use; why not, when it cannot be.
    fn sender(&self) -> Result<&RestSender, SendFailure> {
        let sender = self.sender.get_or_init(|| {
            Rest::new(
                &self.token,
                self.api_base.as_deref(),
                RetryPolicy::default(),
            )
            .map(|rest| RestSender::new(Arc::new(rest), Arc::clone(&self.store)))
            .map_err(|error| error.message().to_string())
        });
        sender.as_ref().map_err(|why| SendFailure::Unavailable {
            reason: why.clone(),
        })
    }
}

impl DiscordSender for LazySender {
    fn post_message<'a>(&'a self, message: &'a OutgoingMessage) -> Delivery<'a> {
        Box::pin(async move { self.sender()?.post_message(message).await })
    }

    fn edit_message<'a>(&'a self, edit: &'a MessageEdit) -> Delivery<'a> {
        Box::pin(async move { self.sender()?.edit_message(edit).await })
    }

    fn delete_message<'a>(&'a self, target: &'a MessageToDelete) -> Delivery<'a> {
        Box::pin(async move { self.sender()?.delete_message(target).await })
    }

    fn react<'a>(&'a self, reaction: &'a BotReaction, add: bool) -> Delivery<'a> {
        Box::pin(async move { self.sender()?.react(reaction, add).await })
    }
}
