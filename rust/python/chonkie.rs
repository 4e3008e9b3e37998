//! The Chonkie drop-ins' bindings: token windows, sentence and recursive chunks returned as code-point
//! spans and counts (one Python int per chunk boundary, none per token or sentence).

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use crate::splitters::chonkie::{
    char_spans, pack_table_rows, recursive_chunks, sentence_chunks, table_pieces, Counting,
};
use crate::text::offsets::CharOffsets;

use super::counters::encoding;
use super::guard::{contain, detached};

/// Spans and counts: `([start, ...], [end, ...], [tokens, ...])`.
type Chunks = (Vec<usize>, Vec<usize>, Vec<usize>);

/// Chonkie's token windows of `text` in `encoding_name` (`encode_ordinary`'s tokens), `size`
/// tokens every `step`, the last ending at the last token: each window's code-point start and
/// end (a byte offset inside a character rounded up to the next character: the character
/// belongs to the window holding its first byte) and its token count.
#[pyfunction]
pub(super) fn chonkie_token_windows(
    py: Python<'_>,
    text: PyBackedStr,
    encoding_name: &str,
    size: usize,
    step: usize,
) -> PyResult<Chunks> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        if size == 0 || step == 0 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "size and step must be positive",
            ));
        }
        let text: &str = &text;
        detached(py, || {
            let edges = tok.token_edges(text);
            let n = edges.len() - 1;
            let (mut starts, mut ends) = (CharOffsets::new(text), CharOffsets::new(text));
            let mut out: Chunks = (Vec::new(), Vec::new(), Vec::new());
            let mut start = 0;
            while start < n {
                let end = (start + size).min(n);
                out.0.push(starts.char_offset(edges[start]));
                out.1.push(ends.char_offset(edges[end]));
                out.2.push(end - start);
                if end == n {
                    break;
                }
                start += step;
            }
            out
        })
    })
}

/// Chonkie's `SentenceChunker` chunks of `text`: its delimiter split on `patterns` (the
/// delimiter after each piece, or before it with `include_next`; pieces under `min_bytes`
/// merged), each piece and chunk counted in `encoding_name`'s ordinary tokens, or in code
/// points when `None`, and Chonkie's packing.
#[pyfunction]
#[pyo3(signature = (
    text, patterns, include_next, min_bytes, chunk_size, chunk_overlap, min_sentences,
    encoding_name=None
))]
#[allow(clippy::too_many_arguments)]
pub(super) fn chonkie_sentence_chunks(
    py: Python<'_>,
    text: PyBackedStr,
    patterns: Vec<String>,
    include_next: bool,
    min_bytes: usize,
    chunk_size: usize,
    chunk_overlap: f64,
    min_sentences: usize,
    encoding_name: Option<&str>,
) -> PyResult<Chunks> {
    contain(py, || {
        let tok = encoding_name.map(encoding).transpose()?;
        let text: &str = &text;
        detached(py, || {
            let counter = tok.map(|t| move |s: &str| t.count_ordinary(s));
            let count = counter.as_ref().map(|f| f as &dyn Fn(&str) -> usize);
            let patterns: Vec<&str> = patterns.iter().map(String::as_str).collect();
            let split = (patterns.as_slice(), include_next, min_bytes);
            let (spans, sizes) =
                sentence_chunks(text, split, chunk_size, chunk_overlap, min_sentences, count);
            let (starts, ends) = spans.into_iter().unzip();
            (starts, ends, sizes)
        })
    })
}

/// Chonkie's `RecursiveChunker` chunks of `text`: `levels` are its rules, each a delimiter
/// split `(patterns, include_next)` or `None` for a token level; counted in
/// `encoding_name`'s ordinary tokens, or in code points when `None`.
#[pyfunction]
#[pyo3(signature = (text, levels, chunk_size, min_bytes, encoding_name=None))]
pub(super) fn chonkie_recursive_chunks(
    py: Python<'_>,
    text: PyBackedStr,
    levels: Vec<Option<(Vec<String>, bool)>>,
    chunk_size: usize,
    min_bytes: usize,
    encoding_name: Option<&str>,
) -> PyResult<Chunks> {
    contain(py, || {
        let tok = encoding_name.map(encoding).transpose()?;
        if chunk_size == 0 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "chunk_size must be positive",
            ));
        }
        let text: &str = &text;
        detached(py, || {
            let patterns: Vec<Option<(Vec<&str>, bool)>> = levels
                .iter()
                .map(|l| {
                    l.as_ref()
                        .map(|(p, next)| (p.iter().map(String::as_str).collect(), *next))
                })
                .collect();
            let levels: Vec<_> = patterns
                .iter()
                .map(|l| l.as_ref().map(|(p, next)| (p.as_slice(), *next)))
                .collect();
            let char_count = |s: &str| s.chars().count();
            let char_edges = |s: &str| {
                let mut e: Vec<usize> = s.char_indices().map(|(i, _)| i).collect();
                e.push(s.len());
                e
            };
            let (count_tok, edges_tok);
            let counting = match tok {
                Some(t) => {
                    count_tok = move |s: &str| t.count_ordinary(s);
                    edges_tok = move |s: &str| t.token_edges(s);
                    Counting {
                        count: &count_tok,
                        edges: &edges_tok,
                    }
                }
                None => Counting {
                    count: &char_count,
                    edges: &char_edges,
                },
            };
            let (spans, sizes) = recursive_chunks(text, &levels, chunk_size, min_bytes, &counting);
            let (starts, ends) = char_spans(text, &spans);
            (starts, ends, sizes)
        })
    })
}

/// Chonkie's `TableChunker` chunks of a stripped Markdown `table`: the header's code-point
/// end, then each chunk's rows as code-point starts and ends with its token count. Rows are
/// packed `chunk_size` at a time (`encoding_name` `"row"`), or by tokens (code points for
/// `None`, else `encoding_name`'s ordinary tokens), the header counted in every chunk.
#[pyfunction]
#[pyo3(signature = (table, chunk_size, encoding_name=None))]
pub(super) fn chonkie_table_chunks(
    py: Python<'_>,
    table: PyBackedStr,
    chunk_size: usize,
    encoding_name: Option<&str>,
) -> PyResult<(usize, Chunks)> {
    contain(py, || {
        let by_rows = encoding_name == Some("row");
        let tok = encoding_name
            .filter(|_| !by_rows)
            .map(encoding)
            .transpose()?;
        if chunk_size == 0 {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "chunk_size must be positive",
            ));
        }
        let table: &str = &table;
        detached(py, || {
            let pieces = table_pieces(table);
            let header_end = pieces.get(1).or(pieces.first()).map_or(0, |p| p.1);
            let rows = pieces.get(2..).unwrap_or(&[]);
            let count = |s: &str| match tok {
                Some(t) => t.count_ordinary(s),
                None => s.chars().count(),
            };
            let groups: Vec<(usize, usize, usize)> = if by_rows {
                (0..rows.len())
                    .step_by(chunk_size)
                    .map(|a| {
                        let b = (a + chunk_size).min(rows.len());
                        (a, b, b - a)
                    })
                    .collect()
            } else {
                let counts: Vec<usize> = rows.iter().map(|&(s, e)| count(&table[s..e])).collect();
                pack_table_rows(&counts, count(&table[..header_end]), chunk_size)
            };
            let spans: Vec<(usize, usize)> = groups
                .iter()
                .map(|&(a, b, _)| (rows[a].0, rows[b - 1].1))
                .collect();
            let (starts, ends) = char_spans(table, &spans);
            let header = CharOffsets::new(table).char_offset(header_end);
            (header, (starts, ends, groups.iter().map(|g| g.2).collect()))
        })
    })
}
