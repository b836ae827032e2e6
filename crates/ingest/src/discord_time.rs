//! Discord's timestamps as the store's instants: the one conversion every recorder that reads
//! a time from a payload (a message's, an edit's, a poll's expiry) goes through.

use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::instant::Instant;
use serenity::model::Timestamp;

/// `timestamp` as an instant; a timestamp Discord sent that is not one is an internal error
/// (the recorders skip the payload and say so).
pub(crate) fn instant_of(timestamp: &Timestamp) -> Result<Instant> {
    timestamp
        .to_rfc3339()
        .as_deref()
        .and_then(Instant::parse)
        .ok_or_else(|| Error::internal("Discord sent a timestamp that is not an instant"))
}
