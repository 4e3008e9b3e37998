//! The pipeline components' kernels (`ragchunk.ragflow.pipeline`): RAGFlow v0.27's
//! TokenChunker / TitleChunker hot loops, GIL released.

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use crate::ragflow::flow;
use crate::tokenizer::{EncodingName, Tokenizer};

use super::guard::{contain, detached};

fn cl100k() -> &'static Tokenizer {
    Tokenizer::get(EncodingName::Cl100kBase)
}

/// Code-point ranges of the non-empty segments of `text` between the literal `tokens`.
#[pyfunction]
pub(super) fn flow_split_on_tokens(
    py: Python<'_>,
    text: PyBackedStr,
    tokens: Vec<String>,
) -> PyResult<Vec<(usize, usize)>> {
    contain(py, || {
        detached(py, || flow::split_on_tokens(&text, &tokens))
    })
}

/// Whole sentences from one end of `text` holding at least `need` tokens.
#[pyfunction]
pub(super) fn flow_take_sentences(
    py: Python<'_>,
    text: PyBackedStr,
    need: f64,
    from_end: bool,
) -> PyResult<String> {
    contain(py, || {
        detached(py, || flow::take_sentences(cl100k(), &text, need, from_end))
    })
}

/// The token merge of one run of text items: `(text, source item indexes)` per chunk.
#[pyfunction]
pub(super) fn flow_merge_run(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    counts: Vec<usize>,
    size: usize,
    percent: u32,
) -> PyResult<Vec<(String, Vec<usize>)>> {
    contain(py, || {
        detached(py, || {
            let refs: Vec<&str> = texts.iter().map(|t| &**t).collect();
            flow::merge_run(cl100k(), &refs, &counts, size, percent)
                .into_iter()
                .map(|m| (m.text, m.sources))
                .collect()
        })
    })
}

/// TitleChunker's token-cap re-split of one chunk text.
#[pyfunction]
pub(super) fn flow_cap_split(
    py: Python<'_>,
    text: PyBackedStr,
    cap: usize,
) -> PyResult<Vec<String>> {
    contain(py, || {
        detached(py, || flow::cap_split(cl100k(), &text, cap))
    })
}

/// The indexed position fields `(position_int, page_num_int, top_int)` of a chunk's normalised
/// boxes (`None`: take the Python path).
#[pyfunction]
pub(super) fn flow_finalize_boxes(
    py: Python<'_>,
    boxes: Vec<Vec<f64>>,
    normalise: bool,
) -> PyResult<Option<BoxFields>> {
    contain(py, || {
        Ok(flow::finalize_boxes(&boxes, normalise).map(|out| {
            let pages = out.iter().map(|b| b.0).collect();
            let tops = out.iter().map(|b| b.3).collect();
            (out, pages, tops)
        }))
    })
}

type BoxFields = (Vec<flow::IntBox>, Vec<i64>, Vec<i64>);
