//! The document readers' bindings: one PDF page read from the PDFium library `pypdfium2`
//! loaded ([`crate::documents::pdfium`]), as characters and graphic objects
//! (`pdf_page_content`) or laid out into lines, tables and figures in reading order
//! ([`crate::documents::layout`]: `pdf_page_items`, what `ragchunk.documents` calls); and the
//! layout of characters and graphics given as lists (`pdf_layout_items`, for differential
//! tests against the Python twin's `page_items`).
//!
//! The GIL stays held while PDFium runs: PDFium is not thread-safe, and holding the GIL keeps
//! other Python threads from starting a `pypdfium2` call meanwhile (a call already running on
//! another thread has released it: programs that use PDFium from several threads lock around
//! every use, as `pypdfium2` asks). The layout, pure Rust, runs with the GIL released.

use std::ffi::c_void;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::documents::layout::{page_items, Item};
use crate::documents::pdfium::{page_content, text_quarter, turn, Api, Char, Graphic};

use super::guard::{contain, detached};

/// A character: `(char, x0, top, x1, bottom, size, flags)`.
type CharRow = (char, f64, f64, f64, f64, f64, u8);
/// A graphic object: `(kind, x0, top, x1, bottom, flags)`.
type GraphicRow = (u8, f64, f64, f64, f64, u8);
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

/// Reads one page through PDFium, after checking the arguments (errors name them).
fn read_page(
    functions: &[usize],
    page: usize,
    textpage: usize,
    height: f64,
) -> PyResult<(Vec<Char>, Vec<Graphic>)> {
    let api = Api::new(functions).map_err(|e| PyValueError::new_err(format!("functions: {e}")))?;
    for (name, handle) in [("page", page), ("textpage", textpage)] {
        if handle == 0 {
            return Err(PyValueError::new_err(format!(
                "{name} must be the address of a PDFium handle, got 0"
            )));
        }
    }
    // SAFETY: `functions` comes from `function_table` over the library that owns `page` and
    // `textpage`, which the caller keeps open; the GIL, held throughout, keeps other Python
    // threads from starting a PDFium call meanwhile.
    Ok(unsafe { page_content(&api, page as *mut c_void, textpage as *mut c_void, height) })
}

fn item_row(it: Item) -> ItemRow {
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

/// The layout of a page's characters and graphics, with the GIL released.
fn lay_out(
    py: Python<'_>,
    chars: &[Char],
    graphics: &[Graphic],
    width: f64,
) -> PyResult<Vec<ItemRow>> {
    let items = detached(py, || page_items(chars, graphics, width))?;
    Ok(items.into_iter().map(item_row).collect())
}

/// The characters and graphic objects of one page, as `page_content` of
/// `_pure.documents.pdfium` gives them: `functions` is that module's
/// `function_table(pypdfium2.raw)`, `page` and `textpage` the addresses of the page's
/// `FPDF_PAGE` and `FPDF_TEXTPAGE` handles, `height` its height.
#[pyfunction]
pub(super) fn pdf_page_content(
    py: Python<'_>,
    functions: Vec<usize>,
    page: usize,
    textpage: usize,
    height: f64,
) -> PyResult<(Vec<CharRow>, Vec<GraphicRow>)> {
    contain(py, || {
        let (chars, graphics) = read_page(&functions, page, textpage, height)?;
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

/// One page's items, as `page_items(*turn(*page_content(...), quarter, width, height), w)` of
/// `_pure.documents` gives them (arguments as for `pdf_page_content`, and the page's `width`
/// in its own frame; `quarter`, the clockwise quarter turns that set its text upright, and `w`
/// the width after them).
#[pyfunction]
#[pyo3(signature = (functions, page, textpage, width, height, quarter = 0))]
pub(super) fn pdf_page_items(
    py: Python<'_>,
    functions: Vec<usize>,
    page: usize,
    textpage: usize,
    width: f64,
    height: f64,
    quarter: u8,
) -> PyResult<Vec<ItemRow>> {
    contain(py, || {
        let (mut chars, mut graphics) = read_page(&functions, page, textpage, height)?;
        turn(&mut chars, &mut graphics, quarter, width, height);
        let wide = if quarter % 2 == 1 { height } else { width };
        lay_out(py, &chars, &graphics, wide)
    })
}

/// `text_quarter` of `_pure.documents.pdfium`: the quarter turns (counterclockwise) of most of
/// the page's characters (arguments as for `pdf_page_content`).
#[pyfunction]
pub(super) fn pdf_text_quarter(
    py: Python<'_>,
    functions: Vec<usize>,
    textpage: usize,
) -> PyResult<u8> {
    contain(py, || {
        let api =
            Api::new(&functions).map_err(|e| PyValueError::new_err(format!("functions: {e}")))?;
        if textpage == 0 {
            return Err(PyValueError::new_err(
                "textpage must be the address of a PDFium handle, got 0",
            ));
        }
        // SAFETY: as in `read_page`.
        Ok(unsafe { text_quarter(&api, textpage as *mut c_void) })
    })
}

/// A page's items from its characters and graphic objects as `page_content` of
/// `_pure.documents.pdfium` gives them: `_pure.documents.layout.page_items`, in Rust.
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
        lay_out(py, &chars, &graphics, width)
    })
}
