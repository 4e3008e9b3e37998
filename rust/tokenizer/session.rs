//! Counting RAGFlow's paragraphs, `"\n" + piece`, without building that string.
//!
//! RAGFlow's `naive_merge` counts every paragraph as `num_tokens_from_string("\n" + piece)`.
//! Copying each piece behind a `"\n"` only to count it cost a `memmove` per paragraph and one
//! more pretokenizer piece; this module counts the piece where it lies and adds the `"\n"`.
//!
//! # Why `count("\n" + p) == 1 + count(p)` when `p` starts with a non-whitespace character
//!
//! Both encodings' regexes (see [`super::pretok`]) are applied left to right, and no branch
//! looks *behind* its match start (no `\b`, no `^`, no lookbehind; `$` is the end of the text).
//! So once a match ends exactly at the `"\n"`/`p` boundary, the matches after it are `p`'s own
//! pieces, as if `p` were counted alone. And the match at the `"\n"` is the `"\n"` alone:
//!
//! * it is no letter, number or contraction, and it cannot be the optional one-character prefix
//!   of a letter run: that prefix is `[^\r\n\p{L}\p{N}]`, which **excludes `\r` and `\n`** (the
//!   quirk this rests on: a space or `"` before a word joins the word, a newline never does);
//! * it is not `[^\s\p{L}\p{N}]` punctuation either, so only the whitespace branches are left,
//!   and the whitespace run starting at it is `"\n"` alone, since `p`'s first character is not
//!   `\s`. cl100k: `\s++$` fails (`p` is not empty), `\s*[\r\n]` matches `"\n"`; o200k:
//!   `\s*[\r\n]+` matches `"\n"`.
//!
//! `"\n"` is one token in both vocabularies, hence `1 + count(p)`. If `p` starts with
//! whitespace (a space, a tab, `\r`, U+00A0, U+3000, ...) the run would include it (e.g.
//! `"\n\n"` and `"\n \n"` are one token each), so those paragraphs, and the empty one,
//! still go through the copy. "Whitespace" is tested conservatively: the `\s` flag of the
//! regex tables **or** Rust's `char::is_whitespace` (both are Unicode White_Space today).
//!
//! Special tokens: no special token's text contains `"\n"`, so `"\n" + p` contains one exactly
//! when `p` does; RAGFlow's count is then 0 (tiktoken refuses the text), not 1.
//!
//! Checked against tiktoken for every Unicode scalar value as the first character (in several
//! contexts) and for every paragraph of the corpus (`tests/ragflow/test_newline_paragraphs.py`).

use super::cache::{self, PieceCache};
use super::unicode::{decode, WS};
use super::Tokenizer;

/// How many paragraphs ahead `naive_merge`'s counting prefetches their memo slots: enough
/// to cover a memory load while the paragraphs before are counted (usually a few hundred
/// nanoseconds each), few enough that the lines are still cached when they are reached.
const PREFETCH_AHEAD: usize = 4;

impl Tokenizer {
    /// Whether `count("\n" + text) == 1 + count(text)` is known to hold: `text` is not empty
    /// and its first character is not whitespace (see the module docs).
    #[inline(always)]
    pub fn newline_stays_alone(&self, text: &str) -> bool {
        if self.external.is_some() {
            return false;
        }
        let s = text.as_bytes();
        match s.first() {
            None => false,
            // ASCII: `\t \n \x0b \x0c \r` and the space are the only `\s` (and the only
            // `is_ascii_whitespace` plus `\x0b`); everything else from `!` up is safe, and
            // so are the other control characters (not White_Space).
            Some(&b) if b < 0x80 => !matches!(b, b'\t'..=b'\r' | b' '),
            Some(_) => {
                let (cp, _) = decode(s, 0);
                let ws = self.classes.of(cp) & WS != 0;
                !ws && !char::from_u32(cp).is_some_and(char::is_whitespace)
            }
        }
    }

    /// `count_ordinary("\n" + text)`, without building the string when
    /// [`newline_stays_alone`](Self::newline_stays_alone); `scratch` holds the copy otherwise.
    pub fn count_ordinary_after_newline(&self, text: &str, scratch: &mut String) -> usize {
        if let Some(ext) = &self.external {
            return ext.count(newline_then(text, scratch));
        }
        cache::with(|cache| self.ordinary_after_newline_in(text, scratch, cache))
    }

    fn ordinary_after_newline_in(
        &self,
        text: &str,
        scratch: &mut String,
        cache: Option<&mut PieceCache>,
    ) -> usize {
        if self.newline_stays_alone(text) {
            1 + self.count_ordinary_in(text, cache)
        } else {
            self.count_ordinary_in(newline_then(text, scratch), cache)
        }
    }

    /// RAGFlow's `num_tokens_from_string("\n" + text)` ([`Tokenizer::count_or_zero`]): 0 if
    /// `text` holds a special token's text, else as
    /// [`count_ordinary_after_newline`](Self::count_ordinary_after_newline).
    pub fn count_or_zero_after_newline(&self, text: &str, scratch: &mut String) -> usize {
        if let Some(ext) = &self.external {
            return ext.count(newline_then(text, scratch));
        }
        cache::with(|cache| self.or_zero_after_newline_in(text, scratch, cache))
    }

    /// [`count_or_zero_after_newline`](Self::count_or_zero_after_newline) of each text, in
    /// order, appended to `out`: what `naive_merge` asks of every paragraph. One memo session
    /// for all of them: taking the thread's memo per paragraph cost ~5% of `naive_merge` on
    /// short paragraphs.
    pub fn count_or_zero_after_newline_each(&self, texts: &[&str], out: &mut Vec<usize>) {
        if let Some(ext) = &self.external {
            let mut scratch = String::new();
            return out.extend(
                texts
                    .iter()
                    .map(|t| ext.count(newline_then(t, &mut scratch))),
            );
        }
        self.each_after_newline(texts, out, 0, Self::or_zero_after_newline_in)
    }

    /// [`count_ordinary_after_newline`](Self::count_ordinary_after_newline) of each text, in
    /// order, appended to `out`, in one memo session (`naive_merge`'s `"hard_cap"` counter).
    pub fn count_ordinary_after_newline_each(&self, texts: &[&str], out: &mut Vec<usize>) {
        if let Some(ext) = &self.external {
            let mut scratch = String::new();
            return out.extend(
                texts
                    .iter()
                    .map(|t| ext.count(newline_then(t, &mut scratch))),
            );
        }
        self.each_after_newline(texts, out, 1, Self::ordinary_after_newline_in)
    }

    /// `one` of each text, with one scratch buffer and the thread's memo taken once; whole
    /// short paragraphs are memoised too ([`PieceCache::paragraph`]), under a tag made of
    /// the encoding and `mode` (which of the two counts `one` is).
    #[inline]
    fn each_after_newline(
        &self,
        texts: &[&str],
        out: &mut Vec<usize>,
        mode: u8,
        one: impl Fn(&Self, &str, &mut String, Option<&mut PieceCache>) -> usize,
    ) {
        let mut scratch = String::new();
        // cache_id is 1 or 2, so the tag is never 0 (an empty slot).
        let tag = self.cache_id() as u8 | mode << 2;
        cache::with(|cache| match cache {
            Some(c) => {
                // Slots of the next PREFETCH_AHEAD paragraphs, prefetched while the ones
                // before them are counted (see `PieceCache::prefetch_paragraph`).
                let mut ahead = [None; PREFETCH_AHEAD];
                for (i, t) in texts.iter().take(PREFETCH_AHEAD).enumerate() {
                    ahead[i] = PieceCache::paragraph_slot(tag, t.as_bytes());
                    c.prefetch_paragraph(ahead[i]);
                }
                out.reserve(texts.len());
                for (i, t) in texts.iter().enumerate() {
                    let slot = ahead[i % PREFETCH_AHEAD];
                    if let Some(next) = texts.get(i + PREFETCH_AHEAD) {
                        let s = PieceCache::paragraph_slot(tag, next.as_bytes());
                        c.prefetch_paragraph(s);
                        ahead[i % PREFETCH_AHEAD] = s;
                    }
                    out.push(c.paragraph(slot, tag, t.as_bytes(), |c| {
                        one(self, t, &mut scratch, Some(c))
                    }));
                }
            }
            None => out.extend(texts.iter().map(|t| one(self, t, &mut scratch, None))),
        })
    }

    #[inline]
    fn or_zero_after_newline_in(
        &self,
        text: &str,
        scratch: &mut String,
        cache: Option<&mut PieceCache>,
    ) -> usize {
        // `"\n" + text` holds a special token exactly when `text` does (none contains `"\n"`):
        // RAGFlow's counter gives 0 then, never 1. Every special token starts with `<`, so one
        // scan for `<` clears nearly every paragraph before the full check.
        if has_lt(text.as_bytes()) && self.find_special(text).is_some() {
            0
        } else {
            self.ordinary_after_newline_in(text, scratch, cache)
        }
    }
}

/// Whether `b` holds a `<`, branch-free: 16 bytes per compare, the last (partial) block read
/// again as the 16 bytes ending at the end, and two overlapping 8-byte words below 16 bytes.
/// Paragraphs are tens of bytes, where a `memchr` call's setup cost more than this whole
/// scan (it was ~2% of `naive_merge`).
#[inline]
fn has_lt(b: &[u8]) -> bool {
    fn in16(c: &[u8]) -> bool {
        let c: &[u8; 16] = c.try_into().expect("16 bytes");
        c.iter().fold(false, |seen, &x| seen | (x == b'<'))
    }
    fn in8(c: &[u8]) -> bool {
        // The classic exact "has a zero byte" test, on the bytes XOR '<'.
        let w = u64::from_le_bytes(c.try_into().expect("8 bytes")) ^ 0x3c3c_3c3c_3c3c_3c3c;
        w.wrapping_sub(0x0101_0101_0101_0101) & !w & 0x8080_8080_8080_8080 != 0
    }
    let n = b.len();
    if n >= 16 {
        b.chunks_exact(16).fold(false, |seen, c| seen | in16(c)) | in16(&b[n - 16..])
    } else if n >= 8 {
        in8(&b[..8]) | in8(&b[n - 8..])
    } else {
        b.iter().fold(false, |seen, &x| seen | (x == b'<'))
    }
}

/// `"\n" + text`, built in `scratch`.
fn newline_then<'s>(text: &str, scratch: &'s mut String) -> &'s str {
    scratch.clear();
    scratch.push('\n');
    scratch.push_str(text);
    scratch
}

#[cfg(test)]
mod tests {
    use super::super::EncodingName;
    use super::*;

    fn both() -> [&'static Tokenizer; 2] {
        [
            Tokenizer::get(EncodingName::Cl100kBase),
            Tokenizer::get(EncodingName::O200kBase),
        ]
    }

    const FIRSTS: &[&str] = &[
        "",
        " ",
        "  ",
        "\t",
        "\r",
        "\n",
        "\r\n",
        "\x0b",
        "\x0c",
        "\u{85}",
        "\u{a0}",
        "\u{1680}",
        "\u{2000}",
        "\u{200a}",
        "\u{2028}",
        "\u{2029}",
        "\u{202f}",
        "\u{205f}",
        "\u{3000}",
        "\u{200b}",
        "\u{feff}",
        "\u{1c}",
        "\x00",
        "a",
        "Z",
        "é",
        "1",
        "12345",
        "'",
        "'s",
        "'S",
        "'ll",
        "\"",
        ".",
        "-",
        "<",
        "<|",
        "😀",
        "👩\u{200d}💻",
        "\u{301}",
        "日本",
        "١٢",
        "ſ",
        "ǅ",
        "/",
        "\\",
    ];
    const RESTS: &[&str] = &[
        "",
        " ",
        "\n",
        "\r\n",
        "  \t",
        "a",
        "abc def",
        " x",
        "'s",
        "'re nice",
        "123",
        "\n\nx",
        "<|endoftext|>",
        " <|endofprompt|> tail",
        "。今天",
    ];

    #[test]
    fn paragraph_memo_is_exact_across_modes_encodings_and_evictions() {
        // Repeats (hits), near-misses that differ in one byte or in length, special-token
        // text (where the two modes differ: 0 vs its ordinary count), both encodings, and
        // enough distinct paragraphs (~6,000) to evict slots of the 4 Ki-slot table.
        let mut texts: Vec<String> = Vec::new();
        for i in 0..3000 {
            texts.push(format!("line {i} of some text"));
            texts.push(format!("line {i} of some texT"));
            texts.push("```".to_string());
            texts.push(format!("x<|endoftext|>{}", i % 7));
            texts.push("中文段落".repeat(i % 40 + 1)); // up to 480 bytes: past PARA_MAX too
        }
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        for tok in both() {
            let (mut zero, mut ordinary) = (Vec::new(), Vec::new());
            for _ in 0..2 {
                zero.clear();
                ordinary.clear();
                tok.count_or_zero_after_newline_each(&refs, &mut zero);
                tok.count_ordinary_after_newline_each(&refs, &mut ordinary);
                for ((t, z), o) in refs.iter().zip(&zero).zip(&ordinary) {
                    let copy = format!("\n{t}");
                    assert_eq!(*z, tok.count_or_zero(&copy), "{t:?} ({})", tok.name());
                    assert_eq!(*o, tok.count_ordinary(&copy), "{t:?} ({})", tok.name());
                }
            }
            assert!(zero.iter().zip(&ordinary).any(|(z, o)| z != o));
        }
    }

    #[test]
    fn prefetched_paragraph_slots_are_the_ones_looked_up() {
        // The slots are computed PREFETCH_AHEAD paragraphs early and kept in a ring: a slip
        // in the ring would stay exact (a hit compares the whole key) but never hit. So a
        // second pass over the same paragraphs must count none of them again, whatever the
        // list's length relative to the ring.
        let tok = Tokenizer::get(EncodingName::Cl100kBase);
        for n in [1, 3, 4, 5, 9, 40] {
            // Paragraphs with distinct slots, so that no hit is lost to a collision.
            let tag = tok.cache_id() as u8 | 3 << 2; // as each_after_newline makes it
            let mut slots = std::collections::HashSet::new();
            let texts: Vec<String> = (0..)
                .map(|i| format!("memo line {i} of {n}"))
                .filter(|t| slots.insert(PieceCache::paragraph_slot(tag, t.as_bytes())))
                .take(n)
                .collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let calls = std::cell::Cell::new(0);
            let one = |tok: &Tokenizer, t: &str, s: &mut String, c: Option<&mut PieceCache>| {
                calls.set(calls.get() + 1);
                tok.ordinary_after_newline_in(t, s, c)
            };
            let (mut first, mut second) = (Vec::new(), Vec::new());
            tok.each_after_newline(&refs, &mut first, 3, one);
            assert_eq!(calls.get(), n, "first pass counts every paragraph");
            tok.each_after_newline(&refs, &mut second, 3, one);
            assert_eq!(calls.get(), n, "second pass: all memo hits (n = {n})");
            assert_eq!(first, second);
        }
    }

    #[test]
    fn has_lt_finds_every_position() {
        for len in 0..80 {
            let clean = vec![b'x'; len];
            assert!(!has_lt(&clean), "{len}");
            for at in 0..len {
                let mut b = clean.clone();
                b[at] = b'<';
                assert!(has_lt(&b), "{len} {at}");
            }
        }
    }

    #[test]
    fn after_newline_equals_the_copy() {
        let mut scratch = String::new();
        for tok in both() {
            for first in FIRSTS {
                for rest in RESTS {
                    let p = format!("{first}{rest}");
                    let copy = format!("\n{p}");
                    assert_eq!(
                        tok.count_ordinary_after_newline(&p, &mut scratch),
                        tok.count_ordinary(&copy),
                        "{p:?} ({})",
                        tok.name()
                    );
                    assert_eq!(
                        tok.count_or_zero_after_newline(&p, &mut scratch),
                        tok.count_or_zero(&copy),
                        "{p:?} ({})",
                        tok.name()
                    );
                }
            }
        }
    }

    #[test]
    fn whitespace_first_chars_take_the_copy() {
        let tok = both()[0];
        assert!(!tok.newline_stays_alone(""));
        for ws in [
            " ", "\t", "\r", "\n", "\x0b", "\x0c", "\u{85}", "\u{a0}", "\u{3000}",
        ] {
            assert!(!tok.newline_stays_alone(&format!("{ws}x")), "{ws:?}");
        }
        for ok in ["x", "1", "'", "😀", "\u{200b}", "\x00", "<|endoftext|>"] {
            assert!(tok.newline_stays_alone(ok), "{ok:?}");
        }
        // where the shortcut would be wrong: "\n\n" and " \n" are single tokens
        let mut scratch = String::new();
        for tok in both() {
            for p in ["\n", " \n"] {
                let copy = format!("\n{p}");
                assert_eq!(tok.count_ordinary(&copy), 1);
                assert_eq!(tok.count_ordinary_after_newline(p, &mut scratch), 1);
                assert_eq!(tok.count_or_zero_after_newline(p, &mut scratch), 1);
            }
        }
    }

    #[test]
    fn every_scalar_value_first() {
        // The equivalence for every scalar value that takes the shortcut, in two contexts.
        let mut scratch = String::new();
        for tok in both() {
            for c in (0..0x11_0000u32).filter_map(char::from_u32) {
                for rest in ["", "x 1"] {
                    let p = format!("{c}{rest}");
                    if tok.newline_stays_alone(&p) {
                        let copy = format!("\n{p}");
                        assert_eq!(
                            tok.count_ordinary_after_newline(&p, &mut scratch),
                            tok.count_ordinary(&copy),
                            "U+{:04X} {rest:?} ({})",
                            c as u32,
                            tok.name()
                        );
                    }
                }
            }
        }
    }
}
