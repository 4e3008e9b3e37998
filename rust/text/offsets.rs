//! Code points: byte offsets of a `&str` converted to Python's string indexes, and counting
//! characters as a [`TokenCounter`] (`length="chars"`).
//!
//! The chunkers work on UTF-8 and report byte offsets; Python indexes a `str` by code point.
//! [`CharOffsets`] converts offsets asked in order with one forward walk, [`CharIndex`] any
//! order in constant time; the splitters' results are converted once per call with them.

use std::cell::Cell;
use std::convert::Infallible;

use crate::tokenizer::TokenCounter;

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

/// Bytes per block of [`CharIndex`].
const BLOCK: usize = 64;

/// Number of code points that start in `bytes` (bytes that are not UTF-8 continuation
/// bytes); `bytes` holds at most [`BLOCK`] bytes. A `u8` accumulator lets the loop vectorise
/// (a `usize` one widens every lane and ran at ~4 instructions a byte).
#[inline]
fn char_starts(bytes: &[u8]) -> usize {
    debug_assert!(bytes.len() <= BLOCK);
    let mut n = 0u8;
    for &b in bytes {
        n = n.wrapping_add(u8::from((b as i8) >= -0x40));
    }
    n as usize
}

/// Byte -> code-point offsets of one text in any order, in constant time per query.
///
/// Built in one pass: the number of characters before every 64-byte block. A query adds the
/// characters that start between its block's first byte and the offset (fewer than 64 bytes
/// to look at). An ASCII text needs no table (code points are bytes). This replaces walking
/// the text once per offset kind and once more per measured piece: a recursive split in
/// characters measures every piece of every level, and each is now two lookups.
#[derive(Debug)]
pub struct CharIndex<'a> {
    text: &'a str,
    /// `blocks[k]`: characters that start before byte `k * BLOCK`; empty for an ASCII text.
    blocks: Vec<usize>,
}

impl<'a> CharIndex<'a> {
    /// The index of `text` (one pass over its bytes).
    pub fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let mut blocks = Vec::with_capacity(bytes.len() / BLOCK + 1);
        let mut total = 0usize;
        let mut chunks = bytes.chunks_exact(BLOCK);
        for block in &mut chunks {
            blocks.push(total);
            total += char_starts(block);
        }
        blocks.push(total);
        total += char_starts(chunks.remainder());
        if total == bytes.len() {
            blocks = Vec::new();
        }
        CharIndex { text, blocks }
    }

    /// The text indexed.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The code-point offset of byte offset `byte` (clamped to the text's length; a byte
    /// offset inside a character counts the characters that start before it, as
    /// [`CharOffsets::char_offset`] does).
    #[inline]
    pub fn char_offset(&self, byte: usize) -> usize {
        let byte = byte.min(self.text.len());
        if self.blocks.is_empty() {
            return byte;
        }
        let k = byte / BLOCK;
        let before = self.blocks.get(k).copied().unwrap_or_default();
        before
            + char_starts(
                self.text
                    .as_bytes()
                    .get(k * BLOCK..byte)
                    .unwrap_or_default(),
            )
    }
}

/// [`CharCount`] that measures the indexed text's own slices with two [`CharIndex`] lookups
/// instead of walking them; any other string (a re-joined chunk, a separator) is counted by
/// walking it, so counts are always `chars().count()`. The last lookup is remembered: pieces
/// measured in order share their edges, so a run of contiguous pieces costs one lookup each.
#[derive(Debug)]
pub struct IndexedCharCount<'a> {
    index: &'a CharIndex<'a>,
    last: Cell<(usize, usize)>,
}

impl<'a> IndexedCharCount<'a> {
    /// A counter for slices of `index`'s text.
    pub fn new(index: &'a CharIndex<'a>) -> Self {
        IndexedCharCount {
            index,
            last: Cell::new((0, 0)),
        }
    }

    #[inline]
    fn char_offset(&self, byte: usize) -> usize {
        let (b, c) = self.last.get();
        if b == byte {
            return c;
        }
        let c = self.index.char_offset(byte);
        self.last.set((byte, c));
        c
    }
}

/// Below this many bytes walking a slice is as cheap as two lookups.
const WALK_BELOW: usize = 2 * BLOCK;

impl TokenCounter for IndexedCharCount<'_> {
    type Error = Infallible;

    #[inline]
    fn count(&self, text: &str) -> Result<usize, Infallible> {
        let index = self.index;
        let base = index.text.as_ptr() as usize;
        let at = text.as_ptr() as usize;
        if text.len() >= WALK_BELOW && at >= base && at - base + text.len() <= index.text.len() {
            // `text` is `index.text[off..off + len]` (same bytes, same address).
            let off = at - base;
            let start = self.char_offset(off);
            return Ok(self.char_offset(off + text.len()) - start);
        }
        Ok(text.chars().count())
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
    fn char_index_matches_walk() {
        let mut text = String::new();
        for i in 0..300 {
            text.push_str(["a", "é", "中", "🦀", "bc", "\n"][i % 6]);
        }
        for t in [
            text.as_str(),
            "plain ascii text that is long enough to span blocks......",
            "",
        ] {
            let index = CharIndex::new(t);
            let mut walk = CharOffsets::new(t);
            for b in 0..=t.len() + 2 {
                assert_eq!(index.char_offset(b), walk.char_offset(b), "byte {b}");
            }
            let counter = IndexedCharCount::new(&index);
            for (s, e) in [(0, t.len()), (1, t.len()), (0, 0), (3, 200), (130, 400)] {
                let (s, e) = (s.min(t.len()), e.min(t.len()));
                if let Some(piece) = t.get(s..e) {
                    assert_eq!(counter.count(piece).unwrap(), piece.chars().count());
                }
            }
            let other = t.to_owned();
            assert_eq!(counter.count(&other).unwrap(), t.chars().count());
        }
    }

    #[test]
    fn char_count() {
        assert_eq!(CharCount.count("aé中🦀").unwrap(), 4);
    }
}
