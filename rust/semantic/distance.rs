//! Cosine distances between consecutive rows (`1 - cos(row i, row i+1)`), accumulated in f64
//! in the order numpy's `dot` and `linalg.norm` use for the short vectors of sentence
//! embeddings, with LangChain's rule for a zero vector (similarity 0, so distance 1).

use super::Matrix;

/// `sum(a[k] * b[k])` in f64, numpy's pairwise order (see [`super::stats::pairwise_sum`]);
/// `products` is scratch space, reused between calls so that no product vector is allocated
/// per pair.
fn dot(a: &[f32], b: &[f32], products: &mut Vec<f64>) -> f64 {
    products.clear();
    products.extend(a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)));
    super::stats::pairwise_sum(products)
}

/// The Euclidean norm of every row in f64.
fn norms(m: &Matrix<'_>, products: &mut Vec<f64>) -> Vec<f64> {
    (0..m.rows)
        .map(|i| dot(m.row(i), m.row(i), products).sqrt())
        .collect()
}

/// `1 - cosine(row i, row i + 1)` for every consecutive pair: `rows - 1` values (none for
/// fewer than two rows). A pair with a zero vector has similarity 0 (distance 1), as
/// LangChain's `cosine_similarity` maps NaN and infinity to 0.
pub fn consecutive_cosine(m: &Matrix<'_>) -> Vec<f64> {
    let mut products = Vec::with_capacity(m.dim);
    let norms = norms(m, &mut products);
    (1..m.rows)
        .map(|i| {
            let sim = dot(m.row(i - 1), m.row(i), &mut products) / (norms[i - 1] * norms[i]);
            1.0 - if sim.is_finite() { sim } else { 0.0 }
        })
        .collect()
}

/// The full `rows x rows` cosine similarity matrix (row-major), for the clustering chunker.
pub fn cosine_matrix(m: &Matrix<'_>) -> Vec<f64> {
    let mut products = Vec::with_capacity(m.dim);
    let norms = norms(m, &mut products);
    let mut out = vec![0.0; m.rows * m.rows];
    for i in 0..m.rows {
        for j in i..m.rows {
            let sim = dot(m.row(i), m.row(j), &mut products) / (norms[i] * norms[j]);
            let sim = if sim.is_finite() { sim } else { 0.0 };
            out[i * m.rows + j] = sim;
            out[j * m.rows + i] = sim;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_of_known_vectors() {
        let data = [1.0f32, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0];
        let m = Matrix::new(&data, 4, 2).unwrap();
        let d = consecutive_cosine(&m);
        assert_eq!(d, vec![0.0, 1.0, 1.0]); // identical, orthogonal, zero vector
    }

    #[test]
    fn matrix_is_symmetric() {
        let data = [1.0f32, 1.0, 1.0, 0.0];
        let m = Matrix::new(&data, 2, 2).unwrap();
        let s = cosine_matrix(&m);
        assert_eq!(s[1], s[2]);
        assert!((s[1] - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-12);
    }
}
