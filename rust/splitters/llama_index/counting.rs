//! How the LlamaIndex drop-ins count with a built-in encoding, and what one document comes to.
//!
//! LlamaIndex's tokenizer is a callable; for a built-in encoding the facade recognises its
//! convention ([`Mode`]): `"all"` (`encode(text, allowed_special="all")`, LlamaIndex's default:
//! each special token's text is one token), `"ordinary"` (`encode_ordinary`) or `"exact"`
//! (`encode`: special-token text is refused; the document is then reported as
//! [`Outcome::Special`], so that the facade can let the tokenizer raise its own error).

use crate::tokenizer::Tokenizer;

use super::punkt::CharInfo;
use super::{sentence_split, token_split, LlamaIndexError, SentenceConfig, TokenConfig};

/// A tokenizer convention for a built-in encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `encode(text, allowed_special="all")`.
    All,
    /// `encode_ordinary(text)`.
    Ordinary,
    /// `encode(text)`: special-token text raises.
    Exact,
}

impl Mode {
    /// The mode of its facade name: `"all"`, `"ordinary"` or `"exact"`.
    pub fn from_name(name: &str) -> Option<Mode> {
        match name {
            "all" => Some(Mode::All),
            "ordinary" => Some(Mode::Ordinary),
            "exact" => Some(Mode::Exact),
            _ => None,
        }
    }
}

/// A built-in encoding counting in one [`Mode`].
#[derive(Clone, Copy)]
pub struct Counting<'a> {
    /// The encoding.
    pub tok: &'a Tokenizer,
    /// Its convention.
    pub mode: Mode,
}

impl Counting<'_> {
    /// The token count of `text` in this convention.
    pub fn count(&self, text: &str) -> usize {
        match self.mode {
            Mode::All => count_all(self.tok, text),
            Mode::Ordinary | Mode::Exact => self.tok.count_ordinary(text),
        }
    }

    /// Whether `text` holds special-token text that [`Mode::Exact`] refuses.
    pub fn refuses(&self, text: &str) -> bool {
        self.mode == Mode::Exact && self.tok.find_special(text).is_some()
    }
}

/// `len(encoding.encode(text, allowed_special="all"))`: the text between special tokens is
/// encoded on its own, and each special token is one token.
fn count_all(tok: &Tokenizer, text: &str) -> usize {
    let mut n = 0;
    let mut rest = text;
    while let Some(r) = tok.find_special(rest) {
        n += tok.count_ordinary(&rest[..r.start]) + 1;
        rest = &rest[r.end..];
    }
    n + tok.count_ordinary(rest)
}

/// What one document comes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome<T> {
    /// Its chunks (and, for `TokenTextSplitter`, the sizes of its oversized splits).
    Chunks(T),
    /// LlamaIndex's "Single token exceeded chunk size".
    SingleToken,
    /// Special-token text under [`Mode::Exact`]: the tokenizer raises its own error.
    Special,
}

/// `SentenceSplitter._split_text(text, chunk_size)` of a non-empty text, counted by `counting`.
pub fn sentence_outcome(
    cfg: &SentenceConfig,
    info: &dyn CharInfo,
    counting: Counting<'_>,
    text: &str,
    chunk_size: usize,
) -> Outcome<Vec<String>> {
    if counting.refuses(text) {
        return Outcome::Special;
    }
    match sentence_split(cfg, info, &|s| counting.count(s), text, chunk_size) {
        Ok(chunks) => Outcome::Chunks(chunks),
        Err(LlamaIndexError::SingleTokenExceeded) => Outcome::SingleToken,
    }
}

/// `TokenTextSplitter._split_text(text, chunk_size)` of a non-empty text, counted by
/// `counting`: the chunks and the sizes of the oversized splits.
pub fn token_outcome(
    cfg: &TokenConfig,
    counting: Counting<'_>,
    text: &str,
    chunk_size: usize,
) -> Outcome<(Vec<String>, Vec<usize>)> {
    if counting.refuses(text) {
        return Outcome::Special;
    }
    let r = token_split(cfg, &|s| counting.count(s), text, chunk_size);
    Outcome::Chunks((r.chunks, r.oversized))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::splitters::llama_index::tests::AsciiOnly;
    use crate::tokenizer::EncodingName;

    fn cl100k(mode: Mode) -> Counting<'static> {
        Counting {
            tok: Tokenizer::get(EncodingName::Cl100kBase),
            mode,
        }
    }

    #[test]
    fn modes_by_name() {
        assert_eq!(Mode::from_name("all"), Some(Mode::All));
        assert_eq!(Mode::from_name("ordinary"), Some(Mode::Ordinary));
        assert_eq!(Mode::from_name("exact"), Some(Mode::Exact));
        assert_eq!(Mode::from_name("All"), None);
    }

    #[test]
    fn special_tokens_by_mode() {
        let text = "a<|endoftext|>b";
        let ordinary = cl100k(Mode::Ordinary).count(text);
        assert_eq!(cl100k(Mode::All).count(text), 3);
        assert!(ordinary > 3, "the special token's text is ordinary text");
        assert_eq!(cl100k(Mode::Exact).count(text), ordinary);
        assert!(cl100k(Mode::Exact).refuses(text));
        assert!(!cl100k(Mode::All).refuses(text));
        assert!(!cl100k(Mode::Exact).refuses("plain"));
    }

    #[test]
    fn outcomes() {
        let cfg = TokenConfig {
            chunk_overlap: 0,
            separators: vec![" ".into()],
            keep_whitespaces: false,
        };
        assert_eq!(
            token_outcome(&cfg, cl100k(Mode::Exact), "x<|endoftext|>", 4),
            Outcome::Special
        );
        assert_eq!(
            token_outcome(&cfg, cl100k(Mode::All), "one two three", 2),
            Outcome::Chunks((vec!["one two".to_owned(), "three".to_owned()], vec![]))
        );
        let sentence = SentenceConfig {
            chunk_overlap: 0,
            separator: " ".into(),
            paragraph_separator: "\n\n\n".into(),
            clause_regex: true,
        };
        assert_eq!(
            sentence_outcome(&sentence, &AsciiOnly, cl100k(Mode::All), "One. Two.", 8),
            Outcome::Chunks(vec!["One. Two.".to_owned()])
        );
    }
}
