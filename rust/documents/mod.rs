//! The document readers' compiled parts, run without Python in between.
//!
//! * [`pdfium`]: one PDF page's characters and graphic objects, read from the PDFium library
//!   that `pypdfium2` already loaded, through the addresses of its functions (the twin of
//!   `python/ragchunk/_pure/documents/pdfium.py`, value for value);
//! * [`layout`]: a page's lines, tables and figures in reading order from those (the twin of
//!   `python/ragchunk/_pure/documents/layout.py`, item for item).

pub mod layout;
pub mod pdfium;
