//! [`DelimiterSplitter`]: Python's `re.split` over an alternation of literal delimiters,
//! without a regex engine (aho-corasick's `LeftmostFirst` is exactly the alternation's
//! semantics), with a SIMD fast path for RAGFlow's default single-character delimiters.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::{
    __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

/// One element of a split: a stretch of text between delimiters, or a delimiter occurrence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'t> {
    /// Text between two delimiter occurrences (may be empty).
    Text(&'t str),
    /// The delimiter occurrence itself, as it appears in the text.
    Delimiter(&'t str),
}

impl<'t> Piece<'t> {
    /// The piece's text, whichever kind it is.
    pub fn as_str(&self) -> &'t str {
        match *self {
            Piece::Text(s) | Piece::Delimiter(s) => s,
        }
    }
}

/// How a [`DelimiterSplitter`] finds delimiter occurrences.
#[derive(Debug, Clone)]
enum Matcher {
    /// No delimiters: the text is never split.
    Nothing,
    /// Every delimiter is one character and their UTF-8 lead bytes are at most three distinct
    /// values: a SIMD scan for the lead bytes ([`LeadHits`]), then a check of the character
    /// found. A lead byte is never a UTF-8 continuation byte, so every hit is a character
    /// boundary. With single characters, "leftmost" is the whole story: two different
    /// characters never both match at one position. `chars` holds each character's UTF-8
    /// bytes, packed little-endian, for a byte compare at each lead-byte hit.
    Chars { lead: Vec<u8>, chars: Vec<Utf8Char> },
    /// The general case: an alternation of literals, leftmost position first, then the first
    /// pattern in priority order (aho-corasick `LeftmostFirst` = Python's regex alternation).
    Automaton(AhoCorasick),
    /// Only if the automaton cannot be built (a delimiter field far beyond aho-corasick's
    /// size limits): try each delimiter in order at each character. Same matches, no panic.
    Ordered(Vec<String>),
}

/// A compiled delimiter set that splits text like Python's
/// `re.split("(" + "|".join(map(re.escape, delims)) + ")", text)`.
///
/// Compile once per call and reuse it for every section.
#[derive(Debug, Clone)]
pub struct DelimiterSplitter {
    matcher: Matcher,
}

impl DelimiterSplitter {
    /// Compiles `delims`, which are tried in the given order at each position (RAGFlow passes
    /// them longest first). Empty strings are ignored, as RAGFlow's pattern builders drop them;
    /// duplicates are harmless.
    pub fn new(delims: &[String]) -> Self {
        let delims: Vec<&str> = delims
            .iter()
            .map(String::as_str)
            .filter(|d| !d.is_empty())
            .collect();
        if delims.is_empty() {
            return DelimiterSplitter {
                matcher: Matcher::Nothing,
            };
        }
        if let Some(m) = Self::char_matcher(&delims) {
            return DelimiterSplitter { matcher: m };
        }
        let matcher = match AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostFirst)
            .build(&delims)
        {
            Ok(ac) => Matcher::Automaton(ac),
            Err(_) => Matcher::Ordered(delims.iter().map(|d| d.to_string()).collect()),
        };
        DelimiterSplitter { matcher }
    }

    fn char_matcher(delims: &[&str]) -> Option<Matcher> {
        let mut chars = Vec::new();
        let mut lead: Vec<u8> = Vec::new();
        for d in delims {
            let mut it = d.chars();
            let c = it.next()?;
            if it.next().is_some() {
                return None;
            }
            let c = Utf8Char::new(c);
            if !chars.contains(&c) {
                chars.push(c);
            }
            let b = d.as_bytes()[0];
            if !lead.contains(&b) {
                lead.push(b);
            }
        }
        if lead.len() > 3 {
            return None;
        }
        Some(Matcher::Chars { lead, chars })
    }

    /// Whether this splitter has no delimiter at all (then [`split`](Self::split) yields the
    /// whole text as one [`Piece::Text`]).
    pub fn is_empty(&self) -> bool {
        matches!(self.matcher, Matcher::Nothing)
    }

    /// Splits `text`: `Text, Delimiter, Text, ..., Text`, always starting and ending with a
    /// (possibly empty) [`Piece::Text`], exactly the list Python's `re.split` with one capture
    /// group returns.
    pub fn split<'s, 't>(&'s self, text: &'t str) -> Split<'s, 't> {
        let matches = match &self.matcher {
            Matcher::Nothing => Matches::Nothing,
            Matcher::Chars { lead, chars } => Matches::Chars {
                text,
                chars,
                hits: LeadHits::new(lead, text.as_bytes()),
            },
            // One FindIter for the whole text: calling `find` per match re-enters the search
            // setup each time and measured up to 1.6x slower on short pieces.
            Matcher::Automaton(ac) => Matches::Automaton(ac.find_iter(text)),
            Matcher::Ordered(delims) => Matches::Ordered {
                text,
                delims,
                from: 0,
            },
        };
        Split {
            text,
            matches,
            pos: 0,
            pending: None,
            done: false,
        }
    }

    /// Calls `f` with each [`Piece::Text`] of [`split`](Self::split), in order (empty ones
    /// included), skipping the delimiters.
    ///
    /// The same pieces as filtering `split`, in one loop: with single-character delimiters
    /// (RAGFlow's default) the scan state then stays in registers, where the nested
    /// `Split`/`Matches` iterators reloaded it at every delimiter, which doubled the cost of
    /// splitting Chinese text.
    pub fn for_each_text<'t>(&self, text: &'t str, mut f: impl FnMut(&'t str)) {
        match &self.matcher {
            Matcher::Chars { lead, chars } => {
                let bytes = text.as_bytes();
                let mut pos = 0;
                for at in LeadHits::new(lead, bytes) {
                    if let Some(len) = Utf8Char::any_at(chars, bytes, at) {
                        f(&text[pos..at]);
                        pos = at + len;
                    }
                }
                f(&text[pos..]);
            }
            _ => {
                for piece in self.split(text) {
                    if let Piece::Text(t) = piece {
                        f(t);
                    }
                }
            }
        }
    }
}

/// The delimiter occurrences of one text, leftmost first, non-overlapping.
enum Matches<'s, 't> {
    Nothing,
    Chars {
        text: &'t str,
        chars: &'s [Utf8Char],
        hits: LeadHits<'t>,
    },
    Automaton(aho_corasick::FindIter<'s, 't>),
    Ordered {
        text: &'t str,
        delims: &'s [String],
        from: usize,
    },
}

impl Iterator for Matches<'_, '_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        match self {
            Matches::Nothing => None,
            Matches::Chars { text, chars, hits } => {
                let bytes = text.as_bytes();
                for at in hits.by_ref() {
                    // `at` is a char boundary: lead bytes are never continuation bytes.
                    if let Some(len) = Utf8Char::any_at(chars, bytes, at) {
                        return Some((at, at + len));
                    }
                }
                None
            }
            Matches::Automaton(it) => it.next().map(|m| (m.start(), m.end())),
            Matches::Ordered { text, delims, from } => {
                let (at, len) = ordered_find(text, delims, *from)?;
                *from = at + len;
                Some((at, at + len))
            }
        }
    }
}

/// One delimiter character as its UTF-8 bytes packed little-endian into a `u32`, so that a
/// candidate position is checked with one mask and compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Utf8Char {
    word: u32,
    mask: u32,
    len: usize,
}

impl Utf8Char {
    fn new(c: char) -> Self {
        let mut buf = [0u8; 4];
        let len = c.encode_utf8(&mut buf).len();
        let mask = u32::MAX >> (8 * (4 - len));
        Utf8Char {
            word: u32::from_le_bytes(buf) & mask,
            mask,
            len,
        }
    }

    /// The (up to) four bytes from `at`, little-endian, zero past the end of `bytes`.
    #[inline]
    fn word_at(bytes: &[u8], at: usize) -> u32 {
        match bytes.get(at..at + 4) {
            Some(w) => u32::from_le_bytes(w.try_into().expect("4 bytes")),
            None => bytes[at..]
                .iter()
                .rev()
                .fold(0, |w, &b| w << 8 | u32::from(b)),
        }
    }

    /// The byte length of the one of `chars` that occurs at byte `at` of `bytes`, if any
    /// (the check at every lead-byte hit).
    #[inline]
    fn any_at(chars: &[Utf8Char], bytes: &[u8], at: usize) -> Option<usize> {
        let word = Self::word_at(bytes, at);
        chars.iter().find(|c| c.is_at(word)).map(|c| c.len)
    }

    /// Whether this character's bytes start the `word` read by [`word_at`](Self::word_at).
    /// (A zero past the end never completes a multi-byte character: its bytes are all
    /// non-zero.)
    #[inline]
    fn is_at(&self, word: u32) -> bool {
        word & self.mask == self.word
    }
}

/// Leftmost occurrence at or after byte `from`, the first delimiter in order winning at a
/// position: the definition the automaton implements, spelled out.
fn ordered_find(text: &str, delims: &[String], from: usize) -> Option<(usize, usize)> {
    text[from..].char_indices().find_map(|(i, _)| {
        let at = from + i;
        delims
            .iter()
            .find(|d| text[at..].starts_with(d.as_str()))
            .map(|d| (at, d.len()))
    })
}

/// Positions of any of up to three lead bytes, in order.
///
/// The text is read 64 bytes at a time into a bit mask of the lead bytes it holds (SSE2 on
/// x86_64: three compares and a movemask per 16 bytes), and each hit is then popped off the
/// mask. The delimiters of real text are dense (Chinese has one every ~30 bytes, and `，`
/// shares `。`'s lead byte), and restarting `memchr3` at every hit cost about 170
/// instructions a hit; popping a bit costs a handful.
struct LeadHits<'t> {
    hay: &'t [u8],
    /// The lead bytes, the last one repeated to fill three places.
    lead: [u8; 3],
    /// Start of the 64-byte block `mask` describes.
    block: usize,
    /// Hits in that block not yet returned, bit `i` for byte `block + i`.
    mask: u64,
}

impl<'t> LeadHits<'t> {
    fn new(lead: &[u8], hay: &'t [u8]) -> Self {
        let last = *lead
            .last()
            .expect("a Chars matcher has at least one delimiter");
        let at = |i: usize| lead.get(i).copied().unwrap_or(last);
        let mut hits = LeadHits {
            hay,
            lead: [at(0), at(1), at(2)],
            block: 0,
            mask: 0,
        };
        hits.mask = hits.block_mask(0);
        hits
    }

    /// The hit mask of the (up to) 64 bytes from `from`.
    #[inline]
    fn block_mask(&self, from: usize) -> u64 {
        match self.hay.get(from..from + 64) {
            Some(block) => lanes64(block.try_into().expect("64 bytes"), self.lead),
            None => {
                let [a, b, c] = self.lead;
                self.hay
                    .get(from..)
                    .unwrap_or_default()
                    .iter()
                    .enumerate()
                    .filter(|&(_, &x)| x == a || x == b || x == c)
                    .fold(0, |m, (i, _)| m | 1 << i)
            }
        }
    }
}

/// Bit `i` set where `block[i]` is one of `lead`.
#[cfg(target_arch = "x86_64")]
#[inline]
fn lanes64(block: &[u8; 64], lead: [u8; 3]) -> u64 {
    // SAFETY: SSE2 is part of the x86_64 baseline, so every target this compiles for has
    // these instructions; each `loadu` reads one 16-byte lane of `block`, in bounds, and
    // has no alignment requirement.
    unsafe {
        let [a, b, c] = lead.map(|x| _mm_set1_epi8(x as i8));
        let mut mask = 0u64;
        for (i, lane) in block.chunks_exact(16).enumerate() {
            let v = _mm_loadu_si128(lane.as_ptr().cast::<__m128i>());
            let hit = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, a), _mm_cmpeq_epi8(v, b)),
                _mm_cmpeq_epi8(v, c),
            );
            mask |= u64::from(_mm_movemask_epi8(hit) as u16) << (16 * i);
        }
        mask
    }
}

/// Bit `i` set where `block[i]` is one of `lead` (portable form).
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn lanes64(block: &[u8; 64], lead: [u8; 3]) -> u64 {
    let [a, b, c] = lead;
    block.iter().enumerate().fold(0, |m, (i, &x)| {
        m | u64::from(x == a || x == b || x == c) << i
    })
}

impl Iterator for LeadHits<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            self.block += 64;
            if self.block >= self.hay.len() {
                return None;
            }
            self.mask = self.block_mask(self.block);
        }
        let i = self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(self.block + i)
    }
}

/// Iterator returned by [`DelimiterSplitter::split`].
pub struct Split<'s, 't> {
    text: &'t str,
    matches: Matches<'s, 't>,
    pos: usize,
    pending: Option<&'t str>,
    done: bool,
}

impl<'t> Iterator for Split<'_, 't> {
    type Item = Piece<'t>;

    fn next(&mut self) -> Option<Piece<'t>> {
        if let Some(d) = self.pending.take() {
            return Some(Piece::Delimiter(d));
        }
        if self.done {
            return None;
        }
        match self.matches.next() {
            Some((s, e)) => {
                let piece = &self.text[self.pos..s];
                self.pending = Some(&self.text[s..e]);
                self.pos = e;
                Some(Piece::Text(piece))
            }
            None => {
                self.done = true;
                Some(Piece::Text(&self.text[self.pos..]))
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(in crate::ragflow::delimiters) fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    fn split_all(delims: &[&str], text: &str) -> Vec<Piece<'static>> {
        let sp = DelimiterSplitter::new(&s(delims));
        sp.split(text)
            .map(|p| match p {
                Piece::Text(t) => Piece::Text(Box::leak(t.to_string().into_boxed_str())),
                Piece::Delimiter(t) => Piece::Delimiter(Box::leak(t.to_string().into_boxed_str())),
            })
            .collect()
    }

    pub(in crate::ragflow::delimiters) fn texts(pieces: &[Piece<'_>]) -> Vec<String> {
        pieces.iter().map(|p| p.as_str().to_string()).collect()
    }

    #[test]
    fn split_shape_matches_re_split() {
        let p = split_all(&["\n"], "a\nb\n");
        assert_eq!(texts(&p), s(&["a", "\n", "b", "\n", ""]));
        assert!(matches!(p[1], Piece::Delimiter(_)));
        assert_eq!(texts(&split_all(&["\n"], "")), s(&[""]));
        assert_eq!(texts(&split_all(&[], "abc")), s(&["abc"]));
        assert_eq!(texts(&split_all(&["a"], "aa")), s(&["", "a", "", "a", ""]));
    }

    #[test]
    fn split_longest_first_priority() {
        assert_eq!(
            texts(&split_all(&["##", "#"], "a###b")),
            s(&["a", "##", "", "#", "b"])
        );
        // priority order, not length, decides (Python alternation)
        assert_eq!(
            texts(&split_all(&["#", "##"], "a##b")),
            s(&["a", "#", "", "#", "b"])
        );
    }

    #[test]
    fn split_metacharacters_literal() {
        assert_eq!(
            texts(&split_all(&[".", "|", "*"], "a.b|c*d")),
            s(&["a", ".", "b", "|", "c", "*", "d"])
        );
        assert_eq!(
            texts(&split_all(&["\\d+"], "1\\d+2")),
            s(&["1", "\\d+", "2"])
        );
        assert_eq!(
            texts(&split_all(&["(a|b)"], "x(a|b)ya")),
            s(&["x", "(a|b)", "ya"])
        );
    }

    #[test]
    fn char_fast_path_agrees_with_automaton() {
        let delims = s(&["\n", "。", "；", "！", "？"]);
        let fast = DelimiterSplitter::new(&delims);
        assert!(matches!(fast.matcher, Matcher::Chars { .. }));
        let ac = DelimiterSplitter {
            matcher: Matcher::Automaton(
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::LeftmostFirst)
                    .build(&delims)
                    .unwrap(),
            ),
        };
        let text = "日本語。テキスト；ok！\n？ああ。。e\u{3000}\u{301c}end";
        let a: Vec<_> = fast.split(text).collect();
        let b: Vec<_> = ac.split(text).collect();
        assert_eq!(a, b);
        assert_eq!(a.len(), 15); // 7 delimiters
    }

    /// Texts of every length across several 64-byte blocks, built from delimiters, their
    /// lead-byte lookalikes (`，` and `、` share lead bytes with `；` and `。`), ASCII and other
    /// multi-byte characters, so hits land on every lane and block boundary.
    fn block_texts() -> Vec<String> {
        const ALPHABET: &[&str] = &[
            "\n", "。", "；", "！", "？", "，", "、", "「", "a", "b", " ", "中", "é", "😀", "\r",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut out = Vec::new();
        for len in 0..200 {
            for _ in 0..4 {
                let mut t = String::new();
                while t.len() < len {
                    t.push_str(ALPHABET[next() as usize % ALPHABET.len()]);
                }
                out.push(t);
            }
        }
        out
    }

    #[test]
    fn lead_hits_are_every_lead_byte_in_order() {
        for lead in [&b"\n"[..], b"\n\xe3", b"\n\xe3\xef"] {
            for text in block_texts() {
                let hay = text.as_bytes();
                let want: Vec<usize> = (0..hay.len()).filter(|&i| lead.contains(&hay[i])).collect();
                let got: Vec<usize> = LeadHits::new(lead, hay).collect();
                assert_eq!(got, want, "{lead:?} {text:?}");
            }
        }
    }

    #[test]
    fn for_each_text_is_split_without_delimiters() {
        for delims in [
            &["\n", "。", "；", "！", "？"][..],
            &["\n"],
            &["。", "a"],
            &["😀", "\n", "é"],
            &["\n\n", "。"], // not single characters: the automaton path
        ] {
            let sp = DelimiterSplitter::new(&s(delims));
            for text in block_texts() {
                let want: Vec<&str> = sp
                    .split(&text)
                    .filter_map(|p| match p {
                        Piece::Text(t) => Some(t),
                        Piece::Delimiter(_) => None,
                    })
                    .collect();
                let mut got = Vec::new();
                sp.for_each_text(&text, |t| got.push(t));
                assert_eq!(got, want, "{delims:?} {text:?}");
            }
        }
    }

    #[test]
    fn ordered_fallback_agrees_with_automaton() {
        let delims = s(&["abc", "ab", "b", "🚀", "\n"]);
        let ac = DelimiterSplitter::new(&delims);
        assert!(matches!(ac.matcher, Matcher::Automaton(_)));
        let ordered = DelimiterSplitter {
            matcher: Matcher::Ordered(delims.clone()),
        };
        for text in ["", "abcab b🚀\nxab", "aabcc🚀🚀", "é\n\nabbc"] {
            let a: Vec<_> = ac.split(text).collect();
            let b: Vec<_> = ordered.split(text).collect();
            assert_eq!(a, b, "{text:?}");
        }
    }
}
