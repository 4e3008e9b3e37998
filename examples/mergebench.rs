//! Dev harness for `naive_merge` without Python (release mode:
//! `cargo run --release --example mergebench -- <encoding> <rounds> <chunk_token_num> <file>...`).
//! Prints one line per round: seconds, chunks and total chunk bytes. Next to `tokbench bench`
//! (count only) on the same files, it shows what the merge adds to counting.

use ragchunk::ragflow::merge::{naive_merge_texts, MergeOptions, Section};
use ragchunk::tokenizer::{EncodingName, RagflowCount, Tokenizer};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name: EncodingName = args[1].parse().expect("encoding name");
    let rounds: usize = args[2].parse().expect("rounds");
    let size: f64 = args[3].parse().expect("chunk_token_num");
    let texts: Vec<String> = args[4..]
        .iter()
        .map(|f| std::fs::read_to_string(f).expect("read file"))
        .collect();
    let count = RagflowCount(Tokenizer::get(name));
    let opts = MergeOptions {
        chunk_token_num: size,
        ..MergeOptions::default()
    };
    for _ in 0..rounds {
        let t = Instant::now();
        let (mut chunks, mut bytes) = (0usize, 0usize);
        for text in &texts {
            let out = naive_merge_texts(&[Section::text(text)], &opts, &count)
                .unwrap_or_else(|never| match never {});
            chunks += out.len();
            bytes += out.iter().map(String::len).sum::<usize>();
        }
        println!("{:.6} {} {}", t.elapsed().as_secs_f64(), chunks, bytes);
    }
}
