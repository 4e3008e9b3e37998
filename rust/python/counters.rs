//! Counting: the token-count entry points, and how a chunker's arguments choose its counter
//! (a built-in unit, GIL released, or a Python callable, GIL held), with the one generic path
//! that runs a splitter over one document or over a batch.

use std::borrow::Borrow;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use crate::tokenizer::{EncodingName, TokenCounter, Tokenizer, UnitCount};

use super::guard::{contain, detached, map_docs, never};

pub(super) fn encoding(name: &str) -> PyResult<&'static Tokenizer> {
    let parsed: EncodingName = name.parse().map_err(|_| {
        PyValueError::new_err(format!(
            "tokenizer: unknown encoding {name:?}; built-in encodings are cl100k_base, o200k_base"
        ))
    })?;
    Ok(Tokenizer::get(parsed))
}

/// Exact count, raising `ValueError` on special-token text as tiktoken's `encode` does.
#[pyfunction]
pub(super) fn count_tokens(
    py: Python<'_>,
    text: PyBackedStr,
    encoding_name: &str,
) -> PyResult<usize> {
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
pub(super) fn count_or_zero(
    py: Python<'_>,
    text: PyBackedStr,
    encoding_name: &str,
) -> PyResult<usize> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        detached(py, || tok.count_or_zero(&text))
    })
}

/// `len(encoding.encode_ordinary(text))`: special-token text counted as plain text.
#[pyfunction]
pub(super) fn count_ordinary(
    py: Python<'_>,
    text: PyBackedStr,
    encoding_name: &str,
) -> PyResult<usize> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        detached(py, || tok.count_ordinary(&text))
    })
}

/// Resumable `count_ordinary` for text edited only near its end (JSONSplitter): the tokens
/// of `text[start:]` (`start` a byte offset returned by an earlier call on text with the same
/// bytes before it, or 0), and a later resume point before the last `tail` bytes with the
/// tokens up to it: `(count, stable, count_to_stable)`. With `stop_above`, counting stops
/// once past it (`count` is then only known to be above). Small calls: the GIL is kept.
#[pyfunction]
#[pyo3(signature = (text, encoding_name, start, tail, stop_above=None))]
pub(super) fn count_ordinary_resume(
    py: Python<'_>,
    text: PyBackedStr,
    encoding_name: &str,
    start: usize,
    tail: usize,
    stop_above: Option<usize>,
) -> PyResult<(usize, usize, usize)> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        let r = tok
            .count_ordinary_resume(&text, start, tail, stop_above)
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "start: {start} is not a character boundary of text ({} bytes)",
                    text.len()
                ))
            })?;
        Ok((r.count, r.stable, r.count_to_stable))
    })
}

/// `encoding.encode_ordinary(text)`: the token ids (tests compare them with tiktoken's).
#[pyfunction]
pub(super) fn encode_ordinary(
    py: Python<'_>,
    text: PyBackedStr,
    encoding_name: &str,
) -> PyResult<Vec<u32>> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        detached(py, || tok.encode_ordinary(&text))
    })
}

/// A counter that calls a Python callable (already validated by the facade to return a
/// non-negative int). Holds the GIL: the callable is Python code.
pub(super) struct PyCounter<'py> {
    pub(super) f: Bound<'py, PyAny>,
}

impl TokenCounter for PyCounter<'_> {
    type Error = PyErr;

    fn count(&self, text: &str) -> Result<usize, PyErr> {
        self.f.call1((text,))?.extract::<usize>()
    }
}

/// The built-in encoding named, or characters for `None`: the unit of the GIL-free paths.
pub(super) fn unit_count(encoding_name: Option<&str>) -> PyResult<UnitCount> {
    Ok(match encoding_name {
        Some(name) => UnitCount::Tokens(encoding(name)?),
        None => UnitCount::Chars,
    })
}

/// The counter a chunker's arguments choose.
pub(super) enum Counter<'py> {
    /// A built-in unit: the work runs with the GIL released.
    Builtin(UnitCount),
    /// A Python callable: the work runs with the GIL held.
    Python(PyCounter<'py>),
}

impl<'py> Counter<'py> {
    /// The structure-aware splitters' choice: a Python callable (`counter`, no encoding), else
    /// a built-in encoding (`encoding_name`) or characters (neither).
    pub(super) fn new(
        encoding_name: Option<&str>,
        counter: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Self> {
        Ok(match (encoding_name, counter) {
            (None, Some(f)) => Counter::Python(PyCounter { f }),
            (name, _) => Counter::Builtin(unit_count(name)?),
        })
    }
}

/// One document's work for a splitter's entry points: the same code for a single document and
/// for every document of a batch, generic over the counter. (A trait, not a closure: a
/// closure cannot be generic over the counter type, and the Python callback and the built-in
/// units are different types.)
pub(super) trait PerDoc: Sync {
    /// One document as the entry points receive it.
    type Doc: ?Sized + Sync;
    /// One document's result, already in its Python shape (converted by the workers).
    type Out: Send;

    /// The work with any counter (a Python callable: the GIL is held).
    fn run<C: TokenCounter>(&self, doc: &Self::Doc, counter: &C) -> Result<Self::Out, C::Error>;

    /// The work with a built-in unit (the GIL is released): [`PerDoc::run`] with the unit as
    /// the counter, unless a splitter has a faster path for its built-in units.
    fn run_builtin(&self, doc: &Self::Doc, unit: UnitCount) -> Self::Out {
        never(self.run(doc, &unit))
    }
}

/// `job` on one document with the counter its arguments chose.
pub(super) fn split_one<J: PerDoc>(
    py: Python<'_>,
    job: &J,
    doc: &J::Doc,
    counter: Counter<'_>,
) -> PyResult<J::Out> {
    match counter {
        Counter::Python(c) => job.run(doc, &c),
        Counter::Builtin(unit) => detached(py, || job.run_builtin(doc, unit)),
    }
}

/// `job` on every document in parallel with a built-in unit (a Python callback cannot run
/// without the GIL), results in input order.
pub(super) fn split_many<J: PerDoc, D: Borrow<J::Doc> + Sync>(
    py: Python<'_>,
    job: &J,
    docs: &[D],
    unit: UnitCount,
    workers: Option<usize>,
) -> PyResult<Vec<J::Out>> {
    map_docs(py, docs, workers, |d| job.run_builtin(d.borrow(), unit))
}

/// `[len(encoding.encode_ordinary(t)) for t in texts]`, in parallel, GIL released.
#[pyfunction]
#[pyo3(signature = (texts, encoding_name, workers=None))]
pub(super) fn count_ordinary_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    encoding_name: &str,
    workers: Option<usize>,
) -> PyResult<Vec<usize>> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        map_docs(py, &texts, workers, |t| tok.count_ordinary(t))
    })
}

/// Counts for many texts with RAGFlow's convention (0 for special-token text), or, with
/// `strict`, tiktoken `encode` semantics (`ValueError` naming the first offending text).
#[pyfunction]
#[pyo3(signature = (texts, encoding_name, strict, workers=None))]
pub(super) fn count_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    encoding_name: &str,
    strict: bool,
    workers: Option<usize>,
) -> PyResult<Vec<usize>> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        let counted = map_docs(py, &texts, workers, |t| {
            tok.count(t).map_err(|e| e.to_string())
        })?;
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
