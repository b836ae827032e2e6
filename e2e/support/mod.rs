//! The harness every spec uses: a per-spec store seeded from scripted feeds, an MCP client
//! over the real server, a CLI runner, the specs' reading of results, and the record of which
//! tools the run called.

pub mod cache;
pub mod cli;
#[path = "../../tests/support/fake_discord/mod.rs"]
pub mod fake_discord;
pub mod feed;
pub mod live;
pub mod mcp;
pub mod model;
#[path = "../../tests/support/official_tools.rs"]
pub mod official_tools;
pub mod record;
pub mod schema;
pub mod sdk;
pub mod store;
pub mod time;

pub use feed::{Emoji, Feed, Guild, Post, fresh_id};
pub use model::*;
pub use store::Store;
pub use time::{micro_after, micro_before};
