//! The overlap every family adds: the tail of the previous chunk, cut at a code point, and the
//! threshold the percentage scales.

use crate::ragflow::positions::remove_tag;

use super::MergeOptions;

/// RAGFlow's overlap prefix, pushed onto `dst`: the tail of `remove_tag(prev)` starting at
/// code point `int(len(v) * (100 - p) / 100.0)`, with Python slice rules for the start index
/// (a negative start, from `p > 100`, counts from the end; beyond the end gives `""`).
///
/// The float arithmetic is Python's: `len * (100 - p)` then `/ 100.0`, truncated toward zero.
/// A NaN percentage (Python would raise) gives an empty prefix.
pub(super) fn push_overlap_prefix(dst: &mut String, prev: &str, p: f64) {
    let v = remove_tag(prev);
    if v.is_empty() {
        return;
    }
    let n = v.chars().count();
    let x = (n as f64) * (100.0 - p) / 100.0;
    if x.is_nan() {
        return;
    }
    let mut start = x.trunc();
    if start < 0.0 {
        start += n as f64;
        if start < 0.0 {
            start = 0.0;
        }
    }
    if start >= n as f64 {
        return;
    }
    let take = n - start as usize; // 1..=n code points from the end
    let off = v.char_indices().rev().nth(take - 1).map_or(0, |(i, _)| i);
    dst.push_str(&v[off..]);
}

/// The threshold every family compares running counts against:
/// `chunk_token_num * (100 - overlapped_percent) / 100.0`, evaluated in Python's order.
pub(super) fn threshold(opts: &MergeOptions<'_>) -> f64 {
    opts.chunk_token_num * (100.0 - opts.overlapped_percent) / 100.0
}
