//! Unit tests of the briefing.
