//! The record: the SQLite store and what every layer above it speaks in.
//!
//! This crate is the bottom of discord-manager's crate graph (`ARCHITECTURE.md` draws it). It
//! knows no Discord client, no surface and no capability:
//!
//! - [`instant`], [`error`], [`vocabulary`] and [`snowflake`]: instants, error kinds with
//!   their exit codes, the domain's words, Discord ids and their arithmetic;
//! - [`store`] owns the SQLite file: migrations, the arrival clock, and every SQL statement;
//! - [`permissions`] is Discord's documented permission arithmetic over stored records.
//!
//! Within the crate each module names only those listed before it (`store` before
//! `permissions`), held by `tests/layering.rs`.

pub mod error;
pub mod instant;
pub mod permissions;
pub mod snowflake;
pub mod store;
pub mod vocabulary;

pub use error::{Error, ErrorKind};
