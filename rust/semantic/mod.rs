//! The numeric core of the embedding-driven chunkers: distances between consecutive rows of a
//! float32 matrix, the threshold statistics (equal to numpy's `percentile`, `mean`, `std` and
//! `gradient` bit for bit), and mean pooling of token vectors over character spans.
//!
//! Everything is plain Rust over slices; the bindings (`rust/python/semantic.rs`) release the
//! GIL around it. The fallback (`python/ragchunk/_pure/semantic/`) computes the same values
//! with numpy.

pub mod distance;
pub mod late;
pub mod pool;
pub mod sentences;
pub mod stats;

/// A row-major matrix of `rows x dim` float32 values, borrowed.
#[derive(Clone, Copy, Debug)]
pub struct Matrix<'a> {
    pub data: &'a [f32],
    pub rows: usize,
    pub dim: usize,
}

impl<'a> Matrix<'a> {
    /// The matrix, or `None` when `data.len() != rows * dim`.
    pub fn new(data: &'a [f32], rows: usize, dim: usize) -> Option<Self> {
        (rows.checked_mul(dim)? == data.len()).then_some(Matrix { data, rows, dim })
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &'a [f32] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }
}

/// Little-endian float32 bytes as values (the bindings receive `ndarray.tobytes()`).
pub fn f32_from_le_bytes(bytes: &[u8]) -> Option<Vec<f32>> {
    if bytes.len() % 4 != 0 {
        return None;
    }
    Some(
        bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_shape_is_checked() {
        let data = [1.0f32, 2.0, 3.0, 4.0];
        assert!(Matrix::new(&data, 2, 2).is_some());
        assert!(Matrix::new(&data, 3, 2).is_none());
        assert_eq!(Matrix::new(&data, 2, 2).unwrap().row(1), &[3.0, 4.0]);
    }

    #[test]
    fn bytes_round_trip() {
        let bytes: Vec<u8> = [1.5f32, -2.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        assert_eq!(f32_from_le_bytes(&bytes).unwrap(), vec![1.5, -2.0]);
        assert!(f32_from_le_bytes(&bytes[..3]).is_none());
    }
}
