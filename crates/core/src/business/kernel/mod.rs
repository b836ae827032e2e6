//! The kernel: the machinery more than one capability stands on, and nothing that is one
//! capability's own. Capabilities live beside it, one file (or folder) each, grouped by
//! toolset; the kernel never names them.
//!
//! - [`context`]: the owner context a call runs in; [`input`]: validation of a call's input
//!   against its type, with the owner-worded error; [`attachment_work`]: how many calls read
//!   and decode kept files at once; [`waiting_calls`]: how many calls wait for something new
//!   at once; [`meaning_index`]: the vectors a context searches by meaning.
//! - [`model`]: the message every result shows, cursors and the `Shaper` that turns store rows
//!   into it; [`message_extras`], what a message carries beyond its text; [`presentation`],
//!   how a message reads on a page and in a model's text.
//! - [`budget`]: how much an answer may hold; [`names`]: channel names as shown;
//!   [`untrusted`]: scrubbing strangers' text.
//! - [`outbox`]: the gates every action on Discord passes before the sender crate's port, and
//!   its retries; [`approval`]: asking the owner; `bot_actions`: what the bot's posts and
//!   follow-up actions share.
//! - [`examples`]: the calls each capability declares for the gates.
//!
//! Beside them, the defaults reading capabilities share.

pub mod approval;
pub mod attachment_work;
pub(crate) mod bot_actions;
pub mod budget;
pub mod context;
pub mod examples;
pub mod input;
pub mod meaning_index;
pub mod message_extras;
pub mod model;
pub(crate) mod names;
pub mod outbox;
pub mod presentation;
pub(crate) mod system_messages;
pub mod untrusted;
pub mod waiting_calls;

use discord_manager_vocabulary::instant::Instant;

/// The default look-back of reading tools whose `since` is not given.
pub(crate) const DEFAULT_LOOKBACK_SECONDS: i64 = 24 * 60 * 60;

/// How many items a reading tool lists when its `limit` is not given.
pub(crate) const DEFAULT_LIMIT: u32 = 50;

/// `since` as given, or the default look-back from now.
pub(crate) fn since_or_default(since: Option<Instant>) -> Instant {
    since.unwrap_or_else(|| Instant::now().minus_seconds(DEFAULT_LOOKBACK_SECONDS))
}
