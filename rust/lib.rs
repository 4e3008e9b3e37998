//! ragchunk core: exact BPE token counting and RAGFlow-compatible chunking.
//!
//! * [`text`]: code-point offsets, boundary classes (whitespace, sentence ends), and the
//!   encoders between UTF-8 and CPython's string layouts;
//! * [`tokenizer`]: exact BPE (`cl100k_base`, `o200k_base`) and the [`tokenizer::TokenCounter`]
//!   seam every chunker counts through;
//! * [`ragflow`]: the RAGFlow drop-ins (delimiters, position tags, `naive_merge`);
//! * [`splitters`]: the general chunkers and the packer they share;
//! * [`batch`]: a parallel, ordered map over documents;
//! * [`documents`]: the PDF layout analysis (a page's characters and graphics read from the
//!   PDFium library `pypdfium2` loaded, laid out into lines, tables and figures);
//! * `python` (feature `python`): the bindings, the only code that touches PyO3.
//!
//! Everything except `python` is plain Rust with no PyO3 in sight, so `cargo test` (without
//! the `python` feature) proves the core is clean of the bindings.

pub mod batch;
pub mod documents;
pub mod eval;
pub mod ragflow;
pub mod splitters;
pub mod text;
pub mod tokenizer;

#[cfg(feature = "python")]
mod python;
pub mod semantic;
