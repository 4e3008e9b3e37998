//! Late chunking's pooling: which tokens fall inside each chunk's character span, and the mean
//! of their vectors.
//!
//! A token belongs to a chunk when its character range `[ts, te)` overlaps the chunk's
//! `[cs, ce)` (`ts < ce && te > cs`); zero-width tokens (special tokens, whose offsets are
//! `(0, 0)`) belong to no chunk. A chunk no token overlaps gets a row of NaN, which the facade
//! reports.

use super::Matrix;

/// For each chunk span, the half-open range of token indices that may overlap it (tokens
/// sorted by start, as a tokenizer's are): from the first token ending after the chunk's start
/// to the last starting before its end. Zero-width tokens inside the range are skipped by the
/// pooling.
pub fn token_ranges(tokens: &[(usize, usize)], chunks: &[(usize, usize)]) -> Vec<(usize, usize)> {
    chunks
        .iter()
        .map(|&(cs, ce)| {
            let hi = tokens.partition_point(|&(ts, _)| ts < ce);
            let mut lo = tokens.partition_point(|&(ts, _)| ts < cs);
            // tokens starting before the chunk may still reach into it
            while lo > 0 && (tokens[lo - 1].1 > cs || tokens[lo - 1].0 == tokens[lo - 1].1) {
                lo -= 1;
            }
            (lo, hi.max(lo))
        })
        .collect()
}

/// The mean of the token vectors of each chunk (`chunks x dim`, row-major, f64 accumulation,
/// stored as f32); zero-width tokens skipped; NaN rows for chunks without tokens.
pub fn mean_pool(m: &Matrix<'_>, tokens: &[(usize, usize)], chunks: &[(usize, usize)]) -> Vec<f32> {
    let ranges = token_ranges(tokens, chunks);
    let mut out = Vec::with_capacity(chunks.len() * m.dim);
    let mut acc = vec![0.0f64; m.dim];
    for (&(lo, hi), &(cs, ce)) in ranges.iter().zip(chunks) {
        acc.iter_mut().for_each(|a| *a = 0.0);
        let mut count = 0usize;
        for (t, &(ts, te)) in tokens.iter().enumerate().take(hi).skip(lo) {
            if te > ts && ts < ce && te > cs {
                for (a, v) in acc.iter_mut().zip(m.row(t)) {
                    *a += f64::from(*v);
                }
                count += 1;
            }
        }
        if count == 0 {
            out.extend(std::iter::repeat(f32::NAN).take(m.dim));
        } else {
            out.extend(acc.iter().map(|a| (a / count as f64) as f32));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_overlapping_tokens() {
        // tokens: [0,2) [2,5) [5,6) and a special token (0,0) at the front
        let tokens = [(0, 0), (0, 2), (2, 5), (5, 6)];
        let data = [9.0f32, 9.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let m = Matrix::new(&data, 4, 2).unwrap();
        let pooled = mean_pool(&m, &tokens, &[(0, 3), (5, 6), (6, 6)]);
        assert_eq!(&pooled[..4], &[2.0, 3.0, 5.0, 6.0]);
        assert!(pooled[4].is_nan());
    }
}
