//! Character classes used by the pretokenizers, derived from `regex-syntax`.
//!
//! tiktoken splits text with a `fancy-regex` pattern whose `\p{..}` and `\s` classes come from the
//! `regex-syntax` Unicode tables. To be exact we take the very same tables: each class the two
//! patterns use is parsed once with `regex-syntax` into code-point ranges, and folded into one flag
//! byte per code point, stored as a two-level table (256-code-point blocks, deduplicated: ~80 KB).
//! The result is proven against tiktoken by a sweep of every Unicode scalar value (see the report in
//! the module docs of `mod.rs`).

use regex_syntax::hir::{Class, HirKind};
use rustc_hash::FxHashMap;

/// `\s` (Unicode White_Space, as `regex-syntax` defines it).
pub(crate) const WS: u8 = 1;
/// `\p{L}`.
pub(crate) const LETTER: u8 = 2;
/// `\p{N}`.
pub(crate) const NUMBER: u8 = 4;
/// o200k's "upper" class `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`.
pub(crate) const UPPER: u8 = 8;
/// o200k's "lower" class `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`.
pub(crate) const LOWER: u8 = 16;
/// `\r` or `\n`.
pub(crate) const CRLF: u8 = 32;

/// Classes that are neither whitespace, letter nor number: `[^\s\p{L}\p{N}]` is `flags & PUNCT_MASK == 0`.
pub(crate) const PUNCT_MASK: u8 = WS | LETTER | NUMBER;
/// `[^\r\n\p{L}\p{N}]` is `flags & PREFIX_MASK == 0`.
pub(crate) const PREFIX_MASK: u8 = CRLF | LETTER | NUMBER;

const BLOCK_BITS: u32 = 8;
const BLOCK: usize = 1 << BLOCK_BITS;
const N_CODE_POINTS: usize = 0x11_0000;

/// Per-code-point flag bytes plus the case-insensitive equivalents of the contraction letters.
pub(crate) struct Classes {
    ascii: [u8; 128],
    /// Block number of each 256-code-point block.
    index: Vec<u16>,
    /// Deduplicated blocks, `BLOCK` flag bytes each.
    blocks: Vec<u8>,
    /// `folds[b - b'a']`: the code points `(?i:b)` matches, for the ASCII letters used in
    /// contractions (`s d m t l v r e`); e.g. `s` also matches `S` and `ſ` (U+017F).
    folds: [Vec<u32>; 26],
}

/// Code-point ranges of a single-class pattern, from `regex-syntax`.
fn class_ranges(pattern: &str) -> Vec<(u32, u32)> {
    let hir = regex_syntax::parse(pattern).expect("constant class pattern parses");
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => class
            .ranges()
            .iter()
            .map(|r| (r.start() as u32, r.end() as u32))
            .collect(),
        // A one-character class (e.g. `(?i:d)` is just `d`) parses to a literal.
        HirKind::Literal(lit) => std::str::from_utf8(&lit.0)
            .ok()
            .and_then(|s| s.chars().next())
            .map(|c| vec![(c as u32, c as u32)])
            .unwrap_or_default(),
        other => unreachable!("pattern {pattern:?} is not a class: {other:?}"),
    }
}

impl Classes {
    pub(crate) fn build() -> Self {
        let mut full = vec![0u8; N_CODE_POINTS];
        let defs: [(&str, u8); 6] = [
            (r"\s", WS),
            (r"\p{L}", LETTER),
            (r"\p{N}", NUMBER),
            (r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", UPPER),
            (r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]", LOWER),
            (r"[\r\n]", CRLF),
        ];
        for (pattern, flag) in defs {
            for (lo, hi) in class_ranges(pattern) {
                for slot in &mut full[lo as usize..=hi as usize] {
                    *slot |= flag;
                }
            }
        }
        let mut ascii = [0u8; 128];
        ascii.copy_from_slice(&full[..128]);
        let mut seen: FxHashMap<&[u8], u16> = FxHashMap::default();
        let mut index = Vec::with_capacity(N_CODE_POINTS / BLOCK);
        let mut blocks = Vec::new();
        for chunk in full.chunks(BLOCK) {
            let next = seen.len() as u16;
            let id = *seen.entry(chunk).or_insert_with(|| {
                blocks.extend_from_slice(chunk);
                next
            });
            index.push(id);
        }
        let folds = std::array::from_fn(|i| {
            let letter = (b'a' + i as u8) as char;
            if "sdmtlvre".contains(letter) {
                class_ranges(&format!("(?i:{letter})"))
                    .into_iter()
                    .flat_map(|(lo, hi)| lo..=hi)
                    .collect()
            } else {
                Vec::new()
            }
        });
        Classes {
            ascii,
            index,
            blocks,
            folds,
        }
    }

    /// Flags of code point `cp` (any `u32`; out-of-range values get no flags).
    #[inline(always)]
    pub(crate) fn of(&self, cp: u32) -> u8 {
        if cp < 128 {
            return self.ascii[cp as usize];
        }
        let Some(&block) = self.index.get((cp >> BLOCK_BITS) as usize) else {
            return 0;
        };
        let at = block as usize * BLOCK + (cp as usize & (BLOCK - 1));
        self.blocks.get(at).copied().unwrap_or(0)
    }

    /// Whether `cp` matches `(?i:letter)` for an ASCII lowercase contraction letter.
    #[inline]
    pub(crate) fn folds_to(&self, cp: u32, letter: u8) -> bool {
        match self.folds.get(letter.wrapping_sub(b'a') as usize) {
            Some(set) => set.contains(&cp),
            None => false,
        }
    }
}

/// Decodes the code point starting at byte `i` of valid UTF-8 `s`; returns it with its byte length.
/// Never panics: past the end it returns `(0, 1)`, which callers never reach for `i < s.len()`.
#[inline(always)]
pub(crate) fn decode(s: &[u8], i: usize) -> (u32, usize) {
    let b0 = match s.get(i) {
        Some(&b) => b,
        None => return (0, 1),
    };
    if b0 < 0x80 {
        return (b0 as u32, 1);
    }
    let at = |k: usize| (s.get(i + k).copied().unwrap_or(0x80) & 0x3F) as u32;
    if b0 < 0xE0 {
        (((b0 as u32 & 0x1F) << 6) | at(1), 2)
    } else if b0 < 0xF0 {
        (((b0 as u32 & 0x0F) << 12) | (at(1) << 6) | at(2), 3)
    } else {
        (
            ((b0 as u32 & 0x07) << 18) | (at(1) << 12) | (at(2) << 6) | at(3),
            4,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_of_known_characters() {
        let c = Classes::build();
        assert_eq!(c.of('a' as u32), LETTER | LOWER);
        assert_eq!(c.of('A' as u32), LETTER | UPPER);
        assert_eq!(c.of('中' as u32), LETTER | UPPER | LOWER);
        assert_eq!(c.of('7' as u32), NUMBER);
        assert_eq!(c.of('½' as u32), NUMBER);
        assert_eq!(c.of(' ' as u32), WS);
        assert_eq!(c.of('\n' as u32), WS | CRLF);
        assert_eq!(c.of('\u{3000}' as u32), WS);
        assert_eq!(c.of('\u{301}' as u32), UPPER | LOWER); // combining acute: \p{M}
        assert_eq!(c.of('!' as u32), 0);
        assert_eq!(c.of(0x10FFFF), 0);
        assert_eq!(c.of(0x20_0000), 0);
        assert!(c.folds_to('ſ' as u32, b's'));
        assert!(c.folds_to('S' as u32, b's'));
        assert!(!c.folds_to('K' as u32, b's'));
        assert!(c.folds_to('D' as u32, b'd'));
    }

    #[test]
    fn decode_matches_std() {
        let s = "a\u{e9}\u{4e2d}\u{1F600}";
        let b = s.as_bytes();
        let mut i = 0;
        for ch in s.chars() {
            let (cp, len) = decode(b, i);
            assert_eq!((cp, len), (ch as u32, ch.len_utf8()));
            i += len;
        }
    }
}
