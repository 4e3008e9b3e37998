//! Code points: byte offsets of a `&str` converted to Python's string indexes (counting
//! characters as a token counter, `length="chars"`, stands on these in
//! `crate::tokenizer::chars`).
//!
//! The chunkers work on UTF-8 and report byte offsets; Python indexes a `str` by code point.
//! [`CharOffsets`] converts offsets asked in order with one forward walk, [`CharIndex`] any
//! order in constant time; the splitters' results are converted once per call with them.

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

/// The byte ranges of code-point `spans` of `text`, the reverse of [`CharOffsets`] (one forward walk while the spans are in
/// order; a span behind the walk restarts it), or the message naming the first bad span.
pub fn byte_ranges(text: &str, spans: &[(usize, usize)]) -> Result<Vec<(usize, usize)>, String> {
    let bytes = text.as_bytes();
    let (mut byte, mut chars) = (0usize, 0usize);
    let mut to_byte = |want: usize| -> Option<usize> {
        if want < chars {
            (byte, chars) = (0, 0);
        }
        while chars < want {
            if byte >= bytes.len() {
                return None;
            }
            byte += 1;
            while byte < bytes.len() && (bytes[byte] as i8) < -0x40 {
                byte += 1;
            }
            chars += 1;
        }
        Some(byte)
    };
    let mut out = Vec::with_capacity(spans.len());
    for (i, &(s, e)) in spans.iter().enumerate() {
        let bad = || format!("spans[{i}] = ({s}, {e}) is not a span of the text");
        if s > e {
            return Err(bad());
        }
        let start = to_byte(s).ok_or_else(bad)?;
        let end = to_byte(e).ok_or_else(bad)?;
        out.push((start, end));
    }
    Ok(out)
}

/// Bytes per block of [`CharIndex`].
pub(crate) const BLOCK: usize = 64;

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
    pub(crate) text: &'a str,
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

#[cfg(test)]
mod tests {
    #[test]
    fn byte_ranges_of_code_point_spans() {
        let text = "aé中🙂b";
        let ranges = super::byte_ranges(text, &[(0, 1), (1, 3), (3, 5), (2, 2), (0, 5)]).unwrap();
        assert_eq!(ranges, vec![(0, 1), (1, 6), (6, 11), (3, 3), (0, 11)]);
        for ((s, e), (bs, be)) in [(1, 3), (3, 5)].iter().zip(&ranges[1..3]) {
            let want: String = text.chars().skip(*s).take(e - s).collect();
            assert_eq!(&text[*bs..*be], want);
        }
        assert_eq!(super::byte_ranges("", &[(0, 0)]).unwrap(), vec![(0, 0)]);
        let err = super::byte_ranges(text, &[(0, 1), (2, 6)]).unwrap_err();
        assert!(err.contains("spans[1] = (2, 6)"), "{err}");
        assert!(super::byte_ranges(text, &[(3, 2)])
            .unwrap_err()
            .contains("spans[0]"));
    }

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
        }
    }
}
