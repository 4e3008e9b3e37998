//! The only module that touches PyO3: argument conversion, error mapping, GIL release and
//! panic containment. Every entry point follows the same three steps — borrow the arguments,
//! run the pure-Rust core (GIL released when no Python callback is involved), convert the
//! result — and every one runs inside [`contain`], so a Rust panic surfaces as
//! `ragchunk.RagchunkError`, never as an abort or a `PanicException`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::PyTuple;

use crate::batch::{self, BatchError};
use crate::counter::TokenCounter;
use crate::delimiters;
use crate::merge::{self, Compat, MergeOptions, Section, Strategy};
use crate::positions;
use crate::tokenizer::{EncodingName, RagflowCount, Tokenizer};

/// `ragchunk.RagchunkError`, the one class both backends raise for internal failures.
fn ragchunk_error(py: Python<'_>, msg: String) -> PyErr {
    match py
        .import("ragchunk._errors")
        .and_then(|m| m.getattr("RagchunkError"))
    {
        Ok(cls) => PyErr::from_type(cls.cast_into().expect("RagchunkError is a type"), msg),
        Err(_) => PyRuntimeError::new_err(msg),
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    }
}

/// Runs `f` with panics caught and turned into `RagchunkError`.
fn contain<T>(py: Python<'_>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => Err(ragchunk_error(
            py,
            format!(
                "internal error in ragchunk's Rust core (please report): {}",
                panic_message(payload.as_ref())
            ),
        )),
    }
}

/// Runs `f` with the GIL released and panics contained.
fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> PyResult<T> {
    let result = py.detach(|| catch_unwind(AssertUnwindSafe(f)));
    result.map_err(|payload| {
        ragchunk_error(
            py,
            format!(
                "internal error in ragchunk's Rust core (please report): {}",
                panic_message(payload.as_ref())
            ),
        )
    })
}

fn encoding(name: &str) -> PyResult<&'static Tokenizer> {
    let parsed: EncodingName = name.parse().map_err(|_| {
        PyValueError::new_err(format!(
            "tokenizer: unknown encoding {name:?}; built-in encodings are cl100k_base, o200k_base"
        ))
    })?;
    Ok(Tokenizer::get(parsed))
}

/// Exact count, raising `ValueError` on special-token text as tiktoken's `encode` does.
#[pyfunction]
fn count_tokens(py: Python<'_>, text: PyBackedStr, encoding_name: &str) -> PyResult<usize> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        let counted = detached(py, || tok.count(&text))?;
        counted.map_err(|e| {
            PyValueError::new_err(format!(
                "text: {e}. tiktoken's encode() refuses special-token text by default; \
                 use count_ordinary semantics or remove it"
            ))
        })
    })
}

/// RAGFlow's `num_tokens_from_string` semantics: the count, or 0 for special-token text.
#[pyfunction]
fn count_or_zero(py: Python<'_>, text: PyBackedStr, encoding_name: &str) -> PyResult<usize> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        detached(py, || tok.count_or_zero(&text))
    })
}

/// `len(encoding.encode_ordinary(text))`: special-token text counted as plain text.
#[pyfunction]
fn count_ordinary(py: Python<'_>, text: PyBackedStr, encoding_name: &str) -> PyResult<usize> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        detached(py, || tok.count_ordinary(&text))
    })
}

/// `encoding.encode_ordinary(text)`: the token ids (tests compare them with tiktoken's).
#[pyfunction]
fn encode_ordinary(py: Python<'_>, text: PyBackedStr, encoding_name: &str) -> PyResult<Vec<u32>> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        detached(py, || tok.encode_ordinary(&text))
    })
}

/// A counter that calls a Python callable (already validated by the facade to return a
/// non-negative int). Holds the GIL: the callable is Python code.
struct PyCounter<'py> {
    f: Bound<'py, PyAny>,
}

impl TokenCounter for PyCounter<'_> {
    type Error = PyErr;

    fn count(&self, text: &str) -> Result<usize, PyErr> {
        self.f.call1((text,))?.extract::<usize>()
    }
}

fn strategy(name: &str) -> PyResult<Strategy> {
    match name {
        "over_cap" => Ok(Strategy::OverCap),
        "under_cap" => Ok(Strategy::UnderCap),
        other => Err(PyValueError::new_err(format!(
            "strategy must be 'over_cap' or 'under_cap', got {other:?}"
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

/// One crossing per call: split, count, group, overlap and position tags all happen here.
/// Arguments arrive validated by the Python facade (`ragchunk._naive`).
#[pyfunction]
#[pyo3(signature = (texts, poses, chunk_token_num, delimiter, overlapped_percent, strategy_name, compat_name, encoding_name, counter, with_sources))]
#[allow(clippy::too_many_arguments)]
fn naive_merge(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    poses: Vec<Option<PyBackedStr>>,
    chunk_token_num: f64,
    delimiter: PyBackedStr,
    overlapped_percent: f64,
    strategy_name: &str,
    compat_name: &str,
    encoding_name: Option<&str>,
    counter: Option<Bound<'_, PyAny>>,
    with_sources: bool,
) -> PyResult<MergeResult> {
    contain(py, || {
        if texts.len() != poses.len() {
            return Err(PyValueError::new_err("texts and poses differ in length"));
        }
        let sections: Vec<Section<'_>> = texts
            .iter()
            .zip(&poses)
            .map(|(t, p)| Section {
                text: t,
                pos: p.as_deref(),
            })
            .collect();
        let opts = MergeOptions {
            chunk_token_num,
            delimiter: &delimiter,
            overlapped_percent,
            strategy: strategy(strategy_name)?,
            compat: compat(compat_name)?,
        };
        match (encoding_name, counter) {
            (Some(name), _) => {
                let count = RagflowCount(encoding(name)?);
                detached(py, || run_merge(&sections, &opts, &count, with_sources))?
                    .map_err(|never| match never {})
            }
            (None, Some(f)) => run_merge(&sections, &opts, &PyCounter { f }, with_sources),
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

impl From<BatchError> for PyErr {
    fn from(e: BatchError) -> PyErr {
        PyRuntimeError::new_err(e.to_string())
    }
}

/// `[len(encoding.encode_ordinary(t)) for t in texts]`, in parallel, GIL released.
#[pyfunction]
#[pyo3(signature = (texts, encoding_name, workers=None))]
fn count_ordinary_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    encoding_name: &str,
    workers: Option<usize>,
) -> PyResult<Vec<usize>> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        Ok(detached(py, || {
            batch::par_map(&texts, workers, |t| tok.count_ordinary(t))
        })??)
    })
}

/// Counts for many texts with RAGFlow's convention (0 for special-token text), or, with
/// `strict`, tiktoken `encode` semantics (`ValueError` naming the first offending text).
#[pyfunction]
#[pyo3(signature = (texts, encoding_name, strict, workers=None))]
fn count_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    encoding_name: &str,
    strict: bool,
    workers: Option<usize>,
) -> PyResult<Vec<usize>> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        let counted = detached(py, || {
            batch::par_map(&texts, workers, |t| tok.count(t).map_err(|e| e.to_string()))
        })??;
        let mut out = Vec::with_capacity(counted.len());
        for (i, c) in counted.into_iter().enumerate() {
            match c {
                Ok(n) => out.push(n),
                Err(_) if !strict => out.push(0),
                Err(e) => return Err(PyValueError::new_err(format!("texts[{i}]: {e}"))),
            }
        }
        Ok(out)
    })
}

type DocInput = (Vec<PyBackedStr>, Vec<Option<PyBackedStr>>);

/// `naive_merge` over many documents in parallel (rayon inside one GIL-free call), results
/// in input order. Built-in encodings only: a Python callback cannot run without the GIL.
#[pyfunction]
#[pyo3(signature = (docs, chunk_token_num, delimiter, overlapped_percent, strategy_name, compat_name, encoding_name, workers))]
#[allow(clippy::too_many_arguments)]
fn naive_merge_batch(
    py: Python<'_>,
    docs: Vec<DocInput>,
    chunk_token_num: f64,
    delimiter: PyBackedStr,
    overlapped_percent: f64,
    strategy_name: &str,
    compat_name: &str,
    encoding_name: &str,
    workers: Option<usize>,
) -> PyResult<Vec<Vec<String>>> {
    contain(py, || {
        let opts = MergeOptions {
            chunk_token_num,
            delimiter: &delimiter,
            overlapped_percent,
            strategy: strategy(strategy_name)?,
            compat: compat(compat_name)?,
        };
        let count = RagflowCount(encoding(encoding_name)?);
        for (i, (texts, poses)) in docs.iter().enumerate() {
            if texts.len() != poses.len() {
                return Err(PyValueError::new_err(format!(
                    "docs[{i}]: texts and poses differ in length"
                )));
            }
        }
        let results = detached(py, || {
            batch::par_map(&docs, workers, |(texts, poses)| {
                if texts.is_empty() {
                    return Vec::new(); // RAGFlow, every release: `if not sections: return []`
                }
                let sections: Vec<Section<'_>> = texts
                    .iter()
                    .zip(poses)
                    .map(|(t, p)| Section {
                        text: t,
                        pos: p.as_deref(),
                    })
                    .collect();
                match merge::naive_merge_texts(&sections, &opts, &count) {
                    Ok(chunks) => chunks,
                    Err(never) => match never {},
                }
            })
        })??;
        Ok(results)
    })
}

/// `re.sub(r"@@[\t0-9.-]+?##", "", txt)`.
#[pyfunction]
fn remove_tag(py: Python<'_>, txt: PyBackedStr) -> PyResult<String> {
    contain(py, || Ok(positions::remove_tag(&txt).into_owned()))
}

/// RAGFlow's `extract_positions`: `[([pages], left, right, top, bottom), ...]`.
#[pyfunction]
fn extract_positions<'py>(py: Python<'py>, txt: PyBackedStr) -> PyResult<Vec<Bound<'py, PyTuple>>> {
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
fn parse_delimiter_field(py: Python<'_>, field: PyBackedStr) -> PyResult<Vec<String>> {
    contain(py, || Ok(delimiters::parse_delimiter_field(&field)))
}

// ---- structure-aware chunkers (issue 6)

use crate::splitters::markdown::{self, MdOptions, MdOutput};
use crate::splitters::{CharCount, CharOffsets};

/// One Markdown chunk for Python: code-point `(start, end)`, size, section index, and the
/// code-point range of the added prefix (a repeated table header) or `None`.
type MdChunkPy = (usize, usize, usize, usize, Option<(usize, usize)>);
type MdResultPy = (Vec<MdChunkPy>, Vec<Vec<String>>);

fn md_options(
    chunk_size: usize,
    chunk_overlap: usize,
    levels: &[usize],
    strip_headers: bool,
) -> PyResult<MdOptions> {
    let mut split_levels = [false; 7];
    for &l in levels {
        if !(1..=6).contains(&l) {
            return Err(PyValueError::new_err(format!(
                "headers_to_split_on: heading levels are 1..6, got {l}"
            )));
        }
        split_levels[l] = true;
    }
    Ok(MdOptions {
        chunk_size,
        overlap: chunk_overlap,
        split_levels,
        strip_headers,
    })
}

fn md_to_py(text: &str, out: MdOutput) -> MdResultPy {
    // Chunk starts are non-decreasing but ends and prefixes are not, so convert every
    // offset in one sorted pass (CharOffsets is fastest walking forward).
    let mut offs: Vec<usize> = Vec::with_capacity(out.chunks.len() * 4);
    for c in &out.chunks {
        offs.extend([c.span.start, c.span.end]);
        if let Some((a, b)) = c.prefix {
            offs.extend([a, b]);
        }
    }
    offs.sort_unstable();
    offs.dedup();
    let mut conv = CharOffsets::new(text);
    let chars: Vec<usize> = offs.iter().map(|&b| conv.char_offset(b)).collect();
    let at = |b: usize| chars[offs.binary_search(&b).unwrap_or(0)];
    let chunks = out
        .chunks
        .iter()
        .map(|c| {
            (
                at(c.span.start),
                at(c.span.end),
                c.span.size,
                c.section,
                c.prefix.map(|(a, b)| (at(a), at(b))),
            )
        })
        .collect();
    (chunks, out.sections)
}

/// `MarkdownSplitter.split` in one crossing. `encoding_name` (built-in tokenizer, GIL
/// released), `counter` (Python callable, GIL held) or neither (`length="chars"`).
#[pyfunction]
#[pyo3(signature = (text, chunk_size, chunk_overlap, levels, strip_headers, encoding_name, counter))]
#[allow(clippy::too_many_arguments)]
fn markdown_split(
    py: Python<'_>,
    text: PyBackedStr,
    chunk_size: usize,
    chunk_overlap: usize,
    levels: Vec<usize>,
    strip_headers: bool,
    encoding_name: Option<&str>,
    counter: Option<Bound<'_, PyAny>>,
) -> PyResult<MdResultPy> {
    contain(py, || {
        let opts = md_options(chunk_size, chunk_overlap, &levels, strip_headers)?;
        let text: &str = &text;
        match (encoding_name, counter) {
            (Some(name), _) => {
                let tok = encoding(name)?;
                let count = |t: &str| tok.count_ordinary(t);
                detached(py, || {
                    let out = markdown::split_markdown(text, &opts, &count)
                        .unwrap_or_else(|never| match never {});
                    md_to_py(text, out)
                })
            }
            (None, Some(f)) => {
                let out = markdown::split_markdown(text, &opts, &PyCounter { f })?;
                Ok(md_to_py(text, out))
            }
            (None, None) => detached(py, || {
                let out = markdown::split_markdown(text, &opts, &CharCount)
                    .unwrap_or_else(|never| match never {});
                md_to_py(text, out)
            }),
        }
    })
}

/// `MarkdownSplitter.split_batch`: documents in parallel (rayon), GIL released. Built-in
/// tokenizers and `length="chars"` only.
#[pyfunction]
#[pyo3(signature = (texts, chunk_size, chunk_overlap, levels, strip_headers, encoding_name, workers))]
#[allow(clippy::too_many_arguments)]
fn markdown_split_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    chunk_size: usize,
    chunk_overlap: usize,
    levels: Vec<usize>,
    strip_headers: bool,
    encoding_name: Option<&str>,
    workers: Option<usize>,
) -> PyResult<Vec<MdResultPy>> {
    contain(py, || {
        let opts = md_options(chunk_size, chunk_overlap, &levels, strip_headers)?;
        let tok = encoding_name.map(encoding).transpose()?;
        Ok(detached(py, || {
            batch::par_map(&texts, workers, |t| {
                let text: &str = t;
                let out = match tok {
                    Some(tok) => {
                        markdown::split_markdown(text, &opts, &|s: &str| tok.count_ordinary(s))
                    }
                    None => markdown::split_markdown(text, &opts, &CharCount),
                }
                .unwrap_or_else(|never| match never {});
                md_to_py(text, out)
            })
        })??)
    })
}

/// `(start, end, size, node)` in code points.
type TreeChunkPy = (usize, usize, usize, usize);

/// `TitleTreeChunker`: chunks of a laid-out title tree (built by the Python facade).
/// Offsets in and out are code points.
fn title_tree_core<C: TokenCounter>(
    text: &str,
    parents: &[i64],
    items: &[(usize, usize, usize)],
    budget: usize,
    counter: &C,
) -> Result<Result<Vec<TreeChunkPy>, String>, C::Error> {
    use crate::splitters::title_tree::{split_title_tree, TitleTreeError};
    // code point -> byte offset table (one pass)
    let mut byte_at: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
    byte_at.push(text.len());
    let nchars = byte_at.len() - 1;
    let parents: Vec<usize> = parents
        .iter()
        .map(|&p| usize::try_from(p).unwrap_or(usize::MAX))
        .collect();
    let mut bitems = Vec::with_capacity(items.len());
    for (k, &(node, s, e)) in items.iter().enumerate() {
        if s > nchars || e > nchars {
            return Ok(Err(format!("item {k}: span outside the text")));
        }
        bitems.push((node, byte_at[s], byte_at[e]));
    }
    match split_title_tree(text, &parents, &bitems, budget, counter) {
        Ok(chunks) => {
            let mut conv = CharOffsets::new(text);
            Ok(Ok(chunks
                .into_iter()
                .map(|c| {
                    let s = conv.char_offset(c.span.start);
                    let e = conv.char_offset(c.span.end);
                    (s, e, c.span.size, c.node)
                })
                .collect()))
        }
        Err(TitleTreeError::Layout(e)) => Ok(Err(e.to_string())),
        Err(TitleTreeError::Count(e)) => Err(e),
    }
}

type TreeDoc = (PyBackedStr, Vec<i64>, Vec<(usize, usize, usize)>);

#[pyfunction]
#[pyo3(signature = (text, parents, items, budget, encoding_name, counter))]
fn title_tree_split(
    py: Python<'_>,
    text: PyBackedStr,
    parents: Vec<i64>,
    items: Vec<(usize, usize, usize)>,
    budget: usize,
    encoding_name: Option<&str>,
    counter: Option<Bound<'_, PyAny>>,
) -> PyResult<Vec<TreeChunkPy>> {
    contain(py, || {
        let text: &str = &text;
        let res = match (encoding_name, counter) {
            (Some(name), _) => {
                let tok = encoding(name)?;
                let count = |t: &str| tok.count_ordinary(t);
                detached(py, || {
                    title_tree_core(text, &parents, &items, budget, &count)
                        .unwrap_or_else(|never| match never {})
                })?
            }
            (None, Some(f)) => title_tree_core(text, &parents, &items, budget, &PyCounter { f })?,
            (None, None) => detached(py, || {
                title_tree_core(text, &parents, &items, budget, &CharCount)
                    .unwrap_or_else(|never| match never {})
            })?,
        };
        res.map_err(PyValueError::new_err)
    })
}

/// `title_tree_split` over many laid-out documents in parallel, GIL released.
#[pyfunction]
#[pyo3(signature = (docs, budget, encoding_name, workers))]
fn title_tree_split_batch(
    py: Python<'_>,
    docs: Vec<TreeDoc>,
    budget: usize,
    encoding_name: Option<&str>,
    workers: Option<usize>,
) -> PyResult<Vec<Vec<TreeChunkPy>>> {
    contain(py, || {
        let tok = encoding_name.map(encoding).transpose()?;
        let results = detached(py, || {
            batch::par_map(&docs, workers, |(text, parents, items)| {
                let text: &str = text;
                match tok {
                    Some(tok) => title_tree_core(text, parents, items, budget, &|s: &str| {
                        tok.count_ordinary(s)
                    }),
                    None => title_tree_core(text, parents, items, budget, &CharCount),
                }
                .unwrap_or_else(|never| match never {})
            })
        })??;
        results
            .into_iter()
            .enumerate()
            .map(|(i, r)| r.map_err(|e| PyValueError::new_err(format!("docs[{i}]: {e}"))))
            .collect()
    })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(count_or_zero, m)?)?;
    m.add_function(wrap_pyfunction!(count_ordinary, m)?)?;
    m.add_function(wrap_pyfunction!(encode_ordinary, m)?)?;
    m.add_function(wrap_pyfunction!(count_ordinary_batch, m)?)?;
    m.add_function(wrap_pyfunction!(count_batch, m)?)?;
    m.add_function(wrap_pyfunction!(naive_merge, m)?)?;
    m.add_function(wrap_pyfunction!(naive_merge_batch, m)?)?;
    m.add_function(wrap_pyfunction!(remove_tag, m)?)?;
    m.add_function(wrap_pyfunction!(extract_positions, m)?)?;
    m.add_function(wrap_pyfunction!(parse_delimiter_field, m)?)?;
    m.add_function(wrap_pyfunction!(markdown_split, m)?)?;
    m.add_function(wrap_pyfunction!(markdown_split_batch, m)?)?;
    m.add_function(wrap_pyfunction!(title_tree_split, m)?)?;
    m.add_function(wrap_pyfunction!(title_tree_split_batch, m)?)?;
    Ok(())
}
