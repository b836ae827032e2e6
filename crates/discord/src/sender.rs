//! The Discord side of the business layer's port (the sender crate's [`DiscordSender`]): each
//! request goes out through [`Rest`], one attempt each (the business layer retries; a post
//! with the same nonce), and Discord's answer is recorded here, through the gateway's recorders
//! (`ingest::sent`), so the business layer gets back what the store holds and never records
//! anything itself.
//!
//! The CLI and the MCP server get a [`LazySender`]: most of their commands never send, so the
//! HTTP client (and its TLS set-up) is built on the first request, not at every start.

use std::sync::OnceLock;

use discord_manager_core::config::Token;
use discord_manager_ingest::sent;
use discord_manager_playback::demo::Recorders;
use discord_manager_sender::{
    BotReaction, Delivered, Delivery, DiscordSender, MessageEdit, MessageToDelete, OutgoingMessage,
    SendFailure,
};
use discord_manager_store::Store;
use discord_manager_vocabulary::snowflake::MessageId;

use super::rest::{Rest, RetryPolicy};

/// The gateway's recorders of Discord's answers, as a
/// [`discord_manager_playback::demo::DemoDiscord`] takes them: the demo records exactly as this
/// adapter does.
pub const RECORDERS: Recorders = Recorders {
    sent: |store, answer| sent::record_sent_message(store, answer).map(drop),
    edited: |store, answer| sent::record_edited_message(store, answer).map(drop),
    deleted: |store, channel, message| {
        sent::record_deleted_message(store, channel, message).map(drop)
    },
    reacted: |store, channel, message, emoji, added| {
        sent::record_bot_reaction(store, channel, message, emoji, added).map(drop)
    },
};

impl DiscordSender for Rest {
    fn post_message<'a>(&'a self, store: &'a Store, message: &'a OutgoingMessage) -> Delivery<'a> {
        Box::pin(async move {
            let answer = Rest::post_message(self, message).await?;
            recorded_answer(&answer, sent::record_sent_message(store, &answer))
        })
    }

    fn edit_message<'a>(&'a self, store: &'a Store, edit: &'a MessageEdit) -> Delivery<'a> {
        Box::pin(async move {
            let answer = Rest::edit_message(self, edit).await?;
            recorded_answer(&answer, sent::record_edited_message(store, &answer))
        })
    }

    fn delete_message<'a>(&'a self, store: &'a Store, target: &'a MessageToDelete) -> Delivery<'a> {
        Box::pin(async move {
            Rest::delete_message(self, target).await?;
            let recorded =
                sent::record_deleted_message(store, &target.channel_id, &target.message_id);
            Ok(Delivered::of(&target.message_id, recorded.map(drop)))
        })
    }

    fn react<'a>(&'a self, store: &'a Store, reaction: &'a BotReaction, add: bool) -> Delivery<'a> {
        Box::pin(async move {
            Rest::react(self, reaction, add).await?;
            let recorded = sent::record_bot_reaction(
                store,
                &reaction.channel_id,
                &reaction.message_id,
                &reaction.emoji.discord_object(),
                add,
            );
            Ok(Delivered::of(&reaction.message_id, recorded.map(drop)))
        })
    }
}

/// What the store holds of a message Discord answered with: its id, and how recording it went.
/// An answer without a message id is one Discord may or may not have acted on (the posting
/// outcome already refuses one; a retry with the same nonce answers it).
fn recorded_answer<T>(
    answer: &serde_json::Value,
    recorded: discord_manager_vocabulary::error::Result<(MessageId, T)>,
) -> Result<Delivered, SendFailure> {
    let id = answer
        .get("id")
        .and_then(serde_json::Value::as_str)
        .and_then(MessageId::parse)
        .ok_or_else(|| SendFailure::Unavailable {
            reason: "Discord answered without the id of the message it acted on".into(),
        })?;
    Ok(Delivered::of(&id, recorded.map(drop)))
}

/// A [`Rest`] client built when the first request is made.
pub struct LazySender {
    token: Token,
    api_base: Option<String>,
    rest: OnceLock<Result<Rest, String>>,
}

impl LazySender {
    /// A sender with the bot's token, posting to `api_base` (`DISCORD_API_BASE`) or Discord.
    pub fn new(token: Token, api_base: Option<String>) -> LazySender {
        LazySender {
            token,
            api_base,
            rest: OnceLock::new(),
        }
    }

    /// The client, built on first use; why not, when it cannot be.
    fn rest(&self) -> Result<&Rest, SendFailure> {
        let rest = self.rest.get_or_init(|| {
            Rest::new(
                &self.token,
                self.api_base.as_deref(),
                RetryPolicy::default(),
            )
            .map_err(|error| error.message().to_string())
        });
        rest.as_ref().map_err(|why| SendFailure::Unavailable {
            reason: why.clone(),
        })
    }
}

impl DiscordSender for LazySender {
    fn post_message<'a>(&'a self, store: &'a Store, message: &'a OutgoingMessage) -> Delivery<'a> {
        Box::pin(async move { DiscordSender::post_message(self.rest()?, store, message).await })
    }

    fn edit_message<'a>(&'a self, store: &'a Store, edit: &'a MessageEdit) -> Delivery<'a> {
        Box::pin(async move { DiscordSender::edit_message(self.rest()?, store, edit).await })
    }

    fn delete_message<'a>(&'a self, store: &'a Store, target: &'a MessageToDelete) -> Delivery<'a> {
        Box::pin(async move { DiscordSender::delete_message(self.rest()?, store, target).await })
    }

    fn react<'a>(&'a self, store: &'a Store, reaction: &'a BotReaction, add: bool) -> Delivery<'a> {
        Box::pin(async move { DiscordSender::react(self.rest()?, store, reaction, add).await })
    }
}
