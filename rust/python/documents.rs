//! The document readers' bindings: one PDF page's characters and graphic objects, read from
//! the PDFium library `pypdfium2` loaded ([`crate::documents::pdfium`]).
//!
//! The GIL stays held while PDFium runs: PDFium is not thread-safe, and holding the GIL keeps
//! other Python threads from starting a `pypdfium2` call meanwhile (a call already running on
//! another thread has released it: programs that use PDFium from several threads lock around
//! every use, as `pypdfium2` asks).

use std::ffi::c_void;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::documents::pdfium::{page_content, Api};

use super::guard::contain;

/// A character: `(char, x0, top, x1, bottom, size, flags)`.
type CharRow = (char, f64, f64, f64, f64, f64, u8);
/// A graphic object: `(kind, x0, top, x1, bottom, flags)`.
type GraphicRow = (u8, f64, f64, f64, f64, u8);

/// The characters and graphic objects of one page, as `_pdfium.page_content` gives them:
/// `functions` is `_pdfium.function_table(pypdfium2.raw)`, `page` and `textpage` the
/// addresses of the page's `FPDF_PAGE` and `FPDF_TEXTPAGE` handles, `height` its height.
#[pyfunction]
pub(super) fn pdf_page_content(
    py: Python<'_>,
    functions: Vec<usize>,
    page: usize,
    textpage: usize,
    height: f64,
) -> PyResult<(Vec<CharRow>, Vec<GraphicRow>)> {
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
        // and `textpage`, which the caller keeps open; the GIL, held throughout, keeps other
        // Python threads from starting a PDFium call meanwhile.
        let (chars, graphics) =
            unsafe { page_content(&api, page as *mut c_void, textpage as *mut c_void, height) };
        Ok((
            chars
                .iter()
                .map(|c| (c.ch, c.x0, c.top, c.x1, c.bottom, c.size, c.flags))
                .collect(),
            graphics
                .iter()
                .map(|g| (g.kind, g.x0, g.top, g.x1, g.bottom, g.flags))
                .collect(),
        ))
    })
}
