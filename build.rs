//! Lays out the built-in encodings' lookup tables at compile time.
//!
//! Reads tiktoken's vocabulary files shipped in the package (`python/ragchunk/_vocab/`,
//! `base64 rank` per line, gzipped), builds the tables counting reads (the vocabulary's and the
//! crossings' of `rust/tokenizer/joins.rs`, with the very code the crate uses to read them), and
//! writes one byte string per encoding into `OUT_DIR`, which `rust/tokenizer/mod.rs` embeds
//! with `include_bytes!`. Deterministic and offline: the same input files give the same bytes.

use std::io::Read as _;
use std::path::Path;

use base64::Engine as _;

// The table layouts, shared with the crate (both files use nothing but `std` and each other).
#[allow(dead_code)]
#[path = "rust/tokenizer/joins.rs"]
mod joins;
#[allow(dead_code)]
#[path = "rust/tokenizer/vocab.rs"]
mod vocab;

/// Token spans and bytes of a decompressed `.tiktoken` file: `spans[rank]` is the token's
/// range in the blob (empty for a rank the file does not use).
fn parse(data: &[u8]) -> (Vec<(u32, u32)>, Vec<u8>) {
    let engine = base64::engine::general_purpose::STANDARD;
    let mut spans = Vec::new();
    let mut blob = Vec::with_capacity(data.len() / 2);
    for line in data.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let mut fields = line.split(|&b| b == b' ');
        let (Some(b64), Some(rank)) = (fields.next(), fields.next()) else {
            panic!("malformed vocabulary line");
        };
        let bytes = engine.decode(b64).expect("vocabulary token is base64");
        let rank: usize = std::str::from_utf8(rank)
            .ok()
            .and_then(|r| r.trim().parse().ok())
            .expect("vocabulary rank is an integer");
        if spans.len() <= rank {
            spans.resize(rank + 1, (0, 0));
        }
        spans[rank] = (blob.len() as u32, (blob.len() + bytes.len()) as u32);
        blob.extend_from_slice(&bytes);
    }
    (spans, blob)
}

fn main() {
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=rust/tokenizer/vocab.rs");
    println!("cargo:rerun-if-changed=rust/tokenizer/joins.rs");
    for name in ["cl100k_base", "o200k_base"] {
        let src = format!("python/ragchunk/_vocab/{name}.tiktoken.gz");
        println!("cargo:rerun-if-changed={src}");
        let gz = std::fs::read(&src).unwrap_or_else(|e| panic!("{src}: {e}"));
        let mut data = Vec::new();
        flate2::read::GzDecoder::new(gz.as_slice())
            .read_to_end(&mut data)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        let (spans, blob) = parse(&data);
        let vocab = vocab::Vocab::tables(&spans, &blob);
        let joins = joins::CharJoins::tables(&vocab::Vocab::from_tables(&vocab));
        let tables = vocab::join_sections(&[&vocab, &joins]);
        let path = Path::new(&out).join(format!("{name}.tables"));
        std::fs::write(&path, tables).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
