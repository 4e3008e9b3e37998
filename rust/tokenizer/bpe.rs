//! Byte-pair merging of one piece, with exactly tiktoken's result.
//!
//! tiktoken (`byte_pair_merge` in its `src/lib.rs`) starts from single bytes and repeatedly merges
//! the adjacent pair whose concatenation has the lowest rank, the leftmost one on ties, until no
//! adjacent concatenation is a token. Two implementations of that same rule live here:
//! - [`merge_small`]: tiktoken's own shape (a flat array, linear scan for the minimum), on the
//!   stack, for pieces of at most [`SMALL`] bytes. Quadratic, but with tiny constants.
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

/// Rank of `piece[a..b]` (`NONE` if not a token). Always inlined: as a closure it was an
/// out-of-line call on the hottest path of long merges (20% of English counting).
#[inline(always)]
fn span_rank(vocab: &Vocab, piece: &[u8], a: u32, b: u32) -> u32 {
    piece
        .get(a as usize..b as usize)
        .and_then(|s| vocab.rank(s))
        .unwrap_or(NONE)
}

/// Merges `piece` (`2..M` bytes), writing the start of each final part into `starts` and
/// returning how many parts there are.
#[inline]
pub(crate) fn merge_small<const M: usize>(
    vocab: &Vocab,
    piece: &[u8],
    starts: &mut [u32; M],
) -> usize {
    let n = piece.len().min(M - 1);
    let piece = &piece[..n];
    // ranks[k]: rank of the concatenation of part k and part k+1 (NONE if not a token).
    let mut ranks = [NONE; M];
    for (k, s) in starts[..=n].iter_mut().enumerate() {
        *s = k as u32;
    }
    for (r, w) in ranks.iter_mut().zip(piece.windows(2)) {
        *r = vocab.rank2(w[0], w[1]);
    }
    // `m` parts, boundaries starts[0..=m] (starts[m] == n).
    let mut m = n;
    while m > 1 {
        let mut best = NONE;
        let mut at = 0;
        for (k, &r) in ranks[..m - 1].iter().enumerate() {
            if r < best {
                best = r;
                at = k;
            }
        }
        if best == NONE {
            break;
        }
        // Merge parts `at` and `at + 1`: drop boundary `at + 1`.
        starts.copy_within(at + 2..=m, at + 1);
        ranks.copy_within(at + 2..m, at + 1);
        m -= 1;
        ranks[m] = NONE;
        // The merged part with its right neighbour (if any), then its left neighbour with it.
        ranks[at] = if at + 2 <= m {
            span_rank(vocab, piece, starts[at], starts[at + 2])
        } else {
            NONE
        };
        if at > 0 {
            ranks[at - 1] = span_rank(vocab, piece, starts[at - 1], starts[at + 1]);
        }
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
