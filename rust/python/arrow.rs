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
        let rest = &self.text.as_bytes()[self.bytes..];
        let step = skip_chars(rest, char_offset - self.chars);
        self.bytes += step;
        self.chars = char_offset;
        self.bytes
    }
}

/// The byte length of the first `n` code points of `bytes` (UTF-8), or all of it: whole
/// 32-byte blocks are skipped by counting their code-point starts (a loop the compiler
/// vectorizes) while they hold no more than the starts left to skip; the rest is walked byte
/// by byte.
fn skip_chars(bytes: &[u8], mut n: usize) -> usize {
    let starts = |b: &[u8]| b.iter().filter(|&&x| (x as i8) >= -0x40).count();
    let mut at = 0;
    for block in bytes.chunks(32) {
        let k = starts(block);
        if k > n {
            break;
        }
        n -= k;
        at += block.len();
    }
    for (i, &x) in bytes[at..].iter().enumerate() {
        if (x as i8) >= -0x40 {
            if n == 0 {
                return at + i;
            }
            n -= 1;
        }
    }
    bytes.len()
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
    /// Each document's chunks as byte ranges of the document.
    ranges: Vec<Vec<(usize, usize)>>,
}

impl Columns {
    /// The columns of `results` (chunks of `docs`, in order); the code-point offsets of each
    /// document are turned into byte ranges on `workers` threads.
    pub(super) fn build(
        docs: &[&str],
        results: &[Vec<ChunkTuple>],
        workers: Option<usize>,
    ) -> Result<Columns, crate::batch::BatchError> {
        let pairs: Vec<(&str, &Vec<ChunkTuple>)> = docs.iter().copied().zip(results).collect();
        let ranges = crate::batch::par_map(&pairs, workers, |(doc, chunks)| {
            let mut starts = CharCursor::new(doc);
            let mut ends = CharCursor::new(doc);
            chunks
                .iter()
                .map(|(start, end, _, _)| (starts.byte(*start), ends.byte(*end)))
                .collect::<Vec<_>>()
        })?;
        let n: usize = results.iter().map(Vec::len).sum();
        let mut out = Columns {
            doc: Vec::with_capacity(n),
            index: Vec::with_capacity(n),
            start: Vec::with_capacity(n),
            end: Vec::with_capacity(n),
            size: Vec::with_capacity(n),
            rejoined: Vec::with_capacity(n),
            text_offsets: Vec::with_capacity(n + 1),
            ranges: Vec::new(),
        };
        out.text_offsets.push(0);
        let mut text_len = 0usize;
        for (row, ((_, chunks), spans)) in pairs.iter().zip(&ranges).enumerate() {
            for (k, ((start, end, size, joined), (s, e))) in chunks.iter().zip(spans).enumerate() {
                out.doc.push(u32::try_from(row).expect("rows fit in u32"));
                out.index.push(u32::try_from(k).expect("chunks fit in u32"));
                out.start
                    .push(i64::try_from(*start).expect("offset fits in i64"));
                out.end
                    .push(i64::try_from(*end).expect("offset fits in i64"));
                out.size
                    .push(i64::try_from(*size).expect("size fits in i64"));
                out.rejoined.push(u8::from(joined.is_some()));
                text_len += joined.as_ref().map_or(e - s, String::len);
                out.text_offsets
                    .push(i64::try_from(text_len).expect("length fits in i64"));
            }
        }
        out.ranges = ranges;
        Ok(out)
    }

    /// The chunk text, written into `buf` (exactly the total length).
    fn fill_text(&self, docs: &[&str], results: &[Vec<ChunkTuple>], buf: &mut [u8]) {
        let mut at = 0;
        for ((doc, chunks), spans) in docs.iter().zip(results).zip(&self.ranges) {
            for ((_, _, _, joined), (s, e)) in chunks.iter().zip(spans) {
                let piece = match joined {
                    Some(j) => j.as_bytes(),
                    None => &doc.as_bytes()[*s..*e],
                };
                buf[at..at + piece.len()].copy_from_slice(piece);
                at += piece.len();
            }
        }
    }

    fn into_py<'py>(
        self,
        py: Python<'py>,
        docs: &[&str],
        results: &[Vec<ChunkTuple>],
    ) -> PyResult<ArrowChunks<'py>> {
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
        let total = self
            .text_offsets
            .last()
            .map_or(0, |&n| usize::try_from(n).expect("non-negative"));
        // The text goes straight into the `bytes` object, written with the GIL released.
        let text = PyBytes::new_with(py, total, |buf| {
            py.detach(|| self.fill_text(docs, results, buf));
            Ok(())
        })?;
        Ok((
            le(py, &self.doc, u32::to_le_bytes),
            le(py, &self.index, u32::to_le_bytes),
            le(py, &self.start, i64::to_le_bytes),
            le(py, &self.end, i64::to_le_bytes),
            le(py, &self.size, i64::to_le_bytes),
            PyBytes::new(py, &self.rejoined),
            le(py, &self.text_offsets, i64::to_le_bytes),
            text,
        ))
    }
}

/// The whole path for one configured splitter: documents read from the Arrow buffers,
/// `split(docs)` (the splitter's own batch, parallel with the GIL released for a built-in
/// unit), the output columns built with the GIL released.
#[allow(clippy::too_many_arguments)]
pub(super) fn split_arrow<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    offsets: &Bound<'py, PyAny>,
    offset: usize,
    len: usize,
    large: bool,
    workers: Option<usize>,
    split: impl FnOnce(&[&str]) -> PyResult<Vec<Vec<ChunkTuple>>>,
) -> PyResult<ArrowChunks<'py>> {
    let data = arrow_buffer(data)?;
    let offsets = arrow_buffer(offsets)?;
    let docs = detached(py, || documents(data, offsets, offset, len, large))??;
    let results = split(&docs)?;
    let columns = detached(py, || Columns::build(&docs, &results, workers))??;
    columns.into_py(py, &docs, &results)
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
        let long = "é".repeat(40) + "x" + &"ü".repeat(40);
        for n in 0..=81 {
            let expected = long.char_indices().nth(n).map_or(long.len(), |(b, _)| b);
            assert_eq!(skip_chars(long.as_bytes(), n), expected, "n = {n}");
        }
    }

    #[test]
    fn columns_slice_by_code_points() {
        let docs = ["añb c", "xyz"];
        let results = vec![
            vec![(0, 2, 2, None), (2, 5, 3, Some("joined".to_owned()))],
            vec![(1, 3, 2, None)],
        ];
        let c = Columns::build(&docs, &results, Some(1)).unwrap();
        assert_eq!(c.doc, vec![0, 0, 1]);
        assert_eq!(c.index, vec![0, 1, 0]);
        assert_eq!(c.rejoined, vec![0, 1, 0]);
        assert_eq!(c.text_offsets, vec![0, 3, 9, 11]);
        let mut buf = vec![0; 11];
        c.fill_text(&docs, &results, &mut buf);
        assert_eq!(std::str::from_utf8(&buf).unwrap(), "añjoinedyz");
    }
}
