//! General-purpose chunkers (character/token windows, recursive, sentences, structure-aware).
//!
//! Conventions shared by every splitter here:
//! * a splitter works on `&str` and reports chunks as [`Span`]s: **byte** ranges into the
//!   source plus the chunk's size. Each splitter also offers its result in Python's
//!   code-point offsets, converted once per call ([`spans_in_chars`], and the splitters' own
//!   `in_chars` / `*_chars` functions, over [`crate::text::offsets`]), so that the bindings
//!   only convert types;
//! * sizes come from a [`crate::tokenizer::TokenCounter`]: a built-in tokenizer, a Python
//!   callback, or [`crate::tokenizer::CharCount`] for `length="chars"`;
//! * a splitter never panics on any input and never drops text it does not document dropping.
//!
//! The structure-aware splitters (Markdown, HTML, code, title tree) share one packer
//! ([`packer`]): sections at headings, whole blocks packed greedily, an oversized unit cut at
//! lines, sentences, whitespace, then characters.

pub mod character;
pub mod chonkie;
#[cfg(feature = "code")]
pub mod code;
pub mod html;
pub mod html_depth;
pub mod langchain_tokens;
pub mod lines;
pub mod llama_index;
pub mod markdown;
pub mod packer;
pub mod recursive;
pub mod sentence;
pub mod title_layout;
pub mod title_tree;
pub mod token_window;

#[cfg(test)]
mod proptests;

use crate::text::CharIndex;

/// One chunk: `source[start..end]` (byte offsets on char boundaries) and its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
    /// The chunk's size in the splitter's unit (tokens or characters).
    pub size: usize,
}

/// `spans` of `text` with code-point offsets instead of byte offsets (one pass over the text,
/// [`CharIndex`]); sizes unchanged. What the bindings hand to Python.
pub fn spans_in_chars(text: &str, mut spans: Vec<Span>) -> Vec<Span> {
    let index = CharIndex::new(text);
    for s in &mut spans {
        s.start = index.char_offset(s.start);
        s.end = index.char_offset(s.end);
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_in_chars_counts_code_points() {
        let text = "aé中🦀b";
        let spans = vec![
            Span {
                start: 0,
                end: 3,
                size: 2,
            },
            Span {
                start: 3,
                end: 11,
                size: 3,
            },
        ];
        let got = spans_in_chars(text, spans);
        assert_eq!(
            got[0],
            Span {
                start: 0,
                end: 2,
                size: 2
            }
        );
        assert_eq!(
            got[1],
            Span {
                start: 2,
                end: 5,
                size: 3
            }
        );
    }
}
