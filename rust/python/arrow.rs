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
use super::job::{split_many, Measure, PerDoc};
use super::strings::arrow_buffer;

/// The output columns as bytes: `(doc, chunk_index, start, end, token_count,
/// metadata_offsets, metadata_data, text_offsets, text_data)`; `doc` is the row (within the
/// array) each chunk comes from, the two string columns are `large_string` buffers.
pub(super) type ArrowChunks<'py> = (
    Bound<'py, PyBytes>,
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
pub(super) struct CharCursor<'a> {
    text: &'a str,
    ascii: bool,
    chars: usize,
    bytes: usize,
}

impl<'a> CharCursor<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        CharCursor {
            text,
            ascii: text.is_ascii(),
            chars: 0,
            bytes: 0,
        }
    }

    pub(super) fn byte(&mut self, char_offset: usize) -> usize {
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

/// One chunk as an Arrow row: code-point offsets, size, its text as up to three pieces
/// (borrowed from the document or from the chunker's result: a repeated table header, a
/// separator and the body, say) and where its metadata ends in [`DocRows::meta`].
struct Row<'a> {
    start: usize,
    end: usize,
    size: usize,
    text: [&'a str; 3],
    meta_end: usize,
}

/// The rows of one document, built on a worker thread: the text stays borrowed until the
/// output buffer is written; the metadata JSON objects are written here, one after another.
#[derive(Default)]
pub(super) struct DocRows<'a> {
    rows: Vec<Row<'a>>,
    meta: String,
}

impl<'a> DocRows<'a> {
    /// A chunk whose text is the pieces `text` joined; `meta` writes its metadata's members
    /// (`"key": value` pairs, see [`Json`]) and nothing for an empty object.
    pub(super) fn push(
        &mut self,
        (start, end, size): (usize, usize, usize),
        text: [&'a str; 3],
        meta: impl FnOnce(&mut Json<'_>),
    ) {
        let mut json = Json {
            out: &mut self.meta,
            first: true,
        };
        json.out.push('{');
        meta(&mut json);
        json.out.push('}');
        self.rows.push(Row {
            start,
            end,
            size,
            text,
            meta_end: self.meta.len(),
        });
    }
}

/// The members of one JSON object, written as Python's `json.dumps(obj, ensure_ascii=False)`
/// writes them (`", "` and `": "` separators, the same escapes), so that the in-place path
/// gives the metadata column the same strings as a chunker's own `split_batch` does.
pub(super) struct Json<'s> {
    out: &'s mut String,
    first: bool,
}

impl Json<'_> {
    fn key(&mut self, key: &str) {
        if !self.first {
            self.out.push_str(", ");
        }
        self.first = false;
        json_string(self.out, key);
        self.out.push_str(": ");
    }

    pub(super) fn bool(&mut self, key: &str, value: bool) {
        self.key(key);
        self.out.push_str(if value { "true" } else { "false" });
    }

    // (Only the code splitter writes integers, and it is behind the `code` feature.)
    #[cfg_attr(not(feature = "code"), allow(dead_code))]
    pub(super) fn int(&mut self, key: &str, value: usize) {
        use std::fmt::Write;
        self.key(key);
        write!(self.out, "{value}").expect("writing to a String");
    }

    pub(super) fn str(&mut self, key: &str, value: &str) {
        self.key(key);
        json_string(self.out, value);
    }

    /// A string member whose value is `pieces` joined.
    pub(super) fn str_pieces(&mut self, key: &str, pieces: &[&str]) {
        self.key(key);
        self.out.push('"');
        for p in pieces {
            json_escaped(self.out, p);
        }
        self.out.push('"');
    }

    pub(super) fn strs<S: AsRef<str>>(&mut self, key: &str, values: &[S]) {
        self.key(key);
        self.str_array(values);
    }

    /// A member whose value is a list of lists of strings.
    pub(super) fn str_lists<S: AsRef<str>>(&mut self, key: &str, values: &[Vec<S>]) {
        self.key(key);
        self.out.push('[');
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.str_array(v);
        }
        self.out.push(']');
    }

    fn str_array<S: AsRef<str>>(&mut self, values: &[S]) {
        self.out.push('[');
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            json_string(self.out, v.as_ref());
        }
        self.out.push(']');
    }
}

/// `value` as a JSON string with Python's escapes (`ensure_ascii=False`): `"` and `\`, the
/// five short control escapes, `\u00xx` for the other control characters, all else as is.
fn json_string(out: &mut String, value: &str) {
    out.push('"');
    json_escaped(out, value);
    out.push('"');
}

/// `value` escaped for a JSON string, without the quotes.
fn json_escaped(out: &mut String, value: &str) {
    use std::fmt::Write;
    let mut plain = 0;
    for (i, b) in value.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&value[plain..i]);
        if escape.is_empty() {
            write!(out, "\\u{b:04x}").expect("writing to a String");
        } else {
            out.push_str(escape);
        }
        plain = i + 1;
    }
    out.push_str(&value[plain..]);
}

/// How a chunker's per-document result becomes Arrow rows: each chunk's offsets, size,
/// text and metadata exactly as the facade's `Chunk` for it has them.
pub(super) trait ArrowJob: PerDoc<Doc = str, Out: Sync> {
    fn rows<'a>(&self, doc: &'a str, out: &'a Self::Out, rows: &mut DocRows<'a>);
}

/// Chunks as the classic splitters return them: `(start, end, size, joined)`, code points;
/// `joined` is the chunk's own text when it is not a slice of the document.
pub(super) type ChunkTuple = (usize, usize, usize, Option<String>);

/// The rows of classic chunks: a slice of the document, or the re-joined text with
/// `{"rejoined": true}`.
pub(super) fn tuple_rows<'a>(doc: &'a str, chunks: &'a [ChunkTuple], rows: &mut DocRows<'a>) {
    let mut starts = CharCursor::new(doc);
    let mut ends = CharCursor::new(doc);
    for (start, end, size, joined) in chunks {
        let body = match joined {
            Some(j) => j.as_str(),
            None => &doc[starts.byte(*start)..ends.byte(*end)],
        };
        rows.push((*start, *end, *size), ["", "", body], |m| {
            if joined.is_some() {
                m.bool("rejoined", true);
            }
        });
    }
}

/// The output columns of every document's chunks, in row order.
#[derive(Default)]
struct Columns {
    doc: Vec<u32>,
    index: Vec<u32>,
    start: Vec<i64>,
    end: Vec<i64>,
    size: Vec<i64>,
    meta_offsets: Vec<i64>,
    meta: Vec<u8>,
    text_offsets: Vec<i64>,
}

fn to_i64(n: usize) -> i64 {
    i64::try_from(n).expect("a length fits in i64")
}

impl Columns {
    /// The columns of every document's rows, in order.
    fn build(docs: &[DocRows<'_>]) -> Columns {
        let n: usize = docs.iter().map(|d| d.rows.len()).sum();
        let meta_len: usize = docs.iter().map(|d| d.meta.len()).sum();
        let mut out = Columns {
            doc: Vec::with_capacity(n),
            index: Vec::with_capacity(n),
            start: Vec::with_capacity(n),
            end: Vec::with_capacity(n),
            size: Vec::with_capacity(n),
            meta_offsets: Vec::with_capacity(n + 1),
            meta: Vec::with_capacity(meta_len),
            text_offsets: Vec::with_capacity(n + 1),
        };
        out.meta_offsets.push(0);
        out.text_offsets.push(0);
        let mut text_len = 0usize;
        for (row, doc) in docs.iter().enumerate() {
            let meta_at = out.meta.len();
            out.meta.extend_from_slice(doc.meta.as_bytes());
            for (k, r) in doc.rows.iter().enumerate() {
                out.doc.push(u32::try_from(row).expect("rows fit in u32"));
                out.index.push(u32::try_from(k).expect("chunks fit in u32"));
                out.start.push(to_i64(r.start));
                out.end.push(to_i64(r.end));
                out.size.push(to_i64(r.size));
                out.meta_offsets.push(to_i64(meta_at + r.meta_end));
                text_len += r.text.iter().map(|p| p.len()).sum::<usize>();
                out.text_offsets.push(to_i64(text_len));
            }
        }
        out
    }

    /// The chunk text, written into `buf` (exactly the total length).
    fn fill_text(docs: &[DocRows<'_>], buf: &mut [u8]) {
        let mut at = 0;
        for piece in docs.iter().flat_map(|d| &d.rows).flat_map(|r| r.text) {
            buf[at..at + piece.len()].copy_from_slice(piece.as_bytes());
            at += piece.len();
        }
    }

    fn into_py<'py>(self, py: Python<'py>, docs: &[DocRows<'_>]) -> PyResult<ArrowChunks<'py>> {
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
            py.detach(|| Self::fill_text(docs, buf));
            Ok(())
        })?;
        Ok((
            le(py, &self.doc, u32::to_le_bytes),
            le(py, &self.index, u32::to_le_bytes),
            le(py, &self.start, i64::to_le_bytes),
            le(py, &self.end, i64::to_le_bytes),
            le(py, &self.size, i64::to_le_bytes),
            le(py, &self.meta_offsets, i64::to_le_bytes),
            PyBytes::new(py, &self.meta),
            le(py, &self.text_offsets, i64::to_le_bytes),
            text,
        ))
    }
}

/// The whole Arrow path of one configured chunker: documents read from the Arrow buffers,
/// the chunker's own batch over them (parallel with the GIL released for a built-in unit),
/// the rows and output columns built with the GIL released.
#[allow(clippy::too_many_arguments)]
pub(super) fn split_arrow<'py, J: ArrowJob>(
    py: Python<'py>,
    job: &J,
    measure: &Measure,
    data: &Bound<'py, PyAny>,
    offsets: &Bound<'py, PyAny>,
    offset: usize,
    len: usize,
    large: bool,
    workers: Option<usize>,
) -> PyResult<ArrowChunks<'py>> {
    let data = arrow_buffer(data)?;
    let offsets = arrow_buffer(offsets)?;
    let docs = detached(py, || documents(data, offsets, offset, len, large))??;
    let results = split_many(py, job, &docs, measure, workers)?;
    let pairs: Vec<(&str, &J::Out)> = docs.iter().copied().zip(&results).collect();
    let rows = detached(py, || {
        crate::batch::par_map(&pairs, workers, |(doc, out)| {
            let mut rows = DocRows::default();
            job.rows(doc, out, &mut rows);
            rows
        })
    })??;
    let columns = detached(py, || Columns::build(&rows))?;
    columns.into_py(py, &rows)
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
        let results: Vec<Vec<ChunkTuple>> = vec![
            vec![(0, 2, 2, None), (2, 5, 3, Some("joined".to_owned()))],
            vec![(1, 3, 2, None)],
        ];
        let rows: Vec<DocRows<'_>> = docs
            .iter()
            .zip(&results)
            .map(|(doc, chunks)| {
                let mut rows = DocRows::default();
                tuple_rows(doc, chunks, &mut rows);
                rows
            })
            .collect();
        let c = Columns::build(&rows);
        assert_eq!(c.doc, vec![0, 0, 1]);
        assert_eq!(c.index, vec![0, 1, 0]);
        assert_eq!(c.start, vec![0, 2, 1]);
        assert_eq!(c.text_offsets, vec![0, 3, 9, 11]);
        assert_eq!(c.meta_offsets, vec![0, 2, 20, 22]);
        assert_eq!(
            std::str::from_utf8(&c.meta).unwrap(),
            r#"{}{"rejoined": true}{}"#
        );
        let mut buf = vec![0; 11];
        Columns::fill_text(&rows, &mut buf);
        assert_eq!(std::str::from_utf8(&buf).unwrap(), "añjoinedyz");
    }

    #[test]
    fn json_is_written_as_python_writes_it() {
        let mut rows = DocRows::default();
        rows.push((0, 1, 1), ["", "", "x"], |m| {
            m.strs("headers", &["a \"q\" \\ é", "\n\t\u{1}\u{8}\u{c}\r\u{7f}"]);
            m.int("line", 12);
            m.str_pieces("added", &["| a |", "\n"]);
            m.bool("rejoined", true);
        });
        let expected = concat!(
            r#"{"headers": ["a \"q\" \\ é", "\n\t\u0001\b\f\r"#,
            "\u{7f}",
            r#""], "line": 12, "added": "| a |\n", "rejoined": true}"#
        );
        assert_eq!(rows.meta, expected);
    }
}
