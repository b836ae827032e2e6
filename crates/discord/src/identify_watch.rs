//! Sees every IDENTIFY the process sends, whoever sends it, so the IDENTIFY budget
//! ([`super::budget`]) counts them all.
//!
//! The daemon sends the first IDENTIFY of each gateway client through serenity and records it
//! itself; serenity then identifies again on its own whenever a session cannot be resumed,
//! including attempts that Discord closes before READY (which no gateway event reveals: the
//! shard restarts still in its identifying stage). serenity's one path to the wire for an
//! IDENTIFY, `WsClient::send_identify`, opens a tracing span of that name: a tracing layer that
//! sees only that span counts each one, and the daemon watches the count.
//!
//! The count is no process-wide state: whoever installs the layer makes an [`IdentifyCount`]
//! and hands the daemon the same one.

use std::sync::Arc;

use tokio::sync::watch;
use tracing::Subscriber;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{FilterFn, Filtered, filter_fn};
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// The span serenity 0.12 opens for every IDENTIFY it sends (`#[instrument]` on
/// `WsClient::send_identify`, in module `serenity::gateway::ws`).
const IDENTIFY_SPAN: &str = "send_identify";
const IDENTIFY_TARGET: &str = "serenity::gateway";

/// Whether a callsite is serenity's IDENTIFY span.
fn is_identify(metadata: &tracing::Metadata<'_>) -> bool {
    metadata.is_span()
        && metadata.name() == IDENTIFY_SPAN
        && metadata.target().starts_with(IDENTIFY_TARGET)
}

/// The IDENTIFYs sent since the count was made, as its [`layer`](IdentifyCount::layer) sees them
/// leave. Cloning it shares the count.
#[derive(Debug, Clone)]
pub struct IdentifyCount {
    sent: Arc<watch::Sender<u64>>,
}

impl Default for IdentifyCount {
    fn default() -> IdentifyCount {
        IdentifyCount {
            sent: Arc::new(watch::channel(0).0),
        }
    }
}

impl IdentifyCount {
    /// The layer to install beside the log output: it enables only serenity's IDENTIFY span
    /// (so it costs nothing elsewhere, whatever the log level) and counts each one opened here.
    pub fn layer<S>(&self) -> Filtered<IdentifyCounter, FilterFn, S>
    where
        S: Subscriber + for<'lookup> LookupSpan<'lookup>,
    {
        IdentifyCounter {
            sent: Arc::clone(&self.sent),
        }
        .with_filter(filter_fn(is_identify as fn(&tracing::Metadata<'_>) -> bool))
    }

    /// A receiver of the count of IDENTIFYs sent so far.
    pub fn watch(&self) -> watch::Receiver<u64> {
        self.sent.subscribe()
    }
}

/// Counts serenity's IDENTIFY spans into its [`IdentifyCount`] (see [`IdentifyCount::layer`]).
pub struct IdentifyCounter {
    sent: Arc<watch::Sender<u64>>,
}

impl<S> Layer<S> for IdentifyCounter
where
    S: Subscriber + for<'lookup> LookupSpan<'lookup>,
{
    fn on_new_span(
        &self,
        attributes: &tracing::span::Attributes<'_>,
        _id: &tracing::span::Id,
        _context: Context<'_, S>,
    ) {
        if is_identify(attributes.metadata()) {
            self.sent.send_modify(|sent| *sent += 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use tracing_subscriber::layer::SubscriberExt;

    use super::*;

    #[test]
    fn counts_serenitys_identify_span_and_nothing_else() {
        let count = IdentifyCount::default();
        let subscriber = tracing_subscriber::registry().with(count.layer());
        let mut sent = count.watch();
        // Another count, never installed, sees none of them.
        let elsewhere = IdentifyCount::default().watch();
        tracing::subscriber::with_default(subscriber, || {
            // What `#[instrument]` on serenity's `send_identify` opens, and its neighbours.
            tracing::info_span!(target: "serenity::gateway::ws", "send_identify").in_scope(|| {});
            tracing::info_span!(target: "serenity::gateway::ws", "send_resume").in_scope(|| {});
            tracing::info_span!(target: "discord_manager", "send_identify").in_scope(|| {});
            tracing::info_span!(target: "serenity::gateway::ws", "send_identify").in_scope(|| {});
        });
        assert_eq!(*sent.borrow_and_update(), 2);
        assert_eq!(*elsewhere.borrow(), 0);
    }
}
