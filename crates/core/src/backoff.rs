//! Exponential backoff: how long to wait after failures in a row, the one rule the daemon's
//! REST reads (`discord::rest::retry`) and the business layer's sends (`business::kernel::outbox`)
//! both follow.
//!
//! It knows no HTTP client and no Discord: the two retry policies differ in what they count and
//! when they give up, not in how a wait grows, so the doubling lives here once. Discord's own
//! waits (a 429's `retry_after`) are the callers' concern; this is only the wait we choose.

use std::time::Duration;

/// Waits that start at `first` and double after each further failure, never longer than
/// `longest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// The wait after the first failure.
    pub first: Duration,
    /// No wait is longer.
    pub longest: Duration,
}

impl Backoff {
    /// The wait after `failures` failures in a row (1 is the first; 0 counts as 1):
    /// `first × 2^(failures − 1)`, held at `longest`. The arithmetic saturates, so no count and
    /// no `first` can overflow or panic.
    pub fn after(&self, failures: u32) -> Duration {
        let doublings = failures.saturating_sub(1);
        let factor = 1u32.checked_shl(doublings).unwrap_or(u32::MAX);
        self.first.saturating_mul(factor).min(self.longest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BACKOFF: Backoff = Backoff {
        first: Duration::from_millis(500),
        longest: Duration::from_secs(3),
    };

    #[test]
    fn each_failure_doubles_the_wait_up_to_the_longest() {
        let waits: Vec<Duration> = (1..=5).map(|failures| BACKOFF.after(failures)).collect();
        assert_eq!(
            waits,
            [
                Duration::from_millis(500),
                Duration::from_secs(1),
                Duration::from_secs(2),
                Duration::from_secs(3),
                Duration::from_secs(3),
            ]
        );
        assert_eq!(BACKOFF.after(0), Duration::from_millis(500));
    }

    #[test]
    fn no_count_and_no_first_wait_overflows() {
        assert_eq!(BACKOFF.after(32), Duration::from_secs(3));
        assert_eq!(BACKOFF.after(u32::MAX), Duration::from_secs(3));
        // Doubling goes on until `longest`, however small the start, and then saturates.
        let tiny = Backoff {
            first: Duration::from_nanos(1),
            longest: Duration::MAX,
        };
        assert_eq!(tiny.after(32), Duration::from_nanos(1 << 31));
        assert_eq!(tiny.after(u32::MAX), Duration::from_nanos(u32::MAX.into()));
        let unbounded = Backoff {
            first: Duration::MAX,
            longest: Duration::MAX,
        };
        assert_eq!(unbounded.after(u32::MAX), Duration::MAX);
    }
}
