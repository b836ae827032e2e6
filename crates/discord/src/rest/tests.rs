//! Unit tests of `rest`: the retry policy, what an answer means, and the body of a post.

use std::time::Duration;

use discord_manager_core::business::kernel::outbox::RETRY_AFTER_CEILING;
use discord_manager_sender::{OutgoingMessage, SendFailure};
use discord_manager_vocabulary::instant::Instant;

use super::http_date;
use super::post::{message_body, posting_outcome};
use super::retry::{
    Attempt, Next, RetryPolicy, attempt_of, bucket_wait, header_seconds, retry_after_in_body,
};

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
        Next::GiveUp("Discord asked to wait 601 s, longer than the 600 s a request waits".into())
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
    for refused in [
        "Tue, 01 Dec 2026 07:22:43 PST",
        "",
        "Xyz, 01 Dec 2026 07:22:43 GMT",
        "Tue, 1 Dec 2026 07:22:43 GMT",
        "Tue, 01 Foo 2026 07:22:43 GMT",
        "Tue, 31 Feb 2026 07:22:43 GMT",
        "Tue, 01 Dec 2026 7:22:43 GMT",
        "Tue, 01 Dec 2026 07:22:43.5 GMT",
        "Tue, 01 Dec 2026 07:22:43 extra GMT",
    ] {
        assert_eq!(http_date(refused), None, "{refused}");
    }
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
        channel_id: "1400000000000000001".parse().unwrap(),
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
    message.reply_to_message_id = Some("1500000000000000009".parse().unwrap());
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
