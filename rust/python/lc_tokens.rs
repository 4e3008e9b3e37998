//! LangChain's `TokenTextSplitter.split_text` for the built-in encodings, for the drop-in of
//! `ragchunk.integrations.langchain` ([`crate::splitters::langchain_tokens`]).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::splitters::langchain_tokens::{check_step, token_windows, StepError};

use super::counters::encoding;
use super::guard::{contain, detached};
use super::strings::{new_str, Utf8Text};

/// The chunk strings of LangChain's `TokenTextSplitter(chunk_size=tokens_per_chunk,
/// chunk_overlap=tokens_per_chunk - step)` over `encoding_name` (built-in encodings; the
/// facade sends special-token text to LangChain's own code). Raises `UnicodeEncodeError` for
/// text holding a lone surrogate, which the facade sends there too.
#[pyfunction]
pub(super) fn lc_token_windows<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    encoding_name: &str,
    tokens_per_chunk: usize,
    step: usize,
) -> PyResult<Bound<'py, PyList>> {
    contain(py, || {
        let step_error = |e: StepError| PyValueError::new_err(e.to_string());
        check_step(tokens_per_chunk, step).map_err(step_error)?;
        let tok = encoding(encoding_name)?;
        let doc = Utf8Text::for_call(text)?;
        let utf8 = detached(py, || doc.utf8())?;
        let utf8: &str = &utf8;
        let chunks = detached(py, || token_windows(tok, utf8, tokens_per_chunk, step))?
            .map_err(step_error)?;
        let items = chunks
            .iter()
            .map(|c| new_str(py, c))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, items)
    })
}
