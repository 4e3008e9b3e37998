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

/// Calls `f` with every token of `text`, in order, without allocating per token (`scratch`
/// holds a lowercased word).
pub fn for_each_token(text: &str, kind: Kind, mut f: impl FnMut(&str)) {
    let mut scratch = String::new();
    let mut emit = |word: &str| emit_word(word, kind, &mut scratch, &mut f);
    let bytes = text.as_bytes();
    let mut start: Option<usize> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let (sep, len) = if b < 0x80 {
            (!b.is_ascii_alphanumeric(), 1)
        } else {
            let c = text[i..].chars().next().unwrap_or('\u{FFFD}');
            (is_separator(c), c.len_utf8())
        };
        if sep {
            if let Some(s) = start.take() {
                emit(&text[s..i]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
        i += len;
    }
    if let Some(s) = start {
        emit(&text[s..]);
    }
}

fn emit_word(word: &str, kind: Kind, scratch: &mut String, f: &mut impl FnMut(&str)) {
    if kind == Kind::Whitespace {
        f(word);
        return;
    }
    let lower: &str = if word.bytes().all(|b| !b.is_ascii_uppercase() && b < 0x80) {
        word
    } else {
        scratch.clear();
        if word.is_ascii() {
            scratch.extend(word.bytes().map(|b| b.to_ascii_lowercase() as char));
        } else {
            scratch.push_str(&word.to_lowercase());
        }
        scratch.as_str()
    };
    match kind {
        Kind::English => {
            if STOP_WORDS.binary_search(&lower).is_err() {
                f(lower);
            }
        }
        Kind::Cjk => {
            if lower.is_ascii() {
                f(lower);
                return;
            }
            let mut run_start = None;
            for (i, c) in lower.char_indices() {
                if is_cjk_unit(c) {
                    if let Some(s) = run_start.take() {
                        f(&lower[s..i]);
                    }
                    f(&lower[i..i + c.len_utf8()]);
                } else if run_start.is_none() {
                    run_start = Some(i);
                }
            }
            if let Some(s) = run_start {
                f(&lower[s..]);
            }
        }
        Kind::Whitespace => f(word),
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
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
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
