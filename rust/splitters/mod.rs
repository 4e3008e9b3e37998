//! General-purpose chunkers (character/token windows, recursive, sentences, structure-aware).
//!
//! Conventions shared by every splitter here:
//! * a splitter works on `&str` and reports chunks as [`Span`]s: **byte** ranges into the
//!   source plus the chunk's size; the bindings convert byte offsets to Python's code-point
//!   offsets once per call with [`CharOffsets`];
//! * sizes come from a [`crate::counter::TokenCounter`]: a built-in tokenizer, a Python
//!   callback, or [`CharCount`] for `length="chars"`;
//! * a splitter never panics on any input and never drops text it does not document dropping.

pub mod character;
#[cfg(feature = "code")]
pub mod code;
pub mod markdown;
pub mod recursive;
pub mod sentence;
pub mod title_tree;
pub mod token_window;

use std::convert::Infallible;

use crate::counter::TokenCounter;

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

/// Counts characters (Unicode scalar values, i.e. Python code points): `length="chars"`.
#[derive(Debug, Clone, Copy, Default)]
pub struct CharCount;

impl TokenCounter for CharCount {
    type Error = Infallible;

    fn count(&self, text: &str) -> Result<usize, Infallible> {
        Ok(text.chars().count())
    }
}

/// Converts byte offsets into code-point offsets in one forward pass over the text.
///
/// Queries in non-decreasing order cost O(distance walked); a query behind the cursor
/// restarts from the beginning (still correct, just slower), so callers should ask in order.
#[derive(Debug)]
pub struct CharOffsets<'a> {
    text: &'a str,
    byte: usize,
    chars: usize,
}

impl<'a> CharOffsets<'a> {
    /// A converter for `text`.
    pub fn new(text: &'a str) -> Self {
        CharOffsets {
            text,
            byte: 0,
            chars: 0,
        }
    }

    /// The code-point offset of byte offset `byte` (clamped to the text's length; a byte
    /// offset inside a character counts the characters that start before it).
    pub fn char_offset(&mut self, byte: usize) -> usize {
        let byte = byte.min(self.text.len());
        if byte < self.byte {
            self.byte = 0;
            self.chars = 0;
        }
        let walked = &self.text.as_bytes()[self.byte..byte];
        // A code point starts at every byte that is not a UTF-8 continuation byte.
        self.chars += walked.iter().filter(|&&b| (b as i8) >= -0x40).count();
        self.byte = byte;
        self.chars
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_offsets_walk_forward_and_restart() {
        let text = "aé中🦀b";
        let mut conv = CharOffsets::new(text);
        let bytes: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        for (chars, &b) in bytes.iter().enumerate() {
            assert_eq!(conv.char_offset(b), chars);
        }
        assert_eq!(conv.char_offset(text.len()), 5);
        assert_eq!(conv.char_offset(1), 1); // behind the cursor: restarts
        assert_eq!(conv.char_offset(usize::MAX), 5);
    }

    #[test]
    fn char_count() {
        assert_eq!(CharCount.count("aé中🦀").unwrap(), 4);
    }
}
