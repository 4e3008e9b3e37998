//! The PDF layout's bindings: one page's lines, tables and figures in reading order
//! ([`crate::documents::layout`]), from a PDFium page (`pdf_page_items`, what
//! `ragchunk.documents` calls) or from the lists `_pdfium.page_content` gives
//! (`pdf_layout_items`, for differential tests against `_layout.page_items`).
//!
//! PDFium is read with the GIL held (it is not thread-safe, and the GIL keeps other Python
//! threads from calling it through `pypdfium2` meanwhile); the layout, pure Rust, runs with
//! the GIL released.

use std::ffi::c_void;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::documents::layout::{page_items_with, Item, Semantics};
use crate::documents::pdfium::{page_content, Api, Char, Graphic};

use super::guard::{contain, detached};

/// An item: `(kind, text, x0, top, x1, bottom, size, flags, column, rows)`.
type ItemRow = (
    &'static str,
    String,
    f64,
    f64,
    f64,
    f64,
    f64,
    u8,
    &'static str,
    Option<Vec<Vec<String>>>,
);
/// A character: `(char, x0, top, x1, bottom, size, flags)`.
type CharRow = (char, f64, f64, f64, f64, f64, u8);
/// A graphic object: `(kind, x0, top, x1, bottom, flags)`.
type GraphicRow = (u8, f64, f64, f64, f64, u8);

/// The semantics of the running Python (its `sum` over floats changed in 3.12).
fn semantics(py: Python<'_>) -> Semantics {
    Semantics {
        compensated_sum: py.version_info() >= (3, 12),
    }
}

fn row(it: Item) -> ItemRow {
    (
        it.kind.as_str(),
        it.text,
        it.x0,
        it.top,
        it.x1,
        it.bottom,
        it.size,
        it.flags,
        it.column,
        it.rows,
    )
}

/// One page's items, as `_layout.page_items(*_pdfium.page_content(...), width)` gives them:
/// `functions` is `_pdfium.function_table(pypdfium2.raw)`, `page` and `textpage` the
/// addresses of the page's `FPDF_PAGE` and `FPDF_TEXTPAGE` handles, `width` and `height` its
/// size in points.
#[pyfunction]
pub(super) fn pdf_page_items(
    py: Python<'_>,
    functions: Vec<usize>,
    page: usize,
    textpage: usize,
    width: f64,
    height: f64,
) -> PyResult<Vec<ItemRow>> {
    contain(py, || {
        let api =
            Api::new(&functions).map_err(|e| PyValueError::new_err(format!("functions: {e}")))?;
        for (name, handle) in [("page", page), ("textpage", textpage)] {
            if handle == 0 {
                return Err(PyValueError::new_err(format!(
                    "{name} must be the address of a PDFium handle, got 0"
                )));
            }
        }
        // SAFETY: `functions` comes from `function_table` over the library that owns `page`
        // and `textpage`, which the caller keeps open; the GIL, held throughout the reading,
        // keeps other Python threads from calling PDFium meanwhile.
        let (chars, graphics) =
            unsafe { page_content(&api, page as *mut c_void, textpage as *mut c_void, height) };
        let semantics = semantics(py);
        let items = detached(py, || page_items_with(&chars, &graphics, width, semantics))?;
        Ok(items.into_iter().map(row).collect())
    })
}

/// A page's items from its characters and graphic objects as `_pdfium.page_content` gives
/// them (`(char, x0, top, x1, bottom, size, flags)` and `(kind, x0, top, x1, bottom, flags)`
/// tuples): `_layout.page_items`, in Rust.
#[pyfunction]
pub(super) fn pdf_layout_items(
    py: Python<'_>,
    chars: Vec<CharRow>,
    graphics: Vec<GraphicRow>,
    width: f64,
) -> PyResult<Vec<ItemRow>> {
    contain(py, || {
        let chars: Vec<Char> = chars
            .into_iter()
            .map(|(ch, x0, top, x1, bottom, size, flags)| Char {
                ch,
                x0,
                top,
                x1,
                bottom,
                size,
                flags,
            })
            .collect();
        let graphics: Vec<Graphic> = graphics
            .into_iter()
            .map(|(kind, x0, top, x1, bottom, flags)| Graphic {
                kind,
                x0,
                top,
                x1,
                bottom,
                flags,
            })
            .collect();
        let semantics = semantics(py);
        let items = detached(py, || page_items_with(&chars, &graphics, width, semantics))?;
        Ok(items.into_iter().map(row).collect())
    })
}
