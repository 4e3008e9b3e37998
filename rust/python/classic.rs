//! The classic splitters, each a configured class: character windows, token windows,
//! LangChain-compatible recursive splitting and whole sentences. Chunks go back as
//! `(start, end, size, joined)` with code-point offsets (`joined` is the chunk text only when
//! it is not `source[start:end]`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyList, PyString};

use crate::splitters::recursive::{self, KeepSeparator, MeasuredChunk, RecursiveConfig, Separator};
use crate::splitters::{character, sentence, spans_in_chars, token_window, Span};
use crate::text::CharIndex;
use crate::tokenizer::{TokenCounter, Tokenizer, UnitCount};

use super::arrow::{split_arrow, ArrowChunks};
use super::chunker::{int_option, sizes, split_many, split_one, Measure, PerDoc};
use super::counters::encoding;
use super::guard::{contain, detached};
use super::strings::substring;

type ChunkTuple = (usize, usize, usize, Option<String>);

/// Code-point spans as chunk tuples.
fn tuples(spans: Vec<Span>) -> Vec<ChunkTuple> {
    spans
        .into_iter()
        .map(|s| (s.start, s.end, s.size, None))
        .collect()
}

/// The measure of the fixed-window splitters, which size their windows themselves (code
/// points, or the tokenizer's own token edges) and never call a counter: a built-in unit,
/// so that they run with the GIL released like every other built-in measure.
const WINDOWS: Measure = Measure::Builtin(UnitCount::Chars);

/// One document of the recursive splitter (`with_counts`: see
/// [`recursive::split_measured`]).
struct RecursiveDoc<'a> {
    cfg: &'a RecursiveConfig,
    with_counts: bool,
}

fn measured_tuples(chunks: Vec<MeasuredChunk>) -> Vec<ChunkTuple> {
    chunks
        .into_iter()
        .map(|c| (c.start, c.end, c.size, c.joined))
        .collect()
}

impl PerDoc for RecursiveDoc<'_> {
    type Doc = str;
    type Out = Vec<ChunkTuple>;

    fn run<C: TokenCounter>(&self, text: &str, counter: &C) -> Result<Self::Out, C::Error> {
        let index = CharIndex::new(text);
        let chunks = recursive::split_measured(&index, self.cfg, counter, self.with_counts)?;
        Ok(measured_tuples(chunks))
    }

    fn run_builtin(&self, text: &str, unit: UnitCount) -> Self::Out {
        let chunks = recursive::split_measured_builtin(text, self.cfg, unit, self.with_counts);
        measured_tuples(chunks)
    }
}

/// LangChain's `RecursiveCharacterTextSplitter`, configured once (regexes compiled here).
#[pyclass(frozen, module = "ragchunk._core", name = "RecursiveSplitter")]
pub(super) struct PyRecursive {
    cfg: RecursiveConfig,
    measure: Measure,
}

impl PyRecursive {
    fn chunks(&self, py: Python<'_>, text: &str, with_counts: bool) -> PyResult<Vec<ChunkTuple>> {
        let job = RecursiveDoc {
            cfg: &self.cfg,
            with_counts,
        };
        split_one(py, &job, text, &self.measure)
    }
}

fn keep_separator(value: &str) -> PyResult<KeepSeparator> {
    match value {
        "start" => Ok(KeepSeparator::Start),
        "end" => Ok(KeepSeparator::End),
        "none" => Ok(KeepSeparator::Drop),
        other => Err(PyValueError::new_err(format!(
            "keep_separator must be 'start', 'end' or 'none', got {other:?}"
        ))),
    }
}

#[pymethods]
impl PyRecursive {
    /// `separators`: `(text, rust_regex)` pairs; `rust_regex` is `None` for a literal.
    #[new]
    #[pyo3(signature = (chunk_size, chunk_overlap, separators, keep_separator, strip_whitespace, length="tokens", encoding_name=None, counter=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        chunk_size: &Bound<'_, PyAny>,
        chunk_overlap: &Bound<'_, PyAny>,
        separators: Vec<(String, Option<String>)>,
        keep_separator: &str,
        strip_whitespace: bool,
        length: &str,
        encoding_name: Option<&str>,
        counter: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        contain(py, || {
            let (chunk_size, chunk_overlap) = sizes(chunk_size, chunk_overlap)?;
            if separators.is_empty() {
                return Err(PyValueError::new_err("separators must not be empty"));
            }
            let keep_separator = self::keep_separator(keep_separator)?;
            let mut seps = Vec::with_capacity(separators.len());
            for (i, (text, pattern)) in separators.iter().enumerate() {
                seps.push(match pattern {
                    None => Separator::literal(text),
                    Some(p) => {
                        let re = regex::Regex::new(p).map_err(|e| {
                            PyValueError::new_err(format!("separators[{i}]: invalid regex: {e}"))
                        })?;
                        Separator::regex(text, re)
                    }
                });
            }
            Ok(PyRecursive {
                cfg: RecursiveConfig {
                    chunk_size,
                    chunk_overlap,
                    separators: seps,
                    keep_separator,
                    strip_whitespace,
                },
                measure: Measure::new(length, encoding_name, counter)?,
            })
        })
    }

    /// Chunks of one text.
    fn split(&self, py: Python<'_>, text: PyBackedStr) -> PyResult<Vec<ChunkTuple>> {
        contain(py, || self.chunks(py, &text, true))
    }

    /// Just the chunk strings of one text (LangChain's `split_text`), built here: slices of
    /// `text` (or the re-joined text), with no tuples or counts crossing into Python.
    fn split_text<'py>(
        &self,
        py: Python<'py>,
        text: Bound<'py, PyString>,
    ) -> PyResult<Bound<'py, PyList>> {
        contain(py, || {
            let chunks = self.chunks(py, text.to_str()?, false)?;
            let mut strings = Vec::with_capacity(chunks.len());
            for (start, end, _, joined) in chunks {
                strings.push(match joined {
                    Some(j) => PyString::new(py, &j).into_any(),
                    None => substring(&text, start, end)?,
                });
            }
            PyList::new(py, strings)
        })
    }

    /// `split` over many texts, in input order.
    #[pyo3(signature = (texts, workers=None))]
    fn split_batch(
        &self,
        py: Python<'_>,
        texts: Vec<PyBackedStr>,
        workers: Option<usize>,
    ) -> PyResult<Vec<Vec<ChunkTuple>>> {
        contain(py, || {
            let job = RecursiveDoc {
                cfg: &self.cfg,
                with_counts: true,
            };
            split_many(py, &job, &texts, &self.measure, workers)
        })
    }

    /// The Arrow path: a string array's buffers in, the chunk columns' buffers out (see
    /// `arrow::split_arrow`).
    #[pyo3(signature = (data, offsets, offset, len, large, workers=None))]
    #[allow(clippy::too_many_arguments)]
    fn split_arrow<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        offsets: &Bound<'py, PyAny>,
        offset: usize,
        len: usize,
        large: bool,
        workers: Option<usize>,
    ) -> PyResult<ArrowChunks<'py>> {
        contain(py, || {
            split_arrow(py, data, offsets, offset, len, large, workers, |docs| {
                let job = RecursiveDoc {
                    cfg: &self.cfg,
                    with_counts: true,
                };
                split_many(py, &job, docs, &self.measure, workers)
            })
        })
    }
}

/// One document of the character splitter.
struct CharacterDoc {
    chunk_size: usize,
    chunk_overlap: usize,
    drop_last: bool,
}

impl PerDoc for CharacterDoc {
    type Doc = str;
    type Out = Vec<ChunkTuple>;

    fn run<C: TokenCounter>(&self, text: &str, _: &C) -> Result<Self::Out, C::Error> {
        let spans = character::split(text, self.chunk_size, self.chunk_overlap, self.drop_last);
        Ok(tuples(spans_in_chars(text, spans)))
    }
}

/// Fixed windows of characters, configured once: `(start, end, size, None)` per window.
#[pyclass(frozen, module = "ragchunk._core", name = "CharacterSplitter")]
pub(super) struct PyCharacter(CharacterDoc);

#[pymethods]
impl PyCharacter {
    #[new]
    fn new(
        py: Python<'_>,
        chunk_size: &Bound<'_, PyAny>,
        chunk_overlap: &Bound<'_, PyAny>,
        drop_last: bool,
    ) -> PyResult<Self> {
        contain(py, || {
            let (chunk_size, chunk_overlap) = sizes(chunk_size, chunk_overlap)?;
            Ok(PyCharacter(CharacterDoc {
                chunk_size,
                chunk_overlap,
                drop_last,
            }))
        })
    }

    fn split(&self, py: Python<'_>, text: PyBackedStr) -> PyResult<Vec<ChunkTuple>> {
        contain(py, || split_one(py, &self.0, &text, &WINDOWS))
    }

    #[pyo3(signature = (texts, workers=None))]
    fn split_batch(
        &self,
        py: Python<'_>,
        texts: Vec<PyBackedStr>,
        workers: Option<usize>,
    ) -> PyResult<Vec<Vec<ChunkTuple>>> {
        contain(py, || split_many(py, &self.0, &texts, &WINDOWS, workers))
    }

    /// The Arrow path: a string array's buffers in, the chunk columns' buffers out (see
    /// `arrow::split_arrow`).
    #[pyo3(signature = (data, offsets, offset, len, large, workers=None))]
    #[allow(clippy::too_many_arguments)]
    fn split_arrow<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        offsets: &Bound<'py, PyAny>,
        offset: usize,
        len: usize,
        large: bool,
        workers: Option<usize>,
    ) -> PyResult<ArrowChunks<'py>> {
        contain(py, || {
            split_arrow(py, data, offsets, offset, len, large, workers, |docs| {
                split_many(py, &self.0, docs, &WINDOWS, workers)
            })
        })
    }
}

/// One document of the token window splitter.
struct TokenWindowDoc {
    tok: &'static Tokenizer,
    chunk_size: usize,
    chunk_overlap: usize,
}

impl PerDoc for TokenWindowDoc {
    type Doc = str;
    type Out = Vec<ChunkTuple>;

    fn run<C: TokenCounter>(&self, text: &str, _: &C) -> Result<Self::Out, C::Error> {
        let spans = token_window::split(self.tok, text, self.chunk_size, self.chunk_overlap);
        Ok(tuples(spans_in_chars(text, spans)))
    }
}

/// Token windows over a built-in encoding, cut at character boundaries, configured once:
/// `(start, end, tokens, None)` per window.
#[pyclass(frozen, module = "ragchunk._core", name = "TokenWindowSplitter")]
pub(super) struct PyTokenWindow(TokenWindowDoc);

#[pymethods]
impl PyTokenWindow {
    #[new]
    fn new(
        py: Python<'_>,
        chunk_size: &Bound<'_, PyAny>,
        chunk_overlap: &Bound<'_, PyAny>,
        encoding_name: &str,
    ) -> PyResult<Self> {
        contain(py, || {
            let (chunk_size, chunk_overlap) = sizes(chunk_size, chunk_overlap)?;
            Ok(PyTokenWindow(TokenWindowDoc {
                tok: encoding(encoding_name)?,
                chunk_size,
                chunk_overlap,
            }))
        })
    }

    fn split(&self, py: Python<'_>, text: PyBackedStr) -> PyResult<Vec<ChunkTuple>> {
        contain(py, || split_one(py, &self.0, &text, &WINDOWS))
    }

    #[pyo3(signature = (texts, workers=None))]
    fn split_batch(
        &self,
        py: Python<'_>,
        texts: Vec<PyBackedStr>,
        workers: Option<usize>,
    ) -> PyResult<Vec<Vec<ChunkTuple>>> {
        contain(py, || split_many(py, &self.0, &texts, &WINDOWS, workers))
    }

    /// The Arrow path: a string array's buffers in, the chunk columns' buffers out (see
    /// `arrow::split_arrow`).
    #[pyo3(signature = (data, offsets, offset, len, large, workers=None))]
    #[allow(clippy::too_many_arguments)]
    fn split_arrow<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        offsets: &Bound<'py, PyAny>,
        offset: usize,
        len: usize,
        large: bool,
        workers: Option<usize>,
    ) -> PyResult<ArrowChunks<'py>> {
        contain(py, || {
            split_arrow(py, data, offsets, offset, len, large, workers, |docs| {
                split_many(py, &self.0, docs, &WINDOWS, workers)
            })
        })
    }
}

/// One document of the sentence splitter.
struct SentenceDoc(sentence::SentenceConfig);

impl PerDoc for SentenceDoc {
    type Doc = str;
    type Out = Vec<ChunkTuple>;

    fn run<C: TokenCounter>(&self, text: &str, counter: &C) -> Result<Self::Out, C::Error> {
        let spans = sentence::split(text, self.0, counter)?;
        Ok(tuples(spans_in_chars(text, spans)))
    }

    fn run_builtin(&self, text: &str, unit: UnitCount) -> Self::Out {
        let spans = sentence::split_builtin(text, self.0, unit);
        tuples(spans_in_chars(text, spans))
    }
}

/// Whole sentences packed up to `chunk_size`, configured once: `(start, end, size, None)`
/// per chunk.
#[pyclass(frozen, module = "ragchunk._core", name = "SentenceSplitter")]
pub(super) struct PySentence {
    job: SentenceDoc,
    measure: Measure,
}

#[pymethods]
impl PySentence {
    #[new]
    #[pyo3(signature = (chunk_size, chunk_overlap_sentences, length="tokens", encoding_name=None, counter=None))]
    fn new(
        py: Python<'_>,
        chunk_size: &Bound<'_, PyAny>,
        chunk_overlap_sentences: &Bound<'_, PyAny>,
        length: &str,
        encoding_name: Option<&str>,
        counter: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        contain(py, || {
            let config = sentence::SentenceConfig {
                chunk_size: int_option(chunk_size, "chunk_size", 1)?,
                overlap_sentences: int_option(
                    chunk_overlap_sentences,
                    "chunk_overlap_sentences",
                    0,
                )?,
            };
            Ok(PySentence {
                job: SentenceDoc(config),
                measure: Measure::new(length, encoding_name, counter)?,
            })
        })
    }

    fn split(&self, py: Python<'_>, text: PyBackedStr) -> PyResult<Vec<ChunkTuple>> {
        contain(py, || split_one(py, &self.job, &text, &self.measure))
    }

    #[pyo3(signature = (texts, workers=None))]
    fn split_batch(
        &self,
        py: Python<'_>,
        texts: Vec<PyBackedStr>,
        workers: Option<usize>,
    ) -> PyResult<Vec<Vec<ChunkTuple>>> {
        contain(py, || {
            split_many(py, &self.job, &texts, &self.measure, workers)
        })
    }

    /// The Arrow path: a string array's buffers in, the chunk columns' buffers out (see
    /// `arrow::split_arrow`).
    #[pyo3(signature = (data, offsets, offset, len, large, workers=None))]
    #[allow(clippy::too_many_arguments)]
    fn split_arrow<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        offsets: &Bound<'py, PyAny>,
        offset: usize,
        len: usize,
        large: bool,
        workers: Option<usize>,
    ) -> PyResult<ArrowChunks<'py>> {
        contain(py, || {
            split_arrow(py, data, offsets, offset, len, large, workers, |docs| {
                split_many(py, &self.job, docs, &self.measure, workers)
            })
        })
    }
}

/// Sentence spans `(start, end)` in code points.
#[pyfunction]
#[pyo3(name = "sentence_spans")]
pub(super) fn sentences(py: Python<'_>, text: PyBackedStr) -> PyResult<Vec<(usize, usize)>> {
    contain(py, || {
        detached(py, || {
            spans_in_chars(&text, sentence::sentences(&text))
                .into_iter()
                .map(|s| (s.start, s.end))
                .collect()
        })
    })
}
