//! Discord itself: the gateway client, the REST client and backfill, and the `ingest` daemon
//! that runs them. With `src/ingest/` (the recorders), the only code that knows serenity.

pub mod backfill;
pub mod bot_check;
pub mod budget;
pub mod daemon;
pub mod gateway;
pub mod identify_watch;
pub mod import;
pub mod rest;
pub mod sender;
