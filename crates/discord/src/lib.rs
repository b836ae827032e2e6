//! Discord itself: the gateway client, the REST client and backfill, and the `ingest` daemon
//! that runs them. With the ingest crate (the recorders), the only code that knows serenity.
//!
//! This crate sits above the record, the recorders, the port to Discord it implements and the
//! core (`ARCHITECTURE.md` draws the crate graph); nothing below it can name it. The demo's
//! stand-in Discord (the playback crate) is not among them: only this crate's tests play
//! Discord through it.

pub mod attachment_fetcher;
pub mod backfill;
pub mod bot_check;
pub mod budget;
pub mod cdn;
pub mod channel_work;
pub mod daemon;
pub mod embedder;
pub mod gateway;
pub mod gateway_tap;
pub mod identify_watch;
pub mod import;
pub mod payload_reader;
pub mod rest;
pub mod sender;
