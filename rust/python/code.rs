//! `CodeSplitter`, with the grammars of the `code` feature.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use crate::splitters::code::{self, Lang};
use crate::tokenizer::TokenCounter;

use super::counters::{split_many, split_one, unit_count, Counter, PerDoc};
use super::guard::contain;

/// `(start, end, size, symbols, start_line, end_line)`, code points, lines 1-based inclusive.
type CodeChunkPy = (usize, usize, usize, Vec<String>, usize, usize);

fn code_lang(language: &str) -> PyResult<Lang> {
    Lang::from_name(language).ok_or_else(|| {
        PyValueError::new_err(format!(
            "language {language:?} is not supported; supported: {}",
            code::LANGUAGES.join(", ")
        ))
    })
}

/// One source file of the code splitter.
struct CodeDoc {
    lang: Lang,
    chunk_size: usize,
}

impl PerDoc for CodeDoc {
    type Doc = str;
    type Out = Vec<CodeChunkPy>;

    fn run<C: TokenCounter>(&self, text: &str, counter: &C) -> Result<Self::Out, C::Error> {
        let chunks = code::split_code(text, self.lang, self.chunk_size, counter)?;
        Ok(code::chunks_in_chars(text, chunks)
            .into_iter()
            .map(|c| {
                (
                    c.span.start,
                    c.span.end,
                    c.span.size,
                    c.symbols,
                    c.start_line,
                    c.end_line,
                )
            })
            .collect())
    }
}

/// `CodeSplitter.split` in one crossing. `encoding_name` (built-in tokenizer, GIL released),
/// `counter` (Python callable, GIL held) or neither (`length="chars"`).
#[pyfunction]
#[pyo3(name = "code_split", signature = (text, language, chunk_size, encoding_name, counter))]
pub(super) fn split_code(
    py: Python<'_>,
    text: PyBackedStr,
    language: &str,
    chunk_size: usize,
    encoding_name: Option<&str>,
    counter: Option<Bound<'_, PyAny>>,
) -> PyResult<Vec<CodeChunkPy>> {
    contain(py, || {
        let job = CodeDoc {
            lang: code_lang(language)?,
            chunk_size,
        };
        split_one(py, &job, &text, Counter::new(encoding_name, counter)?)
    })
}

/// `CodeSplitter.split_batch`: files in parallel (rayon), GIL released. Built-in tokenizers
/// and `length="chars"` only.
#[pyfunction]
#[pyo3(name = "code_split_batch", signature = (texts, language, chunk_size, encoding_name, workers))]
pub(super) fn split_code_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    language: &str,
    chunk_size: usize,
    encoding_name: Option<&str>,
    workers: Option<usize>,
) -> PyResult<Vec<Vec<CodeChunkPy>>> {
    contain(py, || {
        let job = CodeDoc {
            lang: code_lang(language)?,
            chunk_size,
        };
        split_many(py, &job, &texts, unit_count(encoding_name)?, workers)
    })
}
