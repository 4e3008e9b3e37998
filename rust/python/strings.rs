//! CPython's string layout: making `str`s of chunk text and reading documents' text as UTF-8,
//! faster than CPython's own codecs and without leaving copies inside the caller's strings.
//! Every `unsafe` of the bindings is here, each with the reason it is sound; the transcoding
//! itself is plain Rust ([`crate::text::transcode`]).

use std::borrow::Cow;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::pybacked::{PyBackedBytes, PyBackedStr};
use pyo3::types::{PyList, PyString};

#[cfg(not(feature = "abi3"))]
use crate::text::transcode;

/// A Python `str` of `text`. Text whose largest code point is in U+0100..=U+FFFF (Chinese,
/// Japanese, Cyrillic, typographic quotes in English...) is written straight into a 2-byte
/// `str` by [`transcode::utf8_to_ucs2`], 2-3x faster than CPython's UTF-8 decoder, which
/// widens and copies such strings once more and decodes one character per step. Everything
/// else goes through the decoder, whose ASCII path is already a copy. Needs CPython's
/// string layout, so not in the `abi3` build (the limited API hides it).
pub(super) fn new_str<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyString>> {
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
                let obj = Bound::from_owned_ptr_or_err(py, ffi::PyUnicode_New(len, 0xFFFF))?;
                let data = ffi::PyUnicode_DATA(obj.as_ptr()).cast::<u16>();
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
pub(super) fn str_list<'py>(py: Python<'py>, strings: &[String]) -> PyResult<Bound<'py, PyList>> {
    let items = strings
        .iter()
        .map(|s| new_str(py, s))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// A document's text as the core reads it, without the GIL.
///
/// Never borrowed through `PyUnicode_AsUTF8AndSize` when that would allocate: CPython then
/// caches a UTF-8 copy inside the string object for its whole lifetime, so chunking would
/// leave the corpus's size again attached to the caller's documents.
pub(super) enum Utf8Text {
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
pub(super) struct StrUnits {
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
    pub(super) fn for_call(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        #[cfg(feature = "abi3")]
        return Ok(Utf8Text::Held(obj.cast::<PyString>()?.clone().try_into()?));
        #[cfg(not(feature = "abi3"))]
        Self::new(obj)
    }

    /// For a batch: never makes CPython cache UTF-8 in the string (in the abi3 build, the
    /// bytes of `str.encode`, which live only while the document is in flight).
    pub(super) fn new(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        let text = obj.cast::<PyString>()?;
        #[cfg(not(feature = "abi3"))]
        {
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
    pub(super) fn utf8(&self) -> Cow<'_, str> {
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
    pub(super) fn weight(&self) -> usize {
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

/// `s[start:end]` (code points), by `PyUnicode_Substring`: the copy `str` slicing makes,
/// without building a slice object and its two ints per chunk.
pub(super) fn substring<'py>(
    s: &Bound<'py, PyString>,
    start: usize,
    end: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let (start, end) = (start as isize, end as isize);
    // SAFETY: `s` is a live `str` (the borrow keeps it alive); PyUnicode_Substring returns a
    // new reference or NULL with an exception set, which `from_owned_ptr_or_err` turns into
    // `Err`. Out-of-range indices are clamped by CPython, never read out of bounds.
    unsafe {
        Bound::from_owned_ptr_or_err(s.py(), ffi::PyUnicode_Substring(s.as_ptr(), start, end))
    }
}

/// The bytes of a pyarrow `Buffer` (any object with integer `address` and `size`
/// attributes, as pyarrow's buffers have), borrowed in place for as long as `buffer` is.
/// Used to read Arrow string columns without a Python `str` per value; the limited API of
/// the `abi3` build has no buffer protocol, so the address is read as pyarrow exposes it.
pub(super) fn arrow_buffer<'a>(buffer: &'a Bound<'_, PyAny>) -> PyResult<&'a [u8]> {
    let address: usize = buffer.getattr("address")?.extract()?;
    let size: usize = buffer.getattr("size")?.extract()?;
    if size == 0 {
        return Ok(&[]);
    }
    if address == 0 {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "an Arrow buffer of non-zero size has a null address",
        ));
    }
    // SAFETY: a pyarrow `Buffer` owns (or keeps alive the owner of) `size` readable,
    // immutable bytes at `address` for its whole lifetime, and the returned slice borrows
    // `buffer`, the Python reference that keeps it alive. Arrow buffers are not written once
    // built, so nothing mutates the bytes while they are read (from any thread).
    Ok(unsafe { std::slice::from_raw_parts(address as *const u8, size) })
}
