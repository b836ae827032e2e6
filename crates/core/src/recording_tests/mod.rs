//! Tests of the whole record path: Discord's payloads through the ingest crate's recorders,
//! and the owner's capabilities, into the store and back out.
//!
//! They need the recorders, the store and the business layer at once. The core crate is the
//! lowest that sees all three (the recorders only in its tests, as a dev-dependency), so they
//! live here rather than beside the code each exercises.

mod append_only;
mod extras;
mod recorders;
