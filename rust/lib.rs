//! ragchunk core: exact BPE token counting and RAGFlow-compatible chunking.
//!
//! Everything in this crate except [`python`] is plain Rust with no PyO3 in sight, so
//! `cargo test` (without the `python` feature) proves the core is clean of the bindings.

pub mod batch;
pub mod counter;
pub mod delimiters;
pub mod merge;
pub mod positions;
pub mod splitters;
pub mod tokenizer;
pub mod transcode;

#[cfg(feature = "python")]
mod python;
