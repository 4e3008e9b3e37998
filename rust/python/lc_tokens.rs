//! LangChain's `TokenTextSplitter.split_text` for the built-in encodings, for the drop-in of
//! `ragchunk.integrations.langchain`: windows of token ids, each decoded back to text the way
//! tiktoken's `decode` does (the window's bytes read as UTF-8, invalid bytes replaced by
//! U+FFFD). A window may therefore begin or end inside a character, exactly as LangChain's
//! chunks do; ragchunk's own `TokenWindowSplitter` never cuts one.
//!
//! A window's token ids are a run of `encode_ordinary(text)`, whose bytes are the text's bytes
//! between two token edges, so no id is built: the edges come from one counting pass.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::counters::encoding;
use super::guard::{contain, detached};
use super::strings::{new_str, Utf8Text};

/// Byte ranges of the windows over `edges` (the `n + 1` token edges of a text): `tokens` tokens
/// each, the next one starting `step` tokens later, the last one ending at the last token.
fn windows(edges: &[usize], tokens: usize, step: usize) -> Vec<(usize, usize)> {
    let n = edges.len().saturating_sub(1);
    let mut out = Vec::with_capacity(n / step + 1);
    let mut start = 0;
    while start < n {
        let end = (start + tokens).min(n);
        out.push((edges[start], edges[end]));
        if end == n {
            break;
        }
        start += step;
    }
    out
}

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
        if step == 0 || step > tokens_per_chunk {
            return Err(PyValueError::new_err(format!(
                "step must be in 1..=tokens_per_chunk ({tokens_per_chunk}), got {step}"
            )));
        }
        let tok = encoding(encoding_name)?;
        let doc = Utf8Text::for_call(text)?;
        let utf8 = detached(py, || doc.utf8())?;
        let utf8: &str = &utf8;
        let spans = detached(py, || {
            windows(&tok.token_edges(utf8), tokens_per_chunk, step)
        })?;
        let bytes = utf8.as_bytes();
        let mut items = Vec::with_capacity(spans.len());
        for (start, end) in spans {
            let decoded = String::from_utf8_lossy(&bytes[start..end]);
            if !decoded.is_empty() {
                items.push(new_str(py, &decoded)?);
            }
        }
        PyList::new(py, items)
    })
}
