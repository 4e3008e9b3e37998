//! Counting: the token-count entry points, the built-in encodings by name, and the counter
//! that calls a Python callable.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use crate::tokenizer::{EncodingName, TokenCounter, Tokenizer};

use super::guard::{contain, detached, map_docs};

pub(super) fn encoding(name: &str) -> PyResult<&'static Tokenizer> {
    if let Some(path) = name.strip_prefix("hf:") {
        if let Some(t) = Tokenizer::lookup(name) {
            return Ok(t);
        }
        // A file's key names its path: load it here too (a chunker unpickled in a worker
        // process arrives with the key only).
        #[cfg(feature = "hf")]
        if !path.starts_with("sha256:") {
            let (path, special) = match path.strip_suffix("#special") {
                Some(p) => (p, true),
                None => (path, false),
            };
            if let Ok(json) = std::fs::read_to_string(path) {
                return crate::tokenizer::hf::register(name, &json, special)
                    .map_err(|e| PyValueError::new_err(format!("tokenizer: {e}")));
            }
        }
        #[cfg(not(feature = "hf"))]
        let _ = path;
        return Tokenizer::lookup(name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "tokenizer: the Hugging Face tokenizer {name:?} is not loaded \
                 (pass tokenizer=\"hf:<path to tokenizer.json>\" or a Tokenizer object)"
            ))
        });
    }
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

/// Texts shorter than this (UTF-8 bytes) have their spans counted on the calling thread when
/// no worker count is given.
const SPANS_ON_ONE_THREAD: usize = 96 << 10;

/// `[len(encoding.encode_ordinary(text[s:e])) for s, e in spans]` (code-point spans), in
/// parallel with the GIL released: the slices are never made as Python strings.
#[pyfunction]
#[pyo3(signature = (text, spans, encoding_name, workers=None))]
pub(super) fn count_ordinary_spans(
    py: Python<'_>,
    text: PyBackedStr,
    spans: Vec<(i64, i64)>,
    encoding_name: &str,
    workers: Option<usize>,
) -> PyResult<Vec<usize>> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        let text: &str = &text;
        let mut unsigned = Vec::with_capacity(spans.len());
        for (i, &(s, e)) in spans.iter().enumerate() {
            match (usize::try_from(s), usize::try_from(e)) {
                (Ok(s), Ok(e)) => unsigned.push((s, e)),
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "spans[{i}] = ({s}, {e}) is not a span of the text"
                    )))
                }
            }
        }
        let ranges =
            crate::text::offsets::byte_ranges(text, &unsigned).map_err(PyValueError::new_err)?;
        // Spreading a small text's spans over the pool costs more than it saves (waking the
        // workers, splitting the work): for a text's sentences, 0.44 ms against 0.31 ms on one
        // thread at 47 KB, even at 91 KB, the pool ahead at 185 KB (1.27 ms against 1.62 ms).
        let workers = match workers {
            None if text.len() < SPANS_ON_ONE_THREAD => Some(1),
            w => w,
        };
        map_docs(py, &ranges, workers, |&(s, e)| {
            tok.count_ordinary(&text[s..e])
        })
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

/// Loads the JSON text of a Hugging Face `tokenizer.json` under `key` (`"hf:..."`), after which
/// `key` is accepted wherever an encoding name is. Loading the same key again is free.
#[pyfunction]
#[pyo3(signature = (key, json, add_special_tokens=false))]
pub(super) fn hf_register(
    py: Python<'_>,
    key: &str,
    json: PyBackedStr,
    add_special_tokens: bool,
) -> PyResult<()> {
    contain(py, || {
        if !key.starts_with("hf:") {
            return Err(PyValueError::new_err(format!(
                "key: {key:?} must start with \"hf:\""
            )));
        }
        #[cfg(feature = "hf")]
        {
            let r = detached(py, || {
                crate::tokenizer::hf::register(key, &json, add_special_tokens).map(|_| ())
            })?;
            r.map_err(|e| PyValueError::new_err(format!("tokenizer: {e}")))
        }
        #[cfg(not(feature = "hf"))]
        {
            let _ = (&json, add_special_tokens);
            Err(PyValueError::new_err(
                "tokenizer: this build of ragchunk has no Hugging Face tokenizer support",
            ))
        }
    })
}

/// Byte offset where each token of `text` starts, then `len(text)` in bytes (token windows,
/// late chunking). For a built-in encoding the edges of `encode_ordinary`.
#[pyfunction]
pub(super) fn token_edges(
    py: Python<'_>,
    text: PyBackedStr,
    encoding_name: &str,
) -> PyResult<Vec<usize>> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        detached(py, || tok.token_edges(&text))
    })
}
