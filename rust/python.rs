//! The only module that touches PyO3: argument conversion, error mapping, GIL release and
//! panic containment. Every entry point follows the same three steps — borrow the arguments,
//! run the pure-Rust core (GIL released when no Python callback is involved), convert the
//! result — and every one runs inside [`contain`], so a Rust panic surfaces as
//! `ragchunk.RagchunkError`, never as an abort or a `PanicException`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyTuple;

use crate::batch::{self, BatchError};
use crate::counter::TokenCounter;
use crate::delimiters;
use crate::merge::{self, Compat, MergeOptions, Section, Strategy};
use crate::positions;
use crate::tokenizer::{EncodingName, RagflowCount, Tokenizer};

/// `ragchunk.RagchunkError`, the one class both backends raise for internal failures.
fn ragchunk_error(py: Python<'_>, msg: String) -> PyErr {
    match py
        .import("ragchunk._errors")
        .and_then(|m| m.getattr("RagchunkError"))
    {
        Ok(cls) => PyErr::from_type(cls.cast_into().expect("RagchunkError is a type"), msg),
        Err(_) => PyRuntimeError::new_err(msg),
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    }
}

/// Runs `f` with panics caught and turned into `RagchunkError`.
fn contain<T>(py: Python<'_>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => Err(ragchunk_error(
            py,
            format!(
                "internal error in ragchunk's Rust core (please report): {}",
                panic_message(payload.as_ref())
            ),
        )),
    }
}

/// Runs `f` with the GIL released and panics contained.
fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    let result = py.detach(|| catch_unwind(AssertUnwindSafe(f)));
    result.map_err(|payload| {
        ragchunk_error(
            py,
            format!(
                "internal error in ragchunk's Rust core (please report): {}",
                panic_message(payload.as_ref())
            ),
        )
    })
}

fn encoding(name: &str) -> PyResult<&'static Tokenizer> {
    let parsed: EncodingName = name.parse().map_err(|_| {
        PyValueError::new_err(format!(
            "tokenizer: unknown encoding {name:?}; built-in encodings are cl100k_base, o200k_base"
        ))
    })?;
    Ok(Tokenizer::get(parsed))
}

/// Exact count, raising `ValueError` on special-token text as tiktoken's `encode` does.
#[pyfunction]
fn count_tokens(py: Python<'_>, text: PyBackedStr, encoding_name: &str) -> PyResult<usize> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        let counted = detached(py, || tok.count(&text))?;
        counted.map_err(|e| {
            PyValueError::new_err(format!(
                "text: {e}. tiktoken's encode() refuses special-token text by default; \
                 use count_ordinary semantics or remove it"
            ))
        })
    })
}

/// RAGFlow's `num_tokens_from_string` semantics: the count, or 0 for special-token text.
#[pyfunction]
fn count_or_zero(py: Python<'_>, text: PyBackedStr, encoding_name: &str) -> PyResult<usize> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        detached(py, || tok.count_or_zero(&text))
    })
}

/// `len(encoding.encode_ordinary(text))`: special-token text counted as plain text.
#[pyfunction]
fn count_ordinary(py: Python<'_>, text: PyBackedStr, encoding_name: &str) -> PyResult<usize> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        detached(py, || tok.count_ordinary(&text))
    })
}

/// `encoding.encode_ordinary(text)`: the token ids (tests compare them with tiktoken's).
#[pyfunction]
fn encode_ordinary(py: Python<'_>, text: PyBackedStr, encoding_name: &str) -> PyResult<Vec<u32>> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        detached(py, || tok.encode_ordinary(&text))
    })
}

/// A counter that calls a Python callable (already validated by the facade to return a
/// non-negative int). Holds the GIL: the callable is Python code.
struct PyCounter<'py> {
    f: Bound<'py, PyAny>,
}

impl TokenCounter for PyCounter<'_> {
    type Error = PyErr;

    fn count(&self, text: &str) -> Result<usize, PyErr> {
        self.f.call1((text,))?.extract::<usize>()
    }
}

fn strategy(name: &str) -> PyResult<Strategy> {
    match name {
        "over_cap" => Ok(Strategy::OverCap),
        "under_cap" => Ok(Strategy::UnderCap),
        other => Err(PyValueError::new_err(format!(
            "strategy must be 'over_cap' or 'under_cap', got {other:?}"
        ))),
    }
}

fn compat(name: &str) -> PyResult<Compat> {
    match name {
        "v0.27" => Ok(Compat::V27),
        "v0.26" => Ok(Compat::V26),
        "v0.23" => Ok(Compat::V23),
        "v0.22" => Ok(Compat::V22),
        other => Err(PyValueError::new_err(format!(
            "compat must be 'v0.27', 'v0.26', 'v0.23' or 'v0.22', got {other:?}"
        ))),
    }
}

type MergeResult = (Vec<String>, Option<Vec<Vec<usize>>>);

/// One crossing per call: split, count, group, overlap and position tags all happen here.
/// Arguments arrive validated by the Python facade (`ragchunk._naive`).
#[pyfunction]
#[pyo3(signature = (texts, poses, chunk_token_num, delimiter, overlapped_percent, strategy_name, compat_name, encoding_name, counter, with_sources))]
#[allow(clippy::too_many_arguments)]
fn naive_merge(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    poses: Vec<Option<PyBackedStr>>,
    chunk_token_num: f64,
    delimiter: PyBackedStr,
    overlapped_percent: f64,
    strategy_name: &str,
    compat_name: &str,
    encoding_name: Option<&str>,
    counter: Option<Bound<'_, PyAny>>,
    with_sources: bool,
) -> PyResult<MergeResult> {
    contain(py, || {
        if texts.len() != poses.len() {
            return Err(PyValueError::new_err("texts and poses differ in length"));
        }
        let sections: Vec<Section<'_>> = texts
            .iter()
            .zip(&poses)
            .map(|(t, p)| Section {
                text: t,
                pos: p.as_deref(),
            })
            .collect();
        let opts = MergeOptions {
            chunk_token_num,
            delimiter: &delimiter,
            overlapped_percent,
            strategy: strategy(strategy_name)?,
            compat: compat(compat_name)?,
        };
        match (encoding_name, counter) {
            (Some(name), _) => {
                let count = RagflowCount(encoding(name)?);
                detached(py, || run_merge(&sections, &opts, &count, with_sources))?
                    .map_err(|never| match never {})
            }
            (None, Some(f)) => run_merge(&sections, &opts, &PyCounter { f }, with_sources),
            (None, None) => Err(PyValueError::new_err(
                "naive_merge needs an encoding name or a counter",
            )),
        }
    })
}

fn run_merge<C: TokenCounter>(
    sections: &[Section<'_>],
    opts: &MergeOptions<'_>,
    counter: &C,
    with_sources: bool,
) -> Result<MergeResult, C::Error> {
    if with_sources {
        let chunks = merge::naive_merge(sections, opts, counter)?;
        let (texts, sources) = chunks.into_iter().map(|c| (c.text, c.sources)).unzip();
        Ok((texts, Some(sources)))
    } else {
        Ok((merge::naive_merge_texts(sections, opts, counter)?, None))
    }
}

impl From<BatchError> for PyErr {
    fn from(e: BatchError) -> PyErr {
        PyRuntimeError::new_err(e.to_string())
    }
}

/// `[len(encoding.encode_ordinary(t)) for t in texts]`, in parallel, GIL released.
#[pyfunction]
#[pyo3(signature = (texts, encoding_name, workers=None))]
fn count_ordinary_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    encoding_name: &str,
    workers: Option<usize>,
) -> PyResult<Vec<usize>> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        Ok(detached(py, || {
            batch::par_map(&texts, workers, |t| tok.count_ordinary(t))
        })??)
    })
}

/// Counts for many texts with RAGFlow's convention (0 for special-token text), or, with
/// `strict`, tiktoken `encode` semantics (`ValueError` naming the first offending text).
#[pyfunction]
#[pyo3(signature = (texts, encoding_name, strict, workers=None))]
fn count_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    encoding_name: &str,
    strict: bool,
    workers: Option<usize>,
) -> PyResult<Vec<usize>> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        let counted = detached(py, || {
            batch::par_map(&texts, workers, |t| tok.count(t).map_err(|e| e.to_string()))
        })??;
        let mut out = Vec::with_capacity(counted.len());
        for (i, c) in counted.into_iter().enumerate() {
            match c {
                Ok(n) => out.push(n),
                Err(_) if !strict => out.push(0),
                Err(e) => return Err(PyValueError::new_err(format!("texts[{i}]: {e}"))),
            }
        }
        Ok(out)
    })
}

type DocInput = (Vec<PyBackedStr>, Vec<Option<PyBackedStr>>);

/// `naive_merge` over many documents in parallel (rayon inside one GIL-free call), results
/// in input order. Built-in encodings only: a Python callback cannot run without the GIL.
#[pyfunction]
#[pyo3(signature = (docs, chunk_token_num, delimiter, overlapped_percent, strategy_name, compat_name, encoding_name, workers))]
#[allow(clippy::too_many_arguments)]
fn naive_merge_batch(
    py: Python<'_>,
    docs: Vec<DocInput>,
    chunk_token_num: f64,
    delimiter: PyBackedStr,
    overlapped_percent: f64,
    strategy_name: &str,
    compat_name: &str,
    encoding_name: &str,
    workers: Option<usize>,
) -> PyResult<Vec<Vec<String>>> {
    contain(py, || {
        let opts = MergeOptions {
            chunk_token_num,
            delimiter: &delimiter,
            overlapped_percent,
            strategy: strategy(strategy_name)?,
            compat: compat(compat_name)?,
        };
        let count = RagflowCount(encoding(encoding_name)?);
        for (i, (texts, poses)) in docs.iter().enumerate() {
            if texts.len() != poses.len() {
                return Err(PyValueError::new_err(format!(
                    "docs[{i}]: texts and poses differ in length"
                )));
            }
        }
        let results = detached(py, || {
            batch::par_map(&docs, workers, |(texts, poses)| {
                if texts.is_empty() {
                    return Vec::new(); // RAGFlow, every release: `if not sections: return []`
                }
                let sections: Vec<Section<'_>> = texts
                    .iter()
                    .zip(poses)
                    .map(|(t, p)| Section {
                        text: t,
                        pos: p.as_deref(),
                    })
                    .collect();
                match merge::naive_merge_texts(&sections, &opts, &count) {
                    Ok(chunks) => chunks,
                    Err(never) => match never {},
                }
            })
        })??;
        Ok(results)
    })
}

/// `re.sub(r"@@[\t0-9.-]+?##", "", txt)`.
#[pyfunction]
fn remove_tag(py: Python<'_>, txt: PyBackedStr) -> PyResult<String> {
    contain(py, || Ok(positions::remove_tag(&txt).into_owned()))
}

/// RAGFlow's `extract_positions`: `[([pages], left, right, top, bottom), ...]`.
#[pyfunction]
fn extract_positions<'py>(py: Python<'py>, txt: PyBackedStr) -> PyResult<Vec<Bound<'py, PyTuple>>> {
    contain(py, || {
        let parsed =
            positions::extract_positions(&txt).map_err(|e| PyValueError::new_err(e.to_string()))?;
        parsed
            .into_iter()
            .map(|p| (p.pages, p.left, p.right, p.top, p.bottom).into_pyobject(py))
            .collect()
    })
}

/// RAGFlow v0.27's delimiter-field parser (`rag/nlp/delim.py`).
#[pyfunction]
fn parse_delimiter_field(py: Python<'_>, field: PyBackedStr) -> PyResult<Vec<String>> {
    contain(py, || Ok(delimiters::parse_delimiter_field(&field)))
}

// ---- classic splitters (issue 5)
// Character windows, token windows and LangChain-compatible recursive splitting. Arguments
// arrive validated by `ragchunk.classic`; chunks go back as `(start, end, size, joined)` with
// code-point offsets (`joined` is the chunk text only when it is not `source[start:end]`).

use crate::splitters::recursive::{
    self, KeepSeparator, RecursiveChunk, RecursiveConfig, Separator,
};
use crate::splitters::token_window::{self, OrdinaryCount};
use crate::splitters::{character, sentence, CharCount, CharOffsets, Span};

/// Forward-only byte -> code-point converter for offsets on character boundaries (all the
/// classic splitters' are): counts with `str::chars().count()`, whose SWAR loop took the
/// chars-mode recursive split of 2 MB of corpus from 8.7 ms to 6.5 ms against the
/// byte-filter walk of [`CharOffsets`], which it falls back to for an offset behind the
/// cursor or inside a character.
struct CharCursor<'a> {
    text: &'a str,
    byte: usize,
    chars: usize,
    slow: CharOffsets<'a>,
}

impl<'a> CharCursor<'a> {
    fn new(text: &'a str) -> Self {
        CharCursor {
            text,
            byte: 0,
            chars: 0,
            slow: CharOffsets::new(text),
        }
    }

    fn at(&mut self, byte: usize) -> usize {
        match self.text.get(self.byte..byte) {
            Some(walked) => {
                self.chars += walked.chars().count();
                self.byte = byte;
                self.chars
            }
            None => self.slow.char_offset(byte),
        }
    }
}

type ChunkTuple = (usize, usize, usize, Option<String>);

/// Byte spans to code-point offsets, in one forward pass per offset kind.
fn spans_to_chars(text: &str, spans: &[Span]) -> Vec<ChunkTuple> {
    let (mut starts, mut ends) = (CharCursor::new(text), CharCursor::new(text));
    spans
        .iter()
        .map(|s| (starts.at(s.start), ends.at(s.end), s.size, None))
        .collect()
}

/// How a classic splitter measures: characters, a built-in encoding, or a Python callable.
#[derive(Clone, Copy)]
enum Unit {
    Chars,
    Tokens(&'static Tokenizer),
    Callback,
}

fn unit(length: &str, encoding_name: Option<&str>) -> PyResult<Unit> {
    match (length, encoding_name) {
        ("chars", _) => Ok(Unit::Chars),
        ("tokens", Some(name)) => Ok(Unit::Tokens(encoding(name)?)),
        ("tokens", None) => Ok(Unit::Callback),
        (other, _) => Err(PyValueError::new_err(format!(
            "length must be 'tokens' or 'chars', got {other:?}"
        ))),
    }
}

/// `with_counts`: measure each chunk's own text (for `Chunk.token_count`); `split_text` does
/// not need it and skips the extra tokenizer pass (sizes are then 0).
fn recursive_chunks<C: TokenCounter>(
    text: &str,
    cfg: &RecursiveConfig,
    counter: &C,
    with_counts: bool,
) -> Result<Vec<ChunkTuple>, C::Error> {
    let chunks = recursive::split(text, cfg, counter)?;
    let (mut starts, mut ends) = (CharCursor::new(text), CharCursor::new(text));
    let mut out = Vec::with_capacity(chunks.len());
    for RecursiveChunk { start, end, joined } in chunks {
        let size = if with_counts {
            counter.count(joined.as_deref().unwrap_or(&text[start..end]))?
        } else {
            0
        };
        out.push((starts.at(start), ends.at(end), size, joined));
    }
    Ok(out)
}

/// LangChain's `RecursiveCharacterTextSplitter`, configured once (regexes compiled here).
#[pyclass(frozen, name = "RecursiveCore")]
struct PyRecursive {
    cfg: RecursiveConfig,
    unit: Unit,
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
        let cfg = &self.cfg;
        contain(py, || match (self.unit, counter) {
            (Unit::Chars, _) => {
                detached(py, || recursive_chunks(&text, cfg, &CharCount, with_counts))?
                    .map_err(|never| match never {})
            }
            (Unit::Tokens(tok), _) => detached(py, || {
                recursive_chunks(&text, cfg, &OrdinaryCount(tok), with_counts)
            })?
            .map_err(|never| match never {}),
            (Unit::Callback, Some(f)) => {
                recursive_chunks(&text, cfg, &PyCounter { f }, with_counts)
            }
            (Unit::Callback, None) => Err(PyValueError::new_err(
                "tokenizer: a callable tokenizer must be passed as counter",
            )),
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
            let unit = self.unit;
            let cfg = &self.cfg;
            Ok(detached(py, || {
                batch::par_map(&texts, workers, |t| match unit {
                    Unit::Tokens(tok) => recursive_chunks(t, cfg, &OrdinaryCount(tok), true)
                        .unwrap_or_else(|never| match never {}),
                    _ => recursive_chunks(t, cfg, &CharCount, true)
                        .unwrap_or_else(|never| match never {}),
                })
            })??)
        })
    }
}

/// Character windows: `(start, end, size, None)` per window.
#[pyfunction]
fn character_split(
    py: Python<'_>,
    text: PyBackedStr,
    chunk_size: usize,
    chunk_overlap: usize,
    drop_last: bool,
) -> PyResult<Vec<ChunkTuple>> {
    contain(py, || {
        detached(py, || {
            spans_to_chars(
                &text,
                &character::split(&text, chunk_size, chunk_overlap, drop_last),
            )
        })
    })
}

/// `character_split` over many texts in parallel, in input order.
#[pyfunction]
#[pyo3(signature = (texts, chunk_size, chunk_overlap, drop_last, workers=None))]
fn character_split_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    chunk_size: usize,
    chunk_overlap: usize,
    drop_last: bool,
    workers: Option<usize>,
) -> PyResult<Vec<Vec<ChunkTuple>>> {
    contain(py, || {
        Ok(detached(py, || {
            batch::par_map(&texts, workers, |t| {
                spans_to_chars(
                    t,
                    &character::split(t, chunk_size, chunk_overlap, drop_last),
                )
            })
        })??)
    })
}

fn token_windows(
    tok: &Tokenizer,
    text: &str,
    size: usize,
    overlap: usize,
) -> PyResult<Vec<ChunkTuple>> {
    let edges = token_window::token_edges(tok, text)
        .map_err(|e| PyRuntimeError::new_err(format!("token window: {e}")))?;
    Ok(spans_to_chars(
        text,
        &token_window::windows(text, &edges, size, overlap),
    ))
}

/// Token windows over a built-in encoding: `(start, end, tokens, None)` per window.
#[pyfunction]
fn token_window_split(
    py: Python<'_>,
    text: PyBackedStr,
    chunk_size: usize,
    chunk_overlap: usize,
    encoding_name: &str,
) -> PyResult<Vec<ChunkTuple>> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        detached(py, || token_windows(tok, &text, chunk_size, chunk_overlap))?
    })
}

/// `token_window_split` over many texts in parallel, in input order.
#[pyfunction]
#[pyo3(signature = (texts, chunk_size, chunk_overlap, encoding_name, workers=None))]
fn token_window_split_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    chunk_size: usize,
    chunk_overlap: usize,
    encoding_name: &str,
    workers: Option<usize>,
) -> PyResult<Vec<Vec<ChunkTuple>>> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        let results = detached(py, || {
            batch::par_map(&texts, workers, |t| {
                token_windows(tok, t, chunk_size, chunk_overlap)
            })
        })??;
        results.into_iter().collect()
    })
}

fn sentence_chunks<C: TokenCounter>(
    text: &str,
    cfg: sentence::SentenceConfig,
    counter: &C,
) -> Result<Vec<ChunkTuple>, C::Error> {
    Ok(spans_to_chars(text, &sentence::split(text, cfg, counter)?))
}

/// Whole sentences packed up to `chunk_size`: `(start, end, size, None)` per chunk.
#[pyfunction]
#[pyo3(signature = (text, chunk_size, overlap_sentences, length, encoding_name=None, counter=None))]
fn sentence_split(
    py: Python<'_>,
    text: PyBackedStr,
    chunk_size: usize,
    overlap_sentences: usize,
    length: &str,
    encoding_name: Option<&str>,
    counter: Option<Bound<'_, PyAny>>,
) -> PyResult<Vec<ChunkTuple>> {
    contain(py, || {
        if chunk_size == 0 {
            return Err(PyValueError::new_err("chunk_size must be >= 1"));
        }
        let cfg = sentence::SentenceConfig {
            chunk_size,
            overlap_sentences,
        };
        match (unit(length, encoding_name)?, counter) {
            (Unit::Chars, _) => detached(py, || sentence_chunks(&text, cfg, &CharCount))?
                .map_err(|never| match never {}),
            (Unit::Tokens(tok), _) => {
                detached(py, || sentence_chunks(&text, cfg, &OrdinaryCount(tok)))?
                    .map_err(|never| match never {})
            }
            (Unit::Callback, Some(f)) => sentence_chunks(&text, cfg, &PyCounter { f }),
            (Unit::Callback, None) => Err(PyValueError::new_err(
                "tokenizer: a callable tokenizer must be passed as counter",
            )),
        }
    })
}

/// `sentence_split` over many texts in parallel (built-in units), in input order.
#[pyfunction]
#[pyo3(signature = (texts, chunk_size, overlap_sentences, length, encoding_name=None, workers=None))]
fn sentence_split_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    chunk_size: usize,
    overlap_sentences: usize,
    length: &str,
    encoding_name: Option<&str>,
    workers: Option<usize>,
) -> PyResult<Vec<Vec<ChunkTuple>>> {
    contain(py, || {
        if chunk_size == 0 {
            return Err(PyValueError::new_err("chunk_size must be >= 1"));
        }
        let cfg = sentence::SentenceConfig {
            chunk_size,
            overlap_sentences,
        };
        let u = unit(length, encoding_name)?;
        Ok(detached(py, || {
            batch::par_map(&texts, workers, |t| match u {
                Unit::Tokens(tok) => sentence_chunks(t, cfg, &OrdinaryCount(tok))
                    .unwrap_or_else(|never| match never {}),
                _ => sentence_chunks(t, cfg, &CharCount).unwrap_or_else(|never| match never {}),
            })
        })??)
    })
}

/// Sentence spans `(start, end)` in code points.
#[pyfunction]
fn sentence_spans(py: Python<'_>, text: PyBackedStr) -> PyResult<Vec<(usize, usize)>> {
    contain(py, || {
        detached(py, || {
            spans_to_chars(&text, &sentence::sentences(&text))
                .into_iter()
                .map(|(s, e, _, _)| (s, e))
                .collect()
        })
    })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(count_or_zero, m)?)?;
    m.add_function(wrap_pyfunction!(count_ordinary, m)?)?;
    m.add_function(wrap_pyfunction!(encode_ordinary, m)?)?;
    m.add_function(wrap_pyfunction!(count_ordinary_batch, m)?)?;
    m.add_function(wrap_pyfunction!(count_batch, m)?)?;
    m.add_function(wrap_pyfunction!(naive_merge, m)?)?;
    m.add_function(wrap_pyfunction!(naive_merge_batch, m)?)?;
    m.add_function(wrap_pyfunction!(remove_tag, m)?)?;
    m.add_function(wrap_pyfunction!(extract_positions, m)?)?;
    m.add_function(wrap_pyfunction!(parse_delimiter_field, m)?)?;
    m.add_class::<PyRecursive>()?;
    m.add_function(wrap_pyfunction!(character_split, m)?)?;
    m.add_function(wrap_pyfunction!(character_split_batch, m)?)?;
    m.add_function(wrap_pyfunction!(token_window_split, m)?)?;
    m.add_function(wrap_pyfunction!(token_window_split_batch, m)?)?;
    m.add_function(wrap_pyfunction!(sentence_split, m)?)?;
    m.add_function(wrap_pyfunction!(sentence_split_batch, m)?)?;
    m.add_function(wrap_pyfunction!(sentence_spans, m)?)?;
    Ok(())
}
