//! Arrow string columns in, Arrow buffers out: the documents of a `string` / `large_string`
//! array are read in place from its offsets and data buffers, chunked on the worker threads
//! with the GIL released, and the chunks come back as the contiguous buffers of the output
//! columns (chunk text as `large_string` data and offsets, the integer columns as
//! little-endian arrays), which the facade wraps zero-copy. No Python `str` is made for a
//! document or a chunk.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::guard::detached;
use super::strings::arrow_buffer;

/// A chunk as the classic splitters return it: `(start, end, size, joined)`, code points.
pub(super) type ChunkTuple = (usize, usize, usize, Option<String>);

/// The output columns as bytes: `(doc, chunk_index, start, end, token_count, rejoined,
/// text_offsets, text_data)`; `doc` is the row (within the array) each chunk comes from.
pub(super) type ArrowChunks<'py> = (
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
    Bound<'py, PyBytes>,
);

/// The documents of a string array: `len` values from `offset` (the array's slice offset),
/// read from its `offsets` buffer (`i64` for `large_string`, else `i32`) into its `data`
/// buffer. Every value is checked to be UTF-8; the error names the row.
pub(super) fn documents<'a>(
    data: &'a [u8],
    offsets: &[u8],
    offset: usize,
    len: usize,
    large: bool,
) -> PyResult<Vec<&'a str>> {
    let width = if large { 8 } else { 4 };
    let need = (offset + len + 1) * width;
    if len > 0 && offsets.len() < need {
        return Err(PyValueError::new_err(format!(
            "offsets buffer too short: {} bytes for {len} values at offset {offset}",
            offsets.len()
        )));
    }
    let at = |i: usize| -> i64 {
        let b = &offsets[i * width..(i + 1) * width];
        if large {
            i64::from_le_bytes(b.try_into().expect("8 bytes"))
        } else {
            i64::from(i32::from_le_bytes(b.try_into().expect("4 bytes")))
        }
    };
    let mut docs = Vec::with_capacity(len);
    for row in 0..len {
        let (s, e) = (at(offset + row), at(offset + row + 1));
        let range = usize::try_from(s).ok().zip(usize::try_from(e).ok());
        let bytes = match range {
            Some((s, e)) if s <= e && e <= data.len() => &data[s..e],
            _ => {
                return Err(PyValueError::new_err(format!(
                    "row {row}: offsets {s}..{e} are outside the data buffer"
                )))
            }
        };
        match std::str::from_utf8(bytes) {
            Ok(text) => docs.push(text),
            Err(err) => {
                return Err(PyValueError::new_err(format!(
                    "row {row}: not valid UTF-8 ({err})"
                )))
            }
        }
    }
    Ok(docs)
}

/// Code-point offsets to byte offsets in one document, walking forward from the last offset
/// asked for (chunk starts, and chunk ends, only move forward, so a document is walked once
/// per cursor); an offset behind the cursor walks again from the start. ASCII text needs no
/// walk.
struct CharCursor<'a> {
    text: &'a str,
    ascii: bool,
    chars: usize,
    bytes: usize,
}

impl<'a> CharCursor<'a> {
    fn new(text: &'a str) -> Self {
        CharCursor {
            text,
            ascii: text.is_ascii(),
            chars: 0,
            bytes: 0,
        }
    }

    fn byte(&mut self, char_offset: usize) -> usize {
        if self.ascii {
            return char_offset.min(self.text.len());
        }
        if char_offset < self.chars {
            self.chars = 0;
            self.bytes = 0;
        }
        let rest = &self.text[self.bytes..];
        let step = rest
            .char_indices()
            .nth(char_offset - self.chars)
            .map_or(rest.len(), |(b, _)| b);
        self.bytes += step;
        self.chars = char_offset;
        self.bytes
    }
}

/// The output columns of every document's chunks, in row order.
#[derive(Default)]
pub(super) struct Columns {
    doc: Vec<u32>,
    index: Vec<u32>,
    start: Vec<i64>,
    end: Vec<i64>,
    size: Vec<i64>,
    rejoined: Vec<u8>,
    text_offsets: Vec<i64>,
    text: Vec<u8>,
}

impl Columns {
    pub(super) fn build(docs: &[&str], results: &[Vec<ChunkTuple>]) -> Columns {
        let n: usize = results.iter().map(Vec::len).sum();
        let bytes: usize = docs.iter().map(|d| d.len()).sum();
        let mut out = Columns {
            doc: Vec::with_capacity(n),
            index: Vec::with_capacity(n),
            start: Vec::with_capacity(n),
            end: Vec::with_capacity(n),
            size: Vec::with_capacity(n),
            rejoined: Vec::with_capacity(n),
            text_offsets: Vec::with_capacity(n + 1),
            text: Vec::with_capacity(bytes),
        };
        out.text_offsets.push(0);
        for (row, (doc, chunks)) in docs.iter().zip(results).enumerate() {
            let mut starts = CharCursor::new(doc);
            let mut ends = CharCursor::new(doc);
            for (k, (start, end, size, joined)) in chunks.iter().enumerate() {
                out.doc.push(u32::try_from(row).expect("rows fit in u32"));
                out.index.push(u32::try_from(k).expect("chunks fit in u32"));
                out.start
                    .push(i64::try_from(*start).expect("offset fits in i64"));
                out.end
                    .push(i64::try_from(*end).expect("offset fits in i64"));
                out.size
                    .push(i64::try_from(*size).expect("size fits in i64"));
                match joined {
                    Some(j) => {
                        out.rejoined.push(1);
                        out.text.extend_from_slice(j.as_bytes());
                    }
                    None => {
                        out.rejoined.push(0);
                        let (s, e) = (starts.byte(*start), ends.byte(*end));
                        out.text.extend_from_slice(&doc.as_bytes()[s..e]);
                    }
                }
                out.text_offsets
                    .push(i64::try_from(out.text.len()).expect("length fits in i64"));
            }
        }
        out
    }

    fn into_py(self, py: Python<'_>) -> ArrowChunks<'_> {
        fn le<'py, T: Copy, const N: usize>(
            py: Python<'py>,
            v: &[T],
            f: impl Fn(T) -> [u8; N],
        ) -> Bound<'py, PyBytes> {
            let mut b = Vec::with_capacity(v.len() * N);
            for x in v {
                b.extend_from_slice(&f(*x));
            }
            PyBytes::new(py, &b)
        }
        (
            le(py, &self.doc, u32::to_le_bytes),
            le(py, &self.index, u32::to_le_bytes),
            le(py, &self.start, i64::to_le_bytes),
            le(py, &self.end, i64::to_le_bytes),
            le(py, &self.size, i64::to_le_bytes),
            PyBytes::new(py, &self.rejoined),
            le(py, &self.text_offsets, i64::to_le_bytes),
            PyBytes::new(py, &self.text),
        )
    }
}

/// The whole path for one configured splitter: documents read from the Arrow buffers,
/// `split(docs)` (the splitter's own batch, parallel with the GIL released for a built-in
/// unit), the output columns built with the GIL released.
pub(super) fn split_arrow<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    offsets: &Bound<'py, PyAny>,
    offset: usize,
    len: usize,
    large: bool,
    split: impl FnOnce(&[&str]) -> PyResult<Vec<Vec<ChunkTuple>>>,
) -> PyResult<ArrowChunks<'py>> {
    let data = arrow_buffer(data)?;
    let offsets = arrow_buffer(offsets)?;
    let docs = detached(py, || documents(data, offsets, offset, len, large))??;
    let results = split(&docs)?;
    let columns = detached(py, || Columns::build(&docs, &results))?;
    Ok(columns.into_py(py))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offsets32(v: &[i32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn documents_follow_offsets_and_slices() {
        let data = "héllo world".as_bytes();
        let offs = offsets32(&[0, 6, 6, 12]);
        let docs = documents(data, &offs, 0, 3, false).unwrap();
        assert_eq!(docs, vec!["héllo", "", " world"]);
        let docs = documents(data, &offs, 2, 1, false).unwrap();
        assert_eq!(docs, vec![" world"]);
        let large: Vec<u8> = [0i64, 3].iter().flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!(documents(data, &large, 0, 1, true).unwrap(), vec!["hé"]);
    }

    #[test]
    fn cursor_walks_forward_and_back() {
        let text = "añb 🦀c";
        let mut cur = CharCursor::new(text);
        assert_eq!(cur.byte(2), 3);
        assert_eq!(cur.byte(5), 9);
        assert_eq!(cur.byte(1), 1);
        assert_eq!(cur.byte(6), 10);
        assert_eq!(CharCursor::new("abc").byte(2), 2);
    }

    #[test]
    fn columns_slice_by_code_points() {
        let docs = ["añb c", "xyz"];
        let results = vec![
            vec![(0, 2, 2, None), (2, 5, 3, Some("joined".to_owned()))],
            vec![(1, 3, 2, None)],
        ];
        let c = Columns::build(&docs, &results);
        assert_eq!(c.doc, vec![0, 0, 1]);
        assert_eq!(c.index, vec![0, 1, 0]);
        assert_eq!(c.rejoined, vec![0, 1, 0]);
        assert_eq!(c.text_offsets, vec![0, 3, 9, 11]);
        assert_eq!(std::str::from_utf8(&c.text).unwrap(), "añjoinedyz");
    }
}
