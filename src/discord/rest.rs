//! Discord's REST API as the daemon uses it: serenity's routes and request building, our own
//! response handling.
//!
//! serenity 0.12 honours a base other than `https://discord.com` (`DISCORD_API_BASE`) only
//! with its rate limiter disabled, and then hands a 429 back as an error whose parsed body has
//! lost `retry_after`; with its rate limiter on, it retries a 429 forever; either way it never
//! retries a 5xx. So the rate limiter is always off (the tested path is the production path),
//! requests are built by serenity (`Request::build`, which applies the base) and executed here,
//! where the response is read in full: a 429 waits what Discord asks, a 5xx or a timeout is
//! retried with exponential backoff a bounded number of times, and a request that still fails
//! is reported as such for the caller to record as a gap.

use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serenity::http::{Http, HttpBuilder, LightMethod, Request, Route};
use serenity::model::channel::{Channel, GuildChannel, Message, ThreadsData};
use serenity::model::gateway::Gateway;
use serenity::model::id::{ChannelId, GuildId, MessageId};
use serenity::model::user::CurrentUser;
use tokio::sync::Mutex;
use tracing::{debug, warn};

use crate::business::outbox::{
    BotReaction, MessageEdit, MessageToDelete, OutgoingMessage, RETRY_AFTER_CEILING,
    SUPPRESS_EMBEDS, SendFailure, asked_wait,
};
use crate::config::Token;
use crate::error::{Error, ErrorKind, Result};
use crate::instant::Instant;
use crate::store::DiscordClockReading;

mod probe;
pub use probe::{ApplicationInfo, GuildSummary, RoleBits};

/// Discord's own REST base, used when `DISCORD_API_BASE` is not set.
pub const DISCORD_BASE: &str = "https://discord.com";

/// How requests are retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts at a request that fails with a 5xx or a timeout, the first included.
    pub attempts: u32,
    /// The wait before the second attempt; each later wait doubles, up to `max_backoff`.
    pub first_backoff: Duration,
    pub max_backoff: Duration,
    /// How many 429s in a row a request may meet before it is given up.
    pub rate_limited_attempts: u32,
    /// The longest wait Discord may ask for (a 429's `retry_after`, an empty bucket's reset)
    /// before a request is given up with the reason instead of waiting.
    pub longest_rate_limit_wait: Duration,
    /// How long one attempt may take.
    pub timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 5,
            first_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
            rate_limited_attempts: 10,
            longest_rate_limit_wait: Duration::from_secs(10 * 60),
            timeout: Duration::from_secs(30),
        }
    }
}

/// What one attempt came to, as far as retrying is concerned.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Attempt {
    /// 2xx.
    Success,
    /// 429: wait this long (Discord's `retry_after`), then try again.
    RateLimited(Duration),
    /// 5xx, a timeout, or the connection failed: worth another attempt.
    Transient(String),
    /// Anything else: retrying would not help.
    Refused(u16, String),
}

/// What to do after an attempt.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Next {
    Done,
    RetryAfter(Duration),
    GiveUp(String),
}

impl RetryPolicy {
    /// The decision after `attempt`, given how many transient failures and 429s came before
    /// (this one included).
    pub(crate) fn next(&self, attempt: &Attempt, transient: u32, limited: u32) -> Next {
        match attempt {
            Attempt::Success => Next::Done,
            Attempt::RateLimited(wait) => {
                if *wait > self.longest_rate_limit_wait {
                    Next::GiveUp(self.too_long_a_wait(*wait))
                } else if limited >= self.rate_limited_attempts {
                    Next::GiveUp(format!("rate limited {limited} times in a row"))
                } else {
                    Next::RetryAfter(*wait)
                }
            }
            Attempt::Transient(why) => {
                if transient >= self.attempts {
                    Next::GiveUp(format!("{why} ({transient} attempts)"))
                } else {
                    let doubled = self
                        .first_backoff
                        .saturating_mul(1 << (transient - 1).min(16));
                    Next::RetryAfter(doubled.min(self.max_backoff))
                }
            }
            Attempt::Refused(status, why) => Next::GiveUp(format!("{status}: {why}")),
        }
    }

    fn too_long_a_wait(&self, wait: Duration) -> String {
        format!(
            "Discord asked to wait {}, longer than the {} s a request waits",
            asked_wait(wait),
            self.longest_rate_limit_wait.as_secs()
        )
    }
}

/// Why a REST call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestError {
    /// 401: the token is wrong or was reset.
    Unauthorized,
    /// 403: the bot may not see this.
    Forbidden(String),
    /// 404.
    NotFound(String),
    /// Gave up after retries, or a refusal that is none of the above.
    Failed(String),
    /// The answer was not what Discord documents.
    Invalid(String),
}

impl RestError {
    pub fn describe(&self) -> String {
        match self {
            RestError::Unauthorized => "Discord rejected the bot token (401 Unauthorized)".into(),
            RestError::Forbidden(why) => format!("Discord refused access (403: {why})"),
            RestError::NotFound(what) => format!("Discord does not know {what} (404)"),
            RestError::Failed(why) => format!("Discord did not answer successfully: {why}"),
            RestError::Invalid(why) => format!("Discord answered something unexpected: {why}"),
        }
    }
}

impl From<RestError> for Error {
    fn from(error: RestError) -> Error {
        match error {
            RestError::Unauthorized => Error::new(
                ErrorKind::Discord,
                "Discord rejected the bot token (401 Unauthorized): check DISCORD_TOKEN",
            ),
            other => Error::new(ErrorKind::Discord, other.describe()),
        }
    }
}

/// The REST client: serenity's `Http` (for the gateway client) and our own execution.
pub struct Rest {
    http: Arc<Http>,
    client: reqwest::Client,
    base: Option<String>,
    policy: RetryPolicy,
    /// Not before this instant: Discord said the bucket is empty until then. Backfill is
    /// sequential, so one shared wait is enough and never too short.
    not_before: Mutex<Option<tokio::time::Instant>>,
    /// The newest reading of Discord's clock: the `Date` header of its latest answer.
    discord_clock: std::sync::Mutex<Option<DiscordClockReading>>,
}

impl Rest {
    pub fn new(token: &Token, api_base: Option<&str>, policy: RetryPolicy) -> Result<Rest> {
        let client = reqwest::Client::builder()
            .timeout(policy.timeout)
            .connect_timeout(policy.timeout.min(Duration::from_secs(10)))
            .use_rustls_tls()
            .build()
            .map_err(|error| Error::internal(format!("Cannot build the HTTP client: {error}")))?;
        let mut builder = HttpBuilder::new(token.expose())
            .client(client.clone())
            .ratelimiter_disabled(true);
        if let Some(base) = api_base {
            builder = builder.proxy(base);
        }
        Ok(Rest {
            http: Arc::new(builder.build()),
            client,
            base: api_base.map(str::to_string),
            policy,
            not_before: Mutex::new(None),
            discord_clock: std::sync::Mutex::new(None),
        })
    }

    /// A serenity `Http` configured the same way (token, API base, rate limiter off, this
    /// HTTP client), for serenity's gateway client, which takes one of its own.
    pub fn client_http(&self) -> Http {
        let mut builder = HttpBuilder::new(self.http.token())
            .client(self.client.clone())
            .ratelimiter_disabled(true);
        if let Some(base) = &self.base {
            builder = builder.proxy(base.as_str());
        }
        builder.build()
    }

    /// The REST base in use, for the logs.
    pub fn base(&self) -> &str {
        self.base.as_deref().unwrap_or(DISCORD_BASE)
    }

    /// The full URL of a route, for the logs (it never holds the token).
    pub fn url_of(&self, route: &Route<'_>) -> String {
        let path = route.path().to_string();
        match &self.base {
            Some(base) => path.replace(DISCORD_BASE, base.trim_end_matches('/')),
            None => path,
        }
    }

    async fn get<T: DeserializeOwned>(
        &self,
        route: Route<'_>,
        params: Vec<(&'static str, String)>,
    ) -> Result<T, RestError> {
        let what = self.url_of(&route);
        let mut transient = 0;
        let mut limited = 0;
        loop {
            let pending = *self.not_before.lock().await;
            if let Some(at) = pending {
                let wait = at.saturating_duration_since(tokio::time::Instant::now());
                if wait > self.policy.longest_rate_limit_wait {
                    let why = self.policy.too_long_a_wait(wait);
                    warn!(url = %what, "gave up on a Discord request: {why}");
                    return Err(RestError::Failed(format!("{what}: {why}")));
                }
                tokio::time::sleep_until(at).await;
            }
            let request = Request::new(route, LightMethod::Get)
                .params((!params.is_empty()).then(|| params.clone()))
                .build(&self.client, self.http.token(), self.base.as_deref())
                .map_err(|error| RestError::Invalid(format!("cannot build {what}: {error}")))?
                .build()
                .map_err(|error| RestError::Invalid(format!("cannot build {what}: {error}")))?;
            let (attempt, body) = match self.client.execute(request).await {
                Err(error) => {
                    let why = if error.is_timeout() {
                        "timed out".to_string()
                    } else {
                        format!("request failed: {}", without_url(&error))
                    };
                    (Attempt::Transient(why), None)
                }
                Ok(response) => {
                    let status = response.status().as_u16();
                    self.note_rate_limit(response.headers()).await;
                    self.note_discord_clock(response.headers());
                    let retry_header = header_seconds(response.headers(), "retry-after");
                    let body = response.bytes().await.ok();
                    let attempt = attempt_of(status, body.as_deref(), retry_header);
                    (attempt, body.map(|bytes| (status, bytes)))
                }
            };
            match &attempt {
                Attempt::RateLimited(_) => limited += 1,
                Attempt::Transient(_) => transient += 1,
                _ => {}
            }
            match self.policy.next(&attempt, transient, limited) {
                Next::Done => {
                    let (_, bytes) = body.unwrap_or_default();
                    return serde_json::from_slice(&bytes).map_err(|error| {
                        RestError::Invalid(format!(
                            "{what} answered JSON that does not parse: {error}"
                        ))
                    });
                }
                Next::RetryAfter(wait) => {
                    debug!(url = %what, ?attempt, ?wait, "retrying a Discord request");
                    tokio::time::sleep(wait).await;
                }
                Next::GiveUp(why) => {
                    return Err(match attempt {
                        Attempt::Refused(401, _) => RestError::Unauthorized,
                        Attempt::Refused(403, message) => RestError::Forbidden(message),
                        Attempt::Refused(404, _) => RestError::NotFound(what),
                        _ => {
                            warn!(url = %what, "gave up on a Discord request: {why}");
                            RestError::Failed(format!("{what}: {why}"))
                        }
                    });
                }
            }
        }
    }

    /// Remembers an empty bucket until it resets.
    async fn note_rate_limit(&self, headers: &reqwest::header::HeaderMap) {
        *self.not_before.lock().await =
            bucket_wait(headers).map(|wait| tokio::time::Instant::now() + wait);
    }

    /// Remembers Discord's clock as its answer's `Date` header gives it.
    fn note_discord_clock(&self, headers: &reqwest::header::HeaderMap) {
        let host_at = Instant::now();
        if let Some(discord_at) = headers
            .get(reqwest::header::DATE)
            .and_then(|value| value.to_str().ok())
            .and_then(http_date)
        {
            let reading = DiscordClockReading {
                discord_at,
                host_at,
            };
            *self
                .discord_clock
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(reading);
        }
    }

    /// Discord's clock beside the host's, as its latest answer showed it; None before any
    /// answer with a `Date` header.
    pub fn discord_clock(&self) -> Option<DiscordClockReading> {
        *self
            .discord_clock
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `GET /users/@me`: the bot itself (and a check that the token is accepted).
    pub async fn current_user(&self) -> Result<CurrentUser, RestError> {
        self.get(Route::UserMe, Vec::new()).await
    }

    /// `GET /oauth2/applications/@me`: who owns the bot's application (a team's owner for a
    /// team application). Only the owner is read, so the rest of the object may change freely.
    pub async fn application_owner(&self) -> Result<Option<String>, RestError> {
        #[derive(serde::Deserialize)]
        struct Owner {
            id: String,
        }
        #[derive(serde::Deserialize)]
        struct Team {
            owner_user_id: String,
        }
        #[derive(serde::Deserialize)]
        struct Application {
            owner: Option<Owner>,
            team: Option<Team>,
        }
        let application: Application = self
            .get(Route::Oauth2ApplicationCurrent, Vec::new())
            .await?;
        Ok(application
            .team
            .map(|team| team.owner_user_id)
            .or(application.owner.map(|owner| owner.id)))
    }

    /// `GET /gateway`: the URL of the gateway to connect to.
    pub async fn gateway_url(&self) -> Result<String, RestError> {
        Ok(self.get::<Gateway>(Route::Gateway, Vec::new()).await?.url)
    }

    /// `GET /guilds/{id}/channels`: a guild's channels, each with its `last_message_id`.
    pub async fn guild_channels(&self, guild_id: GuildId) -> Result<Vec<GuildChannel>, RestError> {
        self.get(Route::GuildChannels { guild_id }, Vec::new())
            .await
    }

    /// `GET /guilds/{id}/threads/active`: a guild's active threads.
    pub async fn active_threads(&self, guild_id: GuildId) -> Result<ThreadsData, RestError> {
        self.get(Route::GuildThreadsActive { guild_id }, Vec::new())
            .await
    }

    /// `GET /channels/{id}/threads/archived/{public|private}?before=&limit=100`: one page of a
    /// channel's archived threads, most recently archived first; the next page is before the
    /// last one's `archive_timestamp`. Private ones need Manage Threads (else 403).
    pub async fn archived_threads(
        &self,
        channel_id: ChannelId,
        private: bool,
        before: Option<&str>,
    ) -> Result<ThreadsData, RestError> {
        let route = if private {
            Route::ChannelArchivedPrivateThreads { channel_id }
        } else {
            Route::ChannelArchivedPublicThreads { channel_id }
        };
        let mut params = vec![("limit", "100".to_string())];
        if let Some(before) = before {
            params.push(("before", before.to_string()));
        }
        self.get(route, params).await
    }

    /// `GET /channels/{id}`: one channel (a direct-message channel, for its `last_message_id`).
    pub async fn channel(&self, channel_id: ChannelId) -> Result<Channel, RestError> {
        self.get(Route::Channel { channel_id }, Vec::new()).await
    }

    /// `POST /channels/{id}/messages`: one attempt at posting `message`, with its nonce and
    /// `enforce_nonce` (so a repeat of an attempt that did reach Discord answers the message it
    /// created), and for a reply a `message_reference` that fails if the message is gone.
    /// No retry here: the business layer retries, with the same nonce. Discord's shared bucket
    /// wait is not applied either: it belongs to backfill's route, not to this one.
    pub async fn post_message(
        &self,
        message: &OutgoingMessage,
    ) -> std::result::Result<serde_json::Value, SendFailure> {
        let channel_id = ChannelId::new(snowflake(&message.channel_id, "channel")?);
        let route = Route::ChannelMessages { channel_id };
        let (status, body, retry) = self
            .attempt(route, LightMethod::Post, Some(message_body(message)))
            .await?;
        posting_outcome(status, &body, retry)
    }

    /// `PATCH /channels/{c}/messages/{m}`: one attempt at replacing a message's content, with
    /// the same mention rules as a post. Answers the message as edited.
    pub async fn edit_message(
        &self,
        edit: &MessageEdit,
    ) -> std::result::Result<serde_json::Value, SendFailure> {
        let route = Route::ChannelMessage {
            channel_id: ChannelId::new(snowflake(&edit.channel_id, "channel")?),
            message_id: MessageId::new(snowflake(&edit.message_id, "message")?),
        };
        let body = serde_json::json!({
            "content": edit.content,
            "allowed_mentions": {"parse": ["users", "roles"], "replied_user": false},
        });
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
            channel_id: ChannelId::new(snowflake(&target.channel_id, "channel")?),
            message_id: MessageId::new(snowflake(&target.message_id, "message")?),
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
            channel_id: ChannelId::new(snowflake(&reaction.channel_id, "channel")?),
            message_id: MessageId::new(snowflake(&reaction.message_id, "message")?),
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

    /// `GET /channels/{id}/messages?after=&limit=`: up to `limit` messages right after
    /// `after`. Discord answers newest first even with `after`.
    pub async fn messages_after(
        &self,
        channel_id: ChannelId,
        after: MessageId,
        limit: u8,
    ) -> Result<Vec<Message>, RestError> {
        self.get(
            Route::ChannelMessages { channel_id },
            vec![("limit", limit.to_string()), ("after", after.to_string())],
        )
        .await
    }

    /// `GET /channels/{id}/messages?before=&limit=`: up to `limit` messages right before
    /// `before`, newest first.
    pub async fn messages_before(
        &self,
        channel_id: ChannelId,
        before: MessageId,
        limit: u8,
    ) -> Result<Vec<Message>, RestError> {
        self.get(
            Route::ChannelMessages { channel_id },
            vec![("limit", limit.to_string()), ("before", before.to_string())],
        )
        .await
    }
}

/// An HTTP date (`Tue, 01 Dec 2026 07:22:43 GMT`, RFC 9110's preferred form) as an instant.
fn http_date(text: &str) -> Option<Instant> {
    let format = time::macros::format_description!(
        "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
    );
    let parsed = time::PrimitiveDateTime::parse(text.trim(), format).ok()?;
    let micros = parsed.assume_utc().unix_timestamp_nanos() / 1_000;
    Some(Instant::from_micros(i64::try_from(micros).ok()?))
}

/// A reqwest error's words without its URL (the URL is logged separately).
fn without_url(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    if let Some(url) = error.url() {
        text = text.replace(url.as_str(), "");
    }
    text.trim().trim_end_matches("()").trim().to_string()
}

/// How long to wait before the next request when Discord says the bucket is empty
/// (`X-RateLimit-Remaining: 0` with `X-RateLimit-Reset-After`); None when it is not.
fn bucket_wait(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let remaining = headers
        .get("x-ratelimit-remaining")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    match remaining {
        Some(0) => header_seconds(headers, "x-ratelimit-reset-after"),
        _ => None,
    }
}

fn header_seconds(headers: &reqwest::header::HeaderMap, name: &str) -> Option<Duration> {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<f64>().ok())
        .and_then(wait_of_seconds)
}

/// Discord's 429 body: `{"message": "...", "retry_after": 1.5, "global": false}`.
fn retry_after_in_body(body: &[u8]) -> Option<Duration> {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()?
        .get("retry_after")?
        .as_f64()
        .and_then(wait_of_seconds)
}

/// Seconds from one of Discord's answers as a wait; None when they are not a wait at all
/// (negative, NaN, infinite).
fn wait_of_seconds(seconds: f64) -> Option<Duration> {
    (seconds.is_finite() && seconds >= 0.0)
        .then(|| Duration::from_secs_f64(seconds.min(RETRY_AFTER_CEILING.as_secs_f64())))
}

/// The JSON body of `POST /channels/{id}/messages`. Mentions are limited to the people and
/// roles written in the content, with no `@everyone` or `@here` ping: the owner's assistant
/// never pings the whole server by accident. A reply does not ping its author either.
fn message_body(message: &OutgoingMessage) -> serde_json::Value {
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

/// A Discord id of the business layer's request as a number; a refusal if it is none (the
/// business layer only hands over ids from the store, so this never reaches Discord).
fn snowflake(text: &str, what: &str) -> std::result::Result<u64, SendFailure> {
    text.parse::<u64>()
        .ok()
        .filter(|id| *id != 0)
        .ok_or_else(|| SendFailure::Refused {
            status: 400,
            code: None,
            message: format!("{text:?} is not a {what} id"),
        })
}

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
fn posting_outcome(
    status: u16,
    body: &[u8],
    retry_header: Option<Duration>,
) -> std::result::Result<serde_json::Value, SendFailure> {
    match attempt_of(status, Some(body), retry_header) {
        Attempt::Success => serde_json::from_slice::<serde_json::Value>(body)
            .ok()
            .filter(|answer| answer.get("id").and_then(|id| id.as_str()).is_some())
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

/// What an answer's status means for retrying, the same for every route: 2xx done; 429 wait
/// Discord's `retry_after` (the body's, else the `Retry-After` header's, else a second); 5xx
/// worth another attempt; anything else refused, with Discord's message.
fn attempt_of(status: u16, body: Option<&[u8]>, retry_header: Option<Duration>) -> Attempt {
    match status {
        200..=299 => Attempt::Success,
        429 => Attempt::RateLimited(
            body.and_then(retry_after_in_body)
                .or(retry_header)
                .unwrap_or(Duration::from_secs(1)),
        ),
        500..=599 => Attempt::Transient(format!("HTTP {status}")),
        _ => Attempt::Refused(status, discord_message(body)),
    }
}

/// Discord's error body: `{"message": "Missing Access", "code": 50001}`.
fn discord_message(body: Option<&[u8]>) -> String {
    body.and_then(|body| serde_json::from_slice::<serde_json::Value>(body).ok())
        .and_then(|value| value.get("message")?.as_str().map(str::to_string))
        .unwrap_or_else(|| "no message".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> RetryPolicy {
        RetryPolicy {
            attempts: 4,
            first_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(3),
            rate_limited_attempts: 2,
            longest_rate_limit_wait: Duration::from_secs(600),
            timeout: Duration::from_secs(30),
        }
    }

    #[test]
    fn a_wait_past_any_ceiling_is_clamped_and_then_refused_with_the_reason() {
        for body in [
            &br#"{"message":"You are being rate limited.","retry_after":1e20,"global":false}"#[..],
            br#"{"retry_after":1e308}"#,
            br#"{"retry_after":3600.5}"#,
        ] {
            let attempt = attempt_of(429, Some(body), None);
            assert_eq!(attempt, Attempt::RateLimited(RETRY_AFTER_CEILING));
            assert_eq!(
                policy().next(&attempt, 0, 1),
                Next::GiveUp(
                    "Discord asked to wait an hour or more, longer than the 600 s a request waits"
                        .into()
                )
            );
        }
        let headers = headers(&[("retry-after", "1e20"), ("x-ratelimit-reset-after", "1e20")]);
        assert_eq!(
            header_seconds(&headers, "retry-after"),
            Some(RETRY_AFTER_CEILING)
        );
        // Both sides of the longest wait: 600 s is waited, 601 s is refused.
        assert_eq!(
            policy().next(&Attempt::RateLimited(Duration::from_secs(600)), 0, 1),
            Next::RetryAfter(Duration::from_secs(600))
        );
        assert_eq!(
            policy().next(&Attempt::RateLimited(Duration::from_secs(601)), 0, 1),
            Next::GiveUp(
                "Discord asked to wait 601 s, longer than the 600 s a request waits".into()
            )
        );
        // A post rate limited past the ceiling fails with the reason instead of panicking.
        assert_eq!(
            posting_outcome(429, br#"{"retry_after":1e20}"#, None),
            Err(SendFailure::RateLimited {
                retry_after: RETRY_AFTER_CEILING
            })
        );
    }

    #[test]
    fn an_http_date_is_read_to_the_second_and_anything_else_is_not_a_date() {
        assert_eq!(
            http_date("Tue, 01 Dec 2026 07:22:43 GMT"),
            Instant::parse("2026-12-01T07:22:43Z")
        );
        assert_eq!(
            http_date("Sun, 06 Nov 1994 08:49:37 GMT"),
            Instant::parse("1994-11-06T08:49:37Z")
        );
        assert_eq!(http_date("2026-12-01T07:22:43Z"), None);
        assert_eq!(http_date("Tue, 01 Dec 2026 07:22:43 PST"), None);
        assert_eq!(http_date(""), None);
    }

    #[test]
    fn transient_failures_back_off_exponentially_up_to_the_cap_then_give_up() {
        let failed = Attempt::Transient("HTTP 503".into());
        let policy = policy();
        assert_eq!(
            policy.next(&failed, 1, 0),
            Next::RetryAfter(Duration::from_millis(500))
        );
        assert_eq!(
            policy.next(&failed, 2, 0),
            Next::RetryAfter(Duration::from_millis(1000))
        );
        assert_eq!(
            policy.next(&failed, 3, 0),
            Next::RetryAfter(Duration::from_millis(2000))
        );
        assert_eq!(
            policy.next(&failed, 4, 0),
            Next::GiveUp("HTTP 503 (4 attempts)".into())
        );
        let capped = RetryPolicy {
            attempts: 10,
            ..policy
        };
        assert_eq!(
            capped.next(&failed, 4, 0),
            Next::RetryAfter(Duration::from_secs(3))
        );
    }

    #[test]
    fn a_timeout_is_retried_like_a_5xx() {
        assert_eq!(
            policy().next(&Attempt::Transient("timed out".into()), 1, 0),
            Next::RetryAfter(Duration::from_millis(500))
        );
    }

    #[test]
    fn a_429_waits_what_discord_asks_a_bounded_number_of_times() {
        let limited = Attempt::RateLimited(Duration::from_millis(1250));
        assert_eq!(
            policy().next(&limited, 0, 1),
            Next::RetryAfter(Duration::from_millis(1250))
        );
        assert_eq!(
            policy().next(&limited, 0, 2),
            Next::GiveUp("rate limited 2 times in a row".into())
        );
    }

    #[test]
    fn a_refusal_is_not_retried() {
        assert_eq!(
            policy().next(&Attempt::Refused(403, "Missing Access".into()), 0, 0),
            Next::GiveUp("403: Missing Access".into())
        );
    }

    fn headers(pairs: &[(&'static str, &str)]) -> reqwest::header::HeaderMap {
        let mut map = reqwest::header::HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().unwrap());
        }
        map
    }

    #[test]
    fn an_empty_bucket_waits_until_it_resets_and_only_then() {
        assert_eq!(
            bucket_wait(&headers(&[
                ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-reset-after", "1.25")
            ])),
            Some(Duration::from_millis(1250))
        );
        assert_eq!(
            bucket_wait(&headers(&[
                ("x-ratelimit-remaining", "1"),
                ("x-ratelimit-reset-after", "1.25")
            ])),
            None
        );
        assert_eq!(bucket_wait(&headers(&[])), None);
    }

    #[test]
    fn a_created_message_is_the_answer_and_every_failure_has_its_kind() {
        let created = br#"{"id":"1500000000000000001","content":"hi"}"#;
        assert_eq!(
            posting_outcome(200, created, None),
            Ok(serde_json::json!({"id": "1500000000000000001", "content": "hi"}))
        );
        // A 2xx without the message: it may exist, so it is retried (with the same nonce).
        assert_eq!(
            posting_outcome(200, b"<html>", None),
            Err(SendFailure::Unavailable {
                reason: "Discord answered 200 without the message it created".into()
            })
        );
        assert_eq!(
            posting_outcome(
                429,
                br#"{"message":"You are being rate limited.","retry_after":2.5,"global":false}"#,
                Some(Duration::from_secs(3))
            ),
            Err(SendFailure::RateLimited {
                retry_after: Duration::from_millis(2500)
            })
        );
        // Without a body, the Retry-After header; without either, a second.
        assert_eq!(
            posting_outcome(429, b"", Some(Duration::from_secs(3))),
            Err(SendFailure::RateLimited {
                retry_after: Duration::from_secs(3)
            })
        );
        assert_eq!(
            posting_outcome(429, b"", None),
            Err(SendFailure::RateLimited {
                retry_after: Duration::from_secs(1)
            })
        );
        assert_eq!(
            posting_outcome(
                403,
                br#"{"message":"Missing Permissions","code":50013}"#,
                None
            ),
            Err(SendFailure::Refused {
                status: 403,
                code: Some(50013),
                message: "Missing Permissions".into()
            })
        );
        assert_eq!(
            posting_outcome(404, b"", None),
            Err(SendFailure::Refused {
                status: 404,
                code: None,
                message: "no message".into()
            })
        );
        assert_eq!(
            posting_outcome(502, b"bad gateway", None),
            Err(SendFailure::Unavailable {
                reason: "HTTP 502".into()
            })
        );
    }

    #[test]
    fn a_post_carries_its_nonce_and_a_reply_fails_rather_than_lose_its_reference() {
        let mut message = OutgoingMessage {
            channel_id: "1400000000000000001".into(),
            content: "ship it".into(),
            reply_to_message_id: None,
            nonce: "abc123".into(),
            suppress_embeds: false,
        };
        assert_eq!(
            message_body(&message),
            serde_json::json!({
                "content": "ship it", "nonce": "abc123", "enforce_nonce": true,
                "allowed_mentions": {"parse": ["users", "roles"], "replied_user": false},
            })
        );
        message.suppress_embeds = true;
        assert_eq!(message_body(&message)["flags"], serde_json::json!(4));
        message.reply_to_message_id = Some("1500000000000000009".into());
        assert_eq!(
            message_body(&message)["message_reference"],
            serde_json::json!({"message_id": "1500000000000000009", "fail_if_not_exists": true})
        );
    }

    #[test]
    fn reads_retry_after_from_discords_429_body() {
        assert_eq!(
            retry_after_in_body(
                br#"{"message":"You are being rate limited.","retry_after":0.75,"global":false}"#
            ),
            Some(Duration::from_millis(750))
        );
        assert_eq!(retry_after_in_body(b"not json"), None);
    }
}
