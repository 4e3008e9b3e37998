//! The one seam between chunking logic and token counting.
//!
//! Chunkers never know which tokenizer they run with: they take a [`TokenCounter`]. The
//! built-in tiktoken-exact encodings implement it without failing; a counter that calls back
//! into Python can fail (the callback raised), which is why `count` returns a `Result`.

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
