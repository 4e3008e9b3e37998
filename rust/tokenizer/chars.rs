//! Counting characters as a [`TokenCounter`] (`length="chars"`): every character (Unicode
//! scalar value, i.e. Python code point) is one unit.

use std::cell::Cell;
use std::convert::Infallible;

use super::TokenCounter;
use crate::text::offsets::BLOCK;
use crate::text::CharIndex;

/// Counts characters (Unicode scalar values, i.e. Python code points): `length="chars"`.
#[derive(Debug, Clone, Copy, Default)]
pub struct CharCount;

impl TokenCounter for CharCount {
    type Error = Infallible;

    fn count(&self, text: &str) -> Result<usize, Infallible> {
        Ok(text.chars().count())
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
    fn indexed_counts_equal_walking() {
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
