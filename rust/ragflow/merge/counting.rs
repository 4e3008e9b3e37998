//! How the merge counts: through the caller's counter with one reusable buffer, and, for the
//! built-in encodings, with the counter each strategy promises.

use crate::tokenizer::{RagflowCount, TokenCounter, Tokenizer};

use super::Strategy;

/// Counts through the caller's counter, keeping one buffer for the `"\n" + piece` strings
/// RAGFlow counts (when the counter needs them built), so that counting a piece allocates
/// nothing once the buffer has grown.
pub(super) struct Counting<'c, C> {
    pub(super) counter: &'c C,
    buf: String,
}

impl<'c, C: TokenCounter> Counting<'c, C> {
    pub(super) fn new(counter: &'c C) -> Self {
        Counting {
            counter,
            buf: String::new(),
        }
    }

    /// `num_tokens_from_string("\n" + piece)`. The built-in encodings count `piece` in place
    /// and add 1 for the `"\n"` when that is exact; `buf` is only the fallback's copy.
    pub(super) fn newline_piece(&mut self, piece: &str) -> Result<usize, C::Error> {
        self.counter.count_after_newline(piece, &mut self.buf)
    }

    pub(super) fn text(&self, text: &str) -> Result<usize, C::Error> {
        self.counter.count(text)
    }
}

/// The counter a built-in encoding merges with. HARD_CAP promises a recount within the cap, so
/// it counts `len(encode_ordinary(text))`: special-token text counts as the text it is, where
/// RAGFlow's convention (`count_or_zero`, every other strategy) would count it as 0.
#[derive(Clone, Copy)]
pub enum MergeCount {
    Ragflow(RagflowCount<'static>),
    Ordinary(&'static Tokenizer),
}

impl MergeCount {
    /// The counter `strategy` merges with under the built-in encoding `tok`.
    pub fn new(tok: &'static Tokenizer, strategy: Strategy) -> Self {
        match strategy {
            Strategy::HardCap => MergeCount::Ordinary(tok),
            _ => MergeCount::Ragflow(RagflowCount(tok)),
        }
    }
}

impl TokenCounter for MergeCount {
    type Error = std::convert::Infallible;

    fn count(&self, text: &str) -> Result<usize, Self::Error> {
        match self {
            MergeCount::Ragflow(c) => c.count(text),
            MergeCount::Ordinary(tok) => Ok(tok.count_ordinary(text)),
        }
    }

    fn count_after_newline(&self, text: &str, scratch: &mut String) -> Result<usize, Self::Error> {
        Ok(match self {
            MergeCount::Ragflow(c) => c.0.count_or_zero_after_newline(text, scratch),
            MergeCount::Ordinary(tok) => tok.count_ordinary_after_newline(text, scratch),
        })
    }

    fn count_each_after_newline(
        &self,
        texts: &[&str],
        out: &mut Vec<usize>,
    ) -> Result<(), Self::Error> {
        match self {
            MergeCount::Ragflow(c) => c.count_each_after_newline(texts, out),
            MergeCount::Ordinary(tok) => {
                tok.count_ordinary_after_newline_each(texts, out);
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::EncodingName;

    #[test]
    fn hard_cap_counts_special_tokens_as_text() {
        let tok = Tokenizer::get(EncodingName::Cl100kBase);
        let special = "<|endoftext|>";
        let ordinary = tok.count_ordinary(special);
        assert!(ordinary > 1);
        for strategy in [Strategy::OverCap, Strategy::UnderCap, Strategy::HardCap] {
            let count = MergeCount::new(tok, strategy);
            let want = if strategy == Strategy::HardCap {
                ordinary
            } else {
                0
            };
            assert_eq!(count.count(special), Ok(want), "{strategy:?}");
            let mut scratch = String::new();
            let after = count.count_after_newline(special, &mut scratch).unwrap();
            let mut each = Vec::new();
            count
                .count_each_after_newline(&[special, "ab"], &mut each)
                .unwrap();
            assert_eq!(each[0], after, "{strategy:?}");
            assert_eq!(after == 0, strategy != Strategy::HardCap, "{strategy:?}");
        }
    }
}
