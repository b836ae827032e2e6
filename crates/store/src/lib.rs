//! The record: the SQLite store, and nothing but SQLite.
//!
//! This crate stands on the vocabulary crate alone (`ARCHITECTURE.md` draws the crate graph).
//! It knows no Discord client, no surface and no capability: its one module owns the SQLite
//! file (migrations, the arrival clock, and every SQL statement), and its items are the
//! crate's own, named by the crate (`discord_manager_store::Store`).

mod store;

pub use store::*;
