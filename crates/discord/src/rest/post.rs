//! One attempt at each of the bot's own actions: post, edit, delete, react. Each request is
//! built by serenity (its route, the API base) and read here in full; its answer becomes the
//! created message or the `SendFailure` the business layer's retry policy decides on.
//!
//! Nothing here retries: the business layer does, with the same nonce (`enforce_nonce`), so an
//! attempt that did reach Discord is answered with the message it created rather than a second
//! one. Discord's shared bucket wait is not applied either: it belongs to backfill's route.

use std::time::Duration;

use discord_manager_sender::{
    BotReaction, MessageEdit, MessageToDelete, OutgoingMessage, SUPPRESS_EMBEDS, SendFailure,
};
use discord_manager_vocabulary::snowflake::is_discord_id;
use serenity::http::{LightMethod, Request, Route};
use serenity::model::id::{ChannelId, MessageId};

use super::Rest;
use super::retry::{Attempt, attempt_of, header_seconds, without_url};

impl Rest {
    /// `POST /channels/{id}/messages`: one attempt at posting `message`, with its nonce and
    /// `enforce_nonce` (so a repeat of an attempt that did reach Discord answers the message it
    /// created), and for a reply a `message_reference` that fails if the message is gone.
    /// No retry here: the business layer retries, with the same nonce. Discord's shared bucket
    /// wait is not applied either: it belongs to backfill's route, not to this one.
    pub async fn post_message(
        &self,
        message: &OutgoingMessage,
    ) -> std::result::Result<serde_json::Value, SendFailure> {
        let channel_id = ChannelId::new(message.channel_id.get());
        let route = Route::ChannelMessages { channel_id };
        let (status, body, retry) = self
            .attempt(route, LightMethod::Post, Some(message_body(message)))
            .await?;
        posting_outcome(status, &body, retry)
    }

    /// `PATCH /channels/{c}/messages/{m}`: one attempt at replacing a message's content, with
    /// the same mention rules as a post, and SUPPRESS_EMBEDS set when asked (the one flag an
    /// edit may set, by Discord's API). Answers the message as edited.
    pub async fn edit_message(
        &self,
        edit: &MessageEdit,
    ) -> std::result::Result<serde_json::Value, SendFailure> {
        let route = Route::ChannelMessage {
            channel_id: ChannelId::new(edit.channel_id.get()),
            message_id: MessageId::new(edit.message_id.get()),
        };
        let mut body = serde_json::json!({
            "content": edit.content,
            "allowed_mentions": {"parse": ["users", "roles"], "replied_user": false},
        });
        if edit.suppress_embeds {
            body["flags"] = serde_json::json!(SUPPRESS_EMBEDS);
        }
        let (status, body, retry) = self.attempt(route, LightMethod::Patch, Some(body)).await?;
        posting_outcome(status, &body, retry)
    }

    /// `DELETE /channels/{c}/messages/{m}`: one attempt. A message Discord does not know (404,
    /// code 10008 Unknown Message) is already deleted, which is what was asked: done.
    pub async fn delete_message(
        &self,
        target: &MessageToDelete,
    ) -> std::result::Result<(), SendFailure> {
        let route = Route::ChannelMessage {
            channel_id: ChannelId::new(target.channel_id.get()),
            message_id: MessageId::new(target.message_id.get()),
        };
        let (status, body, retry) = self.attempt(route, LightMethod::Delete, None).await?;
        match action_outcome(status, &body, retry) {
            Err(SendFailure::Refused {
                status: 404,
                code: Some(UNKNOWN_MESSAGE),
                ..
            }) => Ok(()),
            outcome => outcome,
        }
    }

    /// `PUT` (`add`) or `DELETE` `/channels/{c}/messages/{m}/reactions/{emoji}/@me`: one
    /// attempt at the bot's own reaction.
    pub async fn react(
        &self,
        reaction: &BotReaction,
        add: bool,
    ) -> std::result::Result<(), SendFailure> {
        let emoji = reaction.emoji.route_text();
        let route = Route::ChannelMessageReactionMe {
            channel_id: ChannelId::new(reaction.channel_id.get()),
            message_id: MessageId::new(reaction.message_id.get()),
            reaction: &emoji,
        };
        let method = if add {
            LightMethod::Put
        } else {
            LightMethod::Delete
        };
        let (status, body, retry) = self.attempt(route, method, None).await?;
        action_outcome(status, &body, retry)
    }

    /// One request of the bot's own actions, built by serenity and read here in full: the
    /// answer's status, body and `Retry-After`; a timeout or a lost connection is a failure
    /// worth another attempt.
    async fn attempt(
        &self,
        route: Route<'_>,
        method: LightMethod,
        body: Option<serde_json::Value>,
    ) -> std::result::Result<(u16, Vec<u8>, Option<Duration>), SendFailure> {
        let request = Request::new(route, method)
            .body(body.map(|body| body.to_string().into_bytes()))
            .build(&self.client, self.http.token(), self.base.as_deref())
            .map_err(|error| error.to_string())
            .and_then(|builder| builder.build().map_err(|error| without_url(&error)))
            .map_err(|why| SendFailure::Refused {
                status: 400,
                code: None,
                message: format!("the request cannot be built: {why}"),
            })?;
        let response = match self.client.execute(request).await {
            Ok(response) => response,
            Err(error) if error.is_timeout() => {
                return Err(SendFailure::Unavailable {
                    reason: "the request timed out".into(),
                });
            }
            Err(error) => {
                return Err(SendFailure::Unavailable {
                    reason: format!("the request failed: {}", without_url(&error)),
                });
            }
        };
        let status = response.status().as_u16();
        let retry_header = header_seconds(response.headers(), "retry-after");
        match response.bytes().await {
            Ok(body) => Ok((status, body.to_vec(), retry_header)),
            Err(error) => Err(SendFailure::Unavailable {
                reason: format!("the answer was cut short: {}", without_url(&error)),
            }),
        }
    }
}

/// The JSON body of `POST /channels/{id}/messages`. Mentions are limited to the people and
/// roles written in the content, with no `@everyone` or `@here` ping: the owner's assistant
/// never pings the whole server by accident. A reply does not ping its author either.
pub(super) fn message_body(message: &OutgoingMessage) -> serde_json::Value {
    let mut body = serde_json::json!({
        "content": message.content,
        "nonce": message.nonce,
        "enforce_nonce": true,
        "allowed_mentions": {"parse": ["users", "roles"], "replied_user": false},
    });
    if message.suppress_embeds {
        body["flags"] = serde_json::json!(SUPPRESS_EMBEDS);
    }
    if let Some(reply_to) = &message.reply_to_message_id {
        body["message_reference"] = serde_json::json!({
            "message_id": reply_to,
            "fail_if_not_exists": true,
        });
    }
    body
}

/// Discord's code for a message it does not know.
const UNKNOWN_MESSAGE: u64 = 10008;

/// What Discord's answer to an action without a result (a deletion, a reaction: `204 No
/// Content`) means: done, or why not.
fn action_outcome(
    status: u16,
    body: &[u8],
    retry_header: Option<Duration>,
) -> std::result::Result<(), SendFailure> {
    match attempt_of(status, Some(body), retry_header) {
        Attempt::Success => Ok(()),
        Attempt::RateLimited(retry_after) => Err(SendFailure::RateLimited { retry_after }),
        Attempt::Transient(reason) => Err(SendFailure::Unavailable { reason }),
        Attempt::Refused(status, message) => Err(SendFailure::Refused {
            status,
            code: error_code(body),
            message,
        }),
    }
}

/// The `code` of Discord's JSON error body.
fn error_code(body: &[u8]) -> Option<u64> {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|error| error.get("code")?.as_u64())
}

/// What Discord's answer to one post means: the created message, or why there is none.
pub(super) fn posting_outcome(
    status: u16,
    body: &[u8],
    retry_header: Option<Duration>,
) -> std::result::Result<serde_json::Value, SendFailure> {
    match attempt_of(status, Some(body), retry_header) {
        Attempt::Success => serde_json::from_slice::<serde_json::Value>(body)
            .ok()
            .filter(|answer| {
                answer
                    .get("id")
                    .and_then(|id| id.as_str())
                    .is_some_and(is_discord_id)
            })
            // Created, most likely, but unreadable: a retry with the same nonce answers it.
            .ok_or_else(|| SendFailure::Unavailable {
                reason: format!("Discord answered {status} without the message it created"),
            }),
        Attempt::RateLimited(retry_after) => Err(SendFailure::RateLimited { retry_after }),
        Attempt::Transient(reason) => Err(SendFailure::Unavailable { reason }),
        Attempt::Refused(status, message) => Err(SendFailure::Refused {
            status,
            code: error_code(body),
            message,
        }),
    }
}
