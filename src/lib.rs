//! discord-manager: a self-hosted, single-owner Discord assistant.
//!
//! The crate is layered so that each layer knows only the one below it:
//!
//! - [`store`] owns the SQLite file: migrations, the arrival clock, and every SQL statement.
//! - [`ingest`] turns Discord's own event payloads (serenity's model types) into store rows.
//! - [`discord`] is the daemon's side of Discord: the gateway client, REST and backfill.
//! - [`business`] holds the owner's capabilities: one function each, typed input, typed output.
//! - [`registry`] lists every capability once; the CLI and the MCP server are both built from it.
//! - [`cli`] and [`mcp`] are thin projections of the registry onto a terminal and onto stdio JSON-RPC.
//! - [`synthetic`] generates large realistic stores through the recorders, for the benchmark.
//!
//! `ARCHITECTURE.md` at the repository root has the code map and the invariants.

pub mod business;
pub mod cli;
pub mod config;
pub mod discord;
pub mod error;
pub mod ingest;
pub mod instant;
pub mod mcp;
pub mod registry;
pub mod seed;
pub mod store;
pub mod synthetic;
#[cfg(test)]
mod test_fixtures;

pub use error::{Error, ErrorKind};
