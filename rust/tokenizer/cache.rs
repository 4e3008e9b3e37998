//! A per-thread memo of how short multi-token pieces, and long ones, split into tokens.
//!
//! Natural text repeats its words: in the benchmark corpus a short piece that is not a single
//! token (and so needs a byte-pair merge) occurs about four times per distinct piece, and
//! `merge_small` was the largest cost of English counting. The memo is a direct-mapped table
//! of the last piece seen per slot, keyed by the **whole** piece (its bytes, length and
//! encoding are compared on every hit), so a hit is exact by construction; a collision only
//! evicts. A slot keeps the piece's token starts as a bit mask (bit `k` set when a token
//! starts at byte `k`), so the same memo serves counting (`count_ones`) and token edges
//! (`TokenWindowSplitter`) at no extra space. Pieces with non-ASCII letters are first cut
//! between the characters no token can join (`Tokenizer::for_each_cut_part`): single
//! characters are counted from a table, and parts of up to 24 bytes come here. Longer parts
//! of 25..=128 bytes rarely repeat and are merged each time; longer ones still (heap-merged) go
//! to a hash map of their own bytes, holding their token starts (see
//! [`PieceCache::get_or_long`]).
//!
//! One table per thread (`thread_local!`), shared by every call on that thread, so that the
//! many short per-paragraph counts of `naive_merge` benefit as much as one whole-text count.
//! `naive_merge` also memoises whole short paragraphs, which repeat more than one would think
//! (see [`PieceCache::paragraph`]).

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
use std::cell::RefCell;

use rustc_hash::FxHashMap;

/// Longest piece memoised, in bytes (the key holds up to three 8-byte words).
pub(crate) const MAX_LEN: usize = 24;

/// log2 of the slot count: 32 Ki slots of 32 bytes, 1 MiB per thread. On a 7.7 MB sample of
/// the corpus, one warm pass took 477M instructions with 8 Ki slots, 469M with 16 Ki, 460M
/// with 32 Ki and 451M with 64 Ki (callgrind); on the whole corpus the wall clock showed no
/// difference between them that this machine's noise could resolve.
const BITS: u32 = 15;

#[derive(Clone, Copy)]
struct Entry {
    key: [u64; 3],
    /// `len | encoding << 8`; 0 marks an empty slot (no encoding has id 0).
    tag: u32,
    /// Token starts: bit `k` set when a token starts at byte `k` (a piece is at most
    /// [`MAX_LEN`] = 24 bytes, so 32 bits hold them all; the count is `mask.count_ones()`).
    mask: u32,
}

const EMPTY: Entry = Entry {
    key: [0; 3],
    tag: 0,
    mask: 0,
};

/// Token starts (byte offsets) of each long piece, by its bytes.
type LongMemo = FxHashMap<Box<[u8]>, Box<[u32]>>;

/// Bytes (keys and starts) kept per encoding and thread before the long memo starts over.
const LONG_BUDGET: usize = 2 << 20;

/// Longest paragraph whose count is memoised, in bytes: what fits in a 128-byte slot beside
/// the tag, length and count.
pub(crate) const PARA_MAX: usize = 120;

/// log2 of the paragraph slot count: 4 Ki slots of 128 bytes, 512 KiB per thread.
const PARA_BITS: u32 = 12;

/// One memoised paragraph count (see [`PieceCache::paragraph`]): two cache lines, aligned,
/// the key's tag and length first, so a lookup that misses reads one line and a paragraph
/// of up to 56 bytes is compared within it.
#[derive(Clone, Copy)]
#[repr(C, align(128))]
struct ParaEntry {
    /// The encoding and counting mode (see [`PieceCache::paragraph`]); 0 marks an empty slot.
    tag: u8,
    len: u8,
    count: u32,
    bytes: [u8; PARA_MAX],
}

const PARA_EMPTY: ParaEntry = ParaEntry {
    tag: 0,
    len: 0,
    count: 0,
    bytes: [0; PARA_MAX],
};

pub(crate) struct PieceCache {
    slots: Box<[Entry]>,
    /// Pieces longer than `bpe::SMALL` (heap-merged), per encoding, with their key bytes.
    long: [(LongMemo, usize); 2],
    /// Counts of whole short paragraphs, by their bytes.
    paras: Box<[ParaEntry]>,
}

#[inline(always)]
fn word(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8)
        .and_then(|w| w.first_chunk::<8>())
        .map_or(0, |c| u64::from_le_bytes(*c))
}

/// The bytes of a 1..=24-byte piece as three words. With the length (in the tag) this is
/// injective: up to 8 bytes are packed zero-padded; longer pieces use (possibly overlapping)
/// loads whose positions depend only on the length.
#[inline(always)]
fn key(piece: &[u8]) -> [u64; 3] {
    let n = piece.len();
    if n <= 8 {
        [super::vocab::pack(piece), 0, 0]
    } else if n <= 16 {
        [word(piece, 0), word(piece, n - 8), 0]
    } else {
        [word(piece, 0), word(piece, 8), word(piece, n - 8)]
    }
}

impl PieceCache {
    fn new() -> Self {
        PieceCache {
            slots: vec![EMPTY; 1 << BITS].into_boxed_slice(),
            long: Default::default(),
            paras: vec![PARA_EMPTY; 1 << PARA_BITS].into_boxed_slice(),
        }
    }

    /// The memo slot of a whole paragraph `text` under `tag` (see [`paragraph`]), or `None`
    /// when the paragraph is empty or longer than [`PARA_MAX`] (never memoised).
    ///
    /// [`paragraph`]: PieceCache::paragraph
    #[inline]
    pub(crate) fn paragraph_slot(tag: u8, text: &[u8]) -> Option<usize> {
        let n = text.len();
        if n == 0 || n > PARA_MAX {
            return None;
        }
        let mut h = (n as u64) ^ u64::from(tag) << 8;
        let mut at = 0;
        while at + 8 <= n {
            h = (h.rotate_left(5) ^ word(text, at)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            at += 8;
        }
        if at < n {
            // The last (partial) word, read as the 8 bytes ending at the end when there are
            // 8, else packed: with the length in `h`, equal keys hash equal.
            let last = if n >= 8 {
                word(text, n - 8)
            } else {
                super::vocab::pack(text)
            };
            h = (h.rotate_left(5) ^ last).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        Some((h >> (64 - PARA_BITS)) as usize)
    }

    /// Asks the CPU to start loading a paragraph slot (from [`paragraph_slot`]) that will be
    /// looked up soon. The table is larger than a core's L2 cache and its slots are hit at
    /// random, so a lookup is a cache miss; `naive_merge` knows its paragraphs in advance
    /// and prefetches a few ahead, so the miss overlaps the counting of the ones before.
    ///
    /// [`paragraph_slot`]: PieceCache::paragraph_slot
    #[inline]
    pub(crate) fn prefetch_paragraph(&self, slot: Option<usize>) {
        #[cfg(target_arch = "x86_64")]
        if let Some(e) = slot.and_then(|s| self.paras.get(s)) {
            // SAFETY: a prefetch is only a hint: it reads nothing into the program and
            // cannot fault, and the pointer is to a live slot anyway.
            unsafe {
                let p = (e as *const ParaEntry).cast::<i8>();
                _mm_prefetch::<_MM_HINT_T0>(p); // both lines of the slot
                _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64));
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = slot;
    }

    /// The count of a whole paragraph `text` under `tag` (an encoding and a way of counting,
    /// never 0; `Tokenizer::each_after_newline` makes it), `slot` being its
    /// [`paragraph_slot`](PieceCache::paragraph_slot). A paragraph of 1..=[`PARA_MAX`]
    /// bytes is looked up by its bytes; on a miss, or when it is longer, `count` computes it
    /// (and gets the memo back for its pieces), and a short one is remembered.
    ///
    /// Documents repeat whole lines: code-fence markers, table rules, headings, list items,
    /// boilerplate. In the benchmark corpus 38% of `naive_merge`'s paragraphs are repeats of
    /// an earlier one; of the repeats, 99% are at most [`PARA_MAX`] bytes long. Like the
    /// piece slots, the table is direct-mapped and a hit compares the whole key (tag, length
    /// and bytes), so it is exact; a collision only evicts.
    #[inline]
    pub(crate) fn paragraph(
        &mut self,
        slot: Option<usize>,
        tag: u8,
        text: &[u8],
        count: impl FnOnce(&mut Self) -> usize,
    ) -> usize {
        let Some(slot) = slot else {
            return count(self);
        };
        let n = text.len();
        if let Some(e) = self.paras.get(slot) {
            if e.tag == tag && usize::from(e.len) == n && e.bytes.get(..n) == Some(text) {
                return e.count as usize;
            }
        }
        let c = count(self);
        if let (Some(e), Ok(count)) = (self.paras.get_mut(slot), u32::try_from(c)) {
            if let Some(dst) = e.bytes.get_mut(..n) {
                dst.copy_from_slice(text);
                e.tag = tag;
                e.len = n as u8;
                e.count = count;
            }
        }
        c
    }

    /// The token starts of a long piece (heap-merged: runs of spaces, table rules, box drawing,
    /// long CJK runs) for encoding `enc` (1 or 2), memoised by its whole bytes, or computed by
    /// `merge` and remembered. Such pieces are 2% of the corpus bytes but cost ~800
    /// instructions per byte to merge, and 3 in 4 of them repeat (572 distinct among 2,145).
    pub(crate) fn get_or_long(
        &mut self,
        enc: u32,
        piece: &[u8],
        merge: impl FnOnce() -> Vec<u32>,
        f: impl FnOnce(&[u32]),
    ) {
        let Some((map, bytes)) = self.long.get_mut(enc as usize - 1) else {
            return f(&merge());
        };
        if let Some(starts) = map.get(piece) {
            return f(starts);
        }
        let starts = merge();
        let size = piece.len() + 4 * starts.len();
        if *bytes + size > LONG_BUDGET {
            map.clear();
            *bytes = 0;
        }
        f(&starts);
        map.insert(piece.into(), starts.into_boxed_slice());
        *bytes += size;
    }

    /// The token-start mask (see [`Entry::mask`]) of `piece` (2..=[`MAX_LEN`] bytes) for the
    /// encoding `enc` (1 or 2): memoised, or computed by `mask` and remembered.
    #[inline(always)]
    pub(crate) fn get_or(&mut self, enc: u32, piece: &[u8], mask: impl FnOnce() -> u32) -> u32 {
        let k = key(piece);
        let tag = piece.len() as u32 | enc << 8;
        let mix = (k[0] ^ k[1].rotate_left(21) ^ k[2].rotate_left(42) ^ tag as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let at = (mix >> (64 - BITS)) as usize;
        match self.slots.get_mut(at) {
            Some(e) if e.tag == tag && e.key == k => e.mask,
            Some(e) => {
                let m = mask();
                *e = Entry {
                    key: k,
                    tag,
                    mask: m,
                };
                m
            }
            None => mask(),
        }
    }
}

thread_local! {
    static CACHE: RefCell<Option<PieceCache>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's memo, or with `None` if it is unavailable (already borrowed
/// further up the stack, or the thread is shutting down).
#[inline]
pub(crate) fn with<R>(f: impl FnOnce(Option<&mut PieceCache>) -> R) -> R {
    let mut f = Some(f);
    let r = CACHE.try_with(|c| {
        let mut slot = c.try_borrow_mut().ok()?;
        let f = f.take()?;
        Some(f(Some(slot.get_or_insert_with(PieceCache::new))))
    });
    match (r, f) {
        (Ok(Some(r)), _) => r,
        (_, Some(f)) => f(None),
        // Unreachable: `f` is only taken right before it runs and returns `Some`.
        (_, None) => unreachable!("piece-cache closure consumed without a result"),
    }
}
