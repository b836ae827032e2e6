//! How many calls may read and decode kept attachment files at once: each such call takes a
//! turn from the [`AttachmentWork`] its owner context carries, and waits while every turn is
//! taken. With the per-call budget of `attachments_get`'s images, it bounds the memory all
//! calls' attachment work takes together, whichever surface (the CLI, the MCP server) they
//! come from. No global state: whoever builds the context decides the bound.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// How many calls may read and decode kept files at once, by default: two images' work in
/// memory, on a machine of two cores.
pub const MOST_AT_ONCE: usize = 2;

/// The turns of attachment work: at most `most` calls hold one at once. Cloning it shares its
/// turns (the contexts of one server's calls hold the same one).
#[derive(Debug, Clone)]
pub struct AttachmentWork {
    shared: Arc<Turns>,
}

#[derive(Debug)]
struct Turns {
    most: usize,
    counts: Mutex<Counts>,
    freed: Condvar,
}

#[derive(Debug, Default)]
struct Counts {
    inside: usize,
    waiting: usize,
}

/// A turn of attachment work, given back when dropped.
#[derive(Debug)]
pub struct Turn<'a> {
    turns: &'a Turns,
}

impl AttachmentWork {
    /// Turns for at most `most` calls at once (at least one).
    pub fn new(most: usize) -> AttachmentWork {
        AttachmentWork {
            shared: Arc::new(Turns {
                most: most.max(1),
                counts: Mutex::new(Counts::default()),
                freed: Condvar::new(),
            }),
        }
    }

    /// Waits for a turn, then holds it until the returned [`Turn`] is dropped.
    pub fn take_turn(&self) -> Turn<'_> {
        let turns = &*self.shared;
        let mut counts = turns.lock();
        counts.waiting += 1;
        while counts.inside >= turns.most {
            counts = turns
                .freed
                .wait(counts)
                .unwrap_or_else(PoisonError::into_inner);
        }
        counts.waiting -= 1;
        counts.inside += 1;
        Turn { turns }
    }

    /// How many calls hold a turn now.
    pub fn inside(&self) -> usize {
        self.shared.lock().inside
    }

    /// How many calls wait for a turn now.
    pub fn waiting(&self) -> usize {
        self.shared.lock().waiting
    }

    /// The most calls that hold a turn at once.
    pub fn most(&self) -> usize {
        self.shared.most
    }
}

impl Default for AttachmentWork {
    /// [`MOST_AT_ONCE`] turns.
    fn default() -> AttachmentWork {
        AttachmentWork::new(MOST_AT_ONCE)
    }
}

impl Turns {
    fn lock(&self) -> MutexGuard<'_, Counts> {
        // The counts are whole after any panic (each change is one statement): go on with them.
        self.counts.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.turns.lock().inside -= 1;
        self.turns.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_past_the_bound_waits_until_a_turn_is_given_back() {
        let work = AttachmentWork::new(2);
        let first = work.take_turn();
        let second = work.take_turn();
        assert_eq!(work.inside(), 2);
        let (entered, entering) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let _third = work.take_turn();
                entered.send(work.inside()).unwrap();
            });
            // Without a timer: until the third call waits, or has entered, which fails.
            while work.waiting() < 1 {
                if let Ok(inside) = entering.try_recv() {
                    panic!("a third call entered, with {inside} inside");
                }
                std::thread::yield_now();
            }
            assert_eq!(work.inside(), 2, "the third call waits outside");
            assert!(entering.try_recv().is_err(), "it has not entered");
            drop(first);
            assert_eq!(
                entering.recv().unwrap(),
                2,
                "it entered once a turn was free"
            );
        });
        drop(second);
        assert_eq!((work.inside(), work.waiting()), (0, 0));
    }

    #[test]
    fn clones_share_their_turns() {
        let work = AttachmentWork::new(1);
        let clone = work.clone();
        let _turn = work.take_turn();
        assert_eq!(clone.inside(), 1);
        assert_eq!(clone.most(), 1);
    }
}
