//! The structure-aware splitters: Markdown, HTML and title trees, each a single and a batch
//! entry point over one [`PerDoc`] job. Offsets go back in code points.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use crate::splitters::packer::{PackOptions, PackOutput};
use crate::splitters::title_tree::{self, TitleTreeError};
use crate::splitters::{html, markdown};
use crate::tokenizer::TokenCounter;

use super::counters::{split_many, split_one, unit_count, Counter, PerDoc};
use super::guard::{contain, detached};

/// One packed chunk (Markdown, HTML) for Python: code-point `(start, end)`, size, section
/// index, and the code-point range of the added prefix (a repeated table header) or `None`.
type PackedChunkPy = (usize, usize, usize, usize, Option<(usize, usize)>);
type PackedResultPy = (Vec<PackedChunkPy>, Vec<Vec<String>>);

fn pack_options(
    chunk_size: usize,
    chunk_overlap: usize,
    levels: &[usize],
    strip_headers: bool,
) -> PyResult<PackOptions> {
    let mut split_levels = [false; 7];
    for &l in levels {
        if !(1..=6).contains(&l) {
            return Err(PyValueError::new_err(format!(
                "headers_to_split_on: heading levels are 1..6, got {l}"
            )));
        }
        split_levels[l] = true;
    }
    Ok(PackOptions {
        chunk_size,
        overlap: chunk_overlap,
        split_levels,
        strip_headers,
    })
}

/// A packed result already in code points, as Python tuples.
fn pack_to_py(out: PackOutput) -> PackedResultPy {
    let chunks = out
        .chunks
        .into_iter()
        .map(|c| (c.span.start, c.span.end, c.span.size, c.section, c.prefix))
        .collect();
    (chunks, out.sections)
}

/// One document of the Markdown splitter.
struct MarkdownDoc(PackOptions);

impl PerDoc for MarkdownDoc {
    type Doc = str;
    type Out = PackedResultPy;

    fn run<C: TokenCounter>(&self, text: &str, counter: &C) -> Result<PackedResultPy, C::Error> {
        let out = markdown::split_markdown(text, &self.0, counter)?;
        Ok(pack_to_py(out.in_chars(text)))
    }
}

/// `MarkdownSplitter.split` in one crossing. `encoding_name` (built-in tokenizer, GIL
/// released), `counter` (Python callable, GIL held) or neither (`length="chars"`).
#[pyfunction]
#[pyo3(name = "markdown_split", signature = (text, chunk_size, chunk_overlap, levels, strip_headers, encoding_name, counter))]
#[allow(clippy::too_many_arguments)]
pub(super) fn split_markdown(
    py: Python<'_>,
    text: PyBackedStr,
    chunk_size: usize,
    chunk_overlap: usize,
    levels: Vec<usize>,
    strip_headers: bool,
    encoding_name: Option<&str>,
    counter: Option<Bound<'_, PyAny>>,
) -> PyResult<PackedResultPy> {
    contain(py, || {
        let job = MarkdownDoc(pack_options(
            chunk_size,
            chunk_overlap,
            &levels,
            strip_headers,
        )?);
        split_one(py, &job, &text, Counter::new(encoding_name, counter)?)
    })
}

/// `MarkdownSplitter.split_batch`: documents in parallel (rayon), GIL released. Built-in
/// tokenizers and `length="chars"` only.
#[pyfunction]
#[pyo3(name = "markdown_split_batch", signature = (texts, chunk_size, chunk_overlap, levels, strip_headers, encoding_name, workers))]
#[allow(clippy::too_many_arguments)]
pub(super) fn split_markdown_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    chunk_size: usize,
    chunk_overlap: usize,
    levels: Vec<usize>,
    strip_headers: bool,
    encoding_name: Option<&str>,
    workers: Option<usize>,
) -> PyResult<Vec<PackedResultPy>> {
    contain(py, || {
        let job = MarkdownDoc(pack_options(
            chunk_size,
            chunk_overlap,
            &levels,
            strip_headers,
        )?);
        split_many(py, &job, &texts, unit_count(encoding_name)?, workers)
    })
}

/// `HTMLSplitter.split`: the laid-out text, its chunks (as [`PackedChunkPy`], offsets into that
/// text) and the sections' heading paths.
type HtmlResultPy = (String, Vec<PackedChunkPy>, Vec<Vec<String>>);

/// One document of the HTML splitter.
struct HtmlDoc(PackOptions);

impl PerDoc for HtmlDoc {
    type Doc = str;
    type Out = HtmlResultPy;

    fn run<C: TokenCounter>(&self, text: &str, counter: &C) -> Result<HtmlResultPy, C::Error> {
        let out = html::split_html(text, &self.0, counter)?.in_chars();
        let (chunks, sections) = pack_to_py(out.out);
        Ok((out.text, chunks, sections))
    }
}

/// `HTMLSplitter.split` in one crossing (see [`split_markdown`] for the counter choice).
#[pyfunction]
#[pyo3(name = "html_split", signature = (text, chunk_size, chunk_overlap, levels, strip_headers, encoding_name, counter))]
#[allow(clippy::too_many_arguments)]
pub(super) fn split_html(
    py: Python<'_>,
    text: PyBackedStr,
    chunk_size: usize,
    chunk_overlap: usize,
    levels: Vec<usize>,
    strip_headers: bool,
    encoding_name: Option<&str>,
    counter: Option<Bound<'_, PyAny>>,
) -> PyResult<HtmlResultPy> {
    contain(py, || {
        let job = HtmlDoc(pack_options(
            chunk_size,
            chunk_overlap,
            &levels,
            strip_headers,
        )?);
        split_one(py, &job, &text, Counter::new(encoding_name, counter)?)
    })
}

/// `HTMLSplitter.split_batch`: documents in parallel (rayon), GIL released. Built-in
/// tokenizers and `length="chars"` only.
#[pyfunction]
#[pyo3(name = "html_split_batch", signature = (texts, chunk_size, chunk_overlap, levels, strip_headers, encoding_name, workers))]
#[allow(clippy::too_many_arguments)]
pub(super) fn split_html_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    chunk_size: usize,
    chunk_overlap: usize,
    levels: Vec<usize>,
    strip_headers: bool,
    encoding_name: Option<&str>,
    workers: Option<usize>,
) -> PyResult<Vec<HtmlResultPy>> {
    contain(py, || {
        let job = HtmlDoc(pack_options(
            chunk_size,
            chunk_overlap,
            &levels,
            strip_headers,
        )?);
        split_many(py, &job, &texts, unit_count(encoding_name)?, workers)
    })
}

/// `HTMLSplitter.extract_text`: the laid-out text chunk offsets index into.
#[pyfunction]
pub(super) fn html_text(py: Python<'_>, text: PyBackedStr) -> PyResult<String> {
    contain(py, || detached(py, || html::layout_html(&text).text))
}

/// `(text, [(start, end, level, title)])` of [`layout_html`].
type HtmlLayoutPy = (String, Vec<(usize, usize, usize, String)>);

/// `HTMLSplitter`'s text layout with its blocks, for `TitleTreeChunker(title_source="html")`:
/// `(text, [(start, end, heading level or 0, heading text)])`, offsets in code points.
#[pyfunction]
#[pyo3(name = "html_layout")]
pub(super) fn layout_html(py: Python<'_>, text: PyBackedStr) -> PyResult<HtmlLayoutPy> {
    contain(py, || {
        detached(py, || {
            let layout = html::layout_html(&text);
            let blocks = html::title_blocks(&layout)
                .into_iter()
                .map(|b| (b.start, b.end, b.level, b.title))
                .collect();
            (layout.text, blocks)
        })
    })
}

/// `(start, end, size, node)` in code points.
type TreeChunkPy = (usize, usize, usize, usize);

/// One laid-out title tree (built by the Python facade): the text, each node's parent
/// (negative for the root) and the items `(node, start, end)`, offsets in code points.
type TreeDoc = (PyBackedStr, Vec<i64>, Vec<(usize, usize, usize)>);

/// One document of `TitleTreeChunker`: its chunks, or why its layout is inconsistent.
struct TitleTreeDoc {
    budget: usize,
}

impl PerDoc for TitleTreeDoc {
    type Doc = TreeDoc;
    type Out = Result<Vec<TreeChunkPy>, String>;

    fn run<C: TokenCounter>(
        &self,
        (text, parents, items): &TreeDoc,
        counter: &C,
    ) -> Result<Self::Out, C::Error> {
        let parents: Vec<usize> = parents
            .iter()
            .map(|&p| usize::try_from(p).unwrap_or(usize::MAX))
            .collect();
        match title_tree::split_title_tree_chars(text, &parents, items, self.budget, counter) {
            Ok(chunks) => Ok(Ok(chunks
                .into_iter()
                .map(|c| (c.span.start, c.span.end, c.span.size, c.node))
                .collect())),
            Err(TitleTreeError::Layout(e)) => Ok(Err(e.to_string())),
            Err(TitleTreeError::Count(e)) => Err(e),
        }
    }
}

/// `TitleTreeChunker`: chunks of a laid-out title tree (built by the Python facade).
/// Offsets in and out are code points.
#[pyfunction]
#[pyo3(name = "title_tree_split", signature = (text, parents, items, budget, encoding_name, counter))]
pub(super) fn split_title_tree(
    py: Python<'_>,
    text: PyBackedStr,
    parents: Vec<i64>,
    items: Vec<(usize, usize, usize)>,
    budget: usize,
    encoding_name: Option<&str>,
    counter: Option<Bound<'_, PyAny>>,
) -> PyResult<Vec<TreeChunkPy>> {
    contain(py, || {
        let doc = (text, parents, items);
        let counter = Counter::new(encoding_name, counter)?;
        split_one(py, &TitleTreeDoc { budget }, &doc, counter)?.map_err(PyValueError::new_err)
    })
}

/// `title_tree_split` over many laid-out documents in parallel, GIL released.
#[pyfunction]
#[pyo3(name = "title_tree_split_batch", signature = (docs, budget, encoding_name, workers))]
pub(super) fn split_title_tree_batch(
    py: Python<'_>,
    docs: Vec<TreeDoc>,
    budget: usize,
    encoding_name: Option<&str>,
    workers: Option<usize>,
) -> PyResult<Vec<Vec<TreeChunkPy>>> {
    contain(py, || {
        let unit = unit_count(encoding_name)?;
        let results = split_many(py, &TitleTreeDoc { budget }, &docs, unit, workers)?;
        results
            .into_iter()
            .enumerate()
            .map(|(i, r)| r.map_err(|e| PyValueError::new_err(format!("docs[{i}]: {e}"))))
            .collect()
    })
}
