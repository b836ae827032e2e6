//! The store toolset: the store's own state, `store_status` (in [`status`]).

pub mod status;
