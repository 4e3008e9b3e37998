//! Byte-pair merging of one piece, with exactly tiktoken's result.
//!
//! tiktoken (`byte_pair_merge` in its `src/lib.rs`) starts from single bytes and repeatedly merges
//! the adjacent pair whose concatenation has the lowest rank, the leftmost one on ties, until no
//! adjacent concatenation is a token. Two implementations of that same rule live here:
//! - [`merge_small`]: a linear scan for the minimum over a flat array on the stack, for pieces
//!   of at most [`SMALL`] bytes. Quadratic, but with tiny constants: the scan is one vectorised
//!   `min` over packed `(rank, start)` keys.
//! - [`merge_heap`]: a min-heap of `(rank, position)` over a linked list, `O(n log n)`, for long
//!   pieces (a run of CJK letters, a long word, a pathological input), so no input is quadratic.
//!
//! Both produce the list of part boundaries; counting only needs how many parts remain.

use super::vocab::Vocab;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Pieces up to this many bytes merge on the stack (see the measurement in `mod.rs`).
pub(crate) const SMALL: usize = 128;

const NONE: u32 = u32::MAX;

/// Bits of a part's start byte in a merge key (`SMALL` = 128 bytes: starts are 0..=127).
const POS_BITS: u32 = 7;
const POS_MASK: u32 = (1 << POS_BITS) - 1;
/// No link: a part with no left neighbour.
const NO_PART: u8 = u8::MAX;

/// The merge key of the part starting at `start` whose pair with its neighbour has rank `rank`.
#[inline(always)]
fn key_of(rank: u32, start: usize) -> u32 {
    // Ranks of both encodings are below 2^25 - 1, so a real key is never `NONE`.
    if rank >= NONE >> POS_BITS {
        NONE
    } else {
        rank << POS_BITS | start as u32
    }
}

/// The merge key of the part `piece[a..]` whose pair with its neighbour ends at `b`. Always
/// inlined: as a closure it was an out-of-line call on the hottest path of long merges.
#[inline(always)]
fn span_key(vocab: &Vocab, piece: &[u8], a: usize, b: usize) -> u32 {
    key_of(
        piece.get(a..b).and_then(|s| vocab.rank(s)).unwrap_or(NONE),
        a,
    )
}

/// Merges `piece` (`2..M` bytes, `M <= SMALL + 1`), writing the start of each final part into
/// `starts` and returning how many parts there are.
///
/// Parts stay where they started: `key[k]` belongs to the part starting at byte `k` and packs
/// the rank of that part merged with its right neighbour above the start itself
/// (`rank << 7 | k`; `u32::MAX` when there is no such token, or no part starts at `k`). So one
/// `min` over the keys is tiktoken's choice, lowest rank then leftmost, and it is a branch-free
/// reduction the compiler vectorises; merging moves nothing but two links. (The first version
/// kept the parts compacted and scanned for the minimum with a branch: with the `memmove`s it
/// was 40% of counting Chinese text, whose letter runs are 25..128-byte pieces.)
#[inline]
pub(crate) fn merge_small<const M: usize>(
    vocab: &Vocab,
    piece: &[u8],
    starts: &mut [u32; M],
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: `merge_small_avx2` only needs AVX2, which this CPU has (checked just above).
        return unsafe { merge_small_avx2(vocab, piece, starts) };
    }
    merge_small_with(vocab, piece, starts)
}

/// [`merge_small`] without the AVX2 build, whatever the CPU: the tests check both paths.
#[cfg(test)]
pub(crate) fn merge_small_baseline<const M: usize>(
    vocab: &Vocab,
    piece: &[u8],
    starts: &mut [u32; M],
) -> usize {
    merge_small_with(vocab, piece, starts)
}

/// [`merge_small`] compiled for AVX2, where the minimum of eight keys is one `vpminud` (SSE2,
/// the x86-64 baseline, has no unsigned 32-bit minimum, and LLVM leaves the loop scalar).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn merge_small_avx2<const M: usize>(
    vocab: &Vocab,
    piece: &[u8],
    starts: &mut [u32; M],
) -> usize {
    merge_small_with(vocab, piece, starts)
}

/// The smallest key. A plain fold: with AVX2 enabled LLVM turns it into `vpminud`s over
/// 32 keys per iteration (hand-written eight-lane accumulators came out transposed and slower).
#[inline(always)]
fn min_key(keys: &[u32]) -> u32 {
    keys.iter().fold(NONE, |a, &b| a.min(b))
}

#[inline(always)]
fn merge_small_with<const M: usize>(vocab: &Vocab, piece: &[u8], starts: &mut [u32; M]) -> usize {
    let n = piece.len().min(M - 1).min(SMALL);
    let piece = &piece[..n];
    let mut keys = [NONE; M];
    // next[k] / prev[k]: start of the part after / before the part starting at `k`.
    let mut next = [0u8; M];
    let mut prev = [NO_PART; M];
    for k in 0..n {
        next[k] = (k + 1) as u8;
        if k > 0 {
            prev[k] = (k - 1) as u8;
        }
    }
    for (k, w) in piece.windows(2).enumerate() {
        keys[k] = key_of(vocab.rank2(w[0], w[1]), k);
    }
    let mut m = n;
    // Keys past `n - 2` stay `NONE`, so the scan may round up to whole lanes.
    let lanes = (n.saturating_sub(1).div_ceil(8) * 8).min(M / 8 * 8);
    loop {
        let best = min_key(keys.get(..lanes).unwrap_or_default());
        if best == NONE {
            break;
        }
        let at = (best & POS_MASK) as usize;
        // Absorb the part at `j` into the part at `at`.
        let j = next[at] as usize;
        let after = next[j] as usize;
        next[at] = after as u8;
        if after < n {
            prev[after] = at as u8;
        }
        if let Some(k) = keys.get_mut(j) {
            *k = NONE;
        }
        m -= 1;
        let right = if after < n {
            span_key(vocab, piece, at, next[after] as usize)
        } else {
            NONE
        };
        if let Some(k) = keys.get_mut(at) {
            *k = right;
        }
        let p = prev[at] as usize;
        if let Some(k) = keys.get_mut(p) {
            *k = span_key(vocab, piece, p, after);
        }
    }
    let mut k = 0usize;
    for s in starts.iter_mut().take(m) {
        *s = k as u32;
        k = next[k] as usize;
    }
    m
}

/// Merges `piece` (any length >= 2) with a heap; appends the start of each final part to `out`.
pub(crate) fn merge_heap(vocab: &Vocab, piece: &[u8], out: &mut Vec<u32>) {
    let n = piece.len();
    // Part k starts at byte k initially; linked list over part starts (n = end sentinel).
    let mut next: Vec<u32> = (1..=n as u32).collect();
    let mut prev: Vec<u32> = (0..n as u32).map(|k| k.wrapping_sub(1)).collect();
    let mut alive = vec![true; n];
    // rank[k]: rank of part k merged with its successor (NONE if none / not a token).
    let mut rank = vec![NONE; n];
    let mut heap = BinaryHeap::with_capacity(n);
    for (k, w) in piece.windows(2).enumerate() {
        let r = vocab.rank2(w[0], w[1]);
        if r != NONE {
            rank[k] = r;
            heap.push(Reverse((r, k as u32)));
        }
    }
    let end_of =
        |next: &[u32], k: u32| -> u32 { next.get(k as usize).copied().unwrap_or(n as u32) };
    // Rank of part `k` merged with its successor, given the current list.
    let pair_rank = |next: &[u32], k: u32| -> u32 {
        let j = end_of(next, k);
        if j as usize >= n {
            return NONE;
        }
        let e = end_of(next, j);
        vocab.rank(&piece[k as usize..e as usize]).unwrap_or(NONE)
    };
    // A heap entry is current iff its part is alive and its rank is the part's current pair rank
    // (a part's pair only ever grows, so an old entry's bytes, hence rank, differ from the new).
    // Popping the minimum `(rank, start)` is tiktoken's "lowest rank, leftmost on ties".
    while let Some(Reverse((r, k))) = heap.pop() {
        let ku = k as usize;
        if !alive[ku] || rank[ku] != r {
            continue;
        }
        let j = next[ku] as usize;
        // Absorb part j into part k.
        alive[j] = false;
        let after = next[j];
        next[ku] = after;
        if (after as usize) < n {
            prev[after as usize] = k;
        }
        rank[ku] = pair_rank(&next, k);
        if rank[ku] != NONE {
            heap.push(Reverse((rank[ku], k)));
        }
        let p = prev[ku];
        if p != NONE {
            rank[p as usize] = pair_rank(&next, p);
            if rank[p as usize] != NONE {
                heap.push(Reverse((rank[p as usize], p)));
            }
        }
    }
    let mut k = 0usize;
    while k < n {
        out.push(k as u32);
        k = next[k] as usize;
    }
}
