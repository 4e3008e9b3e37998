//! The tokenizers BM25 indexes with. Both backends define them by the same explicit
//! character tables, so that they agree on every input, whatever Unicode version each
//! language's standard library ships.
//!
//! * `english`: lowercase, split at separators, drop a fixed list of English stop words;
//! * `cjk`: lowercase, split at separators, and every Han ideograph, Hiragana or Katakana
//!   character becomes a token of its own (no stop words);
//! * `whitespace`: split at separators only, case kept.
//!
//! A separator is any ASCII character that is not a letter or digit, and any character of
//! Latin-1 punctuation (U+0080..=U+00BF, U+00D7, U+00F7), General Punctuation
//! (U+2000..=U+206F), Supplemental Punctuation (U+2E00..=U+2E7F), CJK Symbols and Punctuation
//! (U+3000..=U+303F), the CJK compatibility and small form variants (U+FE30..=U+FE6F),
//! fullwidth ASCII punctuation, U+1680 and U+FEFF.

/// The tokenizers, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    English,
    Cjk,
    Whitespace,
}

impl Kind {
    /// The tokenizer called `name`, if there is one.
    pub fn from_name(name: &str) -> Option<Kind> {
        match name {
            "english" => Some(Kind::English),
            "cjk" => Some(Kind::Cjk),
            "whitespace" => Some(Kind::Whitespace),
            _ => None,
        }
    }
}

/// English stop words dropped by the `english` tokenizer (kept in step with the Python
/// fallback's list).
pub const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "did", "do", "does",
    "for", "from", "had", "has", "have", "he", "her", "his", "how", "i", "if", "in", "into", "is",
    "it", "its", "me", "my", "no", "not", "of", "on", "or", "our", "she", "so", "than", "that",
    "the", "their", "them", "then", "there", "these", "they", "this", "those", "to", "was", "we",
    "were", "what", "when", "where", "which", "who", "whom", "why", "will", "with", "would", "you",
    "your",
];

/// Whether `c` separates tokens.
pub fn is_separator(c: char) -> bool {
    let u = c as u32;
    if u < 0x80 {
        return !c.is_ascii_alphanumeric();
    }
    matches!(u,
        0x80..=0xBF | 0xD7 | 0xF7 | 0x1680 | 0x2000..=0x206F | 0x2E00..=0x2E7F
        | 0x3000..=0x303F | 0xFE30..=0xFE6F | 0xFEFF
        | 0xFF01..=0xFF0F | 0xFF1A..=0xFF20 | 0xFF3B..=0xFF40 | 0xFF5B..=0xFF65)
}

/// Whether the `cjk` tokenizer makes `c` a token of its own.
pub fn is_cjk_unit(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF
        | 0x20000..=0x2FFFF | 0x30000..=0x3FFFF)
}

/// The class of every byte: an ASCII separator, an ASCII lowercase letter or digit, an ASCII
/// uppercase letter, or a byte of a multi-byte character (classified by [`is_separator`]).
const SEP: u8 = 0;
const LOWER: u8 = 1;
const UPPER: u8 = 2;
const WIDE: u8 = 4;

static CLASS: [u8; 256] = {
    let mut t = [WIDE; 256];
    let mut b = 0;
    while b < 0x80 {
        let c = b as u8;
        t[b] = if c.is_ascii_uppercase() {
            UPPER
        } else if c.is_ascii_alphanumeric() {
            LOWER
        } else {
            SEP
        };
        b += 1;
    }
    t
};

/// The longest stop word, in bytes: shorter words fit in a `u64` with a zero byte to spare.
const STOP_MAX: usize = 7;

/// `word` (at most 8 bytes) as a little-endian integer, zero-padded: the form
/// [`for_each_token_hashed`] accumulates a word in.
const fn pack(word: &[u8]) -> u64 {
    let mut key = 0u64;
    let mut i = 0;
    while i < word.len() {
        key |= (word[i] as u64) << (8 * i);
        i += 1;
    }
    key
}

/// The multiplier of the stop words' perfect hash: the top 8 bits of `key * STOP_MUL` differ
/// for every stop word (checked when [`STOP_TABLE`] is built: a clash fails the build).
const STOP_MUL: u64 = 0x49be_b484_9a19_0b35;

#[inline(always)]
fn stop_slot(key: u64) -> usize {
    (key.wrapping_mul(STOP_MUL) >> 56) as usize
}

/// Every stop word packed by [`pack`], in its [`stop_slot`]; 0 (no word) elsewhere.
static STOP_TABLE: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut i = 0;
    while i < STOP_WORDS.len() {
        let w = STOP_WORDS[i].as_bytes();
        assert!(!w.is_empty() && w.len() <= STOP_MAX);
        let key = pack(w);
        let slot = (key.wrapping_mul(STOP_MUL) >> 56) as usize;
        assert!(
            table[slot] == 0,
            "two stop words share a slot: choose another STOP_MUL"
        );
        table[slot] = key;
        i += 1;
    }
    table
};

/// Whether the word of `len` bytes packed in `key` ([`pack`]) is a stop word (a word holds no
/// zero byte, so the packed integer also tells its length).
#[inline]
fn is_stop_key(key: u64, len: usize) -> bool {
    len != 0 && len <= STOP_MAX && STOP_TABLE[stop_slot(key)] == key
}

/// Whether `word` (lowercased) is one of [`STOP_WORDS`].
#[inline]
pub fn is_stop_word(word: &str) -> bool {
    let w = word.as_bytes();
    w.len() <= STOP_MAX && is_stop_key(pack(w), w.len())
}

/// The multiplier of [`hash_bytes`] (rustc-hash's).
const K: u64 = 0xf135_7aea_2e62_a9c5;

#[inline(always)]
fn mix(h: u64, word: u64) -> u64 {
    (h.rotate_left(5) ^ word).wrapping_mul(K)
}

#[inline(always)]
fn finish(h: u64, len: usize) -> u64 {
    let h = (h ^ len as u64).wrapping_mul(K);
    h ^ (h >> 29)
}

/// The hash a term dictionary files `bytes` under: 8-byte little-endian words mixed in
/// order, then the zero-padded rest (empty included) and the length. [`for_each_token_hashed`]
/// computes the same value while it scans a word.
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = 0u64;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        h = mix(h, u64::from_le_bytes(a));
    }
    finish(mix(h, pack(words.remainder())), bytes.len())
}

/// The character starting at byte `i` of `text` (a character boundary) and its length.
#[inline]
fn char_at(text: &str, i: usize) -> (char, usize) {
    let c = text[i..].chars().next().unwrap_or('\u{FFFD}');
    (c, c.len_utf8())
}

/// Calls `f` with every token of `text`, in order, without allocating per token (a scratch
/// string holds a lowercased word).
pub fn for_each_token(text: &str, kind: Kind, mut f: impl FnMut(&str)) {
    for_each_token_hashed(text, kind, |t, _| f(t));
}

/// [`for_each_token`], each token with its [`hash_bytes`].
///
/// The text is first classified 16 bytes at a time into two bit masks (ASCII letters and
/// digits; those plus every byte of a non-ASCII character), and words are then found by
/// counting trailing zeros, not byte by byte. A word of ASCII letters and digits (nearly every
/// word of English text) is lowercased, packed, checked against the stop words and hashed in a
/// few integer operations when it has up to 8 bytes. A run that holds a non-ASCII character
/// goes through [`scan_words`], one character at a time: a run is bounded by ASCII separators,
/// so it splits into the same tokens either way.
pub fn for_each_token_hashed(text: &str, kind: Kind, f: impl FnMut(&str, u64)) {
    let words = text.len() / 64 + 1;
    // Texts up to 2 KB (chunks, queries) keep their masks on the stack.
    if words <= 32 {
        let (mut alnum, mut run) = ([0u64; 32], [0u64; 32]);
        let masks = Masks::fill(text.as_bytes(), &mut alnum[..words], &mut run[..words]);
        scan_masked(text, &masks, kind, f);
    } else {
        let (mut alnum, mut run) = (vec![0u64; words], vec![0u64; words]);
        let masks = Masks::fill(text.as_bytes(), &mut alnum, &mut run);
        scan_masked(text, &masks, kind, f);
    }
}

/// [`for_each_token_hashed`] once the masks of `text` are made.
#[inline(always)]
fn scan_masked(text: &str, masks: &Masks<'_>, kind: Kind, mut f: impl FnMut(&str, u64)) {
    let bytes = text.as_bytes();
    let mut scratch = String::new();
    let mut pos = 0;
    while let Some(s) = masks.next_run(pos) {
        let end = next_clear(masks.alnum, s);
        if bit(masks.run, end) {
            // The run goes on with a non-ASCII character.
            let e = next_clear(masks.run, end);
            scan_words(&text[s..e], kind, &mut scratch, &mut f);
            pos = e;
            continue;
        }
        pos = end;
        let len = end - s;
        let fold = kind != Kind::Whitespace;
        if len <= 8 {
            let raw = load8(bytes, s) & low_bytes(len);
            // ASCII letters and digits all have bit 0x20 set in their lowercase form.
            let key = if fold {
                raw | (0x2020_2020_2020_2020 & low_bytes(len))
            } else {
                raw
            };
            if len <= STOP_MAX && kind == Kind::English && STOP_TABLE[stop_slot(key)] == key {
                continue;
            }
            let h = if len <= STOP_MAX {
                finish(mix(0, key), len)
            } else {
                finish(mix(mix(0, key), 0), len)
            };
            if key == raw {
                f(&text[s..end], h);
            } else {
                let buf = key.to_le_bytes();
                // SAFETY: the bytes are ASCII letters and digits, so valid UTF-8.
                f(unsafe { std::str::from_utf8_unchecked(&buf[..len]) }, h);
            }
        } else {
            let word = &text[s..end];
            let token: &str = if fold && word.bytes().any(|b| b.is_ascii_uppercase()) {
                scratch.clear();
                scratch.push_str(word);
                scratch.make_ascii_lowercase();
                &scratch
            } else {
                word
            };
            f(token, hash_bytes(token.as_bytes()));
        }
    }
}

/// `bytes[i..i + 8]` as a little-endian integer, zero-padded past the end of `bytes`.
#[inline(always)]
fn load8(bytes: &[u8], i: usize) -> u64 {
    match bytes.get(i..i + 8) {
        Some(w) => {
            let mut a = [0u8; 8];
            a.copy_from_slice(w);
            u64::from_le_bytes(a)
        }
        None => pack(&bytes[i..]),
    }
}

/// The low `len` bytes set (`len <= 8`).
#[inline(always)]
fn low_bytes(len: usize) -> u64 {
    if len >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * len)) - 1
    }
}

/// One bit per byte of a text (bit `i % 64` of word `i / 64`): `alnum` for ASCII letters and
/// digits, `run` for those and every byte of a non-ASCII character. The bits past the text are
/// clear, and there is always at least one of them.
struct Masks<'a> {
    alnum: &'a [u64],
    run: &'a [u64],
}

impl<'a> Masks<'a> {
    /// The masks of `bytes`, made in `alnum_bits` and `run_bits` (zeroed, `bytes.len() / 64 + 1`
    /// long).
    fn fill(bytes: &[u8], alnum_bits: &'a mut [u64], run_bits: &'a mut [u64]) -> Masks<'a> {
        for (i, block) in bytes.chunks(16).enumerate() {
            let (alnum, wide) = if block.len() == 16 {
                classify16(block)
            } else {
                let mut padded = [0u8; 16];
                padded[..block.len()].copy_from_slice(block);
                classify16(&padded)
            };
            let shift = (i % 4) * 16;
            alnum_bits[i / 4] |= u64::from(alnum) << shift;
            run_bits[i / 4] |= u64::from(alnum | wide) << shift;
        }
        Masks {
            alnum: alnum_bits,
            run: run_bits,
        }
    }

    /// The first byte at or after `pos` that starts or continues a run.
    #[inline(always)]
    fn next_run(&self, pos: usize) -> Option<usize> {
        let mut w = pos / 64;
        let mut bits = *self.run.get(w)? >> (pos % 64);
        if bits != 0 {
            return Some(pos + bits.trailing_zeros() as usize);
        }
        loop {
            w += 1;
            bits = *self.run.get(w)?;
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
        }
    }
}

/// Whether bit `i` of `m` is set.
#[inline(always)]
fn bit(m: &[u64], i: usize) -> bool {
    m[i / 64] >> (i % 64) & 1 != 0
}

/// The first clear bit of `m` at or after `pos` (there is one: see [`Masks`]).
#[inline(always)]
fn next_clear(m: &[u64], pos: usize) -> usize {
    let mut w = pos / 64;
    let bits = !m[w] >> (pos % 64);
    if bits != 0 {
        return pos + bits.trailing_zeros() as usize;
    }
    loop {
        w += 1;
        let bits = !m[w];
        if bits != 0 {
            return w * 64 + bits.trailing_zeros() as usize;
        }
    }
}

/// Bit `i` set for each of the 16 bytes that is an ASCII letter or digit, and for each that
/// is not ASCII.
#[inline(always)]
fn classify16(block: &[u8]) -> (u16, u16) {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of every x86_64 CPU; `block` is 16 bytes long.
        unsafe { classify16_sse2(block) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (mut alnum, mut wide) = (0u16, 0u16);
        for (i, &b) in block.iter().enumerate() {
            alnum |= u16::from(b.is_ascii_alphanumeric()) << i;
            wide |= u16::from(b >= 0x80) << i;
        }
        (alnum, wide)
    }
}

/// [`classify16`] with SSE2: `b - lo <= hi - lo` as unsigned bytes is a signed compare after
/// flipping the top bit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
unsafe fn classify16_sse2(block: &[u8]) -> (u16, u16) {
    use std::arch::x86_64::*;
    debug_assert_eq!(block.len(), 16);
    // SAFETY: `block` holds 16 bytes; `loadu` needs no alignment.
    let v = unsafe { _mm_loadu_si128(block.as_ptr().cast::<__m128i>()) };
    let flip = _mm_set1_epi8(-128);
    let in_range = |x: __m128i, lo: u8, width: i8| {
        let t = _mm_xor_si128(_mm_sub_epi8(x, _mm_set1_epi8(lo as i8)), flip);
        _mm_cmplt_epi8(t, _mm_set1_epi8(-128 + width))
    };
    let letter = in_range(_mm_or_si128(v, _mm_set1_epi8(0x20)), b'a', 26);
    let digit = in_range(v, b'0', 10);
    let alnum = _mm_movemask_epi8(_mm_or_si128(letter, digit)) as u16;
    let wide = _mm_movemask_epi8(v) as u16;
    (alnum, wide)
}

/// The tokens of `text` one character at a time (the words that hold non-ASCII characters).
fn scan_words(text: &str, kind: Kind, scratch: &mut String, f: &mut impl FnMut(&str, u64)) {
    let fold = kind != Kind::Whitespace;
    let bytes = text.as_bytes();
    let n = bytes.len();
    let mut i = 0;
    while i < n {
        // Skip separators.
        match CLASS[bytes[i] as usize] {
            SEP => {
                i += 1;
                continue;
            }
            WIDE => {
                let (c, len) = char_at(text, i);
                if is_separator(c) {
                    i += len;
                    continue;
                }
            }
            _ => {}
        }
        // A word: a maximal run of non-separators. `seen` gathers the classes of its bytes.
        let start = i;
        let mut seen = 0u8;
        loop {
            while i < n {
                let class = CLASS[bytes[i] as usize];
                if class & (LOWER | UPPER) == 0 {
                    break;
                }
                seen |= class;
                i += 1;
            }
            if i < n && CLASS[bytes[i] as usize] == WIDE {
                let (c, len) = char_at(text, i);
                if !is_separator(c) {
                    seen |= WIDE;
                    i += len;
                    continue;
                }
            }
            break;
        }
        let word = &text[start..i];
        if seen & WIDE != 0 {
            emit_wide_word(word, kind, scratch, f);
            continue;
        }
        let token: &str = if seen & UPPER != 0 && fold {
            scratch.clear();
            scratch.push_str(word);
            scratch.make_ascii_lowercase();
            scratch
        } else {
            word
        };
        let b = token.as_bytes();
        if b.len() <= STOP_MAX {
            let key = pack(b);
            if kind == Kind::English && is_stop_key(key, b.len()) {
                continue;
            }
            f(token, finish(mix(0, key), b.len()));
        } else {
            f(token, hash_bytes(b));
        }
    }
}

/// Whether `c` is in a block without case (CJK symbols, kana, Bopomofo, Hangul, CJK
/// ideographs, Yi: U+3000..=U+A4FF), whose lowercase is itself: Chinese and Japanese text skips
/// the case tables.
#[inline]
fn is_caseless(c: char) -> bool {
    matches!(c as u32, 0x3000..=0xA4FF)
}

/// Lowercases `word` into `out` exactly as `str::to_lowercase` does (which also maps a final
/// capital sigma to `ς`; such words take that path itself).
fn lowercase_into(word: &str, out: &mut String) {
    out.clear();
    if word.contains('\u{03A3}') {
        out.push_str(&word.to_lowercase());
    } else {
        for c in word.chars() {
            if is_caseless(c) {
                out.push(c);
            } else {
                out.extend(c.to_lowercase());
            }
        }
    }
}

/// Hands the tokens of a word holding a non-ASCII character to `f`.
fn emit_wide_word(word: &str, kind: Kind, scratch: &mut String, f: &mut impl FnMut(&str, u64)) {
    let mut emit = |t: &str| f(t, hash_bytes(t.as_bytes()));
    if kind == Kind::Whitespace {
        emit(word);
        return;
    }
    lowercase_into(word, scratch);
    let lower = scratch.as_str();
    match kind {
        Kind::English => {
            if !is_stop_word(lower) {
                emit(lower);
            }
        }
        Kind::Cjk => {
            if lower.is_ascii() {
                emit(lower);
                return;
            }
            let mut run_start = None;
            for (i, c) in lower.char_indices() {
                if is_cjk_unit(c) {
                    if let Some(s) = run_start.take() {
                        emit(&lower[s..i]);
                    }
                    emit(&lower[i..i + c.len_utf8()]);
                } else if run_start.is_none() {
                    run_start = Some(i);
                }
            }
            if let Some(s) = run_start {
                emit(&lower[s..]);
            }
        }
        Kind::Whitespace => emit(word),
    }
}

/// The tokens of `text`.
pub fn tokenize(text: &str, kind: Kind) -> Vec<String> {
    let mut out = Vec::new();
    for_each_token(text, kind, |t| out.push(t.to_owned()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_and_each_has_a_slot() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            STOP_TABLE.iter().filter(|&&k| k != 0).count(),
            STOP_WORDS.len()
        );
    }

    #[test]
    fn packed_stop_words_match_the_list() {
        for w in STOP_WORDS {
            assert!(is_stop_word(w), "{w}");
            for extra in ["s", "x", "\u{e9}"] {
                let longer = format!("{w}{extra}");
                assert_eq!(is_stop_word(&longer), STOP_WORDS.contains(&longer.as_str()));
            }
            assert_eq!(is_stop_word(&w[1..]), STOP_WORDS.contains(&&w[1..]));
        }
        for w in ["", "themselves", "zz", "A", "The", "1", "\u{e0}"] {
            assert!(!is_stop_word(w), "{w}");
        }
    }

    #[test]
    fn tokens_carry_the_hash_of_their_text() {
        let text =
            "The QUICK brown fox's 12345678 abcdefghABCDEFGHx \u{c4}rger \u{6771}\u{4eac}x, THEIR";
        for kind in [Kind::English, Kind::Cjk, Kind::Whitespace] {
            let mut n = 0;
            for_each_token_hashed(text, kind, |t, h| {
                assert_eq!(h, hash_bytes(t.as_bytes()), "{t:?}");
                n += 1;
            });
            assert_eq!(n, tokenize(text, kind).len());
        }
        assert_ne!(hash_bytes(b"ab"), hash_bytes(b"ab\0"));
        assert_ne!(hash_bytes(b"abcdefgh"), hash_bytes(b"abcdefgh\0"));
    }

    #[test]
    fn word_scan_by_masks_equals_the_character_scan() {
        let pieces = [
            "a",
            "The",
            "THE",
            "of",
            "Of",
            "x",
            "12345678",
            "abcdefgh",
            "ABCDEFGHI",
            "abcdefghijklmno",
            "ABCDEFGHIJKLMNOP",
            "Ab3defghIJ12345",
            "Th\u{e9}",
            "caf\u{e9}",
            "\u{e9}t\u{e9}",
            "\u{2014}",
            "\u{6771}\u{4eac}",
            "\u{feff}",
            " ",
            "  ",
            "\n",
            ".",
            "'s",
            "-",
            "which",
            "Whom",
            "yOuR",
            "supercalifragilistic",
            "\u{3a3}A",
            "\u{212a}",
            "x\u{a0}y",
            "\u{ff0c}",
            "9",
            "\t\t",
        ];
        let mut seed = 11u64;
        let mut next = move |m: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % m
        };
        for _ in 0..3000 {
            let text: String = (0..next(60)).map(|_| pieces[next(pieces.len())]).collect();
            for kind in [Kind::English, Kind::Cjk, Kind::Whitespace] {
                let mut fast = Vec::new();
                for_each_token_hashed(&text, kind, |t, h| fast.push((t.to_owned(), h)));
                let mut slow = Vec::new();
                scan_words(&text, kind, &mut String::new(), &mut |t: &str, h| {
                    slow.push((t.to_owned(), h))
                });
                assert_eq!(fast, slow, "{text:?} {kind:?}");
                for (t, h) in &fast {
                    assert_eq!(*h, hash_bytes(t.as_bytes()), "{t:?}");
                }
            }
        }
    }

    #[test]
    fn the_hash_tells_short_strings_of_one_length_apart() {
        // The vocabulary relies on it: no two strings of the same length up to 8 bytes share
        // a hash (checked on a dense sample of each length).
        let mut seen = std::collections::HashMap::new();
        let alphabet = b"ab\0\xffz9";
        for len in 0..=8usize {
            for n in 0..alphabet.len().pow(len.min(5) as u32) {
                let mut word = vec![b'q'; len];
                let mut x = n;
                for b in word.iter_mut().take(5) {
                    *b = alphabet[x % alphabet.len()];
                    x /= alphabet.len();
                }
                let h = hash_bytes(&word);
                if let Some(other) = seen.insert((h, len), word.clone()) {
                    assert_eq!(other, word);
                }
            }
        }
    }

    #[test]
    fn caseless_blocks_have_no_lowercase() {
        for u in 0x3000..=0xA4FFu32 {
            let Some(c) = char::from_u32(u) else { continue };
            assert!(is_caseless(c));
            assert!(c.to_lowercase().eq(std::iter::once(c)), "U+{u:04X}");
        }
    }

    #[test]
    fn lowercasing_follows_str_to_lowercase() {
        for w in [
            "\u{c4}RGER",
            "\u{3a3}\u{391}\u{3a3}",
            "\u{130}STANBUL",
            "\u{212a}ELVIN",
            "ABC\u{df}",
        ] {
            let mut out = String::new();
            lowercase_into(w, &mut out);
            assert_eq!(out, w.to_lowercase());
        }
        // A Kelvin sign lowercases to ASCII `k`.
        assert_eq!(tokenize("\u{212a}m", Kind::Cjk), ["km"]);
    }

    #[test]
    fn words_split_at_wide_separators_and_mixed_scripts() {
        assert_eq!(
            tokenize(
                "caf\u{e9}\u{2014}Na\u{ef}ve\u{3001}x\u{ff0c}Y",
                Kind::English
            ),
            ["caf\u{e9}", "na\u{ef}ve", "x", "y"]
        );
        assert_eq!(tokenize("\u{feff}The\u{a0}end", Kind::English), ["end"]);
    }

    #[test]
    fn english_lowercases_splits_and_drops_stop_words() {
        assert_eq!(
            tokenize("The Cat's hat, in 2024—ok?", Kind::English),
            ["cat", "s", "hat", "2024", "ok"]
        );
    }

    #[test]
    fn cjk_makes_one_token_per_ideograph() {
        assert_eq!(
            tokenize("東京タワーは Tall、ok", Kind::Cjk),
            ["東", "京", "タ", "ワ", "ー", "は", "tall", "ok"]
        );
    }

    #[test]
    fn whitespace_keeps_case() {
        assert_eq!(tokenize("  A b\tC ", Kind::Whitespace), ["A", "b", "C"]);
        assert!(tokenize("", Kind::English).is_empty());
    }
}
