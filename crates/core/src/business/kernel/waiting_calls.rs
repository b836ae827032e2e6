//! How many calls may wait for something new at once: a call that is about to wait takes a
//! place from the [`WaitingCalls`] its owner context carries, and is refused at once when every
//! place is taken, rather than queued (a queued wait could outlast the very time it was asked
//! to wait, and waits that pile up hold memory and store reads). No global state: whoever
//! builds the context decides the bound, and the contexts of one server's calls share it.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How many calls may wait at once, by default.
pub const MOST_WAITING: usize = 64;

/// The places of waiting calls: at most `most` calls hold one at once. Cloning it shares its
/// places.
#[derive(Debug, Clone)]
pub struct WaitingCalls {
    places: Arc<Semaphore>,
    most: usize,
}

/// A place among the waiting calls, given back when dropped (a call that returns, fails or is
/// cancelled drops it).
#[derive(Debug)]
pub struct Place {
    _permit: OwnedSemaphorePermit,
}

impl WaitingCalls {
    /// Places for at most `most` waiting calls (at least one).
    pub fn new(most: usize) -> WaitingCalls {
        let most = most.max(1);
        WaitingCalls {
            places: Arc::new(Semaphore::new(most)),
            most,
        }
    }

    /// A place, if one is free now; None when `most` calls already wait.
    pub fn take_place(&self) -> Option<Place> {
        let permit = Arc::clone(&self.places).try_acquire_owned().ok()?;
        Some(Place { _permit: permit })
    }

    /// How many calls wait now.
    pub fn waiting(&self) -> usize {
        self.most - self.places.available_permits()
    }

    /// The most calls that wait at once.
    pub fn most(&self) -> usize {
        self.most
    }
}

impl Default for WaitingCalls {
    fn default() -> WaitingCalls {
        WaitingCalls::new(MOST_WAITING)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_is_refused_while_every_place_is_held_and_given_back_when_dropped() {
        let calls = WaitingCalls::new(2);
        let first = calls.take_place().expect("a first place");
        let shared = calls.clone();
        let second = shared.take_place().expect("a second place");
        assert_eq!(calls.waiting(), 2);
        assert!(calls.take_place().is_none());
        assert!(shared.take_place().is_none());
        drop(first);
        assert_eq!(shared.waiting(), 1);
        let third = calls.take_place().expect("the place the first gave back");
        drop((second, third));
        assert_eq!(calls.waiting(), 0);
        // A bound of none still lets one call wait; the default is the documented 64.
        assert_eq!(WaitingCalls::new(0).most(), 1);
        assert_eq!(WaitingCalls::default().most(), MOST_WAITING);
    }
}
