//! The Discord side of the business layer's sending port ([`DiscordSender`]): posts go out
//! through [`Rest::post_message`], one attempt each (the business layer retries, with the same
//! nonce).
//!
//! The CLI and the MCP server get a [`LazySender`]: most of their commands never send, so the
//! HTTP client (and its TLS set-up) is built on the first post, not at every start.

use std::sync::OnceLock;

use super::rest::{Rest, RetryPolicy};
use crate::business::outbox::{DiscordSender, OutgoingMessage, Posting, SendFailure};
use crate::config::Token;

impl DiscordSender for Rest {
    fn post_message<'a>(&'a self, message: &'a OutgoingMessage) -> Posting<'a> {
        Box::pin(Rest::post_message(self, message))
    }
}

/// A [`Rest`] client built when the first message is posted.
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
}

impl DiscordSender for LazySender {
    fn post_message<'a>(&'a self, message: &'a OutgoingMessage) -> Posting<'a> {
        Box::pin(async move {
            let rest = self.rest.get_or_init(|| {
                Rest::new(
                    &self.token,
                    self.api_base.as_deref(),
                    RetryPolicy::default(),
                )
                .map_err(|error| error.message().to_string())
            });
            match rest {
                Ok(rest) => rest.post_message(message).await,
                Err(why) => Err(SendFailure::Unavailable {
                    reason: why.clone(),
                }),
            }
        })
    }
}
