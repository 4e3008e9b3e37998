//! Late chunking's bindings. The token vectors, the token offsets and the output are numpy
//! arrays read and written in place through `__array_interface__` (plain attribute access, so
//! the abi3 build reads them the same way): no copy of the embedding matrix, no Python object
//! per token. The pooling runs with the GIL released.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::semantic::{late, Matrix};

use super::guard::{contain, detached};

/// A C-contiguous, aligned numpy array of one element type: its address and shape.
pub(super) struct ArrayView {
    address: usize,
    pub(super) shape: Vec<usize>,
    readonly: bool,
}

impl ArrayView {
    fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// The byte range `[address, address + len * size)`.
    fn span(&self, size: usize) -> (usize, usize) {
        (self.address, self.address + self.len() * size)
    }
}

/// The array behind `obj`, checked to be C-contiguous with elements `kind` (`"f4"`, `"i8"`) in
/// native byte order, `ndim` dimensions and aligned for `align`; errors name `name`.
pub(super) fn view(
    obj: &Bound<'_, PyAny>,
    name: &str,
    kind: &str,
    ndim: usize,
    align: usize,
) -> PyResult<ArrayView> {
    let iface = obj
        .getattr("__array_interface__")
        .map_err(|_| PyTypeError::new_err(format!("{name} must be a numpy array")))?;
    let iface = iface
        .cast::<PyDict>()
        .map_err(|_| PyTypeError::new_err(format!("{name}: __array_interface__ is not a dict")))?;
    let get = |key: &str| -> PyResult<Bound<'_, PyAny>> {
        iface.get_item(key)?.ok_or_else(|| {
            PyValueError::new_err(format!("{name}: __array_interface__ has no {key}"))
        })
    };
    let typestr: String = get("typestr")?.extract()?;
    let native = if cfg!(target_endian = "little") {
        '<'
    } else {
        '>'
    };
    let want = format!("{native}{kind}");
    if typestr != want {
        return Err(PyValueError::new_err(format!(
            "{name} must hold {want} values, got {typestr}"
        )));
    }
    let shape: Vec<usize> = get("shape")?.extract()?;
    if shape.len() != ndim {
        return Err(PyValueError::new_err(format!(
            "{name} must have {ndim} dimensions, got {}",
            shape.len()
        )));
    }
    if !get("strides")?.is_none() {
        return Err(PyValueError::new_err(format!(
            "{name} must be C-contiguous"
        )));
    }
    let (address, readonly): (usize, bool) = get("data")?.extract()?;
    if shape.iter().product::<usize>() > 0 && (address == 0 || address % align != 0) {
        return Err(PyValueError::new_err(format!(
            "{name}: data is null or not aligned"
        )));
    }
    Ok(ArrayView {
        address,
        shape,
        readonly,
    })
}

/// The elements of `v` as a slice (empty arrays need no address).
///
/// # Safety
/// `v` must come from [`view`] for elements of type `T`, and the array must stay alive and
/// unchanged while the slice is used.
pub(super) unsafe fn slice<'a, T>(v: &ArrayView) -> &'a [T] {
    if v.len() == 0 {
        return &[];
    }
    // SAFETY: per the caller's contract, `address` points at `len` aligned, initialised `T`s.
    unsafe { std::slice::from_raw_parts(v.address as *const T, v.len()) }
}

/// The number of rows of a 2-D view.
fn rows_of(v: &ArrayView) -> usize {
    v.shape[0]
}

/// Mean of the vectors (`(n_tokens, dim)` float32) of the tokens whose offsets (`(n_tokens,
/// 2)` int64 code-point ranges) overlap each chunk span, written into `out` (`(n_chunks, dim)`
/// float32, C-contiguous, writable); zero-width tokens are left out. ValueError names the
/// token offset outside the text or the chunk no token overlaps.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub(super) fn late_pool(
    py: Python<'_>,
    vectors: &Bound<'_, PyAny>,
    offsets: &Bound<'_, PyAny>,
    chunks: Vec<(i64, i64)>,
    text_len: usize,
    normalize: bool,
    out: &Bound<'_, PyAny>,
) -> PyResult<()> {
    contain(py, || {
        let vecs = view(vectors, "vectors", "f4", 2, std::mem::align_of::<f32>())?;
        let offs = view(offsets, "offsets", "i8", 2, std::mem::align_of::<i64>())?;
        let dest = view(out, "out", "f4", 2, std::mem::align_of::<f32>())?;
        let (rows, dim) = (vecs.shape[0], vecs.shape[1]);
        if offs.shape[1] != 2 {
            return Err(PyValueError::new_err(
                "offsets must have shape (n_tokens, 2)",
            ));
        }
        if dest.readonly || dest.shape != [chunks.len(), dim] {
            return Err(PyValueError::new_err(format!(
                "out must be a writable ({}, {dim}) array",
                chunks.len()
            )));
        }
        let (d0, d1) = dest.span(4);
        for (src, size) in [(&vecs, 4), (&offs, 8)] {
            let (s0, s1) = src.span(size);
            if d0 < s1 && s0 < d1 {
                return Err(PyValueError::new_err(
                    "out must not share memory with the inputs",
                ));
            }
        }
        let spans: Vec<[i64; 2]> = chunks.iter().map(|&(s, e)| [s, e]).collect();
        // The arrays stay alive: `vectors`, `offsets` and `out` are borrowed for the whole
        // call. Addresses cross into the GIL-free closure as integers.
        let result = detached(py, move || {
            // SAFETY: the views were checked by `view` (type, contiguity, alignment, shape)
            // and the arrays are kept alive by the caller's references. The facade allocates
            // `out` itself, so nothing else writes it; `out` does not overlap the inputs
            // (checked above), so the shared and the mutable slice never alias.
            let data: &[f32] = unsafe { slice(&vecs) };
            let tokens: &[[i64; 2]] = if offs.len() == 0 {
                &[]
            } else {
                // `[i64; 2]` has the layout and alignment of two consecutive `i64`s
                unsafe {
                    std::slice::from_raw_parts(offs.address as *const [i64; 2], rows_of(&offs))
                }
            };
            let out: &mut [f32] = if dest.len() == 0 {
                &mut []
            } else {
                unsafe { std::slice::from_raw_parts_mut(dest.address as *mut f32, dest.len()) }
            };
            let m = Matrix { data, rows, dim };
            late::late_pool(&m, tokens, &spans, text_len, normalize, out)
        })?;
        result.map_err(|e| PyValueError::new_err(e.to_string()))
    })
}

/// UTF-8 byte offsets of `text` (an `(n, 2)` int64 array) as code-point offsets, written
/// into `out` (an `(n, 2)` int64 array, writable, not sharing memory with `offsets`); see
/// `ragchunk.late.char_offsets`. No Python object per token.
#[pyfunction]
pub(super) fn late_char_offsets(
    py: Python<'_>,
    text: &str,
    offsets: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
) -> PyResult<()> {
    contain(py, || {
        let offs = view(offsets, "offsets", "i8", 2, std::mem::align_of::<i64>())?;
        let dest = view(out, "out", "i8", 2, std::mem::align_of::<i64>())?;
        if offs.shape[1] != 2 {
            return Err(PyValueError::new_err("offsets must have shape (n, 2)"));
        }
        if dest.readonly || dest.shape != offs.shape {
            return Err(PyValueError::new_err(format!(
                "out must be a writable ({}, 2) array",
                offs.shape[0]
            )));
        }
        let ((s0, s1), (d0, d1)) = (offs.span(8), dest.span(8));
        if d0 < s1 && s0 < d1 {
            return Err(PyValueError::new_err(
                "out must not share memory with offsets",
            ));
        }
        let n = rows_of(&offs);
        detached(py, move || {
            if n == 0 {
                return;
            }
            // SAFETY: both views were checked by `view` (int64, C-contiguous, aligned, shape
            // (n, 2)); the arrays are kept alive by the caller's references; `out` is
            // writable and does not overlap `offsets` (checked above). `[i64; 2]` has the
            // layout and alignment of two consecutive `i64`s.
            let pairs: &[[i64; 2]] =
                unsafe { std::slice::from_raw_parts(offs.address as *const [i64; 2], n) };
            let dst: &mut [[i64; 2]] =
                unsafe { std::slice::from_raw_parts_mut(dest.address as *mut [i64; 2], n) };
            dst.copy_from_slice(&late::char_offsets(text, pairs));
        })
    })
}
