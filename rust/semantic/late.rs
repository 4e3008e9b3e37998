//! Late chunking in one pass: the token offsets checked, the zero-width (special) tokens left
//! out, the rest ordered by start, and the mean of the vectors of the tokens overlapping each
//! chunk's character span written straight into the caller's output matrix.
//!
//! A token `[ts, te)` belongs to a chunk `[cs, ce)` when `te > ts && ts < ce && te > cs`. Sums
//! are accumulated in f64 in token order (tokens ordered by start, ties in input order) and
//! the mean (optionally scaled to unit length, in f64) is stored as f32.
//!
//! Only the vectors of tokens that fall in some chunk are read; a NaN or infinite value among
//! them is an error naming the token's row (found from the chunk's non-finite sum, so
//! checking costs nothing on finite input).
//!
//! Also here: UTF-8 byte offsets to code-point offsets, for tokenizers that report bytes.

use super::Matrix;

/// Why late pooling could not be done; each names the offending index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LateError {
    /// `offsets[index]` lies outside `0..=text_len` or ends before it starts.
    TokenOutside { index: usize, start: i64, end: i64 },
    /// `chunks[index]` lies outside `0..=text_len` or ends before it starts.
    ChunkOutside { index: usize, start: i64, end: i64 },
    /// No token overlaps `chunks[index]`.
    EmptyChunk { index: usize, start: i64, end: i64 },
    /// A vector pooled into a chunk holds NaN or an infinity (`row` is its token's index).
    NonFinite { row: usize },
    /// The shapes do not agree (a message for the caller).
    Shape(String),
}

impl std::fmt::Display for LateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LateError::TokenOutside { index, start, end } => write!(
                f,
                "token_embedder's offsets[{index}] = ({start}, {end}) is outside the text"
            ),
            LateError::ChunkOutside { index, start, end } => {
                write!(
                    f,
                    "chunks[{index}] span ({start}, {end}) is outside the text"
                )
            }
            LateError::EmptyChunk { index, start, end } => {
                write!(f, "chunks[{index}] span ({start}, {end}) holds no token")
            }
            LateError::NonFinite { row } => write!(
                f,
                "token_embedder's vectors holds NaN or infinite values (row {row})"
            ),
            LateError::Shape(msg) => f.write_str(msg),
        }
    }
}

/// The non-empty tokens, as `(start, end, row)` ordered by start (ties in row order).
fn ordered_tokens(tokens: &[[i64; 2]], text_len: i64) -> Result<Vec<(i64, i64, usize)>, LateError> {
    let mut kept = Vec::with_capacity(tokens.len());
    let mut sorted = true;
    let mut last = i64::MIN;
    for (index, &[start, end]) in tokens.iter().enumerate() {
        if !(0 <= start && start <= end && end <= text_len) {
            return Err(LateError::TokenOutside { index, start, end });
        }
        if end > start {
            sorted &= start >= last;
            last = start;
            kept.push((start, end, index));
        }
    }
    if !sorted {
        // stable: ties keep their input order
        kept.sort_by_key(|&(s, _, _)| s);
    }
    Ok(kept)
}

/// Mean-pools `m` (one row per token) over each chunk span into `out` (`chunks x dim`,
/// row-major). `tokens[i]` is the code-point range of row `i`; `text_len` is the text's
/// length in code points.
pub fn late_pool(
    m: &Matrix<'_>,
    tokens: &[[i64; 2]],
    chunks: &[[i64; 2]],
    text_len: usize,
    normalize: bool,
    out: &mut [f32],
) -> Result<(), LateError> {
    if tokens.len() != m.rows {
        return Err(LateError::Shape(format!(
            "token_embedder returned {} vectors for {} offsets",
            m.rows,
            tokens.len()
        )));
    }
    if out.len() != chunks.len() * m.dim {
        return Err(LateError::Shape(format!(
            "output holds {} values, not {} x {}",
            out.len(),
            chunks.len(),
            m.dim
        )));
    }
    let text_len = i64::try_from(text_len).unwrap_or(i64::MAX);
    for (index, &[start, end]) in chunks.iter().enumerate() {
        if !(0 <= start && start <= end && end <= text_len) {
            return Err(LateError::ChunkOutside { index, start, end });
        }
    }
    let toks = ordered_tokens(tokens, text_len)?;
    // running maximum of the ends: the first token that can reach past a chunk's start is
    // found by binary search even when tokens nest
    let mut reach = Vec::with_capacity(toks.len());
    let mut hi_end = i64::MIN;
    for &(_, e, _) in &toks {
        hi_end = hi_end.max(e);
        reach.push(hi_end);
    }
    let dim = m.dim;
    if dim == 0 || chunks.is_empty() {
        return Ok(());
    }
    let job = Pooling {
        m,
        toks: &toks,
        reach: &reach,
        normalize,
    };
    // Reading the token vectors is the cost (memory bandwidth once they outgrow the caches):
    // large inputs pool groups of chunks on the batch pool's threads, small ones inline.
    let rows_read: usize = chunks.len().saturating_add(toks.len());
    let threads = if rows_read.saturating_mul(dim) >= PARALLEL_FROM {
        crate::batch::threads(None).unwrap_or(1).min(chunks.len())
    } else {
        1
    };
    if threads <= 1 {
        let mut acc = vec![0.0f64; dim];
        for (index, (span, row_out)) in chunks.iter().zip(out.chunks_exact_mut(dim)).enumerate() {
            job.pool_one(index, *span, &mut acc, row_out)?;
        }
        return Ok(());
    }
    let per = chunks.len().div_ceil(threads);
    let groups: Vec<usize> = (0..chunks.len()).step_by(per).collect();
    let pooled = crate::batch::par_map(&groups, None, |&first| {
        let last = (first + per).min(chunks.len());
        let mut acc = vec![0.0f64; dim];
        let mut rows = vec![0.0f32; (last - first) * dim];
        for ((index, span), row_out) in (first..last)
            .zip(&chunks[first..last])
            .zip(rows.chunks_exact_mut(dim))
        {
            job.pool_one(index, *span, &mut acc, row_out)?;
        }
        Ok(rows)
    })
    .map_err(|e| LateError::Shape(e.to_string()))?;
    // groups in chunk order: the first error met is the one the serial loop would report
    for (first, rows) in groups.iter().zip(pooled) {
        let rows = rows?;
        out[first * dim..first * dim + rows.len()].copy_from_slice(&rows);
    }
    Ok(())
}

/// Vector elements read (rows x dim) from which pooling is spread over threads.
const PARALLEL_FROM: usize = 1 << 21;

/// What pooling one chunk reads: the vectors, the kept tokens ordered by start (start, end,
/// row) and the running maximum of their ends.
struct Pooling<'a> {
    m: &'a Matrix<'a>,
    toks: &'a [(i64, i64, usize)],
    reach: &'a [i64],
    normalize: bool,
}

impl Pooling<'_> {
    /// Writes chunk `index` (`[cs, ce)`) into `row_out`, summing into `acc` (f64, in token
    /// order).
    fn pool_one(
        &self,
        index: usize,
        [cs, ce]: [i64; 2],
        acc: &mut [f64],
        row_out: &mut [f32],
    ) -> Result<(), LateError> {
        let (m, toks) = (self.m, self.toks);
        let lo = self.reach.partition_point(|&e| e <= cs);
        let hi = toks.partition_point(|&(s, _, _)| s < ce);
        acc.iter_mut().for_each(|a| *a = 0.0);
        let mut count = 0usize;
        for &(ts, te, row) in toks.get(lo..hi.max(lo)).unwrap_or(&[]) {
            if ts < ce && te > cs {
                for (a, v) in acc.iter_mut().zip(m.row(row)) {
                    *a += f64::from(*v);
                }
                count += 1;
            }
        }
        if count == 0 {
            return Err(LateError::EmptyChunk {
                index,
                start: cs,
                end: ce,
            });
        }
        if !acc.iter().all(|a| a.is_finite()) {
            // name the first token of this chunk whose vector is not finite
            let row = toks[lo..hi.max(lo)]
                .iter()
                .filter(|&&(ts, te, _)| ts < ce && te > cs)
                .map(|&(_, _, row)| row)
                .find(|&row| !m.row(row).iter().all(|v| v.is_finite()))
                .unwrap_or(0);
            return Err(LateError::NonFinite { row });
        }
        let n = count as f64;
        let mut scale = 1.0 / n;
        if self.normalize {
            let norm = acc.iter().map(|a| (a / n) * (a / n)).sum::<f64>().sqrt();
            scale /= norm;
        }
        for (o, a) in row_out.iter_mut().zip(acc.iter()) {
            *o = (a * scale) as f32;
        }
        Ok(())
    }
}

/// UTF-8 byte offsets of `text` as code-point offsets: a start inside a character maps to
/// that character, an end inside one to the end of the character (an offset past the text
/// maps past its last character).
pub fn char_offsets(text: &str, byte_offsets: &[[i64; 2]]) -> Vec<[i64; 2]> {
    // starts[i] = byte offset of character i; starts[n] = text.len()
    let mut starts: Vec<i64> = text.char_indices().map(|(b, _)| b as i64).collect();
    starts.push(text.len() as i64);
    let to_char = |b: i64, end: bool| -> i64 {
        let i = starts.partition_point(|&s| s < b);
        if (i < starts.len() && starts[i] == b) || end {
            i as i64
        } else {
            i as i64 - 1
        }
    };
    byte_offsets
        .iter()
        .map(|&[s, e]| [to_char(s, false), to_char(e, true)])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(
        data: &[f32],
        dim: usize,
        tokens: &[[i64; 2]],
        chunks: &[[i64; 2]],
        text_len: usize,
        normalize: bool,
    ) -> Result<Vec<f32>, LateError> {
        let m = Matrix::new(data, tokens.len(), dim).unwrap();
        let mut out = vec![0.0f32; chunks.len() * dim];
        late_pool(&m, tokens, chunks, text_len, normalize, &mut out).map(|()| out)
    }

    #[test]
    fn threaded_pooling_matches_the_serial_sums() {
        // enough rows x dim to cross PARALLEL_FROM; every chunk's mean checked against
        // a plain f64 sum, and the first failing chunk is still the one reported
        let (rows, dim) = (4096usize, 640usize);
        assert!(rows * dim >= PARALLEL_FROM);
        let data: Vec<f32> = (0..rows * dim)
            .map(|i| ((i * 37) % 101) as f32 - 50.0)
            .collect();
        let toks: Vec<[i64; 2]> = (0..rows as i64).map(|i| [i, i + 1]).collect();
        let chunks: Vec<[i64; 2]> = (0..rows as i64)
            .step_by(100)
            .map(|s| [s, (s + 100).min(rows as i64)])
            .collect();
        let out = pool(&data, dim, &toks, &chunks, rows, false).unwrap();
        for (k, &[cs, ce]) in chunks.iter().enumerate() {
            for d in [0, dim / 2, dim - 1] {
                let sum: f64 = (cs..ce)
                    .map(|r| f64::from(data[r as usize * dim + d]))
                    .sum();
                assert_eq!(out[k * dim + d], (sum / (ce - cs) as f64) as f32);
            }
        }
        let mut bad = chunks.clone();
        bad[30] = [rows as i64, rows as i64];
        bad[10] = [5, 5];
        let e = pool(&data, dim, &toks, &bad, rows, false).unwrap_err();
        assert_eq!(e.to_string(), "chunks[10] span (5, 5) holds no token");
    }

    #[test]
    fn special_tokens_are_left_out() {
        let data = [100.0, 100.0, 1.0, 0.0, 3.0, 0.0, 0.0, 5.0, -100.0, -100.0];
        let toks = [[0, 0], [0, 2], [3, 5], [6, 8], [0, 0]];
        let out = pool(&data, 2, &toks, &[[0, 6], [6, 8]], 8, false).unwrap();
        assert_eq!(out, vec![2.0, 0.0, 0.0, 5.0]);
    }

    #[test]
    fn straddling_token_counts_in_both() {
        let data = [1.0, 3.0, 5.0];
        let out = pool(
            &data,
            1,
            &[[0, 2], [2, 6], [6, 8]],
            &[[0, 4], [4, 8]],
            8,
            false,
        )
        .unwrap();
        assert_eq!(out, vec![2.0, 4.0]);
    }

    #[test]
    fn unsorted_and_nested_tokens() {
        // a long token [0, 10) listed last, and tokens out of order
        let data = [2.0, 1.0, 9.0];
        let toks = [[5, 6], [0, 1], [0, 10]];
        let out = pool(&data, 1, &toks, &[[7, 8], [0, 6]], 10, false).unwrap();
        assert_eq!(out, vec![9.0, 4.0]);
    }

    #[test]
    fn normalized_rows_have_unit_length() {
        let out = pool(&[3.0, 4.0], 2, &[[0, 1]], &[[0, 1]], 1, true).unwrap();
        assert_eq!(out, vec![0.6, 0.8]);
    }

    #[test]
    fn errors_name_the_index() {
        let e = pool(&[1.0], 1, &[[0, 1]], &[[0, 1], [1, 1]], 1, false).unwrap_err();
        assert_eq!(e.to_string(), "chunks[1] span (1, 1) holds no token");
        let e = pool(&[1.0], 1, &[[0, 3]], &[[0, 1]], 2, false).unwrap_err();
        assert_eq!(
            e,
            LateError::TokenOutside {
                index: 0,
                start: 0,
                end: 3
            }
        );
        let e = pool(&[1.0], 1, &[[0, 1]], &[[2, 1]], 2, false).unwrap_err();
        assert!(matches!(e, LateError::ChunkOutside { index: 0, .. }));
        let m = Matrix::new(&[1.0], 1, 1).unwrap();
        assert!(late_pool(&m, &[], &[], 1, false, &mut []).is_err());
    }

    #[test]
    fn non_finite_vectors_are_named() {
        let data = [1.0, f32::NAN, 2.0];
        let e = pool(
            &data,
            1,
            &[[0, 1], [1, 2], [2, 3]],
            &[[0, 1], [1, 3]],
            3,
            false,
        );
        assert_eq!(e.unwrap_err(), LateError::NonFinite { row: 1 });
        // a vector in no chunk is not read
        let out = pool(&data, 1, &[[0, 1], [0, 0], [2, 3]], &[[0, 3]], 3, false).unwrap();
        assert_eq!(out, vec![1.5]);
    }

    #[test]
    fn byte_offsets_to_chars() {
        let text = "é🦀x";
        assert_eq!(
            char_offsets(text, &[[0, 2], [2, 6], [6, 7], [1, 3]]),
            vec![[0, 1], [1, 2], [2, 3], [0, 2]]
        );
        assert_eq!(char_offsets("ab", &[[0, 5]]), vec![[0, 3]]);
    }
}
