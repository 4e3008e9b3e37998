//! The mergeable ranks of an encoding: tiktoken's official `.tiktoken` file (`base64 rank` per
//! line), shipped gzipped in the package and embedded in the binary.

use base64::Engine as _;
use rustc_hash::FxHashMap;
use std::io::Read as _;

/// Token bytes <-> rank. In cl100k/o200k a token's id is its merge rank.
pub(crate) struct Vocab {
    map: FxHashMap<Box<[u8]>, u32>,
    /// `spans[rank]` = byte range of the token in `blob`; `(0, 0)` for an unused rank.
    spans: Vec<(u32, u32)>,
    blob: Vec<u8>,
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
        let mut map = FxHashMap::default();
        map.reserve(data.len() / 12);
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
            map.insert(bytes.into_boxed_slice(), rank);
        }
        Vocab { map, spans, blob }
    }

    /// Rank of the token whose bytes are exactly `bytes`.
    #[inline(always)]
    pub(crate) fn rank(&self, bytes: &[u8]) -> Option<u32> {
        self.map.get(bytes).copied()
    }

    /// Bytes of the token with rank `rank`.
    pub(crate) fn bytes(&self, rank: u32) -> Option<&[u8]> {
        let &(start, end) = self.spans.get(rank as usize)?;
        if start == end {
            return None;
        }
        self.blob.get(start as usize..end as usize)
    }

    /// Number of ranks (one past the largest).
    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }
}
