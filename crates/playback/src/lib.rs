//! Discord's side, played back: what the demo store, the benchmark's generator and the tests
//! play where Discord would answer, with nothing leaving the machine.
//!
//! - [`payload`] writes Discord's message and user objects, for whatever plays Discord's side.
//! - [`demo`] is a stand-in for Discord's REST API: it implements the sender crate's
//!   [`DiscordSender`](discord_manager_sender::DiscordSender) port as Discord answers a bot, for
//!   the demo store and the tests.
//! - `world` (feature `world`, for tests only) is the unit-test world: a guild per test in the
//!   shared unit-test store, played through the real recorders, a scripted Discord, and the
//!   ids helpers tests name things with. A release build never compiles it.
//!
//! The crate knows nothing of the core: it stands on the port, the store and the vocabulary,
//! so the core's own unit tests can use it and meet the one `DiscordSender` the core sends
//! through. What the world needs of the core's types (an owner context) is the core's.

pub mod demo;
pub mod payload;
#[cfg(feature = "world")]
pub mod world;
