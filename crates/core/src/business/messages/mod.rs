//! The messages toolset: reading what the store holds (`messages_catch_up` in [`catch_up`],
//! `messages_history` in [`history`], `messages_search` in [`search`]) and the bot's own
//! messages on Discord (`messages_send` in [`send`], `messages_edit` in [`edit`],
//! `messages_delete` in [`delete`]); and the pass that embeds every message for search by
//! meaning ([`embedding`]; the vectors a context searches are the kernel's `meaning_index`).

pub mod catch_up;
pub mod delete;
pub mod edit;
pub mod embedding;
pub mod history;
pub mod search;
pub mod send;

#[cfg(test)]
mod tests;
