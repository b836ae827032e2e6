//! The fetcher's progress, through indicatif like every long task: on a terminal, a bar over
//! what was waiting when the fetcher found work, redrawn in place and cleared once nothing is
//! left; off a terminal nothing is drawn (indicatif decides), and each file's log line says
//! what became of it.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

pub(super) struct FetchProgress {
    bar: ProgressBar,
}

impl FetchProgress {
    /// Progress drawn on stderr when it is a terminal.
    pub(super) fn on_stderr() -> FetchProgress {
        FetchProgress::drawn_to(ProgressDrawTarget::stderr())
    }

    fn drawn_to(target: ProgressDrawTarget) -> FetchProgress {
        let bar = ProgressBar::with_draw_target(None, target);
        bar.set_style(
            ProgressStyle::with_template("keeping attachments [{bar:20}] {pos} of {len}")
                .expect("a template")
                .progress_chars("#>-"),
        );
        FetchProgress { bar }
    }

    /// Whether anyone sees the bar: when not, the count it needs is not even read.
    pub(super) fn is_drawn(&self) -> bool {
        !self.bar.is_hidden()
    }

    /// The fetcher found work: `waiting` files are left, counting this batch. A bar already
    /// under way grows to take in what arrived since; it never shrinks below what is done.
    pub(super) fn found(&self, waiting: u64) {
        let done = self.bar.position();
        let length = self.bar.length().unwrap_or(0);
        if done + waiting > length {
            self.bar.set_length(done + waiting);
        }
    }

    /// One file's outcome recorded.
    pub(super) fn file_done(&self) {
        self.bar.inc(1);
    }

    /// Nothing is left: the bar is cleared, and the next work starts a new one.
    pub(super) fn idle(&mut self) {
        if self.bar.length().is_some() {
            self.bar.finish_and_clear();
            *self = FetchProgress::drawn_to(self.bar_target());
        }
    }

    fn bar_target(&self) -> ProgressDrawTarget {
        if self.is_drawn() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        }
    }

    #[cfg(test)]
    fn counts(&self) -> (u64, Option<u64>) {
        (self.bar.position(), self.bar.length())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_counts_files_done_of_those_waiting_grows_with_new_work_and_restarts_after_idle() {
        let mut progress = FetchProgress::drawn_to(ProgressDrawTarget::hidden());
        assert!(!progress.is_drawn());
        assert_eq!(progress.counts(), (0, None));
        progress.found(3);
        progress.file_done();
        progress.file_done();
        assert_eq!(progress.counts(), (2, Some(3)));
        // Two more arrived while one was left: 2 done of 5.
        progress.found(3);
        assert_eq!(progress.counts(), (2, Some(5)));
        // A count at or under what is known changes nothing.
        progress.found(1);
        assert_eq!(progress.counts(), (2, Some(5)));
        progress.file_done();
        progress.file_done();
        progress.file_done();
        assert_eq!(progress.counts(), (5, Some(5)));
        progress.idle();
        assert_eq!(progress.counts(), (0, None));
        progress.found(1);
        assert_eq!(progress.counts(), (0, Some(1)));
    }
}
