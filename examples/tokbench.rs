//! Dev harness for the tokenizer (release mode: `cargo run --release --example tokbench -- ...`).
//!
//! - `check <encoding> <vectors.bin>`: compares `encode_ordinary` and `count_ordinary` with
//!   tiktoken vectors (records: u32 LE text length, UTF-8 text, u32 LE token count, u32 LE ids).
//! - `bench <encoding> <rounds> <file>...`: times `count_ordinary` over each file's whole text
//!   (after building the tokenizer), prints one line per round: seconds and total tokens.

use ragchunk::tokenizer::{EncodingName, Tokenizer};
use std::time::Instant;

fn u32_at(data: &[u8], at: &mut usize) -> u32 {
    let v = u32::from_le_bytes(data[*at..*at + 4].try_into().unwrap());
    *at += 4;
    v
}

fn check(tok: &Tokenizer, path: &str) {
    let data = std::fs::read(path).expect("read vectors");
    let (mut at, mut n, mut bad) = (0usize, 0usize, 0usize);
    while at < data.len() {
        let len = u32_at(&data, &mut at) as usize;
        let text = std::str::from_utf8(&data[at..at + len]).expect("utf-8 text");
        at += len;
        let ntok = u32_at(&data, &mut at) as usize;
        let want: Vec<u32> = (0..ntok).map(|_| u32_at(&data, &mut at)).collect();
        let got = tok.encode_ordinary(text);
        let count = tok.count_ordinary(text);
        n += 1;
        if got != want || count != want.len() {
            bad += 1;
            if bad <= 10 {
                eprintln!("MISMATCH {text:?}\n  want {want:?}\n  got  {got:?} count {count}");
            }
        } else if tok.decode_bytes(&got).ok().as_deref() != Some(text.as_bytes()) {
            bad += 1;
            eprintln!("ROUNDTRIP {text:?}");
        }
    }
    println!("{path}: {n} strings, {bad} mismatches");
    if bad > 0 {
        std::process::exit(1);
    }
}

fn bench(tok: &Tokenizer, rounds: usize, files: &[String]) {
    let texts: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(f).expect("read file"))
        .collect();
    for _ in 0..rounds {
        let t = Instant::now();
        let total: usize = texts.iter().map(|s| tok.count_ordinary(s)).sum();
        println!("{:.6} {}", t.elapsed().as_secs_f64(), total);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name: EncodingName = args[2].parse().expect("encoding name");
    let t = Instant::now();
    let tok = Tokenizer::get(name);
    eprintln!(
        "built {} in {:.1} ms",
        name,
        t.elapsed().as_secs_f64() * 1e3
    );
    match args[1].as_str() {
        "check" => args[3..].iter().for_each(|p| check(tok, p)),
        "bench" => bench(tok, args[3].parse().expect("rounds"), &args[4..]),
        other => panic!("unknown mode {other}"),
    }
}
