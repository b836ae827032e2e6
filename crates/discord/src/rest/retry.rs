//! The retry loop of the daemon's reads: what one answer means for retrying (2xx done, 429 wait
//! what Discord asks, 5xx or a timeout worth another attempt, anything else refused), the
//! policy that decides the next step, and the loop that follows it.
//!
//! A 429 waits what Discord asks (its body's `retry_after`, else the `Retry-After` header);
//! an empty bucket (`X-RateLimit-Remaining: 0`) holds every read until it resets; a 5xx or a
//! timeout is retried with the shared exponential [`Backoff`] a bounded number of times; a
//! request that still fails is reported for the caller to record as a gap. The bot's own
//! actions make one attempt each (`post.rs`) and leave retrying to the business layer, which
//! retries with the same nonce.

use std::time::Duration;

use discord_manager_core::backoff::Backoff;
use discord_manager_core::business::kernel::outbox::{RETRY_AFTER_CEILING, asked_wait};
use serde::de::DeserializeOwned;
use serenity::http::{LightMethod, Request, Route};
use tracing::{debug, warn};

use super::{Rest, RestError};

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
                    Next::RetryAfter(self.backoff().after(transient))
                }
            }
            Attempt::Refused(status, why) => Next::GiveUp(format!("{status}: {why}")),
        }
    }

    /// Our own wait after transient failures: doubling from `first_backoff`, held at
    /// `max_backoff`.
    fn backoff(&self) -> Backoff {
        Backoff {
            first: self.first_backoff,
            longest: self.max_backoff,
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

impl Rest {
    /// `GET route?params`, retried by the policy: the answer parsed, or why there is none (a
    /// 401, 403 or 404 as such; anything else given up with its reason, logged).
    pub(super) async fn get<T: DeserializeOwned>(
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
}

/// A reqwest error's words without its URL (the URL is logged separately).
pub(super) fn without_url(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    if let Some(url) = error.url() {
        text = text.replace(url.as_str(), "");
    }
    text.trim().trim_end_matches("()").trim().to_string()
}

/// How long to wait before the next request when Discord says the bucket is empty
/// (`X-RateLimit-Remaining: 0` with `X-RateLimit-Reset-After`); None when it is not.
pub(super) fn bucket_wait(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let remaining = headers
        .get("x-ratelimit-remaining")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    match remaining {
        Some(0) => header_seconds(headers, "x-ratelimit-reset-after"),
        _ => None,
    }
}

pub(super) fn header_seconds(headers: &reqwest::header::HeaderMap, name: &str) -> Option<Duration> {
    headers
        .get(name)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<f64>().ok())
        .and_then(wait_of_seconds)
}

/// Discord's 429 body: `{"message": "...", "retry_after": 1.5, "global": false}`.
pub(super) fn retry_after_in_body(body: &[u8]) -> Option<Duration> {
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

/// What an answer's status means for retrying, the same for every route: 2xx done; 429 wait
/// Discord's `retry_after` (the body's, else the `Retry-After` header's, else a second); 5xx
/// worth another attempt; anything else refused, with Discord's message.
pub(super) fn attempt_of(
    status: u16,
    body: Option<&[u8]>,
    retry_header: Option<Duration>,
) -> Attempt {
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
