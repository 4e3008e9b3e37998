//! `CodeSplitter`, configured once, with the grammars of the `code` feature.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use crate::splitters::code::{self, Lang};
use crate::tokenizer::TokenCounter;

use super::chunker::{int_option, split_many, split_one, Measure, PerDoc};
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

/// `CodeSplitter`, configured once: `(start, end, size, symbols, start_line, end_line)` chunks.
#[pyclass(frozen, module = "ragchunk._core", name = "CodeSplitter")]
pub(super) struct PyCode {
    job: CodeDoc,
    measure: Measure,
}

#[pymethods]
impl PyCode {
    #[new]
    #[pyo3(signature = (language, chunk_size, length="tokens", encoding_name=None, counter=None))]
    fn new(
        py: Python<'_>,
        language: &str,
        chunk_size: &Bound<'_, PyAny>,
        length: &str,
        encoding_name: Option<&str>,
        counter: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        contain(py, || {
            Ok(PyCode {
                job: CodeDoc {
                    lang: code_lang(language)?,
                    chunk_size: int_option(chunk_size, "chunk_size", 1)?,
                },
                measure: Measure::new(length, encoding_name, counter)?,
            })
        })
    }

    fn split(&self, py: Python<'_>, text: PyBackedStr) -> PyResult<Vec<CodeChunkPy>> {
        contain(py, || split_one(py, &self.job, &text, &self.measure))
    }

    #[pyo3(signature = (texts, workers=None))]
    fn split_batch(
        &self,
        py: Python<'_>,
        texts: Vec<PyBackedStr>,
        workers: Option<usize>,
    ) -> PyResult<Vec<Vec<CodeChunkPy>>> {
        contain(py, || {
            split_many(py, &self.job, &texts, &self.measure, workers)
        })
    }
}
