//! The guard every entry point runs in: panics caught, the GIL released around pure-Rust work,
//! and internal failures mapped to `ragchunk.RagchunkError` (one helper for all of them, as
//! polars' `enter_polars`), so a Rust panic or a batch that cannot start surfaces as that
//! class, never as an abort or a `PanicException`.

use std::convert::Infallible;
use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyType;

use crate::batch::{self, panic_message, BatchError};

/// `ragchunk.RagchunkError`, the one class both backends raise for internal failures (a plain
/// `RuntimeError`, its base class, only if the package cannot be imported or lacks it).
pub(super) fn ragchunk_error(py: Python<'_>, msg: String) -> PyErr {
    let class = py
        .import("ragchunk")
        .and_then(|m| m.getattr("RagchunkError"))
        .ok()
        .and_then(|cls| cls.cast_into::<PyType>().ok());
    match class {
        Some(cls) => PyErr::from_type(cls, msg),
        None => PyRuntimeError::new_err(msg),
    }
}

/// The message of an internal failure: a panic of the Rust core (`what` is its payload).
pub(super) fn internal_error(py: Python<'_>, what: &str) -> PyErr {
    ragchunk_error(
        py,
        format!("internal error in ragchunk's Rust core (please report): {what}"),
    )
}

/// Runs `f` with panics caught and turned into `RagchunkError`.
pub(super) fn contain<T>(py: Python<'_>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => Err(internal_error(py, &panic_message(payload.as_ref()))),
    }
}

/// Runs `f` with the GIL released and panics contained.
pub(super) fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    let result = py.detach(|| catch_unwind(AssertUnwindSafe(f)));
    result.map_err(|payload| internal_error(py, &panic_message(payload.as_ref())))
}

/// `per_doc` over every document in parallel ([`batch::par_map`]), GIL released, results in
/// input order: the batch half of every single/batch pair of entry points.
pub(super) fn map_docs<D: Sync, T: Send>(
    py: Python<'_>,
    docs: &[D],
    workers: Option<usize>,
    per_doc: impl Fn(&D) -> T + Sync + Send,
) -> PyResult<Vec<T>> {
    Ok(detached(py, || batch::par_map(docs, workers, per_doc))??)
}

/// The value of a computation that cannot fail (a built-in counter's `Infallible` error).
pub(super) fn never<T>(result: Result<T, Infallible>) -> T {
    match result {
        Ok(value) => value,
        Err(never) => match never {},
    }
}

impl From<BatchError> for PyErr {
    fn from(e: BatchError) -> PyErr {
        Python::attach(|py| ragchunk_error(py, e.to_string()))
    }
}

/// Test hook: panics inside the containment helpers (with or without the GIL released), so
/// the test suite can prove that a Rust panic reaches Python as `RagchunkError`.
#[pyfunction]
pub(super) fn _panic_for_tests(py: Python<'_>, detach: bool) -> PyResult<()> {
    contain(py, || {
        if detach {
            detached(py, || panic!("deliberate panic (detached)"))
        } else {
            panic!("deliberate panic (holding the GIL)")
        }
    })
}
