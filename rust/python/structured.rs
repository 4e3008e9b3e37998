//! The structure-aware chunkers, each a configured class: Markdown, HTML and title trees,
//! with the layouts the title tree reads (the HTML layout, the Markdown blocks). Offsets go
//! back in code points.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;

use crate::splitters::html;
use crate::splitters::markdown;
use crate::splitters::packer::{PackOptions, PackOutput};
use crate::splitters::title_layout::{self, TitleSource};
use crate::splitters::title_tree::{self, TitleTreeError};
use crate::tokenizer::TokenCounter;

use super::arrow::{ArrowJob, CharCursor, DocRows};
use super::chunker::chunker_class;
use super::guard::{contain, detached};
use super::job::{checked_size, checked_sizes, split_one, Measure, PerDoc};

/// One packed chunk (Markdown, HTML) for Python: code-point `(start, end)`, size, section
/// index, and the code-point range of the added prefix (a repeated table header) or `None`.
type PackedChunkPy = (usize, usize, usize, usize, Option<(usize, usize)>);
/// The chunks, each section's heading path, and for each section the heading paths of the
/// sections merged into it (empty for a single section).
type PackedResultPy = (Vec<PackedChunkPy>, Vec<Vec<String>>, Vec<Vec<Vec<String>>>);

/// The packer's options of a Markdown or HTML splitter; `levels` are the heading levels that
/// start sections.
fn pack_options(
    chunk_size: usize,
    chunk_overlap: usize,
    levels: &[usize],
    strip_headers: bool,
    merge_sections: bool,
) -> PyResult<PackOptions> {
    let (chunk_size, overlap) = checked_sizes(chunk_size, chunk_overlap)?;
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
        merge_sections,
    })
}

/// A packed result already in code points, as Python tuples.
fn pack_to_py(out: PackOutput) -> PackedResultPy {
    let chunks = out
        .chunks
        .into_iter()
        .map(|c| (c.span.start, c.span.end, c.span.size, c.section, c.prefix))
        .collect();
    (chunks, out.sections, out.merged)
}

/// One document of the Markdown splitter.
pub(super) struct MarkdownDoc(PackOptions);

impl PerDoc for MarkdownDoc {
    type Doc = str;
    type Out = PackedResultPy;

    fn run<C: TokenCounter>(&self, text: &str, counter: &C) -> Result<PackedResultPy, C::Error> {
        let out = markdown::split_markdown(text, &self.0, counter)?;
        Ok(pack_to_py(out.in_chars(text)))
    }
}

/// The rows of packed chunks over `base` (the document, or an HTML document's text layout):
/// the heading path of each chunk's section, the paths of the sections merged into it, and,
/// for a table continuation, the repeated header (`added_prefix`, also the start of the
/// chunk text).
fn packed_rows<'a>(
    base: &'a str,
    chunks: &'a [PackedChunkPy],
    sections: &'a [Vec<String>],
    merged: &'a [Vec<Vec<String>>],
    rows: &mut DocRows<'a>,
) {
    let mut starts = CharCursor::new(base);
    let mut ends = CharCursor::new(base);
    let mut prefix_starts = CharCursor::new(base);
    let mut prefix_ends = CharCursor::new(base);
    for (start, end, size, section, prefix) in chunks {
        let body = &base[starts.byte(*start)..ends.byte(*end)];
        let added = prefix.map(|(s, e)| &base[prefix_starts.byte(s)..prefix_ends.byte(e)]);
        let text = match added {
            Some(p) => [p, "\n", body],
            None => ["", "", body],
        };
        rows.push((*start, *end, *size), text, |m| {
            m.strs("headers", &sections[*section]);
            if !merged[*section].is_empty() {
                m.str_lists("sections", &merged[*section]);
            }
            if let Some(p) = added {
                m.str_pieces("added_prefix", &[p, "\n"]);
            }
        });
    }
}

impl ArrowJob for MarkdownDoc {
    fn rows<'a>(&self, doc: &'a str, out: &'a Self::Out, rows: &mut DocRows<'a>) {
        packed_rows(doc, &out.0, &out.1, &out.2, rows);
    }
}

/// The Markdown and HTML splitter classes, configured alike (sizes, the heading levels that
/// start sections, whether their headings stay in the text, the measure); their jobs differ.
macro_rules! section_class {
    ($(#[$doc:meta])* $class:ident($name:literal): $job:ident) => {
        chunker_class! {
            $(#[$doc])*
            $class($name): $job {
                #[new]
                #[pyo3(signature = (chunk_size, chunk_overlap, levels, strip_headers, length="tokens", encoding_name=None, counter=None, merge_sections=false))]
                #[allow(clippy::too_many_arguments)]
                fn new(
                    py: Python<'_>,
                    chunk_size: usize,
                    chunk_overlap: usize,
                    levels: Vec<usize>,
                    strip_headers: bool,
                    length: &str,
                    encoding_name: Option<&str>,
                    counter: Option<Bound<'_, PyAny>>,
                    merge_sections: bool,
                ) -> PyResult<Self> {
                    contain(py, || {
                        let opts = pack_options(
                            chunk_size,
                            chunk_overlap,
                            &levels,
                            strip_headers,
                            merge_sections,
                        )?;
                        Ok($class {
                            job: $job(opts),
                            measure: Measure::new(length, encoding_name, counter)?,
                        })
                    })
                }
            }
        }
    };
}

section_class! {
    /// `MarkdownSplitter`, configured once: each document's chunks and its sections' heading
    /// paths.
    PyMarkdown("MarkdownSplitter"): MarkdownDoc
}

/// `HTMLSplitter.split`: the laid-out text, its chunks (as [`PackedChunkPy`], offsets into that
/// text) and the sections' heading paths.
type HtmlResultPy = (
    String,
    Vec<PackedChunkPy>,
    Vec<Vec<String>>,
    Vec<Vec<Vec<String>>>,
);

/// One document of the HTML splitter.
pub(super) struct HtmlDoc(PackOptions);

impl PerDoc for HtmlDoc {
    type Doc = str;
    type Out = HtmlResultPy;

    fn run<C: TokenCounter>(&self, text: &str, counter: &C) -> Result<HtmlResultPy, C::Error> {
        let out = html::split_html(text, &self.0, counter)?.in_chars();
        let (chunks, sections, merged) = pack_to_py(out.out);
        Ok((out.text, chunks, sections, merged))
    }
}

impl ArrowJob for HtmlDoc {
    fn rows<'a>(&self, _doc: &'a str, out: &'a Self::Out, rows: &mut DocRows<'a>) {
        let (text, chunks, sections, merged) = out;
        packed_rows(text, chunks, sections, merged, rows);
    }
}

section_class! {
    /// `HTMLSplitter`, configured once: each document's laid-out text, chunks and sections.
    PyHtml("HTMLSplitter"): HtmlDoc
}

/// `HTMLSplitter.extract_text`: the laid-out text chunk offsets index into.
#[pyfunction]
pub(super) fn html_text(py: Python<'_>, text: PyBackedStr) -> PyResult<String> {
    contain(py, || detached(py, || html::layout_html(&text).text))
}

/// The Markdown block scanner's blocks `[(start, end, heading level or 0, heading text)]`,
/// offsets in code points: what the title tree reads from Markdown, compared with the
/// fallback's scanner by the tests.
#[pyfunction]
pub(super) fn markdown_blocks(
    py: Python<'_>,
    text: PyBackedStr,
) -> PyResult<Vec<(usize, usize, usize, String)>> {
    contain(py, || {
        detached(py, || {
            markdown::title_blocks(&text)
                .into_iter()
                .map(|b| (b.start, b.end, b.level, b.title))
                .collect()
        })
    })
}

/// `(start, end, size, node)` in code points.
type TreeChunkPy = (usize, usize, usize, usize);

/// One document of `TitleTreeChunker` for Python: the laid-out text when it is not the input
/// (HTML), the chunks `(start, end, size, path)` in code points, and the title paths they
/// index.
type TitleTreePy = (Option<String>, Vec<TreeChunkPy>, Vec<Vec<String>>);

/// One document of `TitleTreeChunker`: its tree laid out (from `source`), chunked, and each
/// chunk's title path.
pub(super) struct TitleTreeDoc {
    budget: usize,
    source: TitleSource,
}

impl PerDoc for TitleTreeDoc {
    type Doc = str;
    type Out = TitleTreePy;

    fn run<C: TokenCounter>(&self, text: &str, counter: &C) -> Result<TitleTreePy, C::Error> {
        let layout = title_layout::layout(text, self.source);
        let base = layout.text.as_deref().unwrap_or(text);
        let chunks = match title_tree::split_title_tree_chars(
            base,
            &layout.parents,
            &layout.items,
            self.budget,
            counter,
        ) {
            Ok(chunks) => chunks,
            Err(TitleTreeError::Count(e)) => return Err(e),
            // The layouts built here are consistent by construction.
            Err(TitleTreeError::Layout(e)) => panic!("inconsistent title tree layout: {e}"),
        };
        let mut path_of = std::collections::HashMap::new();
        let mut paths = Vec::new();
        let chunks = chunks
            .into_iter()
            .map(|c| {
                let k = *path_of.entry(c.node).or_insert_with(|| {
                    paths.push(layout.path(c.node));
                    paths.len() - 1
                });
                (c.span.start, c.span.end, c.span.size, k)
            })
            .collect();
        Ok((layout.text, chunks, paths))
    }
}

impl ArrowJob for TitleTreeDoc {
    fn rows<'a>(&self, doc: &'a str, out: &'a Self::Out, rows: &mut DocRows<'a>) {
        let (text, chunks, paths) = out;
        let base = text.as_deref().unwrap_or(doc);
        let mut starts = CharCursor::new(base);
        let mut ends = CharCursor::new(base);
        for (start, end, size, path) in chunks {
            let body = &base[starts.byte(*start)..ends.byte(*end)];
            let titles = &paths[*path];
            rows.push((*start, *end, *size), ["", "", body], |m| {
                m.str("title_path", &titles.join(" > "));
                m.strs("titles", titles);
            });
        }
    }
}

/// A tree laid out by the facade (a Python dict): its chunks, or why the layout is
/// inconsistent.
struct FacadeTree<'a> {
    parents: &'a [usize],
    items: &'a [(usize, usize, usize)],
    budget: usize,
}

impl PerDoc for FacadeTree<'_> {
    type Doc = str;
    type Out = Result<Vec<TreeChunkPy>, String>;

    fn run<C: TokenCounter>(&self, text: &str, counter: &C) -> Result<Self::Out, C::Error> {
        match title_tree::split_title_tree_chars(
            text,
            self.parents,
            self.items,
            self.budget,
            counter,
        ) {
            Ok(chunks) => Ok(Ok(chunks
                .into_iter()
                .map(|c| (c.span.start, c.span.end, c.span.size, c.node))
                .collect())),
            Err(TitleTreeError::Layout(e)) => Ok(Err(e.to_string())),
            Err(TitleTreeError::Count(e)) => Err(e),
        }
    }
}

chunker_class! {
    /// `TitleTreeChunker`, configured once: chunks of a text's title tree (laid out here from
    /// the configured title source), or of a tree laid out by the facade (`split_layout`).
    /// Offsets in and out are code points.
    PyTitleTree("TitleTreeChunker"): TitleTreeDoc {
        #[new]
        #[pyo3(signature = (chunk_size, title_source, length="tokens", encoding_name=None, counter=None))]
        fn new(
            py: Python<'_>,
            chunk_size: usize,
            title_source: &str,
            length: &str,
            encoding_name: Option<&str>,
            counter: Option<Bound<'_, PyAny>>,
        ) -> PyResult<Self> {
            contain(py, || {
                let source = TitleSource::from_name(title_source).ok_or_else(|| {
                    PyValueError::new_err(format!("unknown title_source {title_source:?}"))
                })?;
                Ok(PyTitleTree {
                    job: TitleTreeDoc {
                        budget: checked_size(chunk_size)?,
                        source,
                    },
                    measure: Measure::new(length, encoding_name, counter)?,
                })
            })
        }

        /// The chunks `(start, end, size, node)` of a tree laid out by the facade: its text, each
        /// node's parent (negative for the root) and the items `(node, start, end)`.
        fn split_layout(
            &self,
            py: Python<'_>,
            text: PyBackedStr,
            parents: Vec<i64>,
            items: Vec<(usize, usize, usize)>,
        ) -> PyResult<Vec<TreeChunkPy>> {
            contain(py, || {
                let parents: Vec<usize> = parents
                    .iter()
                    .map(|&p| usize::try_from(p).unwrap_or(usize::MAX))
                    .collect();
                let job = FacadeTree {
                    parents: &parents,
                    items: &items,
                    budget: self.job.budget,
                };
                split_one(py, &job, &text, &self.measure)?.map_err(PyValueError::new_err)
            })
        }
    }
}
