//! discord-manager: a self-hosted, single-owner Discord assistant.
//!
//! The application crate: the surfaces and the machine commands, over the workspace's
//! crates, which it names by their own names (`discord_manager_store::Store`,
//! `discord_manager_core::business::…`); it re-exports none of them. Each crate names only
//! the crates below it:
//!
//! - `discord-manager-vocabulary`: instants, errors, the domain's words, Discord ids and
//!   Discord's permission arithmetic;
//! - `discord-manager-store`: the store, every SQL statement;
//! - `discord-manager-ingest`: Discord's event payloads (serenity's model types) turned into
//!   store rows;
//! - `discord-manager-sender`: the port to Discord (`DiscordSender`) and what it carries;
//! - `discord-manager-playback`: Discord's side played back: its message objects and the
//!   demo's stand-in Discord (here without its test world, which only tests enable);
//! - `discord-manager-core`: configuration, backoff, the owner's capabilities in `business`,
//!   their answers and the one registry; no serenity, no surface;
//! - `discord-manager-discord`: the daemon's side of Discord: the gateway client, REST,
//!   backfill and the history import.
//!
//! Here, [`cli`] and [`mcp`] are thin projections of the registry onto a terminal and onto
//! stdio JSON-RPC; [`seed`] builds the demo store. The benchmark's generator of large stores
//! is a crate of its own (`discord-manager-synthetic`), a dev-dependency only: it is not in
//! the binary.
//!
//! `ARCHITECTURE.md` at the repository root has the crate graph, the code map and the
//! invariants.

pub mod cli;
pub mod mcp;
pub mod program;
pub mod seed;
