//! The IDENTIFY budget: Discord resets a bot's token after 1000 IDENTIFYs in a day, so a daemon
//! in a crash loop (or a connection that keeps failing in a way serenity answers by
//! re-identifying) must slow down before it gets there.
//!
//! A token bucket over the identify history the store keeps: up to [`BURST`] identifies at
//! once, then one per [`REFILL`]. That allows at most 485 a day, however the daemon is
//! restarted, and costs nothing to a daemon that restarts now and then.

use std::time::Duration;

use discord_manager_vocabulary::instant::Instant;

/// Identifies allowed back to back.
pub const BURST: i64 = 5;
/// The pace after a burst: one identify per this long.
pub const REFILL: Duration = Duration::from_secs(180);

/// How long to wait before the next IDENTIFY, given when the previous ones happened (oldest
/// first; only the last [`window`] matters) and the time now.
pub fn identify_delay(history: &[Instant], now: Instant) -> Duration {
    let refill = REFILL.as_micros() as i64;
    let capacity = BURST * refill;
    let mut level = capacity;
    let mut last: Option<Instant> = None;
    for &at in history {
        if let Some(last) = last {
            level = (level + (at.as_micros() - last.as_micros()).max(0)).min(capacity);
        }
        level -= refill;
        last = Some(at);
    }
    if let Some(last) = last {
        level = (level + (now.as_micros() - last.as_micros()).max(0)).min(capacity);
    }
    if level >= refill {
        Duration::ZERO
    } else {
        Duration::from_micros((refill - level) as u64)
    }
}

/// How far back the history needs to go: a full bucket refills within this.
pub fn window() -> Duration {
    REFILL * (BURST as u32 + 1)
}

/// A wait in words: `2m 59s`.
pub fn describe(wait: Duration) -> String {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    match (seconds / 60, seconds % 60) {
        (0, s) => format!("{s}s"),
        (m, 0) => format!("{m}m"),
        (m, s) => format!("{m}m {s}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: i64) -> Instant {
        Instant::parse("2026-11-29T12:00:00Z")
            .unwrap()
            .plus_seconds(seconds)
    }

    #[test]
    fn a_daemon_that_rarely_restarts_never_waits() {
        assert_eq!(identify_delay(&[], at(0)), Duration::ZERO);
        assert_eq!(
            identify_delay(&[at(0), at(3600), at(7200)], at(7201)),
            Duration::ZERO
        );
    }

    #[test]
    fn five_identifies_at_once_are_allowed_and_the_sixth_waits_one_refill() {
        let burst: Vec<Instant> = (0..4).map(|_| at(0)).collect();
        assert_eq!(identify_delay(&burst, at(0)), Duration::ZERO);
        let burst: Vec<Instant> = (0..5).map(|_| at(0)).collect();
        assert_eq!(identify_delay(&burst, at(0)), REFILL);
    }

    #[test]
    fn the_wait_ends_exactly_one_refill_after_the_bucket_emptied() {
        let burst: Vec<Instant> = (0..5).map(|_| at(0)).collect();
        let just_before = at(180).plus_micros(-1);
        assert_eq!(
            identify_delay(&burst, just_before),
            Duration::from_micros(1)
        );
        assert_eq!(identify_delay(&burst, at(180)), Duration::ZERO);
    }

    #[test]
    fn a_crash_loop_settles_at_one_identify_per_refill() {
        // Five at once, then one every time the bucket allows: each next one waits a refill.
        let mut history: Vec<Instant> = (0..5).map(|_| at(0)).collect();
        for n in 1..=10 {
            let now = at(180 * n);
            assert_eq!(
                identify_delay(&history, now),
                Duration::ZERO,
                "identify {n}"
            );
            history.push(now);
            assert_eq!(identify_delay(&history, now), REFILL, "after identify {n}");
        }
    }

    #[test]
    fn says_a_wait_in_minutes_and_seconds_rounding_up() {
        assert_eq!(describe(Duration::from_secs(179)), "2m 59s");
        assert_eq!(describe(Duration::from_secs(180)), "3m");
        assert_eq!(describe(Duration::from_millis(1500)), "2s");
        assert_eq!(describe(Duration::from_secs(5)), "5s");
    }
}
