//! The embedding-driven chunkers' numeric hot paths: consecutive cosine distances, the
//! similarity matrix, numpy-equal threshold statistics and late chunking's pooling. Matrices
//! arrive as little-endian float32 bytes (`ndarray.tobytes()`) with their shape; the work runs
//! with the GIL released.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::semantic::{distance, f32_from_le_bytes, pool, stats, Matrix};

use super::guard::{contain, detached};

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

/// `1 - cos(row i, row i + 1)` for consecutive rows.
#[pyfunction]
pub(super) fn semantic_distances(
    py: Python<'_>,
    data: &[u8],
    rows: usize,
    dim: usize,
) -> PyResult<Vec<f64>> {
    contain(py, || {
        let values = values(data, rows, dim, "embeddings")?;
        detached(py, || {
            distance::consecutive_cosine(&Matrix {
                data: &values,
                rows,
                dim,
            })
        })
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
