//! Counting: the token-count entry points, the built-in encodings by name, and the counter
//! that calls a Python callable.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use crate::tokenizer::{EncodingName, TokenCounter, Tokenizer};

use super::guard::{contain, detached, map_docs};

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
