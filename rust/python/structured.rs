//! The structure-aware chunkers, each a configured class: Markdown, HTML and title trees,
//! with the layouts the title tree reads (the HTML layout, the Markdown blocks). Offsets go
//! back in code points.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use crate::splitters::html;
use crate::splitters::markdown;
use crate::splitters::packer::{PackOptions, PackOutput};
use crate::splitters::title_tree::TitleBlock;
use crate::splitters::title_tree::{self, TitleTreeError};
use crate::tokenizer::TokenCounter;

use super::chunker::{int_option, sizes, split_many, split_one, Measure, PerDoc};
use super::guard::{contain, detached};

/// One packed chunk (Markdown, HTML) for Python: code-point `(start, end)`, size, section
/// index, and the code-point range of the added prefix (a repeated table header) or `None`.
type PackedChunkPy = (usize, usize, usize, usize, Option<(usize, usize)>);
type PackedResultPy = (Vec<PackedChunkPy>, Vec<Vec<String>>);

/// The packer's options of a Markdown or HTML splitter; `levels` are the heading levels that
/// start sections.
fn pack_options(
    chunk_size: &Bound<'_, PyAny>,
    chunk_overlap: &Bound<'_, PyAny>,
    levels: &[usize],
    strip_headers: bool,
) -> PyResult<PackOptions> {
    let (chunk_size, overlap) = sizes(chunk_size, chunk_overlap)?;
    let mut split_levels = [false; 7];
    for &l in levels {
        if !(1..=6).contains(&l) {
            return Err(PyValueError::new_err(format!(
                "levels: heading levels are 1..6, got {l}"
            )));
        }
        split_levels[l] = true;
    }
    Ok(PackOptions {
        chunk_size,
        overlap,
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

/// `MarkdownSplitter`, configured once: each document's chunks and its sections' heading
/// paths.
#[pyclass(frozen, module = "ragchunk._core", name = "MarkdownSplitter")]
pub(super) struct PyMarkdown {
    job: MarkdownDoc,
    measure: Measure,
}

#[pymethods]
impl PyMarkdown {
    #[new]
    #[pyo3(signature = (chunk_size, chunk_overlap, levels, strip_headers, length="tokens", encoding_name=None, counter=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        chunk_size: &Bound<'_, PyAny>,
        chunk_overlap: &Bound<'_, PyAny>,
        levels: Vec<usize>,
        strip_headers: bool,
        length: &str,
        encoding_name: Option<&str>,
        counter: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        contain(py, || {
            Ok(PyMarkdown {
                job: MarkdownDoc(pack_options(
                    chunk_size,
                    chunk_overlap,
                    &levels,
                    strip_headers,
                )?),
                measure: Measure::new(length, encoding_name, counter)?,
            })
        })
    }

    fn split(&self, py: Python<'_>, text: PyBackedStr) -> PyResult<PackedResultPy> {
        contain(py, || split_one(py, &self.job, &text, &self.measure))
    }

    #[pyo3(signature = (texts, workers=None))]
    fn split_batch(
        &self,
        py: Python<'_>,
        texts: Vec<PyBackedStr>,
        workers: Option<usize>,
    ) -> PyResult<Vec<PackedResultPy>> {
        contain(py, || {
            split_many(py, &self.job, &texts, &self.measure, workers)
        })
    }
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

/// `HTMLSplitter`, configured once: each document's laid-out text, chunks and sections.
#[pyclass(frozen, module = "ragchunk._core", name = "HTMLSplitter")]
pub(super) struct PyHtml {
    job: HtmlDoc,
    measure: Measure,
}

#[pymethods]
impl PyHtml {
    #[new]
    #[pyo3(signature = (chunk_size, chunk_overlap, levels, strip_headers, length="tokens", encoding_name=None, counter=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        chunk_size: &Bound<'_, PyAny>,
        chunk_overlap: &Bound<'_, PyAny>,
        levels: Vec<usize>,
        strip_headers: bool,
        length: &str,
        encoding_name: Option<&str>,
        counter: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        contain(py, || {
            Ok(PyHtml {
                job: HtmlDoc(pack_options(
                    chunk_size,
                    chunk_overlap,
                    &levels,
                    strip_headers,
                )?),
                measure: Measure::new(length, encoding_name, counter)?,
            })
        })
    }

    fn split(&self, py: Python<'_>, text: PyBackedStr) -> PyResult<HtmlResultPy> {
        contain(py, || split_one(py, &self.job, &text, &self.measure))
    }

    #[pyo3(signature = (texts, workers=None))]
    fn split_batch(
        &self,
        py: Python<'_>,
        texts: Vec<PyBackedStr>,
        workers: Option<usize>,
    ) -> PyResult<Vec<HtmlResultPy>> {
        contain(py, || {
            split_many(py, &self.job, &texts, &self.measure, workers)
        })
    }
}

/// `HTMLSplitter.extract_text`: the laid-out text chunk offsets index into.
#[pyfunction]
pub(super) fn html_text(py: Python<'_>, text: PyBackedStr) -> PyResult<String> {
    contain(py, || detached(py, || html::layout_html(&text).text))
}

/// A title tree's blocks for Python: `(start, end, heading level or 0, heading text)`.
type TitleBlocksPy = Vec<(usize, usize, usize, String)>;

fn title_blocks_py(blocks: Vec<TitleBlock>) -> TitleBlocksPy {
    blocks
        .into_iter()
        .map(|b| (b.start, b.end, b.level, b.title))
        .collect()
}

/// `HTMLSplitter`'s text layout with its blocks, for `TitleTreeChunker(title_source="html")`:
/// `(text, [(start, end, heading level or 0, heading text)])`, offsets in code points.
#[pyfunction]
#[pyo3(name = "html_layout")]
pub(super) fn layout_html(py: Python<'_>, text: PyBackedStr) -> PyResult<(String, TitleBlocksPy)> {
    contain(py, || {
        detached(py, || {
            let layout = html::layout_html(&text);
            let blocks = title_blocks_py(html::title_blocks(&layout));
            (layout.text, blocks)
        })
    })
}

/// The Markdown block scanner's blocks, for `TitleTreeChunker(title_source="markdown")`:
/// `[(start, end, heading level or 0, heading text)]`, offsets in code points.
#[pyfunction]
pub(super) fn markdown_blocks(py: Python<'_>, text: PyBackedStr) -> PyResult<TitleBlocksPy> {
    contain(py, || {
        detached(py, || title_blocks_py(markdown::title_blocks(&text)))
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

/// `TitleTreeChunker`, configured once: chunks of title trees laid out by the Python facade.
/// Offsets in and out are code points.
#[pyclass(frozen, module = "ragchunk._core", name = "TitleTreeChunker")]
pub(super) struct PyTitleTree {
    job: TitleTreeDoc,
    measure: Measure,
}

#[pymethods]
impl PyTitleTree {
    #[new]
    #[pyo3(signature = (chunk_size, length="tokens", encoding_name=None, counter=None))]
    fn new(
        py: Python<'_>,
        chunk_size: &Bound<'_, PyAny>,
        length: &str,
        encoding_name: Option<&str>,
        counter: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        contain(py, || {
            Ok(PyTitleTree {
                job: TitleTreeDoc {
                    budget: int_option(chunk_size, "chunk_size", 1)?,
                },
                measure: Measure::new(length, encoding_name, counter)?,
            })
        })
    }

    /// The chunks of one laid-out tree: its text, each node's parent and the items.
    fn split(
        &self,
        py: Python<'_>,
        text: PyBackedStr,
        parents: Vec<i64>,
        items: Vec<(usize, usize, usize)>,
    ) -> PyResult<Vec<TreeChunkPy>> {
        contain(py, || {
            let doc = (text, parents, items);
            split_one(py, &self.job, &doc, &self.measure)?.map_err(PyValueError::new_err)
        })
    }

    /// `split` over many laid-out trees `(text, parents, items)`, in input order.
    #[pyo3(signature = (docs, workers=None))]
    fn split_batch(
        &self,
        py: Python<'_>,
        docs: Vec<TreeDoc>,
        workers: Option<usize>,
    ) -> PyResult<Vec<Vec<TreeChunkPy>>> {
        contain(py, || {
            let results = split_many(py, &self.job, &docs, &self.measure, workers)?;
            results
                .into_iter()
                .enumerate()
                .map(|(i, r)| r.map_err(|e| PyValueError::new_err(format!("docs[{i}]: {e}"))))
                .collect()
        })
    }
}
