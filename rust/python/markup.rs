//! HTML markup helpers the facade applies before parsing: the nesting bound.

use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyString;

use crate::splitters::html_depth;

use super::guard::{contain, detached, never};
use super::strings::new_str;

/// `bound_depth` of python/ragchunk/core/markup.py, in Rust ([`html_depth::bound_depth`]):
/// the same string, and the argument itself (the same object) when nothing is cut.
#[pyfunction]
pub(super) fn bound_depth<'py>(
    py: Python<'py>,
    html: PyBackedStr,
) -> PyResult<Bound<'py, PyString>> {
    contain(py, || {
        let cut = detached(py, || match html_depth::bound_depth(&html) {
            Cow::Borrowed(_) => None,
            Cow::Owned(out) => Some(out),
        })?;
        match cut {
            None => Ok(never(html.into_pyobject(py))),
            Some(out) => new_str(py, &out),
        }
    })
}
