//! discord-manager: a self-hosted, single-owner Discord assistant.
//!
//! Each layer names only the layers below it (held by `tests/layering.rs`):
//!
//! - [`instant`], [`error`] and [`snowflake`]: instants, error kinds, Discord ids; [`backoff`],
//!   how a wait grows after failures.
//! - [`store`] owns the SQLite file: migrations, the arrival clock, and every SQL statement.
//! - [`config`] reads the environment; [`permissions`] is Discord's permission arithmetic.
//! - [`business`] holds the owner's capabilities: one function each, typed input, typed output.
//! - [`answer`] is each result as the surfaces show it: JSON, a human page, a model's text.
//! - [`registry`] lists every capability once; the CLI and the MCP server are both built from it.
//! - [`ingest`] turns Discord's own event payloads (serenity's model types) into store rows.
//! - [`discord`] is the daemon's side of Discord: the gateway client, REST and backfill.
//! - [`cli`] and [`mcp`] are thin projections of the registry onto a terminal and onto stdio
//!   JSON-RPC; [`seed`] builds the demo store and [`synthetic`] large stores for the benchmark.
//!
//! `ARCHITECTURE.md` at the repository root has the code map and the invariants.

pub mod answer;
pub mod backoff;
pub mod business;
pub mod cli;
pub mod config;
pub mod discord;
pub mod error;
pub mod ingest;
pub mod instant;
pub mod mcp;
pub mod permissions;
pub mod registry;
pub mod seed;
pub mod snowflake;
pub mod store;
pub mod synthetic;
#[cfg(test)]
mod test_fixtures;
pub mod vocabulary;

pub use error::{Error, ErrorKind};
