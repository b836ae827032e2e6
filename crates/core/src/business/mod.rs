//! The business layer: every owner capability, once.
//!
//! A capability is one public function taking `(&Store, input, &OwnerContext)` and returning
//! a typed result or an owner-worded [`Error`](crate::Error). It decides everything: input
//! rules beyond the schema, scope, authorization. The CLI and the MCP server only call it and
//! render what it returns. This layer knows nothing of rmcp, comfy-table or serenity.

pub mod actions;
pub mod activity;
pub mod approval;
pub mod bookmarks;
pub mod budget;
pub mod channels;
pub mod context;
pub mod emoji;
pub mod examples;
pub mod input;
pub mod mentions;
pub mod message_extras;
pub mod messages;
pub mod model;
mod names;
pub mod outbox;
pub mod schedules;
pub mod store;
pub mod untrusted;

pub use context::{OwnerContext, Source};

use crate::instant::Instant;

/// The default look-back of reading tools whose `since` is not given.
pub(crate) const DEFAULT_LOOKBACK_SECONDS: i64 = 24 * 60 * 60;

pub(crate) fn since_or_default(since: Option<Instant>) -> Instant {
    since.unwrap_or_else(|| Instant::now().minus_seconds(DEFAULT_LOOKBACK_SECONDS))
}
