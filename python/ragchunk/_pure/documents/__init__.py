"""Pure-Python fallback of the document readers' compiled parts: one PDF page's characters
and graphics read through PDFium (``pdfium``, ``rust/documents/pdfium.rs``) and laid out into
lines, tables and figures (``layout``, ``rust/documents/layout/``)."""
