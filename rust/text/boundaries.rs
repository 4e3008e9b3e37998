//! Boundary classes: which characters count as whitespace and which end a sentence, for
//! every chunker, in one place.
//!
//! There is no single right answer, because the chunkers match peers that disagree: Rust's
//! `char::is_whitespace` (Unicode `White_Space`) and Python's `str.isspace` differ on
//! U+001C–U+001F, LangChain-compatible splitting strips what `str.strip()` strips, HTML
//! collapses only its five ASCII spaces, CommonMark knows spaces and tabs. So each set is
//! named after the rule it reproduces. The sets are the `chars.*` records of the data file
//! both backends read ([`crate::text::rules`], which says whose rule each is); none is
//! spelled out in code or borrowed from a library whose tables could change with its
//! Unicode version, so the pure-Python fallback cuts at exactly the same characters.
//!
//! Each set is built once, on first use ([`boundaries`]), into a [`CharSet`]: a 128-bit
//! bitmap for ASCII and a short sorted list of ranges for the rest, so a membership test in
//! a hot loop is a shift and a mask for ASCII and a few comparisons otherwise. Hot loops copy
//! the sets they need out of `boundaries()` once, before the loop (a [`CharSet`] is `Copy`).

use std::sync::LazyLock;

use super::rules::rules;

/// A set of characters, built for fast membership tests (see the module docs).
///
/// It is `Copy` (its ranges live for the process), so a hot loop can hold a copy of it in
/// registers rather than reload it through a reference the compiler cannot prove unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CharSet {
    /// The 128-bit ASCII bitmap: bit `b % 64` of word `b / 64` set when ASCII `b` is in the
    /// set (two words rather than a `u128`, so a test is one load, shift and mask).
    ascii: [u64; 2],
    /// The non-ASCII members as disjoint, non-adjacent inclusive ranges, ascending.
    ranges: &'static [(u32, u32)],
    /// The smallest member and the distance from it to the largest (`u32::MAX` and 0 for the
    /// empty set): most characters are outside that span (letters for a whitespace set, CJK
    /// text for most sets), and are rejected with one comparison.
    lo: u32,
    span: u32,
}

impl CharSet {
    /// The set of `chars` (in any order; repeats are harmless). Its ranges are leaked: build
    /// sets once, for the life of the process ([`boundaries`]).
    pub fn new(chars: &[char]) -> CharSet {
        let mut ascii = [0u64; 2];
        let mut wide: Vec<u32> = Vec::new();
        for &c in chars {
            if c.is_ascii() {
                let b = c as usize;
                ascii[b / 64] |= 1 << (b % 64);
            } else {
                wide.push(c as u32);
            }
        }
        wide.sort_unstable();
        wide.dedup();
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        for cp in wide {
            match ranges.last_mut() {
                Some((_, hi)) if *hi + 1 == cp => *hi = cp,
                _ => ranges.push((cp, cp)),
            }
        }
        let lo = chars.iter().map(|&c| c as u32).min();
        let hi = chars.iter().map(|&c| c as u32).max();
        let (lo, span) = match (lo, hi) {
            (Some(lo), Some(hi)) => (lo, hi - lo),
            _ => (u32::MAX, 0),
        };
        CharSet {
            ascii,
            ranges: Box::leak(ranges.into_boxed_slice()),
            lo,
            span,
        }
    }

    /// Whether `c` is in the set.
    #[inline]
    pub fn contains(&self, c: char) -> bool {
        let cp = c as u32;
        // Outside `lo..=lo + span` (below `lo` wraps around to large): not a member.
        if cp.wrapping_sub(self.lo) > self.span {
            return false;
        }
        if cp < 128 {
            return self.ascii_bit(cp as usize);
        }
        self.wide_contains(cp)
    }

    /// Whether the byte `b` is an ASCII member (a non-ASCII byte never is).
    #[inline]
    pub fn contains_byte(&self, b: u8) -> bool {
        b < 128 && self.ascii_bit(b as usize)
    }

    #[inline]
    fn ascii_bit(&self, b: usize) -> bool {
        (self.ascii[b / 64] >> (b % 64)) & 1 != 0
    }

    /// Whether the set holds only ASCII characters.
    pub fn is_ascii(&self) -> bool {
        self.ranges.is_empty()
    }

    #[inline]
    fn wide_contains(&self, cp: u32) -> bool {
        // The ranges are few (at most a dozen), so a scan that stops early beats a search.
        for &(lo, hi) in self.ranges {
            if cp < lo {
                return false;
            }
            if cp <= hi {
                return true;
            }
        }
        false
    }

    /// The union of two sets.
    pub fn union(&self, other: &CharSet) -> CharSet {
        let mut chars: Vec<char> = self.chars().collect();
        chars.extend(other.chars());
        CharSet::new(&chars)
    }

    /// The members, ascending.
    pub fn chars(&self) -> impl Iterator<Item = char> + '_ {
        let ascii = (0u32..128).filter(|&b| self.ascii_bit(b as usize));
        let wide = self.ranges.iter().flat_map(|&(lo, hi)| lo..=hi);
        ascii.chain(wide).filter_map(char::from_u32)
    }
}

/// Every boundary set, built from the data file's `chars.*` records (each field names its
/// record; the record's comment in the data file says where and why it is used).
#[derive(Debug)]
pub struct Boundaries {
    /// `chars.whitespace.hard_cap`: Unicode `White_Space` (Rust's `char::is_whitespace`),
    /// HARD_CAP's word and sentence boundaries.
    pub hard_cap_space: CharSet,
    /// `chars.whitespace.langchain`: Python's `str.isspace` (`White_Space` plus
    /// U+001C..U+001F), what the LangChain-compatible splitters (recursive, sentence) strip.
    pub langchain_space: CharSet,
    /// `chars.whitespace.packer`: the packer's sentence and word cuts (Markdown, HTML, code
    /// and title-tree chunks).
    pub packer_space: CharSet,
    /// `chars.whitespace.html`: WHATWG's ASCII whitespace, what the HTML layout collapses.
    pub html_space: CharSet,
    /// `chars.whitespace.code`: C's `isspace` (ASCII), what the code splitter trims around
    /// the text between nodes (compared as bytes: [`CharSet::contains_byte`]).
    pub code_space: CharSet,
    /// `chars.terminators.ascii` (`.!?`): the packer's and HARD_CAP's terminators that end a
    /// sentence only where whitespace follows.
    pub ascii_terminators: CharSet,
    /// `chars.terminators.packer_cjk`: the packer's terminators that always end a sentence.
    pub packer_cjk_terminators: CharSet,
    /// `chars.terminators.hard_cap_cjk`: HARD_CAP's terminators that always end a sentence.
    pub hard_cap_cjk_terminators: CharSet,
    /// HARD_CAP's terminators: `ascii_terminators` and `hard_cap_cjk_terminators`.
    pub hard_cap_terminators: CharSet,
    /// `chars.terminators.sentence_latin`: the sentence splitter's Latin terminators (they
    /// end a sentence before whitespace).
    pub sentence_latin_terminators: CharSet,
    /// `chars.terminators.sentence_cjk`: the sentence splitter's CJK terminators (no space
    /// needed after them).
    pub sentence_cjk_terminators: CharSet,
    /// The sentence splitter's terminators: its Latin and CJK ones.
    pub sentence_terminators: CharSet,
    /// `chars.terminators.flow`: where RAGFlow's ingestion pipeline cuts sentences (with
    /// `". "`, which is code).
    pub flow_terminators: CharSet,
    /// `chars.closers.sentence`: closing quotes and brackets a terminator run takes along.
    pub sentence_closers: CharSet,
    /// `chars.openers.sentence`: opening quotes and brackets before an abbreviation.
    pub sentence_openers: CharSet,
}

impl Boundaries {
    /// Builds every set from the shipped data file.
    ///
    /// # Panics
    /// If `chars.whitespace.code` holds a non-ASCII character (the loader rejects that, so
    /// never).
    fn load() -> Boundaries {
        let r = rules();
        let set = |key: &str| CharSet::new(r.chars(key));
        let ascii_terminators = set("chars.terminators.ascii");
        let hard_cap_cjk_terminators = set("chars.terminators.hard_cap_cjk");
        let sentence_latin_terminators = set("chars.terminators.sentence_latin");
        let sentence_cjk_terminators = set("chars.terminators.sentence_cjk");
        let code_space = set("chars.whitespace.code");
        assert!(code_space.is_ascii(), "chars.whitespace.code must be ASCII");
        Boundaries {
            hard_cap_space: set("chars.whitespace.hard_cap"),
            langchain_space: set("chars.whitespace.langchain"),
            packer_space: set("chars.whitespace.packer"),
            html_space: set("chars.whitespace.html"),
            code_space,
            packer_cjk_terminators: set("chars.terminators.packer_cjk"),
            hard_cap_terminators: ascii_terminators.union(&hard_cap_cjk_terminators),
            ascii_terminators,
            hard_cap_cjk_terminators,
            sentence_terminators: sentence_latin_terminators.union(&sentence_cjk_terminators),
            sentence_latin_terminators,
            sentence_cjk_terminators,
            flow_terminators: set("chars.terminators.flow"),
            sentence_closers: set("chars.closers.sentence"),
            sentence_openers: set("chars.openers.sentence"),
        }
    }

    /// Each data-file set by its record's key, in [`super::rules::CHAR_KEYS`] order (the
    /// unions, which are not records, left out).
    pub fn by_key(&self) -> [(&'static str, &CharSet); 13] {
        [
            ("chars.whitespace.hard_cap", &self.hard_cap_space),
            ("chars.whitespace.langchain", &self.langchain_space),
            ("chars.whitespace.packer", &self.packer_space),
            ("chars.whitespace.html", &self.html_space),
            ("chars.whitespace.code", &self.code_space),
            ("chars.terminators.ascii", &self.ascii_terminators),
            ("chars.terminators.packer_cjk", &self.packer_cjk_terminators),
            (
                "chars.terminators.hard_cap_cjk",
                &self.hard_cap_cjk_terminators,
            ),
            (
                "chars.terminators.sentence_latin",
                &self.sentence_latin_terminators,
            ),
            (
                "chars.terminators.sentence_cjk",
                &self.sentence_cjk_terminators,
            ),
            ("chars.terminators.flow", &self.flow_terminators),
            ("chars.closers.sentence", &self.sentence_closers),
            ("chars.openers.sentence", &self.sentence_openers),
        ]
    }
}

/// The boundary sets, built from the shipped data file on first use and kept for the life of
/// the process.
pub fn boundaries() -> &'static Boundaries {
    static SETS: LazyLock<Boundaries> = LazyLock::new(Boundaries::load);
    &SETS
}

/// `text.strip()` (Python) as a byte sub-range of `text`: `chars.whitespace.langchain`
/// trimmed from both ends.
pub fn py_strip(text: &str) -> (usize, usize) {
    let ws = boundaries().langchain_space;
    let trimmed_start = text.len() - text.trim_start_matches(|c| ws.contains(c)).len();
    let end = text.trim_end_matches(|c| ws.contains(c)).len();
    if end <= trimmed_start {
        (trimmed_start, trimmed_start)
    } else {
        (trimmed_start, end)
    }
}

/// CommonMark's "space or tab", the only whitespace its block structure looks at. Not a data
/// file set: it is CommonMark syntax, tied to the tab-stop rule of the Markdown scanner's
/// indentation (`splitters::lines`), like the list markers.
#[inline]
pub fn is_markdown_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// CommonMark's blank line: nothing but spaces and tabs.
#[inline]
pub fn is_blank_line(line: &[u8]) -> bool {
    line.iter().all(|&c| is_markdown_space(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::rules::CHAR_KEYS;

    fn all_chars() -> impl Iterator<Item = char> {
        (0..=0x10ffff).filter_map(char::from_u32)
    }

    #[test]
    fn strip_is_pythons() {
        assert_eq!(py_strip("\u{1c} a \u{3000}"), (2, 3));
        assert_eq!(py_strip("  "), (2, 2));
        assert_eq!(py_strip("\u{200b}a\u{85}"), (0, 4)); // ZERO WIDTH SPACE is not whitespace
    }

    #[test]
    fn every_set_is_its_record() {
        let b = boundaries();
        let keys: Vec<&str> = b.by_key().iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, CHAR_KEYS);
        for (key, set) in b.by_key() {
            let mut want: Vec<char> = rules().chars(key).to_vec();
            want.sort_unstable();
            let got: Vec<char> = set.chars().collect();
            assert_eq!(got, want, "{key}");
            let tested: Vec<char> = all_chars().filter(|&c| set.contains(c)).collect();
            assert_eq!(tested, want, "{key}");
            for byte in 0..=255u8 {
                let want = byte.is_ascii() && set.contains(byte as char);
                assert_eq!(set.contains_byte(byte), want, "{key} {byte}");
            }
        }
    }

    #[test]
    fn char_set_builds_ranges() {
        let s = CharSet::new(&[
            'b', 'a', '\u{3000}', '\u{2001}', '\u{2000}', '\u{2002}', 'a',
        ]);
        assert_eq!(s.ranges[..], [(0x2000, 0x2002), (0x3000, 0x3000)]);
        assert_eq!((s.lo, s.span), ('a' as u32, 0x3000 - 'a' as u32));
        assert!(s.contains('a') && s.contains('\u{2001}') && s.contains('\u{3000}'));
        assert!(!s.contains('c') && !s.contains('\u{2003}') && !s.contains('\u{4e00}'));
        assert!(!s.contains('\u{7f}') && !s.contains('\u{80}') && !s.contains('\u{10ffff}'));
        assert!(!s.is_ascii() && CharSet::new(&['x']).is_ascii());
        let empty = CharSet::new(&[]);
        assert!(all_chars().all(|c| !empty.contains(c)));
        let edges = CharSet::new(&['\u{0}', '\u{7f}', '\u{80}', '\u{10ffff}']);
        assert_eq!((edges.lo, edges.span), (0, 0x10ffff));
        let got: Vec<char> = all_chars().filter(|&c| edges.contains(c)).collect();
        assert_eq!(got, ['\u{0}', '\u{7f}', '\u{80}', '\u{10ffff}']);
        assert_eq!(s.union(&edges).chars().count(), 10);
        let wide = CharSet::new(&['\u{3000}', '\u{2000}']);
        let got: Vec<char> = all_chars().filter(|&c| wide.contains(c)).collect();
        assert_eq!(got, ['\u{2000}', '\u{3000}']);
    }

    #[test]
    fn hard_cap_space_is_rusts_and_langchain_space_adds_four() {
        let b = boundaries();
        for c in all_chars() {
            assert_eq!(b.hard_cap_space.contains(c), c.is_whitespace(), "{c:?}");
            let separators = ('\u{1c}'..='\u{1f}').contains(&c);
            let py = b.hard_cap_space.contains(c) || separators;
            assert_eq!(b.langchain_space.contains(c), py, "{c:?}");
        }
    }

    #[test]
    fn the_smaller_sets_are_subsets_and_the_unions_are_unions() {
        let b = boundaries();
        for c in all_chars() {
            if b.packer_space.contains(c) || b.html_space.contains(c) {
                assert!(b.hard_cap_space.contains(c), "{c:?}");
            }
            if b.code_space.contains(c) {
                assert!(c.is_ascii() && b.langchain_space.contains(c), "{c:?}");
            }
            let hard_cap =
                b.ascii_terminators.contains(c) || b.hard_cap_cjk_terminators.contains(c);
            assert_eq!(b.hard_cap_terminators.contains(c), hard_cap, "{c:?}");
            let sentence =
                b.sentence_latin_terminators.contains(c) || b.sentence_cjk_terminators.contains(c);
            assert_eq!(b.sentence_terminators.contains(c), sentence, "{c:?}");
            if b.hard_cap_cjk_terminators.contains(c) {
                assert!(b.packer_cjk_terminators.contains(c), "{c:?}");
            }
        }
    }

    #[test]
    fn the_sets_hold_what_the_splitters_were_written_for() {
        let b = boundaries();
        let is = |set: &CharSet, s: &str| {
            let got: String = set.chars().collect();
            let mut want: Vec<char> = s.chars().collect();
            want.sort_unstable();
            assert_eq!(got, want.into_iter().collect::<String>());
        };
        is(&b.packer_space, " \t\n\r\u{b}\u{c}\u{a0}\u{3000}");
        is(&b.html_space, " \t\n\r\u{c}");
        is(&b.code_space, " \t\n\r\u{b}\u{c}");
        is(&b.ascii_terminators, ".!?");
        is(&b.packer_cjk_terminators, "。！？；");
        is(&b.hard_cap_cjk_terminators, "。！？");
        is(&b.sentence_latin_terminators, ".!?…‼⁇⁈⁉");
        is(&b.sentence_cjk_terminators, "。｡！？；．︒﹒﹖﹗");
        is(&b.flow_terminators, "。!?？；！\n");
        is(&b.sentence_closers, "\"'”’»›)]}」』）】〕〉》］｝〗");
        is(&b.sentence_openers, "\"'“‘«‹([{「『（【");
    }
}
