//! Hugging Face `tokenizer.json` files (WordPiece, BPE, Unigram, ...) counted in Rust with the
//! `tokenizers` crate, as an [`External`] tokenizer usable wherever a built-in encoding is.
//!
//! Counts are `len(tok.encode(text, add_special_tokens=...).ids)` of the Python `tokenizers`
//! package on the same file: the crate is the package's engine. Truncation and padding, when
//! the file configures them, are switched off: a chunk's size must be its whole length.

use std::cell::RefCell;

use rustc_hash::FxHashMap;
use tokenizers::Tokenizer as HfTokenizer;
use tokenizers::{Model, OffsetReferential, OffsetType, PostProcessor, PreTokenizer};

use super::{External, Tokenizer};

/// One loaded `tokenizer.json`.
pub struct HfModel {
    inner: HfTokenizer,
    /// Count the special tokens the post-processor adds (`[CLS]`/`[SEP]`, `<s>`), as an
    /// embedder sees its input.
    special: bool,
}

impl HfModel {
    /// Parses the JSON text of a `tokenizer.json`.
    pub fn from_json(json: &str, special: bool) -> Result<HfModel, String> {
        let mut inner: HfTokenizer = json
            .parse()
            .map_err(|e| format!("not a valid tokenizer.json: {e}"))?;
        inner
            .with_truncation(None)
            .map_err(|e| format!("tokenizer.json: {e}"))?;
        inner.with_padding(None);
        Ok(HfModel { inner, special })
    }

    fn encoding(&self, text: &str, offsets: bool) -> tokenizers::Encoding {
        let r = if offsets {
            self.inner.encode(text, self.special)
        } else {
            self.inner.encode_fast(text, self.special)
        };
        // Encoding a plain string fails only on a misconfigured file (checked when loaded,
        // by the first count); a panic here is turned into a Python exception.
        r.unwrap_or_else(|e| panic!("Hugging Face tokenizer failed to encode: {e}"))
    }
}

/// Words memoised per thread (all models) before the memo starts over.
const MEMO_MAX: usize = 1 << 18;

thread_local! {
    /// Tokens of each pre-tokenized word, keyed by the model's address and the word: text
    /// repeats its words, and the model's per-word work (WordPiece's longest match, BPE's or
    /// Unigram's search) was most of a count.
    static WORDS: RefCell<FxHashMap<(usize, Box<str>), u32>> = RefCell::default();
}

impl HfModel {
    /// `encode(text).len()` by the same pipeline without building an `Encoding`: added
    /// tokens and normalizer, pre-tokenizer, then the model per word (memoised), plus the
    /// post-processor's special tokens when asked for.
    fn count_words(&self, text: &str) -> tokenizers::Result<usize> {
        let tok = &self.inner;
        let mut pre = tok
            .get_added_vocabulary()
            .extract_and_normalize(tok.get_normalizer(), text);
        if let Some(p) = tok.get_pre_tokenizer() {
            p.pre_tokenize(&mut pre)?;
        }
        let id = self as *const HfModel as usize;
        let model = tok.get_model();
        let mut n = 0usize;
        WORDS.with(|memo| -> tokenizers::Result<()> {
            let mut memo = memo.borrow_mut();
            for (word, _, tokens) in pre.get_splits(OffsetReferential::Original, OffsetType::None) {
                if let Some(t) = tokens {
                    n += t.len();
                    continue;
                }
                if word.is_empty() {
                    continue;
                }
                // Look up without allocating; insert a copy on a miss.
                let key = (id, Box::<str>::from(word));
                if let Some(&c) = memo.get(&key) {
                    n += c as usize;
                    continue;
                }
                let c = model.tokenize(word)?.len();
                if memo.len() >= MEMO_MAX {
                    memo.clear();
                }
                memo.insert(key, c as u32);
                n += c;
            }
            Ok(())
        })?;
        if self.special {
            n += tok
                .get_post_processor()
                .map_or(0, |p| p.added_tokens(false));
        }
        Ok(n)
    }
}

impl External for HfModel {
    fn count(&self, text: &str) -> usize {
        match self.count_words(text) {
            Ok(n) => n,
            Err(_) => self.encoding(text, false).len(),
        }
    }

    fn ids(&self, text: &str) -> Vec<u32> {
        self.encoding(text, false).get_ids().to_vec()
    }

    fn edges(&self, text: &str) -> Vec<usize> {
        let enc = self.encoding(text, true);
        let mut edges = Vec::with_capacity(enc.len() + 1);
        let mut last = 0;
        for (k, &(start, _)) in enc.get_offsets().iter().enumerate() {
            // Added special tokens have (0, 0); byte-level tokens inside one character share
            // its offsets: edges stay non-decreasing and start at 0.
            let at = if k == 0 {
                0
            } else {
                start.clamp(last, text.len())
            };
            edges.push(at);
            last = at;
        }
        edges.push(text.len());
        edges
    }

    fn vocab_size(&self) -> usize {
        self.inner.get_vocab_size(true)
    }
}

/// The shared tokenizer for the JSON text `json` (loaded once per distinct `key`).
pub fn register(key: &str, json: &str, special: bool) -> Result<&'static Tokenizer, String> {
    Tokenizer::register(key, || {
        let model = HfModel::from_json(json, special)?;
        // Fail now, not in the middle of a batch, if the file cannot encode.
        model
            .inner
            .encode_fast("probe", special)
            .map_err(|e| format!("tokenizer.json cannot encode text: {e}"))?;
        Ok(Tokenizer::external(Box::new(model)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny WordPiece tokenizer.json, written by hand.
    const WORDPIECE: &str = r###"{
      "version": "1.0", "truncation": null, "padding": null, "added_tokens": [
        {"id": 0, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
        {"id": 1, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
        {"id": 2, "content": "[SEP]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}],
      "normalizer": {"type": "Lowercase"},
      "pre_tokenizer": {"type": "Whitespace"},
      "post_processor": {"type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [1], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [2], "tokens": ["[SEP]"]}}},
      "decoder": null,
      "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
        "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hello": 3, "world": 4, "wor": 5, "##ld": 6, "!": 7}}
    }"###;

    #[test]
    fn counts_edges_and_special_tokens() {
        let tok = register("test:wordpiece", WORDPIECE, false).unwrap();
        assert!(tok.is_external());
        assert_eq!(tok.count_ordinary("Hello world!"), 3);
        assert_eq!(tok.encode_ordinary("Hello world!"), vec![3, 4, 7]);
        assert_eq!(tok.token_edges("Hello world!"), vec![0, 6, 11, 12]);
        assert_eq!(
            tok.count_or_zero("hello <|endoftext|>"),
            tok.count_ordinary("hello <|endoftext|>")
        );
        let mut scratch = String::new();
        assert_eq!(tok.count_ordinary_after_newline("hello", &mut scratch), 1);
        let with = register("test:wordpiece+special", WORDPIECE, true).unwrap();
        assert_eq!(with.count_ordinary("Hello world!"), 5);
        assert_eq!(tok.token_edges(""), vec![0]);
        assert!(register("test:bad", "{", false).is_err());
        assert!(std::ptr::eq(
            Tokenizer::lookup("test:wordpiece").unwrap(),
            tok
        ));
    }
}
