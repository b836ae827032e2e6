//! The activity toolset: activity over time. The cursor tool that waits for something new
//! (`activity_wait`, in [`wait`]), the digest of a window (`activity_digest`, in [`digest`]),
//! and the [`briefing`] of what the owner missed (`activity_briefing`).

pub mod arrivals;
pub mod briefing;
pub mod digest;
pub mod wait;

#[cfg(test)]
mod tests;
