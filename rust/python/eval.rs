//! The BM25 retriever of `ragchunk.eval`: a configured, immutable index. Tokenizing, indexing
//! and querying run with the GIL released, documents and queries in parallel.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use crate::eval::bm25::{Index, Params};
use crate::eval::tokenize::{tokenize, Kind};

use super::guard::{contain, detached};

fn kind(name: &str) -> PyResult<Kind> {
    Kind::from_name(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "tokenizer must be 'english', 'cjk' or 'whitespace', got {name:?}"
        ))
    })
}

fn params(k1: f64, b: f64, epsilon: f64) -> PyResult<Params> {
    if !(k1.is_finite() && k1 >= 0.0) {
        return Err(PyValueError::new_err(format!(
            "k1 must be a finite number >= 0, got {k1}"
        )));
    }
    if !(0.0..=1.0).contains(&b) {
        return Err(PyValueError::new_err(format!(
            "b must be between 0 and 1, got {b}"
        )));
    }
    if !epsilon.is_finite() {
        return Err(PyValueError::new_err(format!(
            "epsilon must be finite, got {epsilon}"
        )));
    }
    Ok(Params { k1, b, epsilon })
}

/// The tokens of `text` by the named tokenizer.
#[pyfunction]
pub(super) fn bm25_tokenize(
    py: Python<'_>,
    text: PyBackedStr,
    tokenizer: &str,
) -> PyResult<Vec<String>> {
    let kind = kind(tokenizer)?;
    contain(py, || detached(py, || tokenize(&text, kind)))
}

/// A BM25 index over documents (tokenized by a named tokenizer, or given as tokens).
#[pyclass(frozen, module = "ragchunk._core", name = "Bm25Index")]
pub(super) struct PyBm25Index {
    index: Index,
    kind: Option<Kind>,
}

#[pymethods]
impl PyBm25Index {
    #[new]
    #[pyo3(signature = (docs, tokenizer, k1, b, epsilon))]
    fn new(
        py: Python<'_>,
        docs: Vec<PyBackedStr>,
        tokenizer: &str,
        k1: f64,
        b: f64,
        epsilon: f64,
    ) -> PyResult<Self> {
        let kind = kind(tokenizer)?;
        let params = params(k1, b, epsilon)?;
        contain(py, || {
            let index = detached(py, || Index::from_texts(&docs, kind, params))??;
            Ok(PyBm25Index {
                index,
                kind: Some(kind),
            })
        })
    }

    /// An index over documents given as lists of tokens (no tokenizer of its own).
    #[staticmethod]
    #[pyo3(signature = (docs, k1, b, epsilon))]
    fn from_tokens(
        py: Python<'_>,
        docs: Vec<Vec<PyBackedStr>>,
        k1: f64,
        b: f64,
        epsilon: f64,
    ) -> PyResult<Self> {
        let params = params(k1, b, epsilon)?;
        contain(py, || {
            let index = detached(py, || Index::new(&docs, params))?;
            Ok(PyBm25Index { index, kind: None })
        })
    }

    fn __len__(&self) -> usize {
        self.index.len()
    }

    /// The idf of `token`.
    fn idf(&self, token: &str) -> f64 {
        self.index.idf(token)
    }

    /// Every document's score for a tokenized query.
    fn scores(&self, py: Python<'_>, query: Vec<String>) -> PyResult<Vec<f64>> {
        contain(py, || detached(py, || self.index.scores(&query)))
    }

    /// The best `k` documents of every tokenized query.
    fn search_tokens(
        &self,
        py: Python<'_>,
        queries: Vec<Vec<PyBackedStr>>,
        k: usize,
    ) -> PyResult<Vec<Vec<(u32, f64)>>> {
        contain(py, || {
            Ok(detached(py, || self.index.top_k_batch(&queries, k))??)
        })
    }

    /// The best `k` documents of every query text, tokenized by the index's tokenizer.
    fn search(
        &self,
        py: Python<'_>,
        queries: Vec<PyBackedStr>,
        k: usize,
    ) -> PyResult<Vec<Vec<(u32, f64)>>> {
        let Some(kind) = self.kind else {
            return Err(PyValueError::new_err(
                "this index was built from tokens: query it with search_tokens",
            ));
        };
        contain(py, || {
            Ok(detached(py, || self.index.top_k_texts(&queries, kind, k))??)
        })
    }
}
