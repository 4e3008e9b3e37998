//! Invariants of the merge engine over random inputs (deterministic PRNG, no extra deps):
//! no panic on any input, nothing lost or added in v0.27 default mode, the splitter agrees
//! with a naive "try each delimiter in order at each position" scan, and the UNDER_CAP / OVER_CAP
//! budgets hold.

use ragchunk::ragflow::delimiters::{parse_delimiter_field, DelimiterSplitter, Piece};
use ragchunk::ragflow::merge::{
    naive_merge, naive_merge_texts, Compat, MergeOptions, Section, Strategy,
};

/// xorshift64*: enough randomness for input generation.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

const ATOMS: &[&str] = &[
    "a",
    "b",
    "xyz",
    " ",
    "\n",
    "\n\n",
    "\r",
    "\r\n",
    ".",
    "。",
    "；",
    "！",
    "？",
    "!",
    "?",
    "#",
    "##",
    "`",
    "|",
    "*",
    "\\",
    "(",
    ")",
    "é",
    "e\u{301}",
    "🚀",
    "👍🏽",
    "日本",
    "§",
    "\t",
    "\u{2028}",
    "@@1\t2.0\t3\t4\t5##",
    "@@",
    "<|endoftext|>",
    "\u{0}",
];

fn rand_text(r: &mut Rng, max_atoms: usize) -> String {
    let n = r.below(max_atoms + 1);
    (0..n).map(|_| *r.pick(ATOMS)).collect()
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

const COMPATS: [Compat; 4] = [Compat::V22, Compat::V23, Compat::V26, Compat::V27];

#[test]
fn no_panic_on_any_input() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let bytes = |s: &str| s.len();
    let zero = |_: &str| 0usize;
    for _ in 0..4000 {
        let texts: Vec<String> = (0..r.below(6)).map(|_| rand_text(&mut r, 12)).collect();
        let poss: Vec<Option<String>> = (0..texts.len())
            .map(|_| match r.below(3) {
                0 => None,
                1 => Some(String::new()),
                _ => Some(rand_text(&mut r, 2)),
            })
            .collect();
        let sections: Vec<Section> = texts
            .iter()
            .zip(&poss)
            .map(|(t, p)| Section {
                text: t,
                pos: p.as_deref(),
            })
            .collect();
        let delim = rand_text(&mut r, 4);
        let opts = MergeOptions {
            chunk_token_num: *r.pick(&[0.0, 1.0, 3.0, 8.0, 128.0, -5.0, f64::NAN, 1e300]),
            delimiter: &delim,
            overlapped_percent: *r.pick(&[0.0, 10.0, 50.0, 100.0, 150.0, -10.0, 33.3, f64::NAN]),
            strategy: *r.pick(&[Strategy::OverCap, Strategy::UnderCap]),
            compat: *r.pick(&COMPATS),
        };
        naive_merge(&sections, &opts, &chars).unwrap();
        naive_merge(&sections, &opts, &bytes).unwrap();
        naive_merge_texts(&sections, &opts, &zero).unwrap();
    }
}

/// Python-order reference split: at each position try the delimiters in priority order.
fn naive_strip_delims(text: &str, delims: &[String]) -> String {
    let mut out = String::new();
    let mut i = 0;
    'outer: while i < text.len() {
        for d in delims {
            if text[i..].starts_with(d.as_str()) {
                i += d.len();
                continue 'outer;
            }
        }
        let c = text[i..].chars().next().unwrap();
        out.push(c);
        i += c.len_utf8();
    }
    out
}

#[test]
fn splitter_agrees_with_naive_scan() {
    let mut r = Rng(42);
    for _ in 0..5000 {
        let field = rand_text(&mut r, 5);
        let delims = parse_delimiter_field(&field);
        let text = rand_text(&mut r, 20);
        let sp = DelimiterSplitter::new(&delims);
        let pieces: Vec<Piece> = sp.split(&text).collect();
        // shape: Text, (Delimiter, Text)*
        assert_eq!(pieces.len() % 2, 1);
        let joined: String = pieces.iter().map(|p| p.as_str()).collect();
        assert_eq!(joined, text);
        let kept: String = pieces
            .iter()
            .filter_map(|p| match p {
                Piece::Text(t) => Some(*t),
                Piece::Delimiter(_) => None,
            })
            .collect();
        assert_eq!(
            kept,
            naive_strip_delims(&text, &delims),
            "field {field:?} text {text:?}"
        );
    }
}

#[test]
fn v27_default_mode_loses_and_adds_nothing() {
    let mut r = Rng(7);
    for _ in 0..3000 {
        let field = rand_text(&mut r, 4).replace('`', "");
        let texts: Vec<String> = (0..1 + r.below(5)).map(|_| rand_text(&mut r, 15)).collect();
        let sections: Vec<Section> = texts.iter().map(|t| Section::text(t)).collect();
        let opts = MergeOptions {
            chunk_token_num: *r.pick(&[1.0, 4.0, 16.0, 1000.0]),
            delimiter: &field,
            overlapped_percent: 0.0,
            strategy: *r.pick(&[Strategy::OverCap, Strategy::UnderCap]),
            compat: Compat::V27,
        };
        let chunks = naive_merge_texts(&sections, &opts, &chars).unwrap();
        let delims = parse_delimiter_field(&field);
        let expected: String = texts
            .iter()
            .map(|t| naive_strip_delims(&t.replace("\r\n", "\n").replace('\r', "\n"), &delims))
            .collect::<String>()
            .replace('\n', "");
        let got = chunks.concat().replace('\n', "");
        assert_eq!(got, expected, "field {field:?} texts {texts:?}");
    }
}

#[test]
fn v27_budgets_hold() {
    // With "\n" a delimiter, paragraphs hold no "\n", so a chunk's paragraphs are its lines.
    let mut r = Rng(99);
    for _ in 0..3000 {
        let texts: Vec<String> = (0..1 + r.below(8)).map(|_| rand_text(&mut r, 10)).collect();
        let sections: Vec<Section> = texts.iter().map(|t| Section::text(t)).collect();
        let cap = *r.pick(&[1.0, 3.0, 6.0, 20.0]);
        for strategy in [Strategy::OverCap, Strategy::UnderCap] {
            let opts = MergeOptions {
                chunk_token_num: cap,
                delimiter: "\n。",
                overlapped_percent: 0.0,
                strategy,
                compat: Compat::V27,
            };
            for c in naive_merge(&sections, &opts, &chars).unwrap() {
                let sizes: Vec<f64> = c
                    .text
                    .split('\n')
                    .skip(1)
                    .map(|p| 1.0 + chars(p) as f64)
                    .collect();
                assert_eq!(sizes.len(), c.sources.len());
                let total: f64 = sizes.iter().sum();
                match strategy {
                    Strategy::UnderCap => assert!(total <= cap || sizes.len() == 1),
                    Strategy::HardCap => unreachable!("not in this loop"),
                    Strategy::OverCap => {
                        let head: f64 = sizes[..sizes.len() - 1].iter().sum();
                        assert!(
                            sizes.len() == 1 || (head <= cap && sizes.iter().all(|&s| s <= cap))
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn sources_are_in_order_and_valid() {
    let mut r = Rng(1234);
    for _ in 0..2000 {
        let texts: Vec<String> = (0..1 + r.below(6)).map(|_| rand_text(&mut r, 10)).collect();
        let sections: Vec<Section> = texts.iter().map(|t| Section::text(t)).collect();
        let delim = rand_text(&mut r, 3);
        let opts = MergeOptions {
            chunk_token_num: 5.0,
            delimiter: &delim,
            overlapped_percent: 20.0,
            strategy: Strategy::OverCap,
            compat: *r.pick(&COMPATS),
        };
        let chunks = naive_merge(&sections, &opts, &chars).unwrap();
        let all: Vec<usize> = chunks
            .iter()
            .flat_map(|c| c.sources.iter().copied())
            .collect();
        assert!(
            all.windows(2).all(|w| w[0] <= w[1]),
            "sources follow input order"
        );
        assert!(all.iter().all(|&s| s < sections.len()));
    }
}
