//! The only module that touches PyO3: argument conversion, error mapping, GIL release and
//! panic containment. Every entry point follows the same three steps — borrow the arguments,
//! run the pure-Rust core (GIL released when no Python callback is involved), convert the
//! result — and every one runs inside [`contain`], so a Rust panic surfaces as
//! `ragchunk.RagchunkError`, never as an abort or a `PanicException`.

use std::borrow::Cow;
use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::{PyByteArray, PyList, PyString, PyTuple};

use crate::batch::{self, panic_message, BatchError};
use crate::counter::TokenCounter;
use crate::delimiters;
use crate::merge::{self, Compat, MergeOptions, Section, Strategy};
use crate::positions;
use crate::tokenizer::{EncodingName, RagflowCount, Tokenizer};
#[cfg(not(feature = "abi3"))]
use crate::transcode;

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

/// Resumable `count_ordinary` for text edited only near its end (JSONSplitter): the tokens
/// of `text[start:]` (`start` a byte offset returned by an earlier call on text with the same
/// bytes before it, or 0), and a later resume point before the last `tail` bytes with the
/// tokens up to it: `(count, stable, count_to_stable)`. With `stop_above`, counting stops
/// once past it (`count` is then only known to be above). Small calls: the GIL is kept.
#[pyfunction]
#[pyo3(signature = (text, encoding_name, start, tail, stop_above=None))]
fn count_ordinary_resume(
    py: Python<'_>,
    text: PyBackedStr,
    encoding_name: &str,
    start: usize,
    tail: usize,
    stop_above: Option<usize>,
) -> PyResult<(usize, usize, usize)> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        let r = tok
            .count_ordinary_resume(&text, start, tail, stop_above)
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "start: {start} is not a character boundary of text ({} bytes)",
                    text.len()
                ))
            })?;
        Ok((r.count, r.stable, r.count_to_stable))
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

/// The counter of the GIL-free paths of the structure-aware splitters: a built-in encoding's
/// `count_ordinary`, or characters (`length="chars"`). `Send + Sync`, for `split_batch`.
#[derive(Clone, Copy)]
enum FreeCount {
    Tokens(&'static Tokenizer),
    Chars,
}

impl TokenCounter for FreeCount {
    type Error = std::convert::Infallible;

    fn count(&self, text: &str) -> Result<usize, Self::Error> {
        match self {
            FreeCount::Tokens(tok) => Ok(tok.count_ordinary(text)),
            FreeCount::Chars => CharCount.count(text),
        }
    }
}

/// The built-in encoding named, or characters for `None`.
fn free_count(encoding_name: Option<&str>) -> PyResult<FreeCount> {
    Ok(match encoding_name {
        Some(name) => FreeCount::Tokens(encoding(name)?),
        None => FreeCount::Chars,
    })
}

/// Runs one split with the counter its arguments choose: a built-in encoding
/// (`encoding_name`) or characters (neither) with the GIL released (`free`), or a Python
/// callable (`counter`, no encoding) with the GIL held (`held`). Two closures, because the
/// two counters are different types.
fn with_counter<'py, R: Send>(
    py: Python<'py>,
    encoding_name: Option<&str>,
    counter: Option<Bound<'py, PyAny>>,
    free: impl FnOnce(&FreeCount) -> R + Send,
    held: impl FnOnce(&PyCounter<'py>) -> PyResult<R>,
) -> PyResult<R> {
    match (encoding_name, counter) {
        (None, Some(f)) => held(&PyCounter { f }),
        (name, _) => {
            let count = free_count(name)?;
            detached(py, || free(&count))
        }
    }
}

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

/// A Python `str` of `text`. Text whose largest code point is in U+0100..=U+FFFF (Chinese,
/// Japanese, Cyrillic, typographic quotes in English...) is written straight into a 2-byte
/// `str` by [`transcode::utf8_to_ucs2`], 2-3x faster than CPython's UTF-8 decoder, which
/// widens and copies such strings once more and decodes one character per step. Everything
/// else goes through the decoder, whose ASCII path is already a copy. Needs CPython's
/// string layout, so not in the `abi3` build (the limited API hides it).
fn new_str<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyString>> {
    #[cfg(not(feature = "abi3"))]
    {
        let shape = transcode::shape(text);
        if shape.width == transcode::Width::Ucs2 {
            let len = isize::try_from(shape.chars).expect("a String's length fits in isize");
            // SAFETY: `PyUnicode_New(len, 0xFFFF)` returns a new reference to an uninitialised
            // 2-byte `str` of `len` code points (its terminating NUL already written), or
            // null with an exception set. `from_owned_ptr_or_err` takes that reference, so
            // the string is released on every path below. Its data is `len` `u16`s that no
            // one else can see yet; `utf8_to_ucs2` writes every one of them or reports
            // failure, in which case the string is dropped unused. The largest code point is
            // at least U+0100 (the shape says so), so the 2-byte layout is the canonical one.
            unsafe {
                let obj = Bound::from_owned_ptr_or_err(py, pyo3::ffi::PyUnicode_New(len, 0xFFFF))?;
                let data = pyo3::ffi::PyUnicode_DATA(obj.as_ptr()).cast::<u16>();
                let out = std::slice::from_raw_parts_mut(data, shape.chars);
                if transcode::utf8_to_ucs2(text, out) {
                    return Ok(obj.cast_into_unchecked());
                }
            }
        }
    }
    Ok(PyString::new(py, text))
}

/// A `list[str]` of `strings`, each made by [`new_str`].
fn str_list<'py>(py: Python<'py>, strings: &[String]) -> PyResult<Bound<'py, PyList>> {
    let items = strings
        .iter()
        .map(|s| new_str(py, s))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// [`MergeResult`] as Python objects: the chunk texts (by [`str_list`]) and their sources.
fn merge_result_py(py: Python<'_>, (texts, sources): MergeResult) -> PyResult<Bound<'_, PyTuple>> {
    (str_list(py, &texts)?, sources).into_pyobject(py)
}

/// One crossing per call: split, count, group, overlap and position tags all happen here.
/// Arguments arrive validated by the Python facade (`ragchunk._naive`).
#[pyfunction]
#[pyo3(signature = (texts, poses, chunk_token_num, delimiter, overlapped_percent, strategy_name, compat_name, encoding_name, counter, with_sources))]
#[allow(clippy::too_many_arguments)]
fn naive_merge<'py>(
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
                let count = builtin_counter(name, opts.strategy)?;
                // The text is read as UTF-8 (encoded if need be) with the GIL released too.
                let result = detached(py, || {
                    doc.with_sections(|sections| run_merge(sections, &opts, &count, with_sources))
                })?
                .unwrap_or_else(|never| match never {});
                merge_result_py(py, result)
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

/// One document (of a batch, or of one `naive_merge` call), its texts readable as UTF-8
/// without the GIL.
///
/// Never borrowed through `PyUnicode_AsUTF8AndSize` when that would allocate: CPython then
/// caches a UTF-8 copy inside the string object for its whole lifetime, so chunking would
/// leave the corpus's size again attached to the caller's documents. See [`Utf8Text`].
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

/// A document's text as the core reads it, without the GIL.
enum Utf8Text {
    /// UTF-8 that CPython already holds, borrowed: an ASCII string's own characters, or the
    /// UTF-8 an earlier call cached in the string. No copy, nothing new kept alive. (In the
    /// abi3 build, [`Utf8Text::for_call`] has CPython make and cache it, as PyO3 does.)
    Held(PyBackedStr),
    /// A 1- or 2-byte string without a UTF-8 cache: its code units are encoded (`transcode`)
    /// without the GIL; in a batch by the workers, in parallel, where `str.encode` would run
    /// on the calling thread.
    #[cfg(not(feature = "abi3"))]
    Units(StrUnits),
    /// The bytes of `str.encode("utf-8")` (strict): 4-byte strings, strings holding a
    /// surrogate (so that CPython raises its own `UnicodeEncodeError`), and the abi3 build.
    Copy(PyBackedBytes),
}

/// The code units of a `str`, read in place; the string is kept alive by `_owner`.
#[cfg(not(feature = "abi3"))]
struct StrUnits {
    _owner: Py<PyString>,
    data: *const u8,
    len: usize,
    kind: u32,
}

// SAFETY: `data` points into the character buffer of `_owner`, a `str`, which is immutable and
// never moves or shrinks while the object lives; `_owner` keeps it alive until the `StrUnits`
// is dropped, which the batch does on the calling thread with the GIL held (like every Python
// object of a document). Reading the buffer from another thread is then a read of immutable
// memory.
#[cfg(not(feature = "abi3"))]
unsafe impl Send for StrUnits {}
#[cfg(not(feature = "abi3"))]
unsafe impl Sync for StrUnits {}

impl Utf8Text {
    /// For one call: as [`Utf8Text::new`], so that chunking a document leaves no UTF-8 copy
    /// in it either. The abi3 build cannot see whether a string holds its UTF-8, so it
    /// borrows CPython's (made and cached on first use), as PyO3 borrows any `str`.
    fn for_call(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        #[cfg(feature = "abi3")]
        return Ok(Utf8Text::Held(obj.cast::<PyString>()?.clone().try_into()?));
        #[cfg(not(feature = "abi3"))]
        Self::new(obj)
    }

    /// For a batch: never makes CPython cache UTF-8 in the string (in the abi3 build, the
    /// bytes of `str.encode`, which live only while the document is in flight).
    fn new(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = obj.cast::<PyString>()?;
        #[cfg(not(feature = "abi3"))]
        {
            use pyo3::ffi;
            let op = text.as_ptr();
            // SAFETY: `op` is a live `str` (a borrowed reference, GIL held). Only compact
            // strings (every string since Python 3.12; in 3.10-3.11 all but those of the
            // deprecated `Py_UNICODE` API, which go to the encoder) are read in place: their
            // kind, length and data sit in the object's header. The UTF-8 cache pointer is read
            // as CPython's `PyUnicode_UTF8` does (non-null once CPython cached UTF-8 in it).
            unsafe {
                if ffi::PyUnicode_IS_ASCII(op) != 0 {
                    return Ok(Utf8Text::Held(text.clone().try_into()?));
                }
                if ffi::PyUnicode_IS_COMPACT(op) != 0 {
                    let compact = op.cast::<ffi::PyCompactUnicodeObject>();
                    if !(*compact).utf8.is_null() {
                        return Ok(Utf8Text::Held(text.clone().try_into()?));
                    }
                    let kind = ffi::PyUnicode_KIND(op);
                    let len = usize::try_from(ffi::PyUnicode_GET_LENGTH(op)).unwrap_or(0);
                    let data = ffi::PyUnicode_DATA(op).cast::<u8>().cast_const();
                    let units = StrUnits {
                        _owner: text.clone().unbind(),
                        data,
                        len,
                        kind,
                    };
                    if kind == 1 || (kind == 2 && !transcode::has_surrogate(units.ucs2())) {
                        return Ok(Utf8Text::Units(units));
                    }
                }
            }
        }
        Ok(Utf8Text::Copy(text.encode_utf8()?.into()))
    }

    /// The text as UTF-8: borrowed, or encoded now from the string's code units.
    fn utf8(&self) -> Cow<'_, str> {
        match self {
            Utf8Text::Held(s) => Cow::Borrowed(s),
            #[cfg(not(feature = "abi3"))]
            Utf8Text::Units(u) => Cow::Owned(if u.kind == 1 {
                transcode::latin1_to_utf8(u.latin1())
            } else {
                transcode::ucs2_to_utf8(u.ucs2()).expect("checked for surrogates when read")
            }),
            // SAFETY: the bytes come from CPython's strict UTF-8 encoder, which raises on what
            // it cannot encode (lone surrogates) and otherwise writes only well-formed
            // sequences: the guarantee PyO3 itself relies on when it borrows a `str` as `&str`.
            // Checking again cost ~3% of a batch's CPU time (perf, 2 workers, whole corpus).
            Utf8Text::Copy(b) => Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(b) }),
        }
    }

    /// About the size of the text in UTF-8 (its weight in the batch's in-flight budget).
    fn weight(&self) -> usize {
        match self {
            Utf8Text::Held(s) => s.len(),
            #[cfg(not(feature = "abi3"))]
            Utf8Text::Units(u) => u.len * (1 + u.kind as usize),
            Utf8Text::Copy(b) => b.len(),
        }
    }
}

#[cfg(not(feature = "abi3"))]
impl StrUnits {
    fn latin1(&self) -> &[u8] {
        debug_assert_eq!(self.kind, 1);
        // SAFETY: a 1-byte string holds `len` bytes at `data` (see `unsafe impl Send`).
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
    }

    fn ucs2(&self) -> &[u16] {
        assert_eq!(self.kind, 2, "a 2-byte string");
        // SAFETY: a 2-byte string holds `len` `u16`s at `data`, which CPython aligns for them
        // (see `unsafe impl Send`).
        unsafe { std::slice::from_raw_parts(self.data.cast::<u16>(), self.len) }
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
fn naive_merge_batch<'py>(
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
        let count = builtin_counter(encoding_name, opts.strategy)?;
        let n = docs.len();
        let out = PyList::empty(py).unbind();
        let docs = docs.unbind();
        let mut next_in = 0; // the next document to copy
        let mut next_out = 0; // the next document whose chunks are appended to `out`
        let session = |done: Vec<batch::Done<DocUtf8, Vec<String>>>,
                       feed: &mut batch::Feed<'_, DocUtf8>|
         -> PyResult<bool> {
            // The GIL is held for this session only; the pipeline waits detached.
            Python::attach(|py| {
                let out = out.bind(py);
                for (doc, chunks) in done {
                    let i = next_out;
                    next_out += 1;
                    let chunks = match chunks {
                        Ok(chunks) => chunks,
                        Err(panic) => {
                            let msg = format!(
                                "internal error in ragchunk's Rust core (please report): \
                                 docs[{i}]: {panic}"
                            );
                            return Err(ragchunk_error(py, msg));
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
        let stopped = py.detach(|| batch::pipeline(workers, IN_FLIGHT_BYTES, run, session))?;
        if let Err(stopped) = stopped {
            drop(stopped.leftover); // Python bytes again: dropped here, attached
            return Err(stopped.error);
        }
        Ok(out.into_bound(py))
    })
}

fn merge_utf8_doc(doc: &DocUtf8, opts: &MergeOptions<'_>, count: &BuiltinCount) -> Vec<String> {
    if doc.texts.is_empty() {
        return Vec::new(); // RAGFlow, every release: `if not sections: return []`
    }
    match doc.with_sections(|sections| merge::naive_merge_texts(sections, opts, count)) {
        Ok(chunks) => chunks,
        Err(never) => match never {},
    }
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

/// Test hook: panics inside the containment helpers (with or without the GIL released), so
/// the test suite can prove that a Rust panic reaches Python as `RagchunkError`.
#[pyfunction]
fn _panic_for_tests(py: Python<'_>, detach: bool) -> PyResult<()> {
    contain(py, || {
        if detach {
            detached(py, || panic!("deliberate panic (detached)"))
        } else {
            panic!("deliberate panic (holding the GIL)")
        }
    })
}

// --- HARD_CAP counting and chunk offsets -------------------------------------------------------

/// The counter a built-in encoding merges with. HARD_CAP promises a recount within the cap, so
/// it counts `len(encode_ordinary(text))`: special-token text counts as the text it is, where
/// RAGFlow's convention (`count_or_zero`, every other strategy) would count it as 0.
enum BuiltinCount {
    Ragflow(RagflowCount<'static>),
    Ordinary(&'static Tokenizer),
}

impl TokenCounter for BuiltinCount {
    type Error = std::convert::Infallible;

    fn count(&self, text: &str) -> Result<usize, Self::Error> {
        match self {
            BuiltinCount::Ragflow(c) => c.count(text),
            BuiltinCount::Ordinary(tok) => Ok(tok.count_ordinary(text)),
        }
    }

    fn count_after_newline(&self, text: &str, scratch: &mut String) -> Result<usize, Self::Error> {
        Ok(match self {
            BuiltinCount::Ragflow(c) => c.0.count_or_zero_after_newline(text, scratch),
            BuiltinCount::Ordinary(tok) => tok.count_ordinary_after_newline(text, scratch),
        })
    }

    fn count_each_after_newline(
        &self,
        texts: &[&str],
        out: &mut Vec<usize>,
    ) -> Result<(), Self::Error> {
        match self {
            BuiltinCount::Ragflow(c) => c.count_each_after_newline(texts, out),
            BuiltinCount::Ordinary(tok) => {
                tok.count_ordinary_after_newline_each(texts, out);
                Ok(())
            }
        }
    }
}

fn builtin_counter(name: &str, strategy: Strategy) -> PyResult<BuiltinCount> {
    let tok = encoding(name)?;
    Ok(match strategy {
        Strategy::HardCap => BuiltinCount::Ordinary(tok),
        _ => BuiltinCount::Ragflow(RagflowCount(tok)),
    })
}

/// The count `naive_merge` gives the paragraph of each piece in `texts`, RAGFlow's
/// `num_tokens_from_string("\n" + piece)` (`count_ordinary` semantics for `"hard_cap"`),
/// through the same in-place shortcut the merge takes. For the tests against tiktoken.
#[pyfunction]
fn count_paragraphs(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    encoding_name: &str,
    strategy_name: &str,
) -> PyResult<Vec<usize>> {
    contain(py, || {
        let count = builtin_counter(encoding_name, strategy(strategy_name)?)?;
        let mut scratch = String::new();
        texts
            .iter()
            .map(|t| {
                count
                    .count_after_newline(t, &mut scratch)
                    .map_err(|never| match never {})
            })
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
fn naive_merge_offsets<'py>(
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
                let count = builtin_counter(name, opts.strategy)?;
                match detached(py, || merge::naive_merge_offsets(&text, &opts, &count))? {
                    Ok(offsets) => offsets,
                    Err(never) => match never {},
                }
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

// ---- classic splitters (issue 5)
// Character windows, token windows and LangChain-compatible recursive splitting. Arguments
// arrive validated by `ragchunk.classic`; chunks go back as `(start, end, size, joined)` with
// code-point offsets (`joined` is the chunk text only when it is not `source[start:end]`).

use crate::splitters::recursive::{
    self, KeepSeparator, RecursiveChunk, RecursiveConfig, Separator,
};
use crate::splitters::token_window::{self, OrdinaryCount};
use crate::splitters::{
    character, sentence, CharCount, CharIndex, CharOffsets, IndexedCharCount, Span,
};

type ChunkTuple = (usize, usize, usize, Option<String>);

/// `s[start:end]` (code points), by `PyUnicode_Substring`: the copy `str` slicing makes,
/// without building a slice object and its two ints per chunk.
fn substring<'py>(
    s: &Bound<'py, PyString>,
    start: usize,
    end: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let (start, end) = (start as isize, end as isize);
    // SAFETY: `s` is a live `str` (the borrow keeps it alive); PyUnicode_Substring returns a
    // new reference or NULL with an exception set, which `from_owned_ptr_or_err` turns into
    // `Err`. Out-of-range indices are clamped by CPython, never read out of bounds.
    unsafe {
        Bound::from_owned_ptr_or_err(
            s.py(),
            pyo3::ffi::PyUnicode_Substring(s.as_ptr(), start, end),
        )
    }
}

/// Byte spans to code-point offsets ([`CharIndex`]: one pass over the text).
fn spans_to_chars(text: &str, spans: &[Span]) -> Vec<ChunkTuple> {
    let index = CharIndex::new(text);
    spans
        .iter()
        .map(|s| {
            (
                index.char_offset(s.start),
                index.char_offset(s.end),
                s.size,
                None,
            )
        })
        .collect()
}

/// How a classic splitter measures: characters, a built-in encoding, or a Python callable.
#[derive(Clone, Copy)]
enum Unit {
    Chars,
    Tokens(&'static Tokenizer),
    Callback,
}

fn unit(length: &str, encoding_name: Option<&str>) -> PyResult<Unit> {
    match (length, encoding_name) {
        ("chars", _) => Ok(Unit::Chars),
        ("tokens", Some(name)) => Ok(Unit::Tokens(encoding(name)?)),
        ("tokens", None) => Ok(Unit::Callback),
        (other, _) => Err(PyValueError::new_err(format!(
            "length must be 'tokens' or 'chars', got {other:?}"
        ))),
    }
}

/// `with_counts`: measure each chunk's own text (for `Chunk.token_count`); `split_text` does
/// not need it and skips the extra tokenizer pass (sizes are then 0).
/// `index` is `text`'s [`CharIndex`] (the chars unit measures with it too).
fn recursive_chunks<C: TokenCounter>(
    index: &CharIndex<'_>,
    cfg: &RecursiveConfig,
    counter: &C,
    with_counts: bool,
) -> Result<Vec<ChunkTuple>, C::Error> {
    let text = index.text();
    let chunks = recursive::split(text, cfg, counter)?;
    let mut out = Vec::with_capacity(chunks.len());
    for RecursiveChunk { start, end, joined } in chunks {
        let size = if with_counts {
            counter.count(joined.as_deref().unwrap_or(&text[start..end]))?
        } else {
            0
        };
        out.push((
            index.char_offset(start),
            index.char_offset(end),
            size,
            joined,
        ));
    }
    Ok(out)
}

/// [`recursive_chunks`] in a built-in unit (characters, or a built-in encoding).
fn recursive_builtin(
    text: &str,
    cfg: &RecursiveConfig,
    unit: Unit,
    with_counts: bool,
) -> Vec<ChunkTuple> {
    let index = CharIndex::new(text);
    let out = match unit {
        Unit::Tokens(tok) => recursive_chunks(&index, cfg, &OrdinaryCount(tok), with_counts),
        _ => recursive_chunks(&index, cfg, &IndexedCharCount::new(&index), with_counts),
    };
    out.unwrap_or_else(|never| match never {})
}

/// LangChain's `RecursiveCharacterTextSplitter`, configured once (regexes compiled here).
#[pyclass(frozen, name = "RecursiveCore")]
struct PyRecursive {
    cfg: RecursiveConfig,
    unit: Unit,
}

impl PyRecursive {
    fn chunks(
        &self,
        py: Python<'_>,
        text: &str,
        counter: Option<Bound<'_, PyAny>>,
        with_counts: bool,
    ) -> PyResult<Vec<ChunkTuple>> {
        let cfg = &self.cfg;
        match (self.unit, counter) {
            (Unit::Callback, Some(f)) => {
                recursive_chunks(&CharIndex::new(text), cfg, &PyCounter { f }, with_counts)
            }
            (Unit::Callback, None) => Err(PyValueError::new_err(
                "tokenizer: a callable tokenizer must be passed as counter",
            )),
            (unit, _) => detached(py, || recursive_builtin(text, cfg, unit, with_counts)),
        }
    }
}

#[pymethods]
impl PyRecursive {
    /// `separators`: `(text, rust_regex)` pairs; `rust_regex` is `None` for a literal.
    #[new]
    #[pyo3(signature = (chunk_size, chunk_overlap, separators, keep_separator, strip_whitespace, length, encoding_name=None))]
    fn new(
        chunk_size: usize,
        chunk_overlap: usize,
        separators: Vec<(String, Option<String>)>,
        keep_separator: &str,
        strip_whitespace: bool,
        length: &str,
        encoding_name: Option<&str>,
    ) -> PyResult<Self> {
        if chunk_size == 0 || chunk_overlap >= chunk_size {
            return Err(PyValueError::new_err(format!(
                "chunk_size must be > 0 and chunk_overlap < chunk_size, got {chunk_size} and {chunk_overlap}"
            )));
        }
        if separators.is_empty() {
            return Err(PyValueError::new_err("separators must not be empty"));
        }
        let keep_separator = match keep_separator {
            "start" => KeepSeparator::Start,
            "end" => KeepSeparator::End,
            "none" => KeepSeparator::Drop,
            other => {
                return Err(PyValueError::new_err(format!(
                    "keep_separator must be 'start', 'end' or 'none', got {other:?}"
                )))
            }
        };
        let mut seps = Vec::with_capacity(separators.len());
        for (i, (text, pattern)) in separators.iter().enumerate() {
            seps.push(match pattern {
                None => Separator::literal(text),
                Some(p) => {
                    let re = regex::Regex::new(p).map_err(|e| {
                        PyValueError::new_err(format!("separators[{i}]: invalid regex: {e}"))
                    })?;
                    Separator::regex(text, re)
                }
            });
        }
        Ok(PyRecursive {
            cfg: RecursiveConfig {
                chunk_size,
                chunk_overlap,
                separators: seps,
                keep_separator,
                strip_whitespace,
            },
            unit: unit(length, encoding_name)?,
        })
    }

    /// Chunks of one text; `counter` (a Python callable) is required for callback lengths.
    #[pyo3(signature = (text, counter=None, with_counts=true))]
    fn split(
        &self,
        py: Python<'_>,
        text: PyBackedStr,
        counter: Option<Bound<'_, PyAny>>,
        with_counts: bool,
    ) -> PyResult<Vec<ChunkTuple>> {
        contain(py, || self.chunks(py, &text, counter, with_counts))
    }

    /// Just the chunk strings of one text (LangChain's `split_text`), built here: slices of
    /// `text` (or the re-joined text), with no tuples or counts crossing into Python.
    #[pyo3(signature = (text, counter=None))]
    fn split_text<'py>(
        &self,
        py: Python<'py>,
        text: Bound<'py, PyString>,
        counter: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        contain(py, || {
            let chunks = self.chunks(py, text.to_str()?, counter, false)?;
            let mut strings = Vec::with_capacity(chunks.len());
            for (start, end, _, joined) in chunks {
                strings.push(match joined {
                    Some(j) => PyString::new(py, &j).into_any(),
                    None => substring(&text, start, end)?,
                });
            }
            PyList::new(py, strings)
        })
    }

    /// `split` over many texts in parallel (GIL released), in input order. Built-in units only.
    #[pyo3(signature = (texts, workers=None))]
    fn split_batch(
        &self,
        py: Python<'_>,
        texts: Vec<PyBackedStr>,
        workers: Option<usize>,
    ) -> PyResult<Vec<Vec<ChunkTuple>>> {
        contain(py, || {
            let unit = self.unit;
            let cfg = &self.cfg;
            Ok(detached(py, || {
                batch::par_map(&texts, workers, |t| recursive_builtin(t, cfg, unit, true))
            })??)
        })
    }
}

/// Character windows: `(start, end, size, None)` per window.
#[pyfunction]
fn character_split(
    py: Python<'_>,
    text: PyBackedStr,
    chunk_size: usize,
    chunk_overlap: usize,
    drop_last: bool,
) -> PyResult<Vec<ChunkTuple>> {
    contain(py, || {
        detached(py, || {
            spans_to_chars(
                &text,
                &character::split(&text, chunk_size, chunk_overlap, drop_last),
            )
        })
    })
}

/// `character_split` over many texts in parallel, in input order.
#[pyfunction]
#[pyo3(signature = (texts, chunk_size, chunk_overlap, drop_last, workers=None))]
fn character_split_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    chunk_size: usize,
    chunk_overlap: usize,
    drop_last: bool,
    workers: Option<usize>,
) -> PyResult<Vec<Vec<ChunkTuple>>> {
    contain(py, || {
        Ok(detached(py, || {
            batch::par_map(&texts, workers, |t| {
                spans_to_chars(
                    t,
                    &character::split(t, chunk_size, chunk_overlap, drop_last),
                )
            })
        })??)
    })
}

fn token_windows(tok: &Tokenizer, text: &str, size: usize, overlap: usize) -> Vec<ChunkTuple> {
    let edges = tok.token_edges(text);
    spans_to_chars(text, &token_window::windows(text, &edges, size, overlap))
}

/// Token windows over a built-in encoding: `(start, end, tokens, None)` per window.
#[pyfunction]
fn token_window_split(
    py: Python<'_>,
    text: PyBackedStr,
    chunk_size: usize,
    chunk_overlap: usize,
    encoding_name: &str,
) -> PyResult<Vec<ChunkTuple>> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        detached(py, || token_windows(tok, &text, chunk_size, chunk_overlap))
    })
}

/// `token_window_split` over many texts in parallel, in input order.
#[pyfunction]
#[pyo3(signature = (texts, chunk_size, chunk_overlap, encoding_name, workers=None))]
fn token_window_split_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    chunk_size: usize,
    chunk_overlap: usize,
    encoding_name: &str,
    workers: Option<usize>,
) -> PyResult<Vec<Vec<ChunkTuple>>> {
    contain(py, || {
        let tok = encoding(encoding_name)?;
        Ok(detached(py, || {
            batch::par_map(&texts, workers, |t| {
                token_windows(tok, t, chunk_size, chunk_overlap)
            })
        })??)
    })
}

fn sentence_chunks<C: TokenCounter>(
    text: &str,
    cfg: sentence::SentenceConfig,
    counter: &C,
) -> Result<Vec<ChunkTuple>, C::Error> {
    Ok(spans_to_chars(text, &sentence::split(text, cfg, counter)?))
}

/// Whole sentences packed up to `chunk_size`: `(start, end, size, None)` per chunk.
#[pyfunction]
#[pyo3(signature = (text, chunk_size, overlap_sentences, length, encoding_name=None, counter=None))]
fn sentence_split(
    py: Python<'_>,
    text: PyBackedStr,
    chunk_size: usize,
    overlap_sentences: usize,
    length: &str,
    encoding_name: Option<&str>,
    counter: Option<Bound<'_, PyAny>>,
) -> PyResult<Vec<ChunkTuple>> {
    contain(py, || {
        if chunk_size == 0 {
            return Err(PyValueError::new_err("chunk_size must be >= 1"));
        }
        let cfg = sentence::SentenceConfig {
            chunk_size,
            overlap_sentences,
        };
        match (unit(length, encoding_name)?, counter) {
            (Unit::Chars, _) => detached(py, || sentence_chunks(&text, cfg, &CharCount))?
                .map_err(|never| match never {}),
            (Unit::Tokens(tok), _) => {
                detached(py, || sentence_chunks(&text, cfg, &OrdinaryCount(tok)))?
                    .map_err(|never| match never {})
            }
            (Unit::Callback, Some(f)) => sentence_chunks(&text, cfg, &PyCounter { f }),
            (Unit::Callback, None) => Err(PyValueError::new_err(
                "tokenizer: a callable tokenizer must be passed as counter",
            )),
        }
    })
}

/// `sentence_split` over many texts in parallel (built-in units), in input order.
#[pyfunction]
#[pyo3(signature = (texts, chunk_size, overlap_sentences, length, encoding_name=None, workers=None))]
fn sentence_split_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    chunk_size: usize,
    overlap_sentences: usize,
    length: &str,
    encoding_name: Option<&str>,
    workers: Option<usize>,
) -> PyResult<Vec<Vec<ChunkTuple>>> {
    contain(py, || {
        if chunk_size == 0 {
            return Err(PyValueError::new_err("chunk_size must be >= 1"));
        }
        let cfg = sentence::SentenceConfig {
            chunk_size,
            overlap_sentences,
        };
        let u = unit(length, encoding_name)?;
        Ok(detached(py, || {
            batch::par_map(&texts, workers, |t| match u {
                Unit::Tokens(tok) => sentence_chunks(t, cfg, &OrdinaryCount(tok))
                    .unwrap_or_else(|never| match never {}),
                _ => sentence_chunks(t, cfg, &CharCount).unwrap_or_else(|never| match never {}),
            })
        })??)
    })
}

/// Sentence spans `(start, end)` in code points.
#[pyfunction]
fn sentence_spans(py: Python<'_>, text: PyBackedStr) -> PyResult<Vec<(usize, usize)>> {
    contain(py, || {
        detached(py, || {
            spans_to_chars(&text, &sentence::sentences(&text))
                .into_iter()
                .map(|(s, e, _, _)| (s, e))
                .collect()
        })
    })
}

// ---- structure-aware chunkers (issue 6)

use crate::splitters::markdown::{self, MdOptions, MdOutput};

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
        with_counter(
            py,
            encoding_name,
            counter,
            |c| {
                let out = markdown::split_markdown(text, &opts, c);
                md_to_py(text, out.unwrap_or_else(|never| match never {}))
            },
            |c| Ok(md_to_py(text, markdown::split_markdown(text, &opts, c)?)),
        )
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
        let count = free_count(encoding_name)?;
        Ok(detached(py, || {
            batch::par_map(&texts, workers, |t| {
                let text: &str = t;
                let out = markdown::split_markdown(text, &opts, &count);
                md_to_py(text, out.unwrap_or_else(|never| match never {}))
            })
        })??)
    })
}

use crate::splitters::html;

/// `HTMLSplitter.split`: the laid-out text, its chunks (as [`MdChunkPy`], offsets into that
/// text) and the sections' heading paths.
type HtmlResultPy = (String, Vec<MdChunkPy>, Vec<Vec<String>>);

fn html_to_py(out: html::HtmlOutput) -> HtmlResultPy {
    let (chunks, sections) = md_to_py(&out.text, out.out);
    (out.text, chunks, sections)
}

/// `HTMLSplitter.split` in one crossing (see [`markdown_split`] for the counter choice).
#[pyfunction]
#[pyo3(signature = (text, chunk_size, chunk_overlap, levels, strip_headers, encoding_name, counter))]
#[allow(clippy::too_many_arguments)]
fn html_split(
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
        let opts = md_options(chunk_size, chunk_overlap, &levels, strip_headers)?;
        let text: &str = &text;
        with_counter(
            py,
            encoding_name,
            counter,
            |c| html_to_py(html::split_html(text, &opts, c).unwrap_or_else(|never| match never {})),
            |c| Ok(html_to_py(html::split_html(text, &opts, c)?)),
        )
    })
}

/// `HTMLSplitter.split_batch`: documents in parallel (rayon), GIL released. Built-in
/// tokenizers and `length="chars"` only.
#[pyfunction]
#[pyo3(signature = (texts, chunk_size, chunk_overlap, levels, strip_headers, encoding_name, workers))]
#[allow(clippy::too_many_arguments)]
fn html_split_batch(
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
        let opts = md_options(chunk_size, chunk_overlap, &levels, strip_headers)?;
        let count = free_count(encoding_name)?;
        Ok(detached(py, || {
            batch::par_map(&texts, workers, |t| {
                html_to_py(
                    html::split_html(t, &opts, &count).unwrap_or_else(|never| match never {}),
                )
            })
        })??)
    })
}

/// `HTMLSplitter.extract_text`: the laid-out text chunk offsets index into.
#[pyfunction]
fn html_text(py: Python<'_>, text: PyBackedStr) -> PyResult<String> {
    contain(py, || detached(py, || html::layout_html(&text).text))
}

/// `HTMLSplitter`'s text layout with its blocks, for `TitleTreeChunker(title_source="html")`:
/// `(text, [(start, end, heading level or 0, heading text)])`, offsets in code points.
#[pyfunction]
fn html_layout(py: Python<'_>, text: PyBackedStr) -> PyResult<HtmlLayoutPy> {
    contain(py, || {
        detached(py, || {
            let layout = html::layout_html(&text);
            let mut at = CharOffsets::new(&layout.text);
            let blocks = layout
                .blocks
                .iter()
                .map(|b| {
                    let (start, end) = (at.char_offset(b.start), at.char_offset(b.end));
                    match &b.kind {
                        markdown::BlockKind::Heading { level, text } => {
                            (start, end, *level, text.clone())
                        }
                        _ => (start, end, 0, String::new()),
                    }
                })
                .collect();
            (layout.text, blocks)
        })
    })
}

/// `(text, [(start, end, level, title)])` of [`html_layout`].
type HtmlLayoutPy = (String, Vec<(usize, usize, usize, String)>);

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
        let res = with_counter(
            py,
            encoding_name,
            counter,
            |c| {
                title_tree_core(text, &parents, &items, budget, c)
                    .unwrap_or_else(|never| match never {})
            },
            |c| title_tree_core(text, &parents, &items, budget, c),
        )?;
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
        let count = free_count(encoding_name)?;
        let results = detached(py, || {
            batch::par_map(&docs, workers, |(text, parents, items)| {
                title_tree_core(text, parents, items, budget, &count)
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

// ---- source code (issue 6 item 4), with the grammars of the `code` feature

#[cfg(feature = "code")]
use crate::splitters::code::{self, CodeChunk, Lang};

/// `(start, end, size, symbols, start_line, end_line)`, code points, lines 1-based inclusive.
#[cfg(feature = "code")]
type CodeChunkPy = (usize, usize, usize, Vec<String>, usize, usize);

#[cfg(feature = "code")]
fn code_lang(language: &str) -> PyResult<Lang> {
    Lang::from_name(language).ok_or_else(|| {
        PyValueError::new_err(format!(
            "language {language:?} is not supported; supported: {}",
            code::LANGUAGES.join(", ")
        ))
    })
}

#[cfg(feature = "code")]
fn code_to_py(text: &str, chunks: Vec<CodeChunk>) -> Vec<CodeChunkPy> {
    let index = CharIndex::new(text);
    chunks
        .into_iter()
        .map(|c| {
            (
                index.char_offset(c.span.start),
                index.char_offset(c.span.end),
                c.span.size,
                c.symbols,
                c.start_line,
                c.end_line,
            )
        })
        .collect()
}

/// `CodeSplitter.split` in one crossing. `encoding_name` (built-in tokenizer, GIL released),
/// `counter` (Python callable, GIL held) or neither (`length="chars"`).
#[cfg(feature = "code")]
#[pyfunction]
#[pyo3(signature = (text, language, chunk_size, encoding_name, counter))]
fn code_split(
    py: Python<'_>,
    text: PyBackedStr,
    language: &str,
    chunk_size: usize,
    encoding_name: Option<&str>,
    counter: Option<Bound<'_, PyAny>>,
) -> PyResult<Vec<CodeChunkPy>> {
    contain(py, || {
        let lang = code_lang(language)?;
        let text: &str = &text;
        with_counter(
            py,
            encoding_name,
            counter,
            |c| {
                let out = code::split_code(text, lang, chunk_size, c);
                code_to_py(text, out.unwrap_or_else(|never| match never {}))
            },
            |c| {
                Ok(code_to_py(
                    text,
                    code::split_code(text, lang, chunk_size, c)?,
                ))
            },
        )
    })
}

/// `CodeSplitter.split_batch`: files in parallel (rayon), GIL released. Built-in tokenizers
/// and `length="chars"` only.
#[cfg(feature = "code")]
#[pyfunction]
#[pyo3(signature = (texts, language, chunk_size, encoding_name, workers))]
fn code_split_batch(
    py: Python<'_>,
    texts: Vec<PyBackedStr>,
    language: &str,
    chunk_size: usize,
    encoding_name: Option<&str>,
    workers: Option<usize>,
) -> PyResult<Vec<Vec<CodeChunkPy>>> {
    contain(py, || {
        let lang = code_lang(language)?;
        let count = free_count(encoding_name)?;
        Ok(detached(py, || {
            batch::par_map(&texts, workers, |t| {
                let text: &str = t;
                let out = code::split_code(text, lang, chunk_size, &count);
                code_to_py(text, out.unwrap_or_else(|never| match never {}))
            })
        })??)
    })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(count_tokens, m)?)?;
    m.add_function(wrap_pyfunction!(count_or_zero, m)?)?;
    m.add_function(wrap_pyfunction!(count_ordinary, m)?)?;
    m.add_function(wrap_pyfunction!(html_layout, m)?)?;
    m.add_function(wrap_pyfunction!(count_ordinary_resume, m)?)?;
    m.add_function(wrap_pyfunction!(encode_ordinary, m)?)?;
    m.add_function(wrap_pyfunction!(count_ordinary_batch, m)?)?;
    m.add_function(wrap_pyfunction!(count_batch, m)?)?;
    m.add_function(wrap_pyfunction!(naive_merge, m)?)?;
    m.add_function(wrap_pyfunction!(naive_merge_batch, m)?)?;
    m.add_function(wrap_pyfunction!(remove_tag, m)?)?;
    m.add_function(wrap_pyfunction!(extract_positions, m)?)?;
    m.add_function(wrap_pyfunction!(parse_delimiter_field, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(naive_merge_offsets, m)?)?;
    m.add_function(wrap_pyfunction!(count_paragraphs, m)?)?;
    m.add_class::<PyRecursive>()?;
    m.add_function(wrap_pyfunction!(character_split, m)?)?;
    m.add_function(wrap_pyfunction!(character_split_batch, m)?)?;
    m.add_function(wrap_pyfunction!(token_window_split, m)?)?;
    m.add_function(wrap_pyfunction!(token_window_split_batch, m)?)?;
    m.add_function(wrap_pyfunction!(sentence_split, m)?)?;
    m.add_function(wrap_pyfunction!(sentence_split_batch, m)?)?;
    m.add_function(wrap_pyfunction!(sentence_spans, m)?)?;
    m.add_function(wrap_pyfunction!(markdown_split, m)?)?;
    m.add_function(wrap_pyfunction!(markdown_split_batch, m)?)?;
    m.add_function(wrap_pyfunction!(html_split, m)?)?;
    m.add_function(wrap_pyfunction!(html_split_batch, m)?)?;
    m.add_function(wrap_pyfunction!(html_text, m)?)?;
    m.add_function(wrap_pyfunction!(title_tree_split, m)?)?;
    m.add_function(wrap_pyfunction!(title_tree_split_batch, m)?)?;
    #[cfg(feature = "code")]
    {
        m.add_function(wrap_pyfunction!(code_split, m)?)?;
        m.add_function(wrap_pyfunction!(code_split_batch, m)?)?;
    }
    Ok(())
}
