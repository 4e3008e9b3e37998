//! The RAGFlow drop-ins: `naive_merge` (one document, or a batch in a pipeline), its chunk
//! offsets, the delimiter field and the position tags.

use std::borrow::Cow;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyByteArray, PyList, PyTuple};

use crate::batch;
use crate::ragflow::merge::{self, Compat, MergeCount, MergeOptions, Section, Strategy};
use crate::ragflow::{delimiters, positions};
use crate::tokenizer::TokenCounter;

use super::counters::{encoding, PyCounter};
use super::guard::{contain, detached, internal_error, never};
use super::strings::{str_list, Utf8Text};

fn strategy(name: &str) -> PyResult<Strategy> {
    match name {
        "over_cap" => Ok(Strategy::OverCap),
        "under_cap" => Ok(Strategy::UnderCap),
        "hard_cap" => Ok(Strategy::HardCap),
        other => Err(PyValueError::new_err(format!(
            "strategy must be 'over_cap', 'under_cap' or 'hard_cap', got {other:?}"
        ))),
    }
}

fn compat(name: &str) -> PyResult<Compat> {
    match name {
        "v0.27" => Ok(Compat::V27),
        "v0.26" => Ok(Compat::V26),
        "v0.23" => Ok(Compat::V23),
        "v0.22" => Ok(Compat::V22),
        other => Err(PyValueError::new_err(format!(
            "compat must be 'v0.27', 'v0.26', 'v0.23' or 'v0.22', got {other:?}"
        ))),
    }
}

type MergeResult = (Vec<String>, Option<Vec<Vec<usize>>>);

/// [`MergeResult`] as Python objects: the chunk texts (by [`str_list`]) and their sources.
fn merge_result_py(py: Python<'_>, (texts, sources): MergeResult) -> PyResult<Bound<'_, PyTuple>> {
    (str_list(py, &texts)?, sources).into_pyobject(py)
}

/// One crossing per call: split, count, group, overlap and position tags all happen here.
/// Arguments arrive validated by the Python facade.
#[pyfunction]
#[pyo3(signature = (texts, poses, chunk_token_num, delimiter, overlapped_percent, strategy_name, compat_name, encoding_name, counter, with_sources))]
#[allow(clippy::too_many_arguments)]
pub(super) fn naive_merge<'py>(
    py: Python<'py>,
    texts: Vec<Bound<'py, PyAny>>,
    poses: Vec<Option<Bound<'py, PyAny>>>,
    chunk_token_num: f64,
    delimiter: PyBackedStr,
    overlapped_percent: f64,
    strategy_name: &str,
    compat_name: &str,
    encoding_name: Option<&str>,
    counter: Option<Bound<'py, PyAny>>,
    with_sources: bool,
) -> PyResult<Bound<'py, PyTuple>> {
    contain(py, || {
        if texts.len() != poses.len() {
            return Err(PyValueError::new_err("texts and poses differ in length"));
        }
        let doc = DocUtf8 {
            texts: texts
                .iter()
                .map(Utf8Text::for_call)
                .collect::<PyResult<_>>()?,
            poses: poses
                .iter()
                .map(|p| p.as_ref().map(Utf8Text::for_call).transpose())
                .collect::<PyResult<_>>()?,
        };
        let opts = MergeOptions {
            chunk_token_num,
            delimiter: &delimiter,
            overlapped_percent,
            strategy: strategy(strategy_name)?,
            compat: compat(compat_name)?,
        };
        match (encoding_name, counter) {
            (Some(name), _) => {
                let count = MergeCount::new(encoding(name)?, opts.strategy);
                // The text is read as UTF-8 (encoded if need be) with the GIL released too.
                let result = detached(py, || {
                    doc.with_sections(|sections| run_merge(sections, &opts, &count, with_sources))
                })?;
                merge_result_py(py, never(result))
            }
            (None, Some(f)) => {
                let counter = PyCounter { f };
                let result = doc
                    .with_sections(|sections| run_merge(sections, &opts, &counter, with_sources));
                merge_result_py(py, result?)
            }
            (None, None) => Err(PyValueError::new_err(
                "naive_merge needs an encoding name or a counter",
            )),
        }
    })
}

fn run_merge<C: TokenCounter>(
    sections: &[Section<'_>],
    opts: &MergeOptions<'_>,
    counter: &C,
    with_sources: bool,
) -> Result<MergeResult, C::Error> {
    if with_sources {
        let chunks = merge::naive_merge(sections, opts, counter)?;
        let (texts, sources) = chunks.into_iter().map(|c| (c.text, c.sources)).unzip();
        Ok((texts, Some(sources)))
    } else {
        Ok((merge::naive_merge_texts(sections, opts, counter)?, None))
    }
}

/// One document (of a batch, or of one `naive_merge` call), its texts readable as UTF-8
/// without the GIL.
/// Never read in a way that leaves a UTF-8 copy inside the caller's strings (see
/// [`Utf8Text`]).
struct DocUtf8 {
    texts: Vec<Utf8Text>,
    poses: Vec<Option<Utf8Text>>,
}

impl DocUtf8 {
    /// Runs `f` on the document's sections, its texts read as UTF-8 (see [`Utf8Text::utf8`]).
    fn with_sections<R>(&self, f: impl FnOnce(&[Section<'_>]) -> R) -> R {
        let texts: Vec<Cow<'_, str>> = self.texts.iter().map(Utf8Text::utf8).collect();
        let poses: Vec<Option<Cow<'_, str>>> = self
            .poses
            .iter()
            .map(|p| p.as_ref().map(Utf8Text::utf8))
            .collect();
        let sections: Vec<Section<'_>> = texts
            .iter()
            .zip(&poses)
            .map(|(t, p)| Section {
                text: t,
                pos: p.as_deref(),
            })
            .collect();
        f(&sections)
    }
}

fn doc_utf8(i: usize, doc: &Bound<'_, PyAny>) -> PyResult<DocUtf8> {
    let (texts, poses): (Bound<'_, PyList>, Bound<'_, PyList>) = doc.extract()?;
    if texts.len() != poses.len() {
        return Err(PyValueError::new_err(format!(
            "docs[{i}]: texts and poses differ in length"
        )));
    }
    let texts = texts
        .iter()
        .map(|t| Utf8Text::new(&t))
        .collect::<PyResult<_>>()?;
    let poses = poses
        .iter()
        .map(|p| {
            if p.is_none() {
                Ok(None)
            } else {
                Utf8Text::new(&p).map(Some)
            }
        })
        .collect::<PyResult<_>>()?;
    Ok(DocUtf8 { texts, poses })
}

/// At most about this many bytes of documents are in flight (copied to UTF-8 and not yet
/// turned into Python results): peak memory stays near the size of the output instead of
/// output + a UTF-8 copy of the input + every intermediate Rust string (measured in
/// benches/compare.py), while the workers always have work queued.
const IN_FLIGHT_BYTES: usize = 8 << 20;
/// Counted per document on top of its bytes, so that many empty documents stay bounded too.
const DOC_WEIGHT: usize = 512;

/// `naive_merge` over many documents in parallel, results in input order. Built-in encodings
/// only: a Python callback cannot run without the GIL.
///
/// A pipeline ([`batch::pipeline`]): the calling thread holds the GIL only to copy the next
/// documents to UTF-8 and to turn finished ones into Python lists, while the workers chunk
/// without it; before, these serial phases ran between windows with every worker idle.
#[pyfunction]
#[pyo3(signature = (docs, chunk_token_num, delimiter, overlapped_percent, strategy_name, compat_name, encoding_name, workers))]
#[allow(clippy::too_many_arguments)]
pub(super) fn naive_merge_batch<'py>(
    py: Python<'py>,
    docs: Bound<'py, PyList>,
    chunk_token_num: f64,
    delimiter: PyBackedStr,
    overlapped_percent: f64,
    strategy_name: &str,
    compat_name: &str,
    encoding_name: &str,
    workers: Option<usize>,
) -> PyResult<Bound<'py, PyList>> {
    contain(py, || {
        let opts = MergeOptions {
            chunk_token_num,
            delimiter: &delimiter,
            overlapped_percent,
            strategy: strategy(strategy_name)?,
            compat: compat(compat_name)?,
        };
        let count = MergeCount::new(encoding(encoding_name)?, opts.strategy);
        let n = docs.len();
        let out = PyList::empty(py).unbind();
        let docs = docs.unbind();
        let mut next_in = 0; // the next document to copy
        let mut next_out = 0; // the next document whose chunks are appended to `out`
        let turn = |done: Vec<batch::Done<DocUtf8, Vec<String>>>,
                    feed: &mut batch::Feed<'_, DocUtf8>|
         -> PyResult<bool> {
            // The GIL is held for this turn only; the pipeline waits detached.
            Python::attach(|py| {
                let out = out.bind(py);
                for (doc, chunks) in done {
                    let i = next_out;
                    next_out += 1;
                    let chunks = match chunks {
                        Ok(chunks) => chunks,
                        Err(panic) => {
                            return Err(internal_error(py, &format!("docs[{i}]: {panic}")));
                        }
                    };
                    out.append(str_list(py, &chunks)?)?;
                    drop(doc); // its Python bytes, released with the GIL held
                }
                let docs = docs.bind(py);
                while next_in < n && feed.has_room() {
                    let doc = doc_utf8(next_in, &docs.get_item(next_in)?)?;
                    let bytes: usize = doc.texts.iter().map(Utf8Text::weight).sum();
                    feed.push(doc, bytes + DOC_WEIGHT);
                    next_in += 1;
                }
                Ok(next_in < n)
            })
        };
        let run = |doc: &DocUtf8| merge_utf8_doc(doc, &opts, &count);
        let stopped = py.detach(|| batch::pipeline(workers, IN_FLIGHT_BYTES, run, turn))?;
        if let Err(stopped) = stopped {
            drop(stopped.leftover); // Python bytes again: dropped here, attached
            return Err(stopped.error);
        }
        Ok(out.into_bound(py))
    })
}

/// One document of [`naive_merge_batch`]. (An empty document has no chunks: RAGFlow's
/// `if not sections: return []`, which the core applies.)
fn merge_utf8_doc(doc: &DocUtf8, opts: &MergeOptions<'_>, count: &MergeCount) -> Vec<String> {
    never(doc.with_sections(|sections| merge::naive_merge_texts(sections, opts, count)))
}

/// `re.sub(r"@@[\t0-9.-]+?##", "", txt)`.
#[pyfunction]
pub(super) fn remove_tag(py: Python<'_>, txt: PyBackedStr) -> PyResult<String> {
    contain(py, || Ok(positions::remove_tag(&txt).into_owned()))
}

/// RAGFlow's `extract_positions`: `[([pages], left, right, top, bottom), ...]`.
#[pyfunction]
pub(super) fn extract_positions<'py>(
    py: Python<'py>,
    txt: PyBackedStr,
) -> PyResult<Vec<Bound<'py, PyTuple>>> {
    contain(py, || {
        let parsed =
            positions::extract_positions(&txt).map_err(|e| PyValueError::new_err(e.to_string()))?;
        parsed
            .into_iter()
            .map(|p| (p.pages, p.left, p.right, p.top, p.bottom).into_pyobject(py))
            .collect()
    })
}

/// RAGFlow v0.27's delimiter-field parser (`rag/nlp/delim.py`).
#[pyfunction]
pub(super) fn parse_delimiter_field(py: Python<'_>, field: PyBackedStr) -> PyResult<Vec<String>> {
    contain(py, || Ok(delimiters::parse_delimiter_field(&field)))
}

/// The count `naive_merge` gives the paragraph of each piece in `texts`, RAGFlow's
/// `num_tokens_from_string("\n" + piece)` (`count_ordinary` semantics for `"hard_cap"`),
/// through the same in-place shortcut the merge takes. For the tests against tiktoken.
#[pyfunction]
pub(super) fn count_paragraphs(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    encoding_name: &str,
    strategy_name: &str,
) -> PyResult<Vec<usize>> {
    contain(py, || {
        let count = MergeCount::new(encoding(encoding_name)?, strategy(strategy_name)?);
        let mut scratch = String::new();
        texts
            .iter()
            .map(|t| Ok(never(count.count_after_newline(t, &mut scratch))))
            .collect()
    })
}

fn i64_bytes<'py>(py: Python<'py>, values: &[i64]) -> Bound<'py, PyByteArray> {
    let mut raw = Vec::with_capacity(values.len() * 8);
    for v in values {
        raw.extend_from_slice(&v.to_ne_bytes());
    }
    PyByteArray::new(py, &raw)
}

type OffsetBuffers<'py> = (
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
    Bound<'py, PyByteArray>,
);

/// `naive_merge_offsets` (v0.27, one plain string): `(starts, ends, prefix_lens)` as three
/// bytearrays of native-endian int64 for `numpy.frombuffer` (writable arrays), no per-chunk Python object.
#[pyfunction]
#[pyo3(signature = (text, chunk_token_num, delimiter, overlapped_percent, strategy_name, encoding_name, counter))]
#[allow(clippy::too_many_arguments)]
pub(super) fn naive_merge_offsets<'py>(
    py: Python<'py>,
    text: PyBackedStr,
    chunk_token_num: f64,
    delimiter: PyBackedStr,
    overlapped_percent: f64,
    strategy_name: &str,
    encoding_name: Option<&str>,
    counter: Option<Bound<'py, PyAny>>,
) -> PyResult<OffsetBuffers<'py>> {
    contain(py, || {
        let opts = MergeOptions {
            chunk_token_num,
            delimiter: &delimiter,
            overlapped_percent,
            strategy: strategy(strategy_name)?,
            compat: Compat::V27,
        };
        let offsets = match (encoding_name, counter) {
            (Some(name), _) => {
                let count = MergeCount::new(encoding(name)?, opts.strategy);
                never(detached(py, || {
                    merge::naive_merge_offsets(&text, &opts, &count)
                })?)
            }
            (None, Some(f)) => merge::naive_merge_offsets(&text, &opts, &PyCounter { f })?,
            (None, None) => {
                return Err(PyValueError::new_err(
                    "naive_merge_offsets needs an encoding name or a counter",
                ))
            }
        };
        Ok((
            i64_bytes(py, &offsets.starts),
            i64_bytes(py, &offsets.ends),
            i64_bytes(py, &offsets.prefix_lens),
        ))
    })
}
