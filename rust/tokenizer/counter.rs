//! The one seam between chunking logic and token counting.
//!
//! Chunkers never know which tokenizer they run with: they take a [`TokenCounter`]. The
//! built-in tiktoken-exact encodings implement it without failing; a counter that calls back
//! into Python can fail (the callback raised), which is why `count` returns a `Result`.
//!
//! The built-in counters: [`OrdinaryCount`] (`encode_ordinary` semantics, the general
//! splitters), [`RagflowCount`] (RAGFlow's `num_tokens_from_string`, the drop-ins), and
//! [`UnitCount`], the built-in unit a general splitter is configured with (tokens of a
//! built-in encoding, or characters). Characters alone are [`crate::tokenizer::CharCount`].

use crate::tokenizer::CharCount;

use super::Tokenizer;

/// Counts the tokens of a piece of text.
pub trait TokenCounter {
    /// Why a count could not be produced (for infallible counters, [`std::convert::Infallible`]).
    type Error;

    /// Number of tokens in `text`.
    fn count(&self, text: &str) -> Result<usize, Self::Error>;

    /// Number of tokens in `"\n" + text`, the string RAGFlow's `naive_merge` counts for every
    /// paragraph. This default builds that string in `scratch` (kept by the caller, so it
    /// allocates only while growing); the built-in encodings count `text` in place and add the
    /// `"\n"` when that is exact (see `tokenizer::session`).
    fn count_after_newline(&self, text: &str, scratch: &mut String) -> Result<usize, Self::Error> {
        scratch.clear();
        scratch.push('\n');
        scratch.push_str(text);
        self.count(scratch)
    }

    /// [`count_after_newline`](Self::count_after_newline) of each of `texts`, in order,
    /// appended to `out`. The built-in encodings count them all in one session with the
    /// tokenizer's memo.
    fn count_each_after_newline(
        &self,
        texts: &[&str],
        out: &mut Vec<usize>,
    ) -> Result<(), Self::Error> {
        let mut scratch = String::new();
        for t in texts {
            out.push(self.count_after_newline(t, &mut scratch)?);
        }
        Ok(())
    }
}

impl<F: Fn(&str) -> usize> TokenCounter for F {
    type Error = std::convert::Infallible;

    fn count(&self, text: &str) -> Result<usize, Self::Error> {
        Ok(self(text))
    }
}

/// `len(encoding.encode_ordinary(text))` as a [`TokenCounter`]: special-token text is counted
/// as ordinary text (the classic splitters never refuse a document for containing
/// `<|endoftext|>`).
#[derive(Clone, Copy)]
pub struct OrdinaryCount(pub &'static Tokenizer);

impl TokenCounter for OrdinaryCount {
    type Error = std::convert::Infallible;

    fn count(&self, text: &str) -> Result<usize, Self::Error> {
        Ok(self.0.count_ordinary(text))
    }
}

/// RAGFlow's counting (`count_or_zero`) as a [`TokenCounter`].
#[derive(Clone, Copy)]
pub struct RagflowCount<'a>(pub &'a Tokenizer);

impl TokenCounter for RagflowCount<'_> {
    type Error = std::convert::Infallible;

    fn count(&self, text: &str) -> Result<usize, Self::Error> {
        Ok(self.0.count_or_zero(text))
    }

    fn count_after_newline(&self, text: &str, scratch: &mut String) -> Result<usize, Self::Error> {
        Ok(self.0.count_or_zero_after_newline(text, scratch))
    }

    fn count_each_after_newline(
        &self,
        texts: &[&str],
        out: &mut Vec<usize>,
    ) -> Result<(), Self::Error> {
        self.0.count_or_zero_after_newline_each(texts, out);
        Ok(())
    }
}

/// The built-in unit of a general splitter: a built-in encoding's `count_ordinary`
/// ([`OrdinaryCount`]), or characters (`length="chars"`). `Copy + Send + Sync`, so one value
/// serves every worker of a batch.
#[derive(Clone, Copy)]
pub enum UnitCount {
    Tokens(&'static Tokenizer),
    Chars,
}

impl TokenCounter for UnitCount {
    type Error = std::convert::Infallible;

    fn count(&self, text: &str) -> Result<usize, Self::Error> {
        match self {
            UnitCount::Tokens(tok) => Ok(tok.count_ordinary(text)),
            UnitCount::Chars => CharCount.count(text),
        }
    }
}
