//! Text primitives every chunker shares, with no chunking in them: code-point offsets
//! ([`offsets`]), the boundary classes (which characters are whitespace and which end a
//! sentence, [`boundaries`]) and the CPython-free encoders between UTF-8 and CPython's
//! string layouts ([`transcode`]).

pub mod boundaries;
pub mod offsets;
pub mod rules;
pub mod transcode;

pub use offsets::{CharIndex, CharOffsets};
