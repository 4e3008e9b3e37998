//! The classic splitters: character windows, token windows, LangChain-compatible recursive
//! splitting and whole sentences. Arguments arrive validated by the Python facade; chunks go
//! back as `(start, end, size, joined)` with code-point offsets (`joined` is the chunk text
//! only when it is not `source[start:end]`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyList, PyString};

use crate::splitters::recursive::{self, KeepSeparator, MeasuredChunk, RecursiveConfig, Separator};
use crate::splitters::{character, sentence, spans_in_chars, token_window, Span};
use crate::text::CharIndex;
use crate::tokenizer::{TokenCounter, Tokenizer, UnitCount};

use super::counters::{encoding, split_many, split_one, Counter, PerDoc, PyCounter};
use super::guard::{contain, detached, map_docs};
use super::strings::substring;

type ChunkTuple = (usize, usize, usize, Option<String>);

/// Code-point spans as chunk tuples.
fn tuples(spans: Vec<Span>) -> Vec<ChunkTuple> {
    spans
        .into_iter()
        .map(|s| (s.start, s.end, s.size, None))
        .collect()
}

/// How a classic splitter measures: a built-in unit, or a Python callable.
#[derive(Clone, Copy)]
enum Unit {
    Builtin(UnitCount),
    Callback,
}

fn unit(length: &str, encoding_name: Option<&str>) -> PyResult<Unit> {
    match (length, encoding_name) {
        ("chars", _) => Ok(Unit::Builtin(UnitCount::Chars)),
        ("tokens", Some(name)) => Ok(Unit::Builtin(UnitCount::Tokens(encoding(name)?))),
        ("tokens", None) => Ok(Unit::Callback),
        (other, _) => Err(PyValueError::new_err(format!(
            "length must be 'tokens' or 'chars', got {other:?}"
        ))),
    }
}

impl Unit {
    /// The counter of one call: the built-in unit, or `counter`, which a callable length
    /// requires.
    fn counter<'py>(self, counter: Option<Bound<'py, PyAny>>) -> PyResult<Counter<'py>> {
        match (self, counter) {
            (Unit::Builtin(unit), _) => Ok(Counter::Builtin(unit)),
            (Unit::Callback, Some(f)) => Ok(Counter::Python(PyCounter { f })),
            (Unit::Callback, None) => Err(PyValueError::new_err(
                "tokenizer: a callable tokenizer must be passed as counter",
            )),
        }
    }

    /// The unit of a batch: built-in units only (the facade never batches a callable length;
    /// if asked to, the batch measures characters).
    fn batch(self) -> UnitCount {
        match self {
            Unit::Builtin(unit) => unit,
            Unit::Callback => UnitCount::Chars,
        }
    }
}

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
#[pyclass(frozen, name = "RecursiveCore")]
pub(super) struct PyRecursive {
    cfg: RecursiveConfig,
    unit: Unit,
}

impl PyRecursive {
    fn chunks(
        &self,
        py: Python<'_>,
        text: &str,
        counter: Option<Bound<'_, PyAny>>,
        with_counts: bool,
    ) -> PyResult<Vec<ChunkTuple>> {
        let job = RecursiveDoc {
            cfg: &self.cfg,
            with_counts,
        };
        split_one(py, &job, text, self.unit.counter(counter)?)
    }
}

#[pymethods]
impl PyRecursive {
    /// `separators`: `(text, rust_regex)` pairs; `rust_regex` is `None` for a literal.
    #[new]
    #[pyo3(signature = (chunk_size, chunk_overlap, separators, keep_separator, strip_whitespace, length, encoding_name=None))]
    fn new(
        chunk_size: usize,
        chunk_overlap: usize,
        separators: Vec<(String, Option<String>)>,
        keep_separator: &str,
        strip_whitespace: bool,
        length: &str,
        encoding_name: Option<&str>,
    ) -> PyResult<Self> {
        if chunk_size == 0 || chunk_overlap >= chunk_size {
            return Err(PyValueError::new_err(format!(
                "chunk_size must be > 0 and chunk_overlap < chunk_size, got {chunk_size} and {chunk_overlap}"
            )));
        }
        if separators.is_empty() {
            return Err(PyValueError::new_err("separators must not be empty"));
        }
        let keep_separator = match keep_separator {
            "start" => KeepSeparator::Start,
            "end" => KeepSeparator::End,
            "none" => KeepSeparator::Drop,
            other => {
                return Err(PyValueError::new_err(format!(
                    "keep_separator must be 'start', 'end' or 'none', got {other:?}"
                )))
            }
        };
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
            unit: unit(length, encoding_name)?,
        })
    }

    /// Chunks of one text; `counter` (a Python callable) is required for callback lengths.
    #[pyo3(signature = (text, counter=None, with_counts=true))]
    fn split(
        &self,
        py: Python<'_>,
        text: PyBackedStr,
        counter: Option<Bound<'_, PyAny>>,
        with_counts: bool,
    ) -> PyResult<Vec<ChunkTuple>> {
        contain(py, || self.chunks(py, &text, counter, with_counts))
    }

    /// Just the chunk strings of one text (LangChain's `split_text`), built here: slices of
    /// `text` (or the re-joined text), with no tuples or counts crossing into Python.
    #[pyo3(signature = (text, counter=None))]
    fn split_text<'py>(
        &self,
        py: Python<'py>,
        text: Bound<'py, PyString>,
        counter: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        contain(py, || {
            let chunks = self.chunks(py, text.to_str()?, counter, false)?;
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

    /// `split` over many texts in parallel (GIL released), in input order. Built-in units only.
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
            split_many(py, &job, &texts, self.unit.batch(), workers)
        })
    }
}

/// One document of [`character_split`] and [`character_split_batch`].
fn character_windows(
    text: &str,
    chunk_size: usize,
    chunk_overlap: usize,
    drop_last: bool,
) -> Vec<ChunkTuple> {
    let spans = character::split(text, chunk_size, chunk_overlap, drop_last);
    tuples(spans_in_chars(text, spans))
}

/// Character windows: `(start, end, size, None)` per window.
#[pyfunction]
pub(super) fn character_split(
    py: Python<'_>,
    text: PyBackedStr,
    chunk_size: usize,
    chunk_overlap: usize,
    drop_last: bool,
) -> PyResult<Vec<ChunkTuple>> {
    contain(py, || {
        detached(py, || {
            character_windows(&text, chunk_size, chunk_overlap, drop_last)
        })
    })
}

/// `character_split` over many texts in parallel, in input order.
#[pyfunction]
#[pyo3(signature = (texts, chunk_size, chunk_overlap, drop_last, workers=None))]
pub(super) fn character_split_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    chunk_size: usize,
    chunk_overlap: usize,
    drop_last: bool,
    workers: Option<usize>,
) -> PyResult<Vec<Vec<ChunkTuple>>> {
    contain(py, || {
        map_docs(py, &texts, workers, |t| {
            character_windows(t, chunk_size, chunk_overlap, drop_last)
        })
    })
}

/// One document of [`token_window_split`] and [`token_window_split_batch`].
fn token_windows(tok: &Tokenizer, text: &str, size: usize, overlap: usize) -> Vec<ChunkTuple> {
    tuples(spans_in_chars(
        text,
        token_window::split(tok, text, size, overlap),
    ))
}

/// Token windows over a built-in encoding: `(start, end, tokens, None)` per window.
#[pyfunction]
pub(super) fn token_window_split(
    py: Python<'_>,
    text: PyBackedStr,
    chunk_size: usize,
    chunk_overlap: usize,
    encoding_name: &str,
) -> PyResult<Vec<ChunkTuple>> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        detached(py, || token_windows(tok, &text, chunk_size, chunk_overlap))
    })
}

/// `token_window_split` over many texts in parallel, in input order.
#[pyfunction]
#[pyo3(signature = (texts, chunk_size, chunk_overlap, encoding_name, workers=None))]
pub(super) fn token_window_split_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    chunk_size: usize,
    chunk_overlap: usize,
    encoding_name: &str,
    workers: Option<usize>,
) -> PyResult<Vec<Vec<ChunkTuple>>> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        map_docs(py, &texts, workers, |t| {
            token_windows(tok, t, chunk_size, chunk_overlap)
        })
    })
}

/// One document of the sentence splitter.
struct SentenceDoc(sentence::SentenceConfig);

impl SentenceDoc {
    fn new(chunk_size: usize, overlap_sentences: usize) -> PyResult<Self> {
        if chunk_size == 0 {
            return Err(PyValueError::new_err("chunk_size must be >= 1"));
        }
        Ok(SentenceDoc(sentence::SentenceConfig {
            chunk_size,
            overlap_sentences,
        }))
    }
}

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

/// Whole sentences packed up to `chunk_size`: `(start, end, size, None)` per chunk.
#[pyfunction]
#[pyo3(signature = (text, chunk_size, overlap_sentences, length, encoding_name=None, counter=None))]
pub(super) fn sentence_split(
    py: Python<'_>,
    text: PyBackedStr,
    chunk_size: usize,
    overlap_sentences: usize,
    length: &str,
    encoding_name: Option<&str>,
    counter: Option<Bound<'_, PyAny>>,
) -> PyResult<Vec<ChunkTuple>> {
    contain(py, || {
        let job = SentenceDoc::new(chunk_size, overlap_sentences)?;
        let counter = unit(length, encoding_name)?.counter(counter)?;
        split_one(py, &job, &text, counter)
    })
}

/// `sentence_split` over many texts in parallel (built-in units), in input order.
#[pyfunction]
#[pyo3(signature = (texts, chunk_size, overlap_sentences, length, encoding_name=None, workers=None))]
pub(super) fn sentence_split_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    chunk_size: usize,
    overlap_sentences: usize,
    length: &str,
    encoding_name: Option<&str>,
    workers: Option<usize>,
) -> PyResult<Vec<Vec<ChunkTuple>>> {
    contain(py, || {
        let job = SentenceDoc::new(chunk_size, overlap_sentences)?;
        let unit = unit(length, encoding_name)?.batch();
        split_many(py, &job, &texts, unit, workers)
    })
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
