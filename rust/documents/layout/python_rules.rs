//! Python's semantics that the layout relies on, spelled out (whitespace, `round`, `sorted`,
//! `min`/`max`, `statistics.median`, `str.isdigit`, NFKC of ligatures), and the one float
//! summation both backends share ([`sum_left`]).

use std::cmp::Ordering;

use crate::text::boundaries::{boundaries, CharSet};

/// What every step needs: Python's whitespace.
pub(super) struct Cx {
    space: CharSet,
}

impl Cx {
    pub(super) fn new() -> Cx {
        Cx {
            space: boundaries().langchain_space,
        }
    }

    /// `ch.isspace()`.
    pub(super) fn is_space(&self, ch: char) -> bool {
        self.space.contains(ch)
    }

    /// `text.strip()`.
    pub(super) fn strip<'a>(&self, text: &'a str) -> &'a str {
        text.trim_matches(|c| self.space.contains(c))
    }

    /// `" ".join(text.split())`.
    pub(super) fn collapse(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for word in text.split(|c| self.space.contains(c)) {
            if word.is_empty() {
                continue;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
        out
    }
}

/// The sum of `values` as ragchunk defines it, the same on both backends (the Python twin's
/// `sum_left`): `0.0`, then each value added left to right, with no compensation. Python's
/// built-in `sum` is not used for floats, because its result depends on the interpreter: a
/// plain sum before Python 3.12, Neumaier's compensated sum since (`sum([0.1, 0.2, 0.3])` is
/// `0.6000000000000001` on 3.11 and `0.6` on 3.12).
pub fn sum_left(values: &[f64]) -> f64 {
    let mut total = 0.0;
    for &x in values {
        total += x;
    }
    total
}

/// `round(x, 1)`: the exact binary value of `x` rounded half-to-even at one decimal, back to
/// the nearest double (Rust's formatting is exact and rounds half-to-even, its parsing is
/// correctly rounded: the same two steps as CPython's `float.__round__`).
pub fn round1(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.1}").parse().unwrap_or(x)
}

/// The order Python's `sorted` gives floats (it only asks `<`; no NaN here).
pub(super) fn float_cmp(a: f64, b: f64) -> Ordering {
    if a < b {
        Ordering::Less
    } else if b < a {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// The order of Python tuples `(a0, a1)` and `(b0, b1)` of floats: the first pair that is
/// not `==` decides, by `<`.
pub(super) fn pair_cmp(a: (f64, f64), b: (f64, f64)) -> Ordering {
    if a.0 != b.0 {
        float_cmp(a.0, b.0)
    } else {
        float_cmp(a.1, b.1)
    }
}

/// `sorted(values)` (stable).
pub(super) fn sorted(mut values: Vec<f64>) -> Vec<f64> {
    values.sort_by(|a, b| float_cmp(*a, *b));
    values
}

/// `statistics.median(values)`: the middle of the sorted values, or the mean of the two
/// middle ones, `(a + b) / 2`. `values` is not empty.
pub fn median(values: Vec<f64>) -> f64 {
    let data = sorted(values);
    let n = data.len();
    if n % 2 == 1 {
        data[n / 2]
    } else {
        let i = n / 2;
        (data[i - 1] + data[i]) / 2.0
    }
}

/// `min(a, b)`: `a` unless `b` is smaller.
pub(super) fn min2(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

/// `max(a, b)`: `a` unless `b` is larger.
pub(super) fn max2(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

/// `min(values)`: the first value, replaced by any later one that is smaller. Not empty.
pub(super) fn min_of(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut it = values.into_iter();
    let first = it.next().expect("min() of an empty sequence");
    it.fold(first, min2)
}

/// `max(values)`: the first value, replaced by any later one that is larger. Not empty.
pub(super) fn max_of(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut it = values.into_iter();
    let first = it.next().expect("max() of an empty sequence");
    it.fold(first, max2)
}

/// `min(a, b)` of ints.
pub(super) fn min_i(a: i64, b: i64) -> i64 {
    a.min(b)
}

/// Python's `int(x)` of a finite float, as a bin index (toward zero; saturating).
pub(super) fn trunc(x: f64) -> i64 {
    x as i64
}

/// `ch.isdigit()`.
pub(super) fn is_digit(ch: char) -> bool {
    let code = u32::from(ch);
    if ch.is_ascii() {
        return ch.is_ascii_digit();
    }
    DIGITS
        .binary_search_by(|&(lo, hi)| {
            if hi < code {
                Ordering::Less
            } else if lo > code {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        })
        .is_ok()
}

/// `normal(ch)` of the Python twin appended to `out`: PDFium's reports of a hyphen ending a
/// line (U+FFFE, and U+0002 for pdfTeX's and LibreOffice's hyphens) as `-`; a soft hyphen left
/// out (`line_item` keeps one that ends a line, as U+2010); other control characters (Unicode
/// category Cc) left out, or a space where Python counts them as whitespace; ligatures and
/// presentation forms (U+FB00..=U+FB4F, U+FE10..=U+FEFF) by NFKC, and nothing else.
pub(super) fn push_normal(out: &mut String, ch: char) {
    match ch {
        '\u{FFFE}' | '\u{2}' => {
            out.push('-');
            return;
        }
        '\u{AD}' => return,
        _ => {}
    }
    if ch <= '\u{1F}' || ('\u{7F}'..='\u{9F}').contains(&ch) {
        // `ch.isspace()` of the control characters.
        if matches!(ch, '\t'..='\r' | '\u{1C}'..='\u{1F}' | '\u{85}') {
            out.push(' ');
        }
        return;
    }
    if ('\u{FB00}'..='\u{FB4F}').contains(&ch) || ('\u{FE10}'..='\u{FEFF}').contains(&ch) {
        if let Ok(i) = NFKC.binary_search_by_key(&u32::from(ch), |&(code, _)| code) {
            out.push_str(NFKC[i].1);
            return;
        }
    }
    out.push(ch);
}

// NFKC and DIGITS: the Unicode tables, written by `scripts/gen_pdf_nfkc.py` from Python's
// `unicodedata` (never edited by hand).
include!("unicode_tables.rs");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_half_even_on_the_binary_value() {
        // Values from CPython's `round(x, 1)`.
        let cases = [
            (0.25, 0.2),
            (0.35, 0.3),
            (0.05, 0.1),
            (0.15, 0.1),
            (2.25, 2.2),
            (2.75, 2.8),
            (-0.25, -0.2),
            (-0.05, -0.1),
            (12.45, 12.4),
            (9.95, 9.9),
            (0.45, 0.5),
            (1.0 / 3.0, 0.3),
            (10.5, 10.5),
            (11.96, 12.0),
            (1e300, 1e300),
        ];
        for (x, want) in cases {
            assert_eq!(round1(x), want, "round({x}, 1)");
        }
        assert!(round1(-0.04).is_sign_negative());
        assert!(round1(f64::INFINITY).is_infinite());
        assert_eq!((2.5f64).round_ties_even(), 2.0);
        assert_eq!((3.5f64).round_ties_even(), 4.0);
    }

    #[test]
    fn median_like_statistics() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(vec![9.5]), 9.5);
        // (a + b) / 2, not a + (b - a) / 2.
        assert_eq!(median(vec![0.1, 0.2]), (0.1 + 0.2) / 2.0);
    }

    #[test]
    fn sums_left_to_right() {
        let v = [0.1, 0.2, 0.3];
        assert_eq!(sum_left(&v), (0.1 + 0.2) + 0.3);
        // Not Python 3.12's compensated sum, which gives 0.6.
        assert_eq!(sum_left(&v), 0.6000000000000001);
        assert_eq!(sum_left(&[1e100, 1.0, -1e100]), 0.0);
        assert!(sum_left(&[-0.0]).is_sign_positive());
        assert_eq!(sum_left(&[]), 0.0);
    }

    #[test]
    fn python_whitespace_and_digits() {
        let cx = Cx::new();
        let mut want: Vec<u32> = (0x09..=0x0D).chain(0x1C..=0x20).collect();
        want.extend([0x85, 0xA0, 0x1680]);
        want.extend(0x2000..=0x200A);
        want.extend([0x2028, 0x2029, 0x202F, 0x205F, 0x3000]);
        let got: Vec<u32> = (0..=0x10FFFFu32)
            .filter_map(char::from_u32)
            .filter(|&c| cx.is_space(c))
            .map(u32::from)
            .collect();
        assert_eq!(got, want);
        assert_eq!(cx.strip("\u{3000} a b\u{1F} "), "a b");
        assert_eq!(cx.collapse(" a \u{85} b\u{200B}c  "), "a b\u{200B}c");
        assert!(is_digit('7') && is_digit('\u{B2}') && is_digit('\u{0663}'));
        assert!(is_digit('\u{2460}')); // CIRCLED DIGIT ONE
        assert!(!is_digit('\u{2155}') && !is_digit('a') && !is_digit('\u{4E00}'));
    }

    #[test]
    fn normal_forms() {
        let mut s = String::new();
        for c in [
            '\u{FB01}', '\u{FFFE}', 'a', '\u{FEFB}', '\u{FEFF}', '\u{2}', '\u{AD}',
        ] {
            push_normal(&mut s, c);
        }
        assert_eq!(s, "fi-a\u{0644}\u{0627}\u{FEFF}-");
        // Control characters: whitespace ones as a space, the others left out.
        let mut s = String::new();
        for c in ['\u{7}', '\t', '\u{1F}', '\u{9F}', '\u{85}', '\u{FE35}'] {
            push_normal(&mut s, c);
        }
        assert_eq!(s, "   (");
    }
}
