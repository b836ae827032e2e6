//! The core: the owner's capabilities, their answers and the one registry.
//!
//! This crate knows no Discord client (serenity, reqwest) and no surface (rmcp, clap,
//! comfy-table): it does not depend on them, so a capability that reached for one would not
//! compile. It talks to Discord through the sender crate's
//! [`discord_manager_sender::DiscordSender`] port, which the Discord crate implements.
//!
//! - [`config`] reads the environment; [`backoff`] is how a wait grows after failures.
//! - [`answer`] holds the primitives of each result as the surfaces show it: JSON, a human
//!   page, a model's text.
//! - [`business`] holds the owner's capabilities, one file each beside a small kernel: typed
//!   input, typed output, the function, its examples, and its page and text.
//! - [`registry`] lists every capability once; the CLI and the MCP server are both built from it.
//! - `test_fixtures` (tests, and feature `fixtures` for the crates above) gives the playback
//!   crate's unit-test world its owner context, the one part of it that needs the core's types.
//!
//! Within the crate each module names only those listed before it, held by
//! `tests/layering.rs`.

pub mod answer;
pub mod backoff;
pub mod business;
pub mod config;
#[cfg(test)]
mod recording_tests;
pub mod registry;
#[cfg(any(test, feature = "fixtures"))]
pub mod test_fixtures;
