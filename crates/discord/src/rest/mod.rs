//! Discord's REST API as the daemon uses it: serenity's routes and request building, our own
//! response handling. This module is the client and its reads; `retry.rs` is the retry loop the
//! reads go through, `post.rs` one attempt at each of the bot's actions, `probe.rs` what
//! `setup` and `doctor` ask about the bot.
//!
//! serenity 0.12 honours a base other than `https://discord.com` (`DISCORD_API_BASE`) only
//! with its rate limiter disabled, and then hands a 429 back as an error whose parsed body has
//! lost `retry_after`; with its rate limiter on, it retries a 429 forever; either way it never
//! retries a 5xx. So the rate limiter is always off (the tested path is the production path),
//! requests are built by serenity (`Request::build`, which applies the base) and executed here,
//! where the response is read in full: a 429 waits what Discord asks, a 5xx or a timeout is
//! retried with exponential backoff a bounded number of times, and a request that still fails
//! is reported as such for the caller to record as a gap.

use discord_manager_vocabulary::snowflake;
use std::sync::Arc;
use std::time::Duration;

use discord_manager_core::config::Token;
use discord_manager_ingest::history::FetchedMessage;
use discord_manager_store::DiscordClockReading;
use discord_manager_vocabulary::error::{Error, ErrorKind, Result};
use discord_manager_vocabulary::instant::Instant;
use serenity::http::{Http, HttpBuilder, Route};
use serenity::model::channel::{Channel, GuildChannel, Message, ThreadsData};
use serenity::model::gateway::Gateway;
use serenity::model::id::{ChannelId, GuildId, MessageId};
use serenity::model::user::CurrentUser;
use tokio::sync::Mutex;

mod post;
mod probe;
mod retry;
pub use probe::{ApplicationInfo, GuildSummary, RoleBits};
pub use retry::RetryPolicy;

/// Discord's own REST base, used when `DISCORD_API_BASE` is not set.
pub const DISCORD_BASE: &str = "https://discord.com";

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
            .map_err(|error| Error::internal("Cannot build the HTTP client").with_source(error))?;
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
    pub async fn application_owner(&self) -> Result<Option<snowflake::UserId>, RestError> {
        #[derive(serde::Deserialize)]
        struct Owner {
            id: snowflake::UserId,
        }
        #[derive(serde::Deserialize)]
        struct Team {
            owner_user_id: snowflake::UserId,
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

    /// `GET /channels/{id}/messages/{id}`: one message as Discord has it now, its attachments
    /// with freshly signed URLs; `NotFound` once it is deleted.
    pub async fn message(
        &self,
        channel_id: ChannelId,
        message_id: MessageId,
    ) -> Result<Message, RestError> {
        self.get(
            Route::ChannelMessage {
                channel_id,
                message_id,
            },
            Vec::new(),
        )
        .await
    }

    /// `GET /channels/{id}/messages?after=&limit=`: up to `limit` messages right after
    /// `after`, each with its JSON as Discord sent it. Discord answers newest first even with
    /// `after`.
    pub async fn messages_after(
        &self,
        channel_id: ChannelId,
        after: MessageId,
        limit: u8,
    ) -> Result<Vec<FetchedMessage>, RestError> {
        let page = self
            .get(
                Route::ChannelMessages { channel_id },
                vec![("limit", limit.to_string()), ("after", after.to_string())],
            )
            .await?;
        self.fetched(Route::ChannelMessages { channel_id }, page)
    }

    /// `GET /channels/{id}/messages?before=&limit=`: up to `limit` messages right before
    /// `before`, newest first, each with its JSON as Discord sent it.
    pub async fn messages_before(
        &self,
        channel_id: ChannelId,
        before: MessageId,
        limit: u8,
    ) -> Result<Vec<FetchedMessage>, RestError> {
        let page = self
            .get(
                Route::ChannelMessages { channel_id },
                vec![("limit", limit.to_string()), ("before", before.to_string())],
            )
            .await?;
        self.fetched(Route::ChannelMessages { channel_id }, page)
    }

    /// A page of message objects read by serenity, each kept beside its JSON.
    fn fetched(
        &self,
        route: Route<'_>,
        page: Vec<serde_json::Value>,
    ) -> Result<Vec<FetchedMessage>, RestError> {
        page.into_iter()
            .map(|payload| {
                FetchedMessage::from_payload(payload).map_err(|error| {
                    RestError::Invalid(format!(
                        "{} answered a message that does not parse: {error}",
                        self.url_of(&route)
                    ))
                })
            })
            .collect()
    }
}

/// An HTTP date (`Tue, 01 Dec 2026 07:22:43 GMT`, RFC 9110's preferred form, `IMF-fixdate`)
/// as an instant: its day name, then the date and time written again as RFC 3339 for
/// [`Instant::parse`], which checks each field.
fn http_date(text: &str) -> Option<Instant> {
    const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let rest = text.trim().strip_suffix(" GMT")?;
    let (day_name, rest) = rest.split_once(", ")?;
    let mut parts = rest.split(' ');
    let (day, month, year, time) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let month = MONTHS.iter().position(|name| *name == month)? + 1;
    let well_formed = DAYS.contains(&day_name)
        && parts.next().is_none()
        && day.len() == 2
        && year.len() == 4
        && time.len() == 8;
    well_formed.then_some(())?;
    Instant::parse(&format!("{year}-{month:02}-{day}T{time}Z"))
}

#[cfg(test)]
mod tests;
