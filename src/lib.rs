//! discord-manager: a self-hosted, single-owner Discord assistant.
//!
//! The application crate: the surfaces and the machine commands, over the workspace's
//! crates, which it re-exports under their modules' names (`discord_manager::store`,
//! `discord_manager::business`, …). Each crate names only the crates below it:
//!
//! - `discord-manager-store`: [`instant`], [`error`], [`vocabulary`], [`snowflake`], the
//!   [`store`] (every SQL statement) and Discord's [`permissions`] arithmetic;
//! - `discord-manager-ingest`: [`ingest`], Discord's event payloads (serenity's model types)
//!   turned into store rows;
//! - `discord-manager-core`: [`config`], [`backoff`], the owner's capabilities in
//!   [`business`], their [`answer`]s and the one [`registry`]; no serenity, no surface;
//! - `discord-manager-discord`: [`discord`], the daemon's side of Discord: the gateway
//!   client, REST, backfill and the history import.
//!
//! Here, [`cli`] and [`mcp`] are thin projections of the registry onto a terminal and onto
//! stdio JSON-RPC; [`seed`] builds the demo store. The benchmark's generator of large stores
//! is a crate of its own (`discord-manager-synthetic`), a dev-dependency only: it is not in
//! the binary.
//!
//! `ARCHITECTURE.md` at the repository root has the crate graph, the code map and the
//! invariants.

pub use discord_manager_attachments as attachments;
pub use discord_manager_core::{answer, backoff, business, config, demo, payload, registry};
pub use discord_manager_discord as discord;
pub use discord_manager_ingest as ingest;
pub use discord_manager_store::{error, instant, permissions, snowflake, store, vocabulary};

pub mod cli;
pub mod mcp;
pub mod program;
pub mod seed;

// The unit-test world of the core crate, for the surfaces' own tests.
#[cfg(test)]
use discord_manager_core::test_fixtures;

pub use error::{Error, ErrorKind};
