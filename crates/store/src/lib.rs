//! The record: the SQLite store, and nothing but SQLite.
//!
//! This crate stands on the vocabulary crate alone (`ARCHITECTURE.md` draws the crate graph).
//! It knows no Discord client, no surface and no capability: [`store`] owns the SQLite file
//! (migrations, the arrival clock, and every SQL statement).

pub mod store;

// Transitional: the vocabulary's modules under their old names here, until every crate above
// names the vocabulary crate itself.
pub use discord_manager_vocabulary::words as vocabulary;
pub use discord_manager_vocabulary::{Error, ErrorKind};
pub use discord_manager_vocabulary::{error, instant, permissions, snowflake};
