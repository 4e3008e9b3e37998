//! How a configured chunker measures and what one document's work is: its options checked
//! once (the measure, the sizes), and the one generic path that runs the work over one
//! document or over a batch. Below both the chunker classes ([`super::chunker`]) and the
//! Arrow path ([`super::arrow`]).

use std::borrow::Borrow;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::tokenizer::{TokenCounter, UnitCount};

use super::counters::{encoding, PyCounter};
use super::guard::{detached, map_docs, never};

/// How a configured chunker measures, chosen once by its constructor.
pub(super) enum Measure {
    /// A built-in unit (an encoding, or characters): the work runs with the GIL released, a
    /// batch on the worker threads.
    Builtin(UnitCount),
    /// A Python callable `str -> int` (a custom tokenizer): the work runs with the GIL held, a
    /// batch one document after another on the calling thread.
    Python(Py<PyAny>),
}

impl Measure {
    /// The measure of a sized chunker's options: `length="chars"` alone, or `"tokens"` with
    /// exactly one of `encoding_name` (built-in) and `counter` (a Python callable).
    pub(super) fn new(
        length: &str,
        encoding_name: Option<&str>,
        counter: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        match (length, encoding_name, counter) {
            ("chars", None, None) => Ok(Measure::Builtin(UnitCount::Chars)),
            ("chars", _, _) => Err(PyValueError::new_err(
                "encoding_name, counter: only with length='tokens' (length='chars' counts code points)",
            )),
            ("tokens", Some(name), None) => Ok(Measure::Builtin(UnitCount::Tokens(encoding(name)?))),
            ("tokens", None, Some(f)) if f.is_callable() => Ok(Measure::Python(f.unbind())),
            ("tokens", None, Some(f)) => Err(PyTypeError::new_err(format!(
                "counter must be a callable str -> int, got {}",
                type_name(&f)
            ))),
            ("tokens", None, None) => Err(PyValueError::new_err(
                "encoding_name, counter: length='tokens' needs a built-in encoding_name or a counter",
            )),
            ("tokens", Some(_), Some(_)) => Err(PyValueError::new_err(
                "encoding_name, counter: give one of them, not both",
            )),
            (other, _, _) => Err(PyValueError::new_err(format!(
                "length must be 'tokens' or 'chars', got {other:?}"
            ))),
        }
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map_or_else(|_| "?".to_owned(), |n| n.to_string())
}

/// A chunk size as the facade checked it (`>= 1`; the facade's messages are the ones users
/// see): the compiled classes trust those checks, and a direct call through `ragchunk._core`
/// that breaks them is refused here rather than run.
pub(super) fn checked_size(chunk_size: usize) -> PyResult<usize> {
    if chunk_size == 0 {
        return Err(PyValueError::new_err(
            "chunk_size must be >= 1 (the facade checks it)",
        ));
    }
    Ok(chunk_size)
}

/// `(chunk_size, chunk_overlap)` as the facade checked them: [`checked_size`], and
/// `chunk_overlap < chunk_size`.
pub(super) fn checked_sizes(chunk_size: usize, chunk_overlap: usize) -> PyResult<(usize, usize)> {
    let size = checked_size(chunk_size)?;
    if chunk_overlap >= size {
        return Err(PyValueError::new_err(
            "chunk_overlap must be smaller than chunk_size (the facade checks it)",
        ));
    }
    Ok((size, chunk_overlap))
}

/// One document's work for a chunker's entry points: the same code for a single document and
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
    /// the counter, unless a chunker has a faster path for its built-in units.
    fn run_builtin(&self, doc: &Self::Doc, unit: UnitCount) -> Self::Out {
        never(self.run(doc, &unit))
    }
}

/// `job` on one document, measured by `measure`.
pub(super) fn split_one<J: PerDoc>(
    py: Python<'_>,
    job: &J,
    doc: &J::Doc,
    measure: &Measure,
) -> PyResult<J::Out> {
    match measure {
        Measure::Builtin(unit) => detached(py, || job.run_builtin(doc, *unit)),
        Measure::Python(f) => job.run(
            doc,
            &PyCounter {
                f: f.bind(py).clone(),
            },
        ),
    }
}

/// `job` on every document, results in input order: in parallel with the GIL released for a
/// built-in unit; for a Python callable, which needs the GIL, one after another on this
/// thread (still one crossing, instead of the facade looping over `split`).
pub(super) fn split_many<J: PerDoc, D: Borrow<J::Doc> + Sync>(
    py: Python<'_>,
    job: &J,
    docs: &[D],
    measure: &Measure,
    workers: Option<usize>,
) -> PyResult<Vec<J::Out>> {
    match measure {
        Measure::Builtin(unit) => {
            map_docs(py, docs, workers, |d| job.run_builtin(d.borrow(), *unit))
        }
        Measure::Python(f) => {
            let counter = PyCounter {
                f: f.bind(py).clone(),
            };
            docs.iter().map(|d| job.run(d.borrow(), &counter)).collect()
        }
    }
}
