//! Position tags against the `regex` crate as an independent oracle for the match spans:
//! Python's `re` and Rust's `regex` agree on these two patterns (leftmost-first, no lookaround).

use ragchunk::ragflow::positions::{extract_positions, remove_tag};
use regex::Regex;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

const ATOMS: &[&str] = &[
    "@",
    "@@",
    "#",
    "##",
    "\t",
    "1",
    "23",
    ".",
    "-",
    "x",
    "é",
    "🚀",
    "@@3\t1.5\t2\t3\t4##",
];

fn rand_text(r: &mut Rng) -> String {
    let n = (r.next() % 16) as usize;
    (0..n)
        .map(|_| ATOMS[(r.next() % ATOMS.len() as u64) as usize])
        .collect()
}

#[test]
fn remove_tag_matches_regex_replace() {
    let re = Regex::new(r"@@[\t0-9.-]+?##").unwrap();
    let mut r = Rng(5);
    for _ in 0..20000 {
        let t = rand_text(&mut r);
        assert_eq!(remove_tag(&t), re.replace_all(&t, ""), "{t:?}");
    }
}

#[test]
fn extract_positions_finds_the_regex_matches() {
    let re = Regex::new(r"@@[0-9-]+\t[0-9.\t]+##").unwrap();
    let mut r = Rng(6);
    let mut ok = 0;
    for _ in 0..20000 {
        let t = rand_text(&mut r);
        // Never panics; when it succeeds it returns one position per match.
        if let Ok(p) = extract_positions(&t) {
            assert_eq!(p.len(), re.find_iter(&t).count(), "{t:?}");
            ok += 1;
        } else {
            assert!(re.is_match(&t), "an error needs a malformed tag: {t:?}");
        }
    }
    assert!(ok > 1000);
}

#[test]
fn multi_page_tag() {
    let p = extract_positions("x@@3-4\t10.0\t200.5\t30.0\t45.5##y").unwrap();
    assert_eq!(p[0].pages, vec![2, 3]);
    assert_eq!(
        (p[0].left, p[0].right, p[0].top, p[0].bottom),
        (10.0, 200.5, 30.0, 45.5)
    );
}
