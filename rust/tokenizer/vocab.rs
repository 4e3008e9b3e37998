//! The mergeable ranks of an encoding: tiktoken's official `.tiktoken` file (`base64 rank` per
//! line), shipped gzipped in the package and embedded in the binary.

use base64::Engine as _;
use std::io::Read as _;

pub(crate) const EMPTY: u32 = u32::MAX;

/// Tokens whose rank is below this go into the hot table too (see `Vocab::hot`).
const HOT_RANKS: u32 = 1 << 14;

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
pub(crate) struct Vocab {
    /// Packed token bytes -> `rank | len << 24`; `EMPTY` marks a free slot.
    short: Vec<(u64, u32)>,
    short_shift: u32,
    /// The [`HOT_RANKS`] lowest-ranked tokens of up to 8 bytes again, in a table small enough
    /// to stay in L2 (512 KiB), probed first: BPE ranks follow merge order, so the low ranks
    /// are the frequent tokens, and most pieces of ordinary text are one of them. For
    /// `o200k_base` the full table (4 MiB) lives in L3 at best and its misses were the gap to
    /// `cl100k_base` (2 MiB).
    hot: Vec<(u64, u32)>,
    hot_shift: u32,
    /// Rank of each 2-byte token indexed by `b0 | b1 << 8` (`EMPTY` if none).
    pairs: Vec<u32>,
    /// Ranks of tokens longer than 8 bytes, by hash of their bytes (`EMPTY` if free).
    long: Vec<u32>,
    long_shift: u32,
    max_len: usize,
    /// One-hash Bloom filter over all tokens (8 bits per token: 128 KiB for cl100k, 256 KiB for
    /// o200k, so it stays in L2). Why: perf showed 72% of merge time on the cache miss of the
    /// table probe (the 4 MiB table lives in L3 at best), and about half of the lookups during a
    /// merge are for concatenations that are not tokens; the filter answers those from L2.
    bloom: Vec<u64>,
    bloom_shift: u32,
    /// `spans[rank]` = byte range of the token in `blob`; `(0, 0)` for an unused rank.
    spans: Vec<(u32, u32)>,
    blob: Vec<u8>,
    /// Bit `b0 | b1 << 8` set when the bytes `b0 b1` occur next to each other inside some token
    /// (8 KiB): where they do not, no merge can ever join them (see `Tokenizer::count_piece`).
    inside: Vec<u64>,
}

/// Decompresses `gz` (an embedded, known-good file). The bytes are our own shipped data, so a
/// failure is a packaging bug, reported loudly instead of silently counting wrong.
pub(crate) fn gunzip(gz: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(gz.len() * 3);
    flate2::read::GzDecoder::new(gz)
        .read_to_end(&mut out)
        .expect("embedded vocabulary is valid gzip");
    out
}

impl Vocab {
    /// Parses a decompressed `.tiktoken` file.
    pub(crate) fn parse(data: &[u8]) -> Self {
        let engine = base64::engine::general_purpose::STANDARD;
        let lines = data.split(|&b| b == b'\n').filter(|l| !l.is_empty());
        let mut spans = Vec::new();
        let mut blob = Vec::with_capacity(data.len() / 2);
        for line in lines {
            let mut fields = line.split(|&b| b == b' ');
            let (Some(b64), Some(rank)) = (fields.next(), fields.next()) else {
                panic!("malformed vocabulary line");
            };
            let bytes = engine.decode(b64).expect("vocabulary token is base64");
            let rank: u32 = std::str::from_utf8(rank)
                .ok()
                .and_then(|r| r.trim().parse().ok())
                .expect("vocabulary rank is an integer");
            if spans.len() <= rank as usize {
                spans.resize(rank as usize + 1, (0, 0));
            }
            spans[rank as usize] = (blob.len() as u32, (blob.len() + bytes.len()) as u32);
            blob.extend_from_slice(&bytes);
        }
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
        let mut v = Vocab {
            short: vec![(0, EMPTY); 1 << short_bits],
            short_shift: 64 - short_bits,
            hot: vec![(0, EMPTY); 2 << HOT_RANKS.trailing_zeros()],
            hot_shift: 64 - (HOT_RANKS.trailing_zeros() + 1),
            pairs: vec![EMPTY; 1 << 16],
            long: vec![EMPTY; 1 << long_bits],
            long_shift: 64 - long_bits,
            max_len: 0,
            bloom: vec![0; (1usize << bloom_bits) / 64],
            bloom_shift: 64 - bloom_bits,
            spans: Vec::new(),
            blob: Vec::new(),
            inside: vec![0; (1 << 16) / 64],
        };
        for (rank, &(start, end)) in spans.iter().enumerate() {
            let rank = rank as u32;
            let Some(bytes) = blob.get(start as usize..end as usize) else {
                continue;
            };
            let len = bytes.len();
            v.max_len = v.max_len.max(len);
            for w in bytes.windows(2) {
                let bit = w[0] as usize | (w[1] as usize) << 8;
                v.inside[bit / 64] |= 1 << (bit % 64);
            }
            if let [b0, b1] = *bytes {
                v.pairs[b0 as usize | (b1 as usize) << 8] = rank;
            }
            if len == 0 {
                continue;
            } else if len <= 8 {
                let key = pack(bytes);
                let mask = v.short.len() - 1;
                let mix = short_mix(key, len);
                v.bloom_set(mix);
                let mut h = (mix >> v.short_shift) as usize;
                while v.short[h].1 != EMPTY {
                    h = (h + 1) & mask;
                }
                v.short[h] = (key, rank | (len as u32) << 24);
                if rank < HOT_RANKS {
                    let mask = v.hot.len() - 1;
                    let mut h = (mix >> v.hot_shift) as usize;
                    while v.hot[h].1 != EMPTY {
                        h = (h + 1) & mask;
                    }
                    v.hot[h] = (key, rank | (len as u32) << 24);
                }
            } else {
                let mask = v.long.len() - 1;
                let mix = long_mix(bytes);
                v.bloom_set(mix);
                let mut h = (mix >> v.long_shift) as usize;
                while v.long[h] != EMPTY {
                    h = (h + 1) & mask;
                }
                v.long[h] = rank;
            }
        }
        v.spans = spans;
        v.blob = blob;
        v
    }

    fn bloom_set(&mut self, mix: u64) {
        let bit = (mix >> self.bloom_shift) as usize;
        if let Some(word) = self.bloom.get_mut(bit / 64) {
            *word |= 1 << (bit % 64);
        }
    }

    #[inline(always)]
    fn bloom_has(&self, mix: u64) -> bool {
        let bit = (mix >> self.bloom_shift) as usize;
        self.bloom
            .get(bit / 64)
            .is_some_and(|w| w >> (bit % 64) & 1 != 0)
    }

    /// Whether the bytes `b0 b1` occur next to each other inside some token.
    #[inline(always)]
    pub(crate) fn joined_somewhere(&self, b0: u8, b1: u8) -> bool {
        let bit = b0 as usize | (b1 as usize) << 8;
        self.inside
            .get(bit / 64)
            .map_or(true, |w| w >> (bit % 64) & 1 != 0)
    }

    /// Rank of a 2-byte token.
    #[inline(always)]
    pub(crate) fn rank2(&self, b0: u8, b1: u8) -> u32 {
        self.pairs
            .get(b0 as usize | (b1 as usize) << 8)
            .copied()
            .unwrap_or(EMPTY)
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
            let hot_mask = self.hot.len() - 1;
            let mut h = (mix >> self.hot_shift) as usize;
            loop {
                let &(k, v) = self.hot.get(h)?;
                if v == EMPTY {
                    break;
                }
                if k == key && v & 0xFF00_0000 == tag {
                    return Some(v & 0x00FF_FFFF);
                }
                h = (h + 1) & hot_mask;
            }
            if !self.bloom_has(mix) {
                return None;
            }
            let mask = self.short.len() - 1;
            let mut h = (mix >> self.short_shift) as usize;
            loop {
                let &(k, v) = self.short.get(h)?;
                if v == EMPTY {
                    return None;
                }
                if k == key && (v >> 24) as usize == len {
                    return Some(v & 0x00FF_FFFF);
                }
                h = (h + 1) & mask;
            }
        } else if len <= self.max_len {
            let mix = long_mix(bytes);
            if !self.bloom_has(mix) {
                return None;
            }
            let mask = self.long.len() - 1;
            let mut h = (mix >> self.long_shift) as usize;
            loop {
                let &r = self.long.get(h)?;
                if r == EMPTY {
                    return None;
                }
                if self.bytes(r) == Some(bytes) {
                    return Some(r);
                }
                h = (h + 1) & mask;
            }
        } else {
            None
        }
    }

    /// Bytes of the token with rank `rank`.
    pub(crate) fn bytes(&self, rank: u32) -> Option<&[u8]> {
        let &(start, end) = self.spans.get(rank as usize)?;
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
        self.spans.len()
    }
}
