//! Linear-time byte-pair encoding of long pieces, with exactly tiktoken's result.
//!
//! tiktoken's rule (repeatedly merge the lowest-ranked adjacent pair, leftmost on ties) costs
//! `O(n log n)` with a heap over the whole piece, and its constant is large: a 10 MB run of one
//! letter (one pretokenizer piece) counted at ~1.3 MB/s. This module finds the same tokens
//! left to right instead, by the characterisation behind GitHub's `bpe` crate:
//!
//! * **Compatible pairs.** Two tokens `a b` are *compatible* when the byte-pair encoding of
//!   their bytes side by side is exactly `[a, b]`. Whether they are follows from the merge
//!   trees alone ([`Backtrack::compatible`]): merging `a`'s bytes and `b`'s bytes next to each
//!   other goes through each side's own merges, in rank order, until a pair *across* the seam
//!   has a lower rank than the next merge of either side. Walking the two trees down from the
//!   top, the part of `a` that touches the seam and the part of `b` that touches it exist
//!   together for a known interval of "time" (ranks); the pair is incompatible iff the seam's
//!   concatenation is a token whose rank falls inside one of those intervals (the tie with a
//!   merge on the left side goes to the left, leftmost on ties, and to the seam against the
//!   right side).
//! * **Uniqueness.** A sequence of tokens whose neighbours are all compatible *is* the BPE
//!   encoding of its bytes, and so it is unique; each prefix of it is the encoding of that
//!   prefix of the text.
//!
//! So the encoder walks left to right, taking at each position the longest token that starts
//! there and is compatible with the token before it, trying shorter prefixes of it next, and
//! backing up one token when none fits. By uniqueness, the valid encoding of a prefix that ends
//! at a position is unique, so a position that once failed fails forever and is never entered
//! again ([`Backtrack::starts`]'s `dead` set): each position is left at most once, which keeps
//! the walk linear in practice.
//!
//! Only *reachable* tokens take part: those whose own bytes encode to themselves (a vocabulary
//! entry that BPE can never produce is never part of an encoding). Their merge trees (the last
//! merge of each token's own encoding) and "the next shorter token that is a prefix" are built
//! once per encoding, on the first long piece. The property tests in `tests.rs` compare this
//! encoder with the heap merge on many random long pieces.

use aho_corasick::{AhoCorasick, AhoCorasickKind, Anchored, Input, MatchKind, StartKind};

use super::vocab::Vocab;

const NONE: u32 = u32::MAX;

/// The tables of one encoding, built from its vocabulary.
pub(crate) struct Backtrack {
    /// Every reachable token, for "the longest token that starts here" (anchored searches).
    finder: AhoCorasick,
    /// Rank of each pattern of `finder`.
    pattern_rank: Vec<u32>,
    /// By rank: the two tokens the last merge of the token's own encoding joined (`NONE` for
    /// single bytes and unreachable ranks).
    split: Vec<(u32, u32)>,
    /// By rank: the longest reachable token that is a proper prefix of this one (`NONE` for
    /// single bytes).
    shorter: Vec<u32>,
    /// By rank: the token's length in bytes (0 for unused ranks).
    len: Vec<u16>,
}

/// The byte-pair encoding of a short `bytes` (a token's own bytes), by the plain rule, and the
/// last merge: `(parts, Some((left, right)))`. Quadratic, used only while building the tables.
fn merge_recording(vocab: &Vocab, bytes: &[u8]) -> (usize, Option<(u32, u32)>) {
    // Parts as byte ranges, in order.
    let mut ends: Vec<usize> = (1..=bytes.len()).collect();
    let mut last = None;
    loop {
        let mut best: Option<(u32, usize)> = None;
        let mut start = 0;
        for k in 0..ends.len().saturating_sub(1) {
            let (mid, end) = (ends[k], ends[k + 1]);
            if let Some(r) = bytes.get(start..end).and_then(|s| vocab.rank(s)) {
                if best.map_or(true, |(b, _)| r < b) {
                    best = Some((r, k));
                }
            }
            start = mid;
        }
        let Some((_, k)) = best else { break };
        let begin = if k == 0 { 0 } else { ends[k - 1] };
        let left = bytes.get(begin..ends[k]).and_then(|s| vocab.rank(s));
        let right = bytes.get(ends[k]..ends[k + 1]).and_then(|s| vocab.rank(s));
        last = left.zip(right);
        ends.remove(k);
    }
    (ends.len(), last)
}

impl Backtrack {
    /// Builds the tables (a few hundred milliseconds for `o200k_base`).
    pub(crate) fn build(vocab: &Vocab) -> Self {
        let n = vocab.len();
        let mut split = vec![(NONE, NONE); n];
        let mut len = vec![0u16; n];
        let mut reachable = vec![false; n];
        for rank in 0..n as u32 {
            let Some(bytes) = vocab.bytes(rank) else {
                continue;
            };
            len[rank as usize] = bytes.len() as u16;
            if bytes.len() == 1 {
                reachable[rank as usize] = true;
                continue;
            }
            if let (1, Some(parts)) = merge_recording(vocab, bytes) {
                reachable[rank as usize] = true;
                split[rank as usize] = parts;
            }
        }
        let mut shorter = vec![NONE; n];
        for rank in 0..n as u32 {
            let Some(bytes) = vocab.bytes(rank) else {
                continue;
            };
            shorter[rank as usize] = (1..bytes.len())
                .rev()
                .filter_map(|k| vocab.rank(&bytes[..k]))
                .find(|&r| reachable[r as usize])
                .unwrap_or(NONE);
        }
        let pattern_rank: Vec<u32> = (0..n as u32).filter(|&r| reachable[r as usize]).collect();
        let finder = AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .match_kind(MatchKind::LeftmostLongest)
            .start_kind(StartKind::Anchored)
            .build(pattern_rank.iter().filter_map(|&r| vocab.bytes(r)))
            .expect("token automaton builds");
        Backtrack {
            finder,
            pattern_rank,
            split,
            shorter,
            len,
        }
    }

    #[inline(always)]
    fn len_of(&self, t: u32) -> usize {
        self.len.get(t as usize).copied().unwrap_or(0) as usize
    }

    /// The longest reachable token that starts at `at`.
    #[inline]
    fn longest(&self, piece: &[u8], at: usize, max_len: usize) -> u32 {
        let end = piece.len().min(at + max_len);
        let hay = piece.get(at..end).unwrap_or_default();
        let input = Input::new(hay).anchored(Anchored::Yes);
        match self.finder.find(input) {
            Some(m) => self
                .pattern_rank
                .get(m.pattern().as_usize())
                .copied()
                .unwrap_or(NONE),
            None => NONE,
        }
    }

    /// Rank of the token whose bytes are `a`'s then `b`'s, if any.
    #[inline]
    fn joined(&self, vocab: &Vocab, a: u32, b: u32) -> Option<u32> {
        let (la, lb) = (self.len_of(a), self.len_of(b));
        if la + lb > vocab.max_len() || la + lb > 256 {
            return None;
        }
        let mut buf = [0u8; 256];
        buf[..la].copy_from_slice(vocab.bytes(a)?);
        buf[la..la + lb].copy_from_slice(vocab.bytes(b)?);
        vocab.rank(&buf[..la + lb])
    }

    /// Whether BPE of `a`'s bytes followed by `b`'s bytes is exactly `[a, b]`.
    ///
    /// `(a, b)` is the pair of parts that meet at the seam; it exists until the next merge on
    /// either side touches the seam. Going back in time, the later-formed of the two (higher
    /// rank; a single byte exists from the start) is undone first, and the seam part on that
    /// side becomes the inner child of its last merge. While `(a, b)` meet, a token `a + b`
    /// of rank below `limit` would be merged first: the next merge on the left side has rank
    /// `limit` and wins ties (it is further left); on the right side, the seam pair wins ties,
    /// so its bound is the rank plus one.
    pub(crate) fn compatible(&self, vocab: &Vocab, mut a: u32, mut b: u32) -> bool {
        let mut limit = u64::MAX;
        loop {
            if let Some(r) = self.joined(vocab, a, b) {
                if (r as u64) < limit {
                    return false;
                }
            }
            let sa = self.split.get(a as usize).copied().unwrap_or((NONE, NONE));
            let sb = self.split.get(b as usize).copied().unwrap_or((NONE, NONE));
            let a_leaf = sa.1 == NONE;
            let b_leaf = sb.0 == NONE;
            match (a_leaf, b_leaf) {
                (true, true) => return true,
                (false, true) => {
                    limit = a as u64;
                    a = sa.1;
                }
                (true, false) => {
                    limit = b as u64 + 1;
                    b = sb.0;
                }
                (false, false) if a > b => {
                    limit = a as u64;
                    a = sa.1;
                }
                (false, false) => {
                    limit = b as u64 + 1;
                    b = sb.0;
                }
            }
        }
    }

    /// Appends the start of each token of `piece`'s encoding to `out`. `None` (nothing
    /// appended) if the walk found no encoding, which the characterisation rules out; the
    /// caller then merges the usual way.
    pub(crate) fn starts(&self, vocab: &Vocab, piece: &[u8], out: &mut Vec<u32>) -> Option<()> {
        let n = piece.len();
        let max_len = vocab.max_len();
        // dead[p]: no encoding of the text before `p` ends a token at `p` and continues.
        let mut dead = vec![0u64; n / 64 + 1];
        let is_dead =
            |dead: &[u64], p: usize| dead.get(p / 64).is_some_and(|w| w >> (p % 64) & 1 != 0);
        // Pairs already judged: long pieces repeat them (a letter run, all the same pair).
        let mut judged: rustc_hash::FxHashMap<u64, bool> = Default::default();
        let mut tokens: Vec<u32> = Vec::with_capacity(n / 3 + 1);
        let mut pos = 0usize;
        let mut cand = self.longest(piece, 0, max_len);
        while pos < n {
            if cand != NONE {
                let end = pos + self.len_of(cand);
                let fits = !is_dead(&dead, end)
                    && tokens.last().map_or(true, |&prev| {
                        *judged
                            .entry((prev as u64) << 32 | cand as u64)
                            .or_insert_with(|| self.compatible(vocab, prev, cand))
                    });
                if fits {
                    tokens.push(cand);
                    pos = end;
                    if pos < n {
                        cand = self.longest(piece, pos, max_len);
                    }
                } else {
                    cand = self.shorter.get(cand as usize).copied().unwrap_or(NONE);
                }
            } else {
                if let Some(w) = dead.get_mut(pos / 64) {
                    *w |= 1 << (pos % 64);
                }
                let prev = tokens.pop()?;
                pos -= self.len_of(prev);
                cand = self.shorter.get(prev as usize).copied().unwrap_or(NONE);
            }
        }
        let mut at = 0u32;
        out.reserve(tokens.len());
        for t in tokens {
            out.push(at);
            at += self.len_of(t) as u32;
        }
        Some(())
    }
}
