//! The business layer: every owner capability, once.
//!
//! A capability is one public function taking `(&Store, input, &OwnerContext)` and returning
//! a typed result or an owner-worded [`Error`](discord_manager_vocabulary::Error). It decides
//! everything: input rules beyond the schema, scope, authorization. The CLI and the MCP server only call it and
//! render what it returns. This layer knows nothing of rmcp, comfy-table or serenity.

pub mod activity;
pub mod attachments;
pub mod bookmarks;
pub mod channels;
pub mod kernel;
pub mod mentions;
pub mod messages;
pub mod reactions;
pub mod schedules;
pub mod store;

pub use kernel::attachment_work::AttachmentWork;
pub use kernel::context::{OwnerContext, Source};
pub use kernel::waiting_calls::WaitingCalls;
