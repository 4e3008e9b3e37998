//! The mergeable ranks of an encoding, as the lookup tables counting reads.
//!
//! tiktoken's official `.tiktoken` file (`base64 rank` per line) ships gzipped in the package;
//! the build script (`build.rs`) parses it and lays out the tables below with
//! [`Vocab::tables`] into one byte string, embedded in the binary and read in place by
//! [`Vocab::from_tables`]: a fresh process decompresses and parses nothing, and only the pages
//! a count touches are read from the file. (Decompressing, parsing and filling the tables at
//! run time would cost a first count about 30 ms for `cl100k_base` and 65 ms for
//! `o200k_base`; see "Cold start" in docs/benchmarks.md.)
//!
//! Every multi-byte value is little-endian and read with `from_le_bytes` (an unaligned load),
//! so the same tables serve every platform and no `unsafe` reinterpretation is needed.

pub(crate) const EMPTY: u32 = u32::MAX;

/// Tokens whose rank is below this go into the hot table too (see `Vocab::hot`).
const HOT_RANKS: u32 = 1 << 14;

/// Sections of a table string start at multiples of this, so that an entry of the hash tables
/// (16 bytes) never straddles a cache line when the string itself is aligned (see `mod.rs`).
const ALIGN: usize = 64;

/// Joins byte strings into one: `u64` count, `u64` length of each, then each one at the next
/// multiple of [`ALIGN`].
pub(crate) fn join_sections(sections: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&(sections.len() as u64).to_le_bytes());
    for s in sections {
        out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    }
    for s in sections {
        out.resize(out.len().next_multiple_of(ALIGN), 0);
        out.extend_from_slice(s);
    }
    out
}

/// The sections of a string made by [`join_sections`] (fewer when it is cut short).
pub(crate) fn split_sections(b: &[u8]) -> Vec<&[u8]> {
    let n = u64_at(b, 0).unwrap_or(0) as usize;
    let mut at = 8 * (n + 1);
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        let len = u64_at(b, k + 1).unwrap_or(0) as usize;
        at = at.next_multiple_of(ALIGN);
        let Some(s) = b.get(at..at + len) else {
            break;
        };
        out.push(s);
        at += len;
    }
    out
}

/// The `i`-th little-endian `u64` of `b`.
#[inline(always)]
pub(crate) fn u64_at(b: &[u8], i: usize) -> Option<u64> {
    let c = b.get(i * 8..)?.first_chunk::<8>()?;
    Some(u64::from_le_bytes(*c))
}

/// The `i`-th little-endian `u32` of `b`.
#[inline(always)]
pub(crate) fn u32_at(b: &[u8], i: usize) -> Option<u32> {
    let c = b.get(i * 4..)?.first_chunk::<4>()?;
    Some(u32::from_le_bytes(*c))
}

/// Bit `i` of a bit set stored as bytes (bit `i % 8` of byte `i / 8`).
#[inline(always)]
pub(crate) fn bit_at(b: &[u8], i: usize) -> Option<bool> {
    b.get(i / 8).map(|&x| x >> (i % 8) & 1 != 0)
}

pub(crate) fn set_bit(b: &mut [u8], i: usize) {
    if let Some(x) = b.get_mut(i / 8) {
        *x |= 1 << (i % 8);
    }
}

/// Entry `i` of a hash table of `(u64 key, u32 value)` entries, 16 bytes each.
#[inline(always)]
fn entry_at(t: &[u8], i: usize) -> Option<(u64, u32)> {
    let c = t.get(i * 16..)?.first_chunk::<12>()?;
    let (k, v) = c.split_at(8);
    Some((
        u64::from_le_bytes(k.try_into().ok()?),
        u32::from_le_bytes(v.try_into().ok()?),
    ))
}

fn set_entry(t: &mut [u8], i: usize, key: u64, value: u32) {
    if let Some(e) = t.get_mut(i * 16..i * 16 + 16) {
        e[..8].copy_from_slice(&key.to_le_bytes());
        e[8..12].copy_from_slice(&value.to_le_bytes());
    }
}

/// An open-addressing table of `(u64, u32)` entries as bytes, every value [`EMPTY`].
fn empty_entries(slots: usize) -> Vec<u8> {
    let mut t = vec![0u8; slots * 16];
    for i in 0..slots {
        set_entry(&mut t, i, 0, EMPTY);
    }
    t
}

/// Hash of a packed short token (top bits used).
#[inline(always)]
fn short_mix(key: u64, len: usize) -> u64 {
    (key ^ len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Hash of a token longer than 8 bytes: its first and last 8 bytes and its length (top bits used).
#[inline(always)]
fn long_mix(bytes: &[u8]) -> u64 {
    let first = bytes
        .first_chunk::<8>()
        .map_or(0, |c| u64::from_le_bytes(*c));
    let last = bytes
        .last_chunk::<8>()
        .map_or(0, |c| u64::from_le_bytes(*c));
    let h = (first ^ bytes.len() as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(29)
        ^ last;
    h.wrapping_mul(0xD6E8_FEB8_6659_FD93)
}

/// Packs 1..=8 bytes little-endian into a `u64` (zero-padded) without a variable-length memcpy:
/// two overlapping 4-byte loads for 4..=8 bytes, three single bytes for 1..=3.
#[inline(always)]
pub(crate) fn pack(b: &[u8]) -> u64 {
    let n = b.len();
    if n >= 4 {
        let lo = b.first_chunk::<4>().map_or(0, |c| u32::from_le_bytes(*c)) as u64;
        let hi = b.last_chunk::<4>().map_or(0, |c| u32::from_le_bytes(*c)) as u64;
        lo | hi << ((n - 4) * 8)
    } else if n > 0 {
        let at = |k: usize| b.get(k).copied().unwrap_or(0) as u64;
        at(0) | at(n / 2) << (n / 2 * 8) | at(n - 1) << ((n - 1) * 8)
    } else {
        0
    }
}

/// Token bytes <-> rank. In cl100k/o200k a token's id is its merge rank.
///
/// Lookup is the hot path of counting: a first `HashMap<Box<[u8]>, u32>` (Fx hash) spent 57% of
/// English counting time in `HashMap::get` + `memcmp` (perf). So tokens of up to 8 bytes (80% of
/// cl100k, 74% of o200k) live in an open-addressing table keyed by the bytes packed into a `u64`
/// (no memcmp, one multiply as hash); 2-byte tokens, needed for every merge start, in a direct
/// 64 Ki array; longer tokens in a second open-addressing table checked against the blob.
///
/// Every table is a byte string (see the module docs), borrowed for `'a`: the embedded tables
/// for the built-in encodings.
#[derive(Clone, Copy)]
pub(crate) struct Vocab<'a> {
    /// Packed token bytes -> `rank | len << 24`, 16-byte entries; `EMPTY` marks a free slot.
    short: &'a [u8],
    short_shift: u32,
    short_mask: usize,
    /// The [`HOT_RANKS`] lowest-ranked tokens of up to 8 bytes again, in a table small enough
    /// to stay in L2 (512 KiB), probed first: BPE ranks follow merge order, so the low ranks
    /// are the frequent tokens, and most pieces of ordinary text are one of them. For
    /// `o200k_base` the full table (4 MiB) lives in L3 at best and its misses were the gap to
    /// `cl100k_base` (2 MiB).
    hot: &'a [u8],
    hot_shift: u32,
    hot_mask: usize,
    /// Rank (`u32`) of each 2-byte token indexed by `b0 | b1 << 8` (`EMPTY` if none).
    pairs: &'a [u8],
    /// Ranks (`u32`) of tokens longer than 8 bytes, by hash of their bytes (`EMPTY` if free).
    long: &'a [u8],
    long_shift: u32,
    long_mask: usize,
    max_len: usize,
    /// One-hash Bloom filter over all tokens (8 bits per token: 128 KiB for cl100k, 256 KiB for
    /// o200k, so it stays in L2). Why: perf showed 72% of merge time on the cache miss of the
    /// table probe (the 4 MiB table lives in L3 at best), and about half of the lookups during a
    /// merge are for concatenations that are not tokens; the filter answers those from L2.
    bloom: &'a [u8],
    bloom_shift: u32,
    /// `spans[rank]` = byte range of the token in `blob` (two `u32`); `(0, 0)` for an unused
    /// rank.
    spans: &'a [u8],
    blob: &'a [u8],
    /// Bit `b0 | b1 << 8` set when the bytes `b0 b1` occur next to each other inside some token
    /// (8 KiB): where they do not, no merge can ever join them (see `Tokenizer::count_piece`).
    inside: &'a [u8],
}

impl<'a> Vocab<'a> {
    /// Lays out the tables of the vocabulary whose token of rank `r` is
    /// `blob[spans[r].0..spans[r].1]` (an unused rank has an empty span), as one byte string
    /// for [`Vocab::from_tables`].
    pub(crate) fn tables(spans: &[(u32, u32)], blob: &[u8]) -> Vec<u8> {
        let n_short = spans
            .iter()
            .filter(|&&(s, e)| (1..=8).contains(&(e - s)))
            .count();
        let n_long = spans.iter().filter(|&&(s, e)| e - s > 8).count();
        // Load factor <= 1/2 keeps linear probe chains short.
        let short_bits = n_short.next_power_of_two().trailing_zeros().max(4);
        let long_bits = (2 * n_long).next_power_of_two().trailing_zeros().max(4);
        let bloom_bits = (8 * (n_short + n_long))
            .next_power_of_two()
            .trailing_zeros()
            .max(6);
        let hot_bits = HOT_RANKS.trailing_zeros() + 1;
        let (short_shift, hot_shift, long_shift, bloom_shift) = (
            64 - short_bits,
            64 - hot_bits,
            64 - long_bits,
            64 - bloom_bits,
        );
        let mut short = empty_entries(1 << short_bits);
        let mut hot = empty_entries(1 << hot_bits);
        let mut pairs = vec![EMPTY; 1 << 16];
        let mut long = vec![EMPTY; 1 << long_bits];
        let mut bloom = vec![0u8; (1usize << bloom_bits) / 8];
        let mut inside = vec![0u8; (1 << 16) / 8];
        let mut max_len = 0;
        for (rank, &(start, end)) in spans.iter().enumerate() {
            let rank = rank as u32;
            let Some(bytes) = blob.get(start as usize..end as usize) else {
                continue;
            };
            let len = bytes.len();
            max_len = max_len.max(len);
            for w in bytes.windows(2) {
                set_bit(&mut inside, w[0] as usize | (w[1] as usize) << 8);
            }
            if let [b0, b1] = *bytes {
                pairs[b0 as usize | (b1 as usize) << 8] = rank;
            }
            if len == 0 {
                continue;
            } else if len <= 8 {
                let key = pack(bytes);
                let mix = short_mix(key, len);
                set_bit(&mut bloom, (mix >> bloom_shift) as usize);
                let value = rank | (len as u32) << 24;
                let put = |t: &mut [u8], shift: u32| {
                    let mask = t.len() / 16 - 1;
                    let mut h = (mix >> shift) as usize;
                    while entry_at(t, h).is_some_and(|(_, v)| v != EMPTY) {
                        h = (h + 1) & mask;
                    }
                    set_entry(t, h, key, value);
                };
                put(&mut short, short_shift);
                if rank < HOT_RANKS {
                    put(&mut hot, hot_shift);
                }
            } else {
                let mask = long.len() - 1;
                let mix = long_mix(bytes);
                set_bit(&mut bloom, (mix >> bloom_shift) as usize);
                let mut h = (mix >> long_shift) as usize;
                while long[h] != EMPTY {
                    h = (h + 1) & mask;
                }
                long[h] = rank;
            }
        }
        let scalars = [
            short_shift as u64,
            hot_shift as u64,
            long_shift as u64,
            bloom_shift as u64,
            max_len as u64,
        ];
        let le32 = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let spans: Vec<u32> = spans.iter().flat_map(|&(s, e)| [s, e]).collect();
        join_sections(&[
            &scalars
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect::<Vec<u8>>(),
            &short,
            &hot,
            &le32(&pairs),
            &le32(&long),
            &bloom,
            &le32(&spans),
            blob,
            &inside,
        ])
    }

    /// The vocabulary laid out by [`Vocab::tables`], read in place.
    pub(crate) fn from_tables(tables: &'a [u8]) -> Self {
        let s = split_sections(tables);
        let section = |k: usize| s.get(k).copied().unwrap_or_default();
        let scalar = |k: usize| u64_at(section(0), k).unwrap_or(0);
        let (short, hot, long) = (section(1), section(2), section(4));
        Vocab {
            short,
            short_shift: scalar(0) as u32,
            short_mask: (short.len() / 16).max(1) - 1,
            hot,
            hot_shift: scalar(1) as u32,
            hot_mask: (hot.len() / 16).max(1) - 1,
            pairs: section(3),
            long,
            long_shift: scalar(2) as u32,
            long_mask: (long.len() / 4).max(1) - 1,
            bloom: section(5),
            bloom_shift: scalar(3) as u32,
            max_len: scalar(4) as usize,
            spans: section(6),
            blob: section(7),
            inside: section(8),
        }
    }

    #[inline(always)]
    fn bloom_has(&self, mix: u64) -> bool {
        bit_at(self.bloom, (mix >> self.bloom_shift) as usize).unwrap_or(false)
    }

    /// Whether the bytes `b0 b1` occur next to each other inside some token.
    #[inline(always)]
    pub(crate) fn joined_somewhere(&self, b0: u8, b1: u8) -> bool {
        bit_at(self.inside, b0 as usize | (b1 as usize) << 8).unwrap_or(true)
    }

    /// Rank of a 2-byte token.
    #[inline(always)]
    pub(crate) fn rank2(&self, b0: u8, b1: u8) -> u32 {
        u32_at(self.pairs, b0 as usize | (b1 as usize) << 8).unwrap_or(EMPTY)
    }

    /// Rank of the token whose bytes are exactly `bytes`.
    #[inline(always)]
    pub(crate) fn rank(&self, bytes: &[u8]) -> Option<u32> {
        let len = bytes.len();
        if len <= 8 {
            if len == 0 {
                return None;
            }
            let key = pack(bytes);
            let mix = short_mix(key, len);
            let tag = (len as u32) << 24;
            if !self.bloom_has(mix) {
                return None;
            }
            let mut h = (mix >> self.hot_shift) as usize;
            loop {
                let (k, v) = entry_at(self.hot, h)?;
                if v == EMPTY {
                    break;
                }
                if k == key && v & 0xFF00_0000 == tag {
                    return Some(v & 0x00FF_FFFF);
                }
                h = (h + 1) & self.hot_mask;
            }
            let mut h = (mix >> self.short_shift) as usize;
            loop {
                let (k, v) = entry_at(self.short, h)?;
                if v == EMPTY {
                    return None;
                }
                if k == key && v & 0xFF00_0000 == tag {
                    return Some(v & 0x00FF_FFFF);
                }
                h = (h + 1) & self.short_mask;
            }
        } else if len <= self.max_len {
            let mix = long_mix(bytes);
            if !self.bloom_has(mix) {
                return None;
            }
            let mut h = (mix >> self.long_shift) as usize;
            loop {
                let r = u32_at(self.long, h)?;
                if r == EMPTY {
                    return None;
                }
                if self.bytes(r) == Some(bytes) {
                    return Some(r);
                }
                h = (h + 1) & self.long_mask;
            }
        } else {
            None
        }
    }

    /// Bytes of the token with rank `rank`.
    pub(crate) fn bytes(&self, rank: u32) -> Option<&'a [u8]> {
        let start = u32_at(self.spans, 2 * rank as usize)?;
        let end = u32_at(self.spans, 2 * rank as usize + 1)?;
        if start == end {
            return None;
        }
        self.blob.get(start as usize..end as usize)
    }

    /// Length of the longest token, in bytes.
    pub(crate) fn max_len(&self) -> usize {
        self.max_len
    }

    /// Number of ranks (one past the largest).
    pub(crate) fn len(&self) -> usize {
        self.spans.len() / 8
    }
}
