//! The RAGFlow drop-ins' core: what RAGFlow computes, reproduced byte for byte for each
//! release family.
//!
//! * [`delimiters`]: the `delimiter` field, parsed as each release reads it, and the split on
//!   it (RAGFlow's `re.split`, without a regex engine);
//! * [`positions`]: the PDF position tags (`remove_tag`, `extract_positions`);
//! * [`merge`]: `naive_merge` and its families, its chunk offsets, and the HARD_CAP
//!   strategy ragchunk adds.

pub mod delimiters;
pub mod flow;
pub mod merge;
pub mod positions;
