//! The vocabulary every layer of discord-manager speaks in, and nothing more: no SQLite, no
//! Discord client, no surface.
//!
//! - [`instant`]: instants, written as fixed-width ISO-8601 UTC text and stored as microseconds;
//! - [`error`]: the one error type, sorted into kinds (the binary chooses exit codes from them);
//! - [`words`]: `word_enum!`, each domain word's text, JSON and schema forms defined once;
//! - [`snowflake`]: Discord ids, a type per kind (`ChannelId`, `MessageId`, `GuildId`,
//!   `UserId`, …) so no id crosses a function as a bare string, and the one place that knows
//!   their millisecond;
//! - [`permissions`]: Discord's documented permission arithmetic, over a guild's roles and a
//!   channel's overwrites, whoever keeps them.
//!
//! This crate is the bottom of the crate graph (`ARCHITECTURE.md` draws it): every other
//! crate of the workspace that needs these names it by its own name
//! (`discord_manager_vocabulary::instant::Instant`). Its one optional dependency, rusqlite
//! behind the `sqlite` feature, is the store's: how a SQLite failure becomes an [`Error`],
//! and how each id is bound and read as TEXT.
//!
//! Within the crate each module names only those listed before it, held by
//! `tests/layering.rs`.

pub mod error;
pub mod instant;
pub mod permissions;
pub mod snowflake;
pub mod words;

pub use error::{Error, ErrorKind};

// What `word_enum!`'s expansion names, reached through this crate (`$crate::serde`), so a
// crate that defines words needs neither serde nor schemars of its own for them.
#[doc(hidden)]
pub use schemars;
#[doc(hidden)]
pub use serde;
