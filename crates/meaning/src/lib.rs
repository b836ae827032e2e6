//! Search by meaning: the sentence encoder bundled in the binary, what of a message is
//! embedded, the compact form vectors are stored in, the exact scan over them with the
//! search's filters inside it, and the fusion of two rankings.
//!
//! - [`model`]: the encoder (multilingual-e5-small, 4-bit, run by [`e5`]: 384 unit
//!   coordinates, 512 tokens, about 100 languages, no download at build or run time) and its
//!   [`model::Identity`], the full description of the coordinate space stored beside the
//!   vectors: vectors of another identity are never compared.
//! - [`e5`]: the model's tokenizer, weights, integer kernels and forward pass.
//! - [`language`]: the directions in which the model's questions differ by language alone,
//!   taken off every question so it finds answers in any language.
//! - [`text`]: the text of a message that is embedded, the same text full-text search
//!   indexes, and its fingerprint.
//! - [`vector`]: a unit vector as 384 signed bytes, and what is derived from them at load.
//! - [`centre`]: the mean of a store's vectors, taken away before their sign bits are taken,
//!   so the bits tell messages apart.
//! - [`scan`]: the per-process index of every current vector, its filters and the exact
//!   rescoring of the best candidates.
//! - [`blocks`]: the scan's index as the store keeps it, block by block of message keys, so
//!   a process's first search reads compact codes instead of every vector.
//! - `resident`: the pages of the binary's model file given back to the kernel once read.
//! - [`fusion`]: reciprocal rank fusion of the words ranking and the meaning ranking.
//!
//! The crate knows no SQL and no Discord: the store keeps the bytes, the business layer
//! decides what a search may see.

pub mod blocks;
pub mod centre;
pub mod e5;
pub mod fusion;
pub mod language;
pub mod model;
mod resident;
pub mod scan;
pub mod text;
pub mod vector;
