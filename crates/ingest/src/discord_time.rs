//! Discord's timestamps as the store's instants: the one conversion every recorder that reads
//! a time from a payload (a message's, an edit's, a poll's expiry) goes through.

use serenity::model::Timestamp;

use crate::error::{Error, Result};
use crate::instant::Instant;

/// `timestamp` as an instant; a timestamp Discord sent that is not one is an internal error
/// (the recorders skip the payload and say so).
pub(crate) fn instant_of(timestamp: &Timestamp) -> Result<Instant> {
    timestamp
        .to_rfc3339()
        .as_deref()
        .and_then(Instant::parse)
        .ok_or_else(|| Error::internal("Discord sent a timestamp that is not an instant"))
}
