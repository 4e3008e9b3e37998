//! What the document readers take from third-party parsers, read without Python in between.
//!
//! * [`pdfium`]: one PDF page's characters and graphic objects, read from the PDFium library
//!   that `pypdfium2` already loaded, through the addresses of its functions (the twin of
//!   `python/ragchunk/documents/_pdfium.py`, value for value).

pub mod layout;
pub mod pdfium;
