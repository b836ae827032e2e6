//! Sees every IDENTIFY the process sends, whoever sends it, so the IDENTIFY budget
//! ([`super::budget`]) counts them all.
//!
//! The daemon sends the first IDENTIFY of each gateway client through serenity and records it
//! itself; serenity then identifies again on its own whenever a session cannot be resumed,
//! including attempts that Discord closes before READY (which no gateway event reveals: the
//! shard restarts still in its identifying stage). serenity's one path to the wire for an
//! IDENTIFY, `WsClient::send_identify`, opens a tracing span of that name: a tracing layer that
//! sees only that span counts each one, and the daemon watches the count.

use std::sync::LazyLock;

use tokio::sync::watch;
use tracing::Subscriber;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::{FilterFn, Filtered, filter_fn};
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// The IDENTIFYs sent since the process started.
static SENT: LazyLock<watch::Sender<u64>> = LazyLock::new(|| watch::channel(0).0);

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

/// The layer to install beside the log output: it enables only serenity's IDENTIFY span (so it
/// costs nothing elsewhere, whatever the log level) and counts each one opened.
pub fn layer<S>() -> Filtered<IdentifyCounter, FilterFn, S>
where
    S: Subscriber + for<'lookup> LookupSpan<'lookup>,
{
    IdentifyCounter.with_filter(filter_fn(is_identify as fn(&tracing::Metadata<'_>) -> bool))
}

/// Counts serenity's IDENTIFY spans (see [`layer`]).
pub struct IdentifyCounter;

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
            SENT.send_modify(|sent| *sent += 1);
        }
    }
}

/// A receiver of the count of IDENTIFYs sent so far.
pub fn watch() -> watch::Receiver<u64> {
    SENT.subscribe()
}

#[cfg(test)]
mod tests {
    use tracing_subscriber::layer::SubscriberExt;

    use super::*;

    #[test]
    fn counts_serenitys_identify_span_and_nothing_else() {
        let subscriber = tracing_subscriber::registry().with(layer());
        let mut sent = watch();
        let before = *sent.borrow_and_update();
        tracing::subscriber::with_default(subscriber, || {
            // What `#[instrument]` on serenity's `send_identify` opens, and its neighbours.
            tracing::info_span!(target: "serenity::gateway::ws", "send_identify").in_scope(|| {});
            tracing::info_span!(target: "serenity::gateway::ws", "send_resume").in_scope(|| {});
            tracing::info_span!(target: "discord_manager", "send_identify").in_scope(|| {});
            tracing::info_span!(target: "serenity::gateway::ws", "send_identify").in_scope(|| {});
        });
        assert_eq!(*sent.borrow_and_update() - before, 2);
    }
}
