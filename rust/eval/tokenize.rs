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

/// [`for_each_token`], each token with its [`hash_bytes`]. Words of ASCII letters and digits
/// (nearly all of them in English text) are found by a byte-class table, lowercased only when
/// they hold a capital, and a word of up to 7 bytes is packed once for both the stop-word check
/// and its hash.
pub fn for_each_token_hashed(text: &str, kind: Kind, mut f: impl FnMut(&str, u64)) {
    let fold = kind != Kind::Whitespace;
    let mut scratch = String::new();
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
            emit_wide_word(word, kind, &mut scratch, &mut f);
            continue;
        }
        let token: &str = if seen & UPPER != 0 && fold {
            scratch.clear();
            scratch.push_str(word);
            scratch.make_ascii_lowercase();
            &scratch
        } else {
            word
        };
        let b = token.as_bytes();
        if b.len() <= STOP_MAX {
            // Short words: one packed integer is both the stop-word key and the hashed rest.
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
