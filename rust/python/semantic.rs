//! The embedding-driven chunkers' numeric hot paths: consecutive cosine distances, the
//! similarity matrix, numpy-equal threshold statistics and late chunking's pooling. The
//! distances read a float32 numpy array in place; the other matrices arrive as little-endian
//! float32 bytes (`ndarray.tobytes()`) with their shape. The work runs with the GIL released.

use pyo3::exceptions::PyValueError;
#[cfg(not(feature = "abi3"))]
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyList};

use crate::semantic::{distance, f32_from_le_bytes, pool, sentences, stats, Matrix};

use super::guard::{contain, detached};
use super::late::{slice, view};
use super::strings::{str_list, Utf8Text};
use crate::text::offsets::CharOffsets;

/// The values of a `rows x dim` float32 matrix given as bytes, or ValueError naming `name`.
fn values(bytes: &[u8], rows: usize, dim: usize, name: &str) -> PyResult<Vec<f32>> {
    let data = f32_from_le_bytes(bytes)
        .ok_or_else(|| PyValueError::new_err(format!("{name}: byte length not a multiple of 4")))?;
    if Matrix::new(&data, rows, dim).is_none() {
        return Err(PyValueError::new_err(format!(
            "{name}: {} values do not make a {rows} x {dim} matrix",
            data.len()
        )));
    }
    Ok(data)
}

/// `1 - cos(row i, row i + 1)` for consecutive rows of a C-contiguous float32 numpy array,
/// read in place (no copy of the matrix).
#[pyfunction]
pub(super) fn semantic_distances(
    py: Python<'_>,
    embeddings: &Bound<'_, PyAny>,
) -> PyResult<Vec<f64>> {
    contain(py, || {
        let v = view(
            embeddings,
            "embeddings",
            "f4",
            2,
            std::mem::align_of::<f32>(),
        )?;
        let (rows, dim) = (v.shape[0], v.shape[1]);
        // SAFETY: `v` is a C-contiguous, aligned float32 view of `embeddings`, which the caller
        // holds (and does not change) for the duration of the call.
        let data: &[f32] = unsafe { slice(&v) };
        let matrix = Matrix::new(data, rows, dim).ok_or_else(|| {
            PyValueError::new_err(format!("embeddings: a {rows} x {dim} matrix is not valid"))
        })?;
        detached(py, || distance::consecutive_cosine(&matrix))
    })
}

/// The `rows x rows` cosine similarity matrix, row-major.
#[pyfunction]
pub(super) fn semantic_similarity_matrix(
    py: Python<'_>,
    data: &[u8],
    rows: usize,
    dim: usize,
) -> PyResult<Vec<f64>> {
    contain(py, || {
        let values = values(data, rows, dim, "embeddings")?;
        detached(py, || {
            distance::cosine_matrix(&Matrix {
                data: &values,
                rows,
                dim,
            })
        })
    })
}

/// `(np.percentile(a, q), np.mean(a), np.std(a))`.
#[pyfunction]
pub(super) fn semantic_stats(
    py: Python<'_>,
    values: Vec<f64>,
    q: f64,
) -> PyResult<(f64, f64, f64)> {
    contain(py, || {
        detached(py, || {
            (
                stats::percentile(&values, q),
                stats::mean(&values),
                stats::std(&values),
            )
        })
    })
}

/// `np.percentile(a, q)` for each `q`.
#[pyfunction]
pub(super) fn semantic_percentiles(
    py: Python<'_>,
    values: Vec<f64>,
    qs: Vec<f64>,
) -> PyResult<Vec<f64>> {
    contain(py, || {
        detached(py, || {
            qs.iter().map(|&q| stats::percentile(&values, q)).collect()
        })
    })
}

/// `np.gradient(a, range(len(a)))`.
#[pyfunction]
pub(super) fn semantic_gradient(py: Python<'_>, values: Vec<f64>) -> PyResult<Vec<f64>> {
    contain(py, || detached(py, || stats::gradient(&values)))
}

/// Mean of the token vectors overlapping each chunk span, as float32 bytes (NaN rows for
/// chunks without tokens).
#[pyfunction]
pub(super) fn semantic_mean_pool(
    py: Python<'_>,
    data: &[u8],
    rows: usize,
    dim: usize,
    tokens: Vec<(usize, usize)>,
    chunks: Vec<(usize, usize)>,
) -> PyResult<Vec<f32>> {
    contain(py, || {
        if tokens.len() != rows {
            return Err(PyValueError::new_err(format!(
                "offsets: {} token offsets for {rows} token vectors",
                tokens.len()
            )));
        }
        let values = values(data, rows, dim, "token_embeddings")?;
        detached(py, || {
            pool::mean_pool(
                &Matrix {
                    data: &values,
                    rows,
                    dim,
                },
                &tokens,
                &chunks,
            )
        })
    })
}

/// The f32 values of `value` when it is a list of `rows` lists of the same non-zero length
/// holding only finite Python floats (what LangChain embedders return), or `None` for
/// anything else, which the caller then validates the general way.
fn list_rows_f32(value: &Bound<'_, PyAny>, rows: usize) -> Option<(Vec<f32>, usize)> {
    let outer = value.cast::<PyList>().ok()?;
    if outer.len() != rows || rows == 0 {
        return None;
    }
    let mut dim = 0usize;
    let mut data: Vec<f32> = Vec::new();
    for (i, row) in outer.iter().enumerate() {
        let row = row.cast_into::<PyList>().ok()?;
        if i == 0 {
            dim = row.len();
            if dim == 0 {
                return None;
            }
            data.reserve_exact(rows.checked_mul(dim)?);
        } else if row.len() != dim {
            return None;
        }
        push_floats(&row, &mut data)?;
    }
    Some((data, dim))
}

/// A finite float32 value of a Python float, or `None` (not a float, not finite, or past
/// float32's range: the general path reports it).
#[inline]
fn finite_f32(v: f64) -> Option<f32> {
    let f = v as f32;
    (v.is_finite() && f.is_finite()).then_some(f)
}

/// Appends the values of `row`, a list of Python floats, to `data`; `None` at the first item
/// that is not a finite float.
#[cfg(not(feature = "abi3"))]
fn push_floats(row: &Bound<'_, PyList>, data: &mut Vec<f32>) -> Option<()> {
    let list = row.as_ptr();
    let len = row.len();
    for i in 0..len {
        // SAFETY: `list` is a live list (GIL held) of `len` items, nothing runs Python code
        // while it is read, so the items stay; `PyList_GET_ITEM` returns a borrowed reference
        // to item `i < len`. Only exact floats are read, through CPython's own accessor.
        let v = unsafe {
            let item = ffi::PyList_GET_ITEM(list, i as ffi::Py_ssize_t);
            if ffi::Py_TYPE(item) != std::ptr::addr_of_mut!(ffi::PyFloat_Type) {
                return None;
            }
            ffi::PyFloat_AS_DOUBLE(item)
        };
        data.push(finite_f32(v)?);
    }
    Some(())
}

/// Appends the values of `row`, a list of Python floats, to `data`; `None` at the first item
/// that is not a finite float.
#[cfg(feature = "abi3")]
fn push_floats(row: &Bound<'_, PyList>, data: &mut Vec<f32>) -> Option<()> {
    for item in row.iter() {
        data.push(finite_f32(
            item.cast::<pyo3::types::PyFloat>().ok()?.value(),
        )?);
    }
    Some(())
}

/// `(float32 little-endian bytes, dim)` of a list of `rows` equal-length lists of finite
/// floats, converted in one pass without numpy (each value rounded to float32 as
/// `np.asarray(value, dtype=np.float32)` rounds it); `None` when `value` is anything else.
#[pyfunction]
pub(super) fn semantic_rows_f32<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
    rows: usize,
) -> PyResult<Option<(Bound<'py, PyByteArray>, usize)>> {
    contain(py, || {
        let Some((data, dim)) = list_rows_f32(value, rows) else {
            return Ok(None);
        };
        let bytes = PyByteArray::new_with(py, data.len() * 4, |buf| {
            for (chunk, v) in buf.chunks_exact_mut(4).zip(&data) {
                chunk.copy_from_slice(&v.to_le_bytes());
            }
            Ok(())
        })?;
        Ok(Some((bytes, dim)))
    })
}

/// LangChain's sentences of `text` (`re.split(r"(?<=[.?!])\s+", text)`), their code-point
/// spans when `spans` (else an empty list), and the window of each sentence with `buffer`
/// neighbours either side, joined by spaces. The text is read without leaving a UTF-8 copy
/// in it and the strings are written in CPython's layout ([`str_list`]).
#[pyfunction]
#[allow(clippy::type_complexity)]
pub(super) fn semantic_lc_sentences<'py>(
    py: Python<'py>,
    text: &Bound<'py, PyAny>,
    buffer: usize,
    spans: bool,
) -> PyResult<(Bound<'py, PyList>, Vec<(usize, usize)>, Bound<'py, PyList>)> {
    contain(py, || {
        let doc = Utf8Text::for_call(text)?;
        let (texts, char_spans, windows) = detached(py, || {
            let utf8 = doc.utf8();
            let text: &str = &utf8;
            let pieces = sentences::langchain_sentences(text);
            let texts: Vec<String> = pieces.iter().map(|&(s, e)| text[s..e].to_owned()).collect();
            let windows: Vec<String> = (0..pieces.len())
                .map(|i| sentences::window(text, &pieces, i, buffer))
                .collect();
            let mut char_spans = Vec::new();
            if spans {
                // byte offsets are increasing: one walk over the characters converts them all
                char_spans.reserve(pieces.len());
                let mut offsets = CharOffsets::new(text);
                for &(s, e) in &pieces {
                    char_spans.push((offsets.char_offset(s), offsets.char_offset(e)));
                }
            }
            (texts, char_spans, windows)
        })?;
        Ok((str_list(py, &texts)?, char_spans, str_list(py, &windows)?))
    })
}
