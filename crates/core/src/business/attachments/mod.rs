//! The files of messages, as the attachment cache beside the store keeps them: `get` shows one
//! (an image for a model to see, a text file's content in pages, or what is known of any other
//! file), or says why it was not kept.

pub mod get;

#[cfg(test)]
mod tests;
