//! Which neighbouring characters some token could join: cuts inside runs of letters.
//!
//! A byte-pair merge only ever joins two parts whose concatenation is a token, so a position
//! that no token can span is a **cut**: the two sides merge separately, exactly (the argument is
//! on `Tokenizer::for_each_cut_part`). The byte-pair test of [`Vocab::joined_somewhere`] finds
//! few cuts in Chinese text: its bytes `(last byte of a character, lead byte of the next)` occur
//! inside *some* token for nearly every pair of characters (any two-character token makes the
//! pair common), so a run of Chinese letters fell into parts of about three characters, which
//! rarely repeat: on a 7.7 MB sample of the corpus, 80,000 of them per pass missed the memo
//! and were merged again, a quarter of the counting instructions (callgrind).
//!
//! This table answers the exact question per **character** pair instead: can a token span the
//! boundary between character `A` and character `B`? A token spanning it holds a suffix of the
//! text before the boundary and a prefix of the text after it; seen from the boundary, its left
//! side is either all of `A` (and maybe more: we then know `A` exactly) or a proper suffix of
//! `A` (continuation bytes only), and likewise on the right. So every token of the vocabulary,
//! at every internal position where a character could start, contributes **crossings**
//! `(left side, right side)`, each side a whole character or a partial one; the boundary
//! `A | B` can be joined iff some crossing matches it. Looking further than `A` and `B` would
//! only rule out more crossings, so the answer is conservative (never a wrong cut).
//!
//! Crossings between two ASCII characters are left out: there the byte test is the same test.
//! That leaves 2,181 crossings in cl100k_base (1,857 between whole characters) and 22,012 in
//! o200k_base. Of the 43,269 distinct pairs of neighbouring characters in long letter runs of
//! a third of the corpus, 1,833 (4%) can be joined in cl100k_base, so a Chinese run falls
//! apart into single characters, counted from [`CharJoins::flags`], and the few words the
//! vocabulary holds, which the memo answers.
//!
//! Like the vocabulary's, these tables are laid out by the build script
//! ([`CharJoins::tables`]) and read in place from the binary ([`CharJoins::from_tables`]).

use super::vocab::{
    bit_at, join_sections, set_bit, split_sections, u64_at, Vocab, EMPTY as EMPTY_RANK,
};

/// No crossing key has this value (a partial side never has length tag 0x7f).
const EMPTY: u64 = u64::MAX;
/// Marks a partial side in a side key.
const PARTIAL: u32 = 1 << 31;

/// Byte length of the UTF-8 character led by `b` (0 for a continuation or invalid byte).
#[inline(always)]
pub(crate) fn utf8_len(b: u8) -> usize {
    match b {
        0x00..=0x7f => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => 0,
    }
}

#[inline(always)]
fn is_continuation(b: u8) -> bool {
    b & 0xc0 == 0x80
}

/// The scalar value of `b` if it is exactly one valid UTF-8 character (no overlong form, no
/// surrogate): pieces handed to the tokenizer may be any bytes, and a cut is only proven
/// between real characters.
#[inline(always)]
fn scalar(b: &[u8]) -> Option<u32> {
    let lead = *b.first()? as u32;
    let cont = |k: usize| match b.get(k) {
        Some(&c) if is_continuation(c) => Some(c as u32 & 0x3f),
        _ => None,
    };
    let (c, min) = match b.len() {
        1 if lead < 0x80 => return Some(lead),
        2 => ((lead & 0x1f) << 6 | cont(1)?, 0x80),
        3 => ((lead & 0x0f) << 12 | cont(1)? << 6 | cont(2)?, 0x800),
        4 => (
            (lead & 0x07) << 18 | cont(1)? << 12 | cont(2)? << 6 | cont(3)?,
            0x1_0000,
        ),
        _ => return None,
    };
    let valid = utf8_len(lead as u8) == b.len()
        && c >= min
        && c <= 0x10_ffff
        && !(0xd800..=0xdfff).contains(&c);
    valid.then_some(c)
}

/// Side key of a partial character: `bytes` (1..=3, none zero) are a proper part of a
/// character of `len` bytes.
#[inline(always)]
fn partial(bytes: &[u8], len: usize) -> u32 {
    let packed = bytes
        .iter()
        .take(3)
        .enumerate()
        .fold(0u32, |acc, (k, &b)| acc | (b as u32) << (8 * k));
    PARTIAL | (len as u32) << 24 | packed
}

#[inline(always)]
fn crossing(left: u32, right: u32) -> u64 {
    (left as u64) << 32 | right as u64
}

/// Scalar values below this have an entry in [`CharJoins::flags`]; the others (four-byte
/// characters, rare in text) always go through the exact lookups.
const BMP: usize = 0x1_0000;

// `CharJoins::flags` bits. The low two hold the character's token count alone (1..=3; 0 when
// not known: surrogates and four-byte characters).
const COUNT: u8 = 0b11;
/// The character is the whole left side of a crossing whose right side is whole.
const LEFT_WHOLE: u8 = 1 << 2;
/// The character is the whole right side of a crossing whose left side is whole.
const RIGHT_WHOLE: u8 = 1 << 3;
/// The character is the whole left side of a crossing whose right side is partial.
const LEFT_OF_PARTIAL: u8 = 1 << 4;
/// The character is the whole right side of a crossing whose left side is partial.
const RIGHT_OF_PARTIAL: u8 = 1 << 5;
/// The character's last byte ends the left side of a crossing partial on both sides.
const LEFT_BOTH_PARTIAL: u8 = 1 << 6;
/// The character's first byte starts the right side of a crossing partial on both sides.
const RIGHT_BOTH_PARTIAL: u8 = 1 << 7;
/// Flags of a character without an entry: every exact lookup runs.
const UNKNOWN: u8 = !COUNT;

/// The crossings of one encoding, with per-character filters in front of them (byte strings
/// borrowed for `'a`, see the module docs).
#[derive(Clone, Copy)]
pub(crate) struct CharJoins<'a> {
    /// Every crossing key (`left << 32 | right`, `u64`), open addressing, `EMPTY` when free.
    table: &'a [u8],
    shift: u32,
    mask: usize,
    /// Per scalar value below [`BMP`]: its token count alone and which kinds of crossing it
    /// takes part in (the constants above). 64 KiB; Chinese text touches about a third.
    flags: &'a [u8],
    /// Bit per byte pair `(last byte of A) | (first byte of B) << 8`: some crossing is partial
    /// on both sides with these bytes next to each other.
    both_partial: &'a [u8],
}

impl<'a> CharJoins<'a> {
    /// Lays out the crossings of `vocab` as one byte string for [`CharJoins::from_tables`].
    pub(crate) fn tables(vocab: &Vocab) -> Vec<u8> {
        let mut table = Table::default();
        let mut flags = char_counts(vocab);
        let mut both_partial = vec![0u8; (1 << 16) / 8];
        let (mut left_bytes, mut right_bytes) = ([false; 256], [false; 256]);
        let mut mark = |c: u32, bit: u8| {
            if let Some(f) = flags.get_mut(c as usize) {
                *f |= bit;
            }
        };
        let mut lefts: Vec<u32> = Vec::with_capacity(4);
        for rank in 0..vocab.len() as u32 {
            let Some(t) = vocab.bytes(rank) else {
                continue;
            };
            for q in 1..t.len() {
                let (last, first) = (
                    t.get(q - 1).copied().unwrap_or(0),
                    t.get(q).copied().unwrap_or(0),
                );
                if last < 0x80 && first < 0x80 {
                    continue; // two ASCII characters: the byte test answers them
                }
                // The right side starts with the first byte of `B`.
                let lb = utf8_len(first);
                if lb == 0 {
                    continue;
                }
                let rest = t.get(q..).unwrap_or_default();
                let right = if rest.len() >= lb {
                    match scalar(head(rest, lb)) {
                        Some(c) => c,
                        None => continue,
                    }
                } else if rest.iter().skip(1).all(|&b| is_continuation(b)) {
                    partial(rest, lb)
                } else {
                    continue;
                };
                // The left side ends with the last byte of `A`: the one whole character that
                // ends there, or, when the token starts inside a character, each length of
                // character it could be the end of.
                lefts.clear();
                let before = t.get(..q).unwrap_or_default();
                match (q.saturating_sub(4)..q)
                    .rev()
                    .find(|&i| !is_continuation(t.get(i).copied().unwrap_or(0)))
                {
                    Some(i) => lefts.extend(scalar(before.get(i..).unwrap_or_default())),
                    None if q <= 3 => {
                        lefts.extend(((q + 1).max(2)..=4).map(|la| partial(before, la)))
                    }
                    None => {}
                }
                for &left in &lefts {
                    table.insert(crossing(left, right));
                    match (left & PARTIAL != 0, right & PARTIAL != 0) {
                        (false, false) => {
                            mark(left, LEFT_WHOLE);
                            mark(right, RIGHT_WHOLE);
                        }
                        (false, true) => mark(left, LEFT_OF_PARTIAL),
                        (true, false) => mark(right, RIGHT_OF_PARTIAL),
                        (true, true) => {
                            let last = before.last().copied().unwrap_or(0);
                            set_bit(&mut both_partial, last as usize | (first as usize) << 8);
                            left_bytes[last as usize] = true;
                            right_bytes[first as usize] = true;
                        }
                    }
                }
            }
        }
        let mut buf = [0u8; 4];
        for (cp, f) in flags.iter_mut().enumerate() {
            let Some(c) = char::from_u32(cp as u32) else {
                continue;
            };
            let b = c.encode_utf8(&mut buf).as_bytes();
            if b.len() > 1 && b.last().is_some_and(|&x| left_bytes[x as usize]) {
                *f |= LEFT_BOTH_PARTIAL;
            }
            if b.len() > 1 && b.first().is_some_and(|&x| right_bytes[x as usize]) {
                *f |= RIGHT_BOTH_PARTIAL;
            }
        }
        let (table, shift) = table.finish();
        let table: Vec<u8> = table.iter().flat_map(|k| k.to_le_bytes()).collect();
        join_sections(&[
            &u64::from(shift).to_le_bytes(),
            &table,
            &flags,
            &both_partial,
        ])
    }

    /// The crossings laid out by [`CharJoins::tables`], read in place.
    pub(crate) fn from_tables(tables: &'a [u8]) -> Self {
        let s = split_sections(tables);
        let section = |k: usize| s.get(k).copied().unwrap_or_default();
        let table = section(1);
        CharJoins {
            table,
            shift: u64_at(section(0), 0).unwrap_or(0) as u32,
            mask: (table.len() / 8).max(1) - 1,
            flags: section(2),
            both_partial: section(3),
        }
    }

    #[inline(always)]
    fn has(&self, key: u64) -> bool {
        let mut h = (mix(key) >> self.shift) as usize;
        loop {
            match u64_at(self.table, h) {
                Some(e) if e == key => return true,
                Some(e) if e != EMPTY => h = (h + 1) & self.mask,
                _ => return false,
            }
        }
    }

    #[inline(always)]
    fn flags(&self, c: u32) -> u8 {
        self.flags.get(c as usize).copied().unwrap_or(UNKNOWN)
    }

    /// Whether some token could span the boundary between the characters `a` (scalar `ca`,
    /// flags `fa`) and `b`: the filters first, then the exact lookups they let through.
    #[inline(always)]
    fn joinable(&self, a: &[u8], ca: u32, fa: u8, b: &[u8], cb: u32, fb: u8) -> bool {
        let (la, lb) = (a.len(), b.len());
        if fa & LEFT_WHOLE != 0 && fb & RIGHT_WHOLE != 0 && self.has(crossing(ca, cb)) {
            return true;
        }
        // Partial sides are rare in the vocabulary: the filters skip nearly all of these.
        if fa & LEFT_OF_PARTIAL != 0
            && (1..lb).any(|l| self.has(crossing(ca, partial(head(b, l), lb))))
        {
            return true;
        }
        if fb & RIGHT_OF_PARTIAL != 0
            && (1..la).any(|k| self.has(crossing(partial(tail(a, k), la), cb)))
        {
            return true;
        }
        let pair = a.last().map_or(0, |&x| x as usize) | b.first().map_or(0, |&x| x as usize) << 8;
        fa & LEFT_BOTH_PARTIAL != 0
            && fb & RIGHT_BOTH_PARTIAL != 0
            && bit_at(self.both_partial, pair).unwrap_or(true)
            && (1..la).any(|k| {
                (1..lb)
                    .any(|l| self.has(crossing(partial(tail(a, k), la), partial(head(b, l), lb))))
            })
    }

    /// Calls `f(offset, part, count)` for the parts of `piece` between the character
    /// boundaries no token can span, in order; `count` is the part's token count when it is
    /// one character whose count is known, else 0. From the first byte that does not start a
    /// valid character on, the rest is one part (no cut is proven there).
    #[inline(always)]
    pub(crate) fn for_each_part(
        &self,
        vocab: &Vocab,
        piece: &[u8],
        mut f: impl FnMut(usize, &[u8], usize),
    ) {
        let mut start = 0;
        let mut chars = 0; // characters in the current part
        let (mut prev, mut prev_flags, mut prev_at) = (0u32, 0u8, 0usize);
        let mut i = 0;
        while let Some((c, len)) = next_char(piece, i) {
            let fl = self.flags(c);
            if i > 0 {
                let a = piece.get(prev_at..i).unwrap_or_default();
                let b = piece.get(i..i + len).unwrap_or_default();
                let joinable = if (prev | c) < 0x80 {
                    vocab.joined_somewhere(prev as u8, c as u8)
                } else {
                    self.joinable(a, prev, prev_flags, b, c, fl)
                };
                if !joinable {
                    let count = if chars == 1 {
                        (prev_flags & COUNT) as usize
                    } else {
                        0
                    };
                    f(start, piece.get(start..i).unwrap_or_default(), count);
                    start = i;
                    chars = 0;
                }
            }
            chars += 1;
            (prev, prev_flags, prev_at) = (c, fl, i);
            i += len;
        }
        let count = if chars == 1 && i == piece.len() {
            (prev_flags & COUNT) as usize
        } else {
            0
        };
        f(start, piece.get(start..).unwrap_or_default(), count);
    }
}

/// The character starting at `piece[i]`, as (scalar value, byte length), if one valid
/// character starts there.
#[inline(always)]
fn next_char(piece: &[u8], i: usize) -> Option<(u32, usize)> {
    let b0 = *piece.get(i)?;
    if b0 < 0x80 {
        return Some((b0 as u32, 1));
    }
    let len = utf8_len(b0);
    let c = scalar(piece.get(i..i + len)?)?;
    Some((c, len))
}

/// The crossing keys while they are collected: open addressing, grown at half load.
#[derive(Default)]
struct Table {
    slots: Vec<u64>,
    len: usize,
}

impl Table {
    fn insert(&mut self, key: u64) {
        if 2 * (self.len + 1) > self.slots.len() {
            let grown = vec![EMPTY; (2 * self.slots.len()).max(1024)];
            let old = std::mem::replace(&mut self.slots, grown);
            self.len = 0;
            for k in old.into_iter().filter(|&k| k != EMPTY) {
                self.insert(k);
            }
        }
        let shift = 64 - self.slots.len().trailing_zeros();
        let mask = self.slots.len() - 1;
        let mut h = (mix(key) >> shift) as usize;
        loop {
            match self.slots.get_mut(h) {
                Some(e) if *e == key => return,
                Some(e) if *e == EMPTY => {
                    *e = key;
                    self.len += 1;
                    return;
                }
                _ => h = (h + 1) & mask,
            }
        }
    }

    /// The slots and the hash shift for lookups.
    fn finish(self) -> (Vec<u64>, u32) {
        let shift = 64 - self.slots.len().trailing_zeros();
        (self.slots, shift)
    }
}

/// The first `n` bytes of `b`.
#[inline(always)]
fn head(b: &[u8], n: usize) -> &[u8] {
    b.get(..n).unwrap_or_default()
}

/// The last `n` bytes of `b`.
#[inline(always)]
fn tail(b: &[u8], n: usize) -> &[u8] {
    b.get(b.len().saturating_sub(n)..).unwrap_or_default()
}

#[inline(always)]
fn mix(key: u64) -> u64 {
    (key ^ key >> 29).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// Per scalar value below [`BMP`]: the token count of the character alone, in the
/// [`COUNT`] bits. No merge search is needed: an ASCII character is a token; a two-byte
/// character is one token or two; a three-byte one that is not a token is two tokens if either
/// byte pair is one (that pair merges, and the whole is not a token), else three.
fn char_counts(vocab: &Vocab) -> Vec<u8> {
    let mut counts = vec![0u8; BMP];
    let mut buf = [0u8; 4];
    for (cp, slot) in counts.iter_mut().enumerate() {
        let Some(c) = char::from_u32(cp as u32) else {
            continue; // surrogates
        };
        let b = c.encode_utf8(&mut buf).as_bytes();
        *slot = if b.len() == 1 || vocab.rank(b).is_some() {
            1
        } else if let [x, y, z] = *b {
            let pair = vocab.rank2(x, y) != EMPTY_RANK || vocab.rank2(y, z) != EMPTY_RANK;
            if pair {
                2
            } else {
                3
            }
        } else {
            2
        };
    }
    counts
}
