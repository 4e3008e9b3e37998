//! One PDF page's layout: characters and graphics in, lines, tables and figures out — the twin
//! of `python/ragchunk/documents/_layout.py`, item for item and float for float.
//!
//! The input is what [`crate::documents::pdfium`] reads of a page; the output is the page's
//! [`Item`]s in reading order (see the Python module for what each step does and why). Every
//! step mirrors the Python one: the same loops in the same order, the same tie-breaks (Python's
//! `min`/`max` keep the first of equal values, `sorted` is stable), and the same float
//! operations in the same order, so both give the same values bit for bit. What Python does
//! implicitly is spelled out here:
//!
//! * `round(x, 1)` rounds the exact binary value half-to-even at one decimal ([`round1`]),
//!   `round(x)` is [`f64::round_ties_even`];
//! * `statistics.median` is [`median`], `sum` over floats is [`py_sum`] (a plain left-to-right
//!   sum before Python 3.12, Neumaier's compensated sum since: [`Semantics`]);
//! * `str.isspace`, `str.strip`, `str.split` use Python's whitespace
//!   (`chars.whitespace.langchain`, the set the LangChain-compatible splitters use);
//! * `str.isdigit` and NFKC over ligatures and Arabic presentation forms come from tables
//!   generated from Python's `unicodedata` (`scripts/gen_pdf_nfkc.py`).
//!
//! Characters are keyed by their index where the Python module keys them by `id()`.

use std::cmp::Ordering;

use super::pdfium::{Char, Graphic, BOLD, BREAK, GENERATED, IMAGE, MONO, PATH, STRAIGHT, STROKE};
use crate::text::boundaries::{boundaries, CharSet};

const THIN: f64 = 3.0;
const MIN_RULE: f64 = 5.0;
const TOL: f64 = 2.0;
const FIGURE_MIN: f64 = 20.0;
const LINE_JUMP: f64 = 40.0;
const CAPTION_STARTS: [&str; 9] = [
    "fig", "table", "图", "表", "図", "그림", "표", "рис", "табл",
];
/// The most quarter-point bins a column search looks at (10,000 pt).
const MAX_BINS: i64 = 40_000;

/// What an item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A line of text.
    Line,
    /// A table found from its ruling lines.
    Table,
    /// An image, or a drawing with no text on it.
    Figure,
}

impl Kind {
    /// The name the Python module gives it: `"line"`, `"table"` or `"figure"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Line => "line",
            Kind::Table => "table",
            Kind::Figure => "figure",
        }
    }
}

/// One item of a page, as the Python module's tuple
/// `(kind, text, x0, top, x1, bottom, size, flags, column, rows)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// A line, a table or a figure.
    pub kind: Kind,
    /// A line's text; a table's rows joined by `"\n"` and its cells by `" | "`; empty for a
    /// figure.
    pub text: String,
    /// Left edge, in points from the page's left edge.
    pub x0: f64,
    /// Top edge, in points from the page's top edge.
    pub top: f64,
    /// Right edge.
    pub x1: f64,
    /// Bottom edge.
    pub bottom: f64,
    /// The median font size, rounded to 0.1 (0.0 for a figure).
    pub size: f64,
    /// A line's [`BOLD`] and [`MONO`] bits (of its first character); 0 otherwise.
    pub flags: u8,
    /// `"left"`, `"right"` or `"span"`.
    pub column: &'static str,
    /// A table's cells, row by row.
    pub rows: Option<Vec<Vec<String>>>,
}

/// The Python semantics that differ between Python versions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Semantics {
    /// `sum()` over floats is Neumaier's compensated sum (Python 3.12 and later), not a plain
    /// left-to-right sum (Python 3.10 and 3.11).
    pub compensated_sum: bool,
}

/// A page's lines, tables and figures in reading order, as `_layout.page_items` gives them
/// under Python 3.10 and 3.11 (see [`page_items_with`] for later versions).
pub fn page_items(chars: &[Char], graphics: &[Graphic], width: f64) -> Vec<Item> {
    page_items_with(chars, graphics, width, Semantics::default())
}

/// A page's lines, tables and figures in reading order, as `_layout.page_items` gives them
/// under a Python with the given [`Semantics`].
pub fn page_items_with(
    chars: &[Char],
    graphics: &[Graphic],
    width: f64,
    semantics: Semantics,
) -> Vec<Item> {
    let cx = Cx::new(semantics);
    // A broken file can give coordinates that are not finite: such a character keeps its
    // text at the page's corner, such a graphic is left out.
    let chars: Vec<Char> = chars
        .iter()
        .map(|c| {
            if [c.x0, c.top, c.x1, c.bottom, c.size]
                .iter()
                .all(|v| v.is_finite())
            {
                *c
            } else {
                Char {
                    x0: 0.0,
                    top: 0.0,
                    x1: 0.0,
                    bottom: 0.0,
                    size: 0.0,
                    ..*c
                }
            }
        })
        .collect();
    let chars = &chars[..];
    let graphics: Vec<Graphic> = graphics
        .iter()
        .filter(|g| [g.x0, g.top, g.x1, g.bottom].iter().all(|v| v.is_finite()))
        .copied()
        .collect();
    let graphics = &graphics[..];
    let (hs, vs) = rules(graphics);
    let (mut tables, used) = grid_tables(&cx, &hs, &vs);
    let pool: Vec<Char> = chars
        .iter()
        .filter(|c| c.flags & GENERATED == 0 && !tables.iter().any(|t| t.holds(c)))
        .copied()
        .collect();
    let more = ruleonly_tables(&cx, &hs, &used, &pool);
    tables.extend(more);
    let mut rest: Vec<Char> = Vec::new();
    let mut inside: Vec<Vec<Char>> = vec![Vec::new(); tables.len()];
    // A generated character goes where the character before it went (None: `rest`).
    let mut into: Option<usize> = None;
    for c in chars {
        if c.flags & GENERATED == 0 {
            into = tables.iter().position(|t| t.holds(c));
        }
        match into {
            None => rest.push(*c),
            Some(i) => inside[i].push(*c),
        }
    }
    let mut items: Vec<Item> = Vec::new();
    for (t, cs) in tables.iter().zip(&inside) {
        items.push(fill(&cx, t, cs));
    }
    for [x0, top, x1, bottom] in figures(graphics, &rest, &tables) {
        items.push(Item {
            kind: Kind::Figure,
            text: String::new(),
            x0,
            top,
            x1,
            bottom,
            size: 0.0,
            flags: 0,
            column: "span",
            rows: None,
        });
    }
    for ln in lines(&cx, &rest) {
        items.push(line_item(&cx, &ln));
    }
    order(items, width)
}

// --------------------------------------------------------------------------- Python's rules

/// What every step needs: Python's whitespace and the version-dependent semantics.
struct Cx {
    space: CharSet,
    semantics: Semantics,
}

impl Cx {
    fn new(semantics: Semantics) -> Cx {
        Cx {
            space: boundaries().langchain_space,
            semantics,
        }
    }

    /// `ch.isspace()`.
    fn is_space(&self, ch: char) -> bool {
        self.space.contains(ch)
    }

    /// `text.strip()`.
    fn strip<'a>(&self, text: &'a str) -> &'a str {
        text.trim_matches(|c| self.space.contains(c))
    }

    /// `" ".join(text.split())`.
    fn collapse(&self, text: &str) -> String {
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

    /// `sum(values)` over floats (the start value is the int 0).
    fn sum(&self, values: &[f64]) -> f64 {
        py_sum(values, self.semantics.compensated_sum)
    }
}

/// `sum(values)` over a list of floats, as CPython computes it: the int start 0 plus the first
/// value, then the rest added left to right — plainly (`compensated` false: Python 3.10,
/// 3.11) or with Neumaier's compensation added at the end when it is non-zero and finite
/// (Python 3.12 and later).
pub fn py_sum(values: &[f64], compensated: bool) -> f64 {
    let Some((&first, rest)) = values.split_first() else {
        return 0.0;
    };
    let mut total = 0.0 + first;
    if !compensated {
        for &x in rest {
            total += x;
        }
        return total;
    }
    let mut c = 0.0f64;
    for &x in rest {
        let t = total + x;
        if total.abs() >= x.abs() {
            c += (total - t) + x;
        } else {
            c += (x - t) + total;
        }
        total = t;
    }
    if c != 0.0 && c.is_finite() {
        total += c;
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
fn float_cmp(a: f64, b: f64) -> Ordering {
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
fn pair_cmp(a: (f64, f64), b: (f64, f64)) -> Ordering {
    if a.0 != b.0 {
        float_cmp(a.0, b.0)
    } else {
        float_cmp(a.1, b.1)
    }
}

/// `sorted(values)` (stable).
fn sorted(mut values: Vec<f64>) -> Vec<f64> {
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
fn min2(a: f64, b: f64) -> f64 {
    if b < a {
        b
    } else {
        a
    }
}

/// `max(a, b)`: `a` unless `b` is larger.
fn max2(a: f64, b: f64) -> f64 {
    if b > a {
        b
    } else {
        a
    }
}

/// `min(values)`: the first value, replaced by any later one that is smaller. Not empty.
fn min_of(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut it = values.into_iter();
    let first = it.next().expect("min() of an empty sequence");
    it.fold(first, min2)
}

/// `max(values)`: the first value, replaced by any later one that is larger. Not empty.
fn max_of(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut it = values.into_iter();
    let first = it.next().expect("max() of an empty sequence");
    it.fold(first, max2)
}

/// `min(a, b)` of ints.
fn min_i(a: i64, b: i64) -> i64 {
    a.min(b)
}

/// Python's `int(x)` of a finite float, as a bin index (toward zero; saturating).
fn trunc(x: f64) -> i64 {
    x as i64
}

/// `ch.isdigit()`.
fn is_digit(ch: char) -> bool {
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

/// `_layout.normal(ch)` appended to `out`: PDFium's line-end hyphen (U+FFFE) as `-`,
/// ligatures and presentation forms by NFKC.
fn push_normal(out: &mut String, ch: char) {
    if ch == '\u{FFFE}' {
        out.push('-');
        return;
    }
    if ('\u{FB00}'..='\u{FB06}').contains(&ch) || ('\u{FE70}'..='\u{FEFF}').contains(&ch) {
        if let Ok(i) = NFKC.binary_search_by_key(&u32::from(ch), |&(code, _)| code) {
            out.push_str(NFKC[i].1);
            return;
        }
    }
    out.push(ch);
}

// --------------------------------------------------------------------------- lines

/// A character that stands in a line for the space a generated character (or a gap after a
/// line break) makes.
const SPACE: usize = usize::MAX;

const GENERATED_SPACE: Char = Char {
    ch: ' ',
    x0: 0.0,
    top: 0.0,
    x1: 0.0,
    bottom: 0.0,
    size: 0.0,
    flags: GENERATED,
};

/// `_lines`: the characters (PDFium's order) cut into lines, each the indexes of its
/// characters in `chars` ([`SPACE`] for a space the cut inserts).
fn line_ids(cx: &Cx, chars: &[Char]) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut cur: Vec<usize> = Vec::new();
    let (mut top, mut bottom, mut last0, mut last1) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    // The first character's top and bottom: a line drifts no further than a character's
    // height or size from them.
    let (mut top0, mut bottom0) = (0.0f64, 0.0f64);
    let mut started = false;
    let flush = |cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>, started: &mut bool| {
        if cur
            .iter()
            .any(|&i| i != SPACE && chars[i].flags & GENERATED == 0 && !cx.is_space(chars[i].ch))
        {
            out.push(cur.clone());
        }
        cur.clear();
        *started = false;
    };
    let mut broken = false;
    for (i, c) in chars.iter().enumerate() {
        if c.flags & BREAK != 0 {
            broken = true;
            continue;
        }
        if c.flags & GENERATED != 0 {
            if !cur.is_empty() {
                cur.push(SPACE);
            }
            continue;
        }
        if !cx.is_space(c.ch) {
            let mid = (c.top + c.bottom) / 2.0;
            let slack = 0.3 * c.size;
            let reach = max2(c.size, bottom0 - top0);
            if started
                && (c.x0 < last0 - 1.0
                    || mid > bottom + slack
                    || mid < top - slack
                    || mid > bottom0 + reach
                    || mid < top0 - reach
                    || c.x0 - last1 > LINE_JUMP)
            {
                flush(&mut cur, &mut out, &mut started);
            } else if started && broken && c.x0 - last1 > 0.2 * c.size {
                cur.push(SPACE);
            }
            if !started {
                (top, bottom, started) = (c.top, c.bottom, true);
                (top0, bottom0) = (c.top, c.bottom);
            } else {
                (top, bottom) = (min2(top, c.top), max2(bottom, c.bottom));
            }
            (last0, last1) = (c.x0, c.x1);
            broken = false;
        }
        cur.push(i);
    }
    flush(&mut cur, &mut out, &mut started);
    out
}

/// The characters of a line of [`line_ids`].
fn line_chars(chars: &[Char], ids: &[usize]) -> Vec<Char> {
    ids.iter()
        .map(|&i| {
            if i == SPACE {
                GENERATED_SPACE
            } else {
                chars[i]
            }
        })
        .collect()
}

/// `_lines`: the lines, as their characters.
fn lines(cx: &Cx, chars: &[Char]) -> Vec<Vec<Char>> {
    line_ids(cx, chars)
        .iter()
        .map(|ids| line_chars(chars, ids))
        .collect()
}

/// `_line_item`.
fn line_item(cx: &Cx, cs: &[Char]) -> Item {
    let body: Vec<&Char> = cs
        .iter()
        .filter(|c| c.flags & GENERATED == 0 && !cx.is_space(c.ch))
        .collect();
    let mut joined = String::with_capacity(cs.len());
    for c in cs {
        push_normal(&mut joined, c.ch);
    }
    let text = cx.strip(&joined);
    let text = if text.contains("  ") {
        cx.collapse(text)
    } else {
        text.to_string()
    };
    Item {
        kind: Kind::Line,
        text,
        x0: min_of(body.iter().map(|c| c.x0)),
        top: min_of(body.iter().map(|c| c.top)),
        x1: max_of(body.iter().map(|c| c.x1)),
        bottom: max_of(body.iter().map(|c| c.bottom)),
        size: round1(median(body.iter().map(|c| c.size).collect())),
        flags: body[0].flags & (BOLD | MONO),
        column: "span",
        rows: None,
    }
}

// --------------------------------------------------------------------------- rules

/// A rule: `(y, x0, x1)` for a horizontal one, `(x, top, bottom)` for a vertical one.
type Rule = (f64, f64, f64);

/// `_rules`: horizontal and vertical rules.
fn rules(graphics: &[Graphic]) -> (Vec<Rule>, Vec<Rule>) {
    let mut hs: Vec<Rule> = Vec::new();
    let mut vs: Vec<Rule> = Vec::new();
    for g in graphics {
        if g.kind != PATH {
            continue;
        }
        let (x0, top, x1, bottom, flags) = (g.x0, g.top, g.x1, g.bottom, g.flags);
        let (w, h) = (x1 - x0, bottom - top);
        if h <= THIN && w >= MIN_RULE {
            hs.push(((top + bottom) / 2.0, x0 + h / 2.0, x1 - h / 2.0));
        } else if w <= THIN && h >= MIN_RULE {
            vs.push(((x0 + x1) / 2.0, top + w / 2.0, bottom - w / 2.0));
        } else if flags & STRAIGHT != 0 && flags & STROKE != 0 && w > THIN && h > THIN {
            hs.extend([(top, x0, x1), (bottom, x0, x1)]);
            vs.extend([(x0, top, bottom), (x1, top, bottom)]);
        }
    }
    (hs, vs)
}

/// `_cluster`: sorted values with those within `TOL` of the previous kept merged (their
/// mean).
fn cluster(cx: &Cx, values: Vec<f64>) -> Vec<f64> {
    let mut out: Vec<Vec<f64>> = Vec::new();
    for v in sorted(values) {
        match out.last_mut() {
            Some(g) if v - g[g.len() - 1] <= TOL => g.push(v),
            _ => out.push(vec![v]),
        }
    }
    out.iter().map(|g| cx.sum(g) / g.len() as f64).collect()
}

// --------------------------------------------------------------------------- tables

/// `_Table`.
struct Table {
    /// `(x0, top, x1, bottom)`.
    bbox: [f64; 4],
    /// Column edges, left to right.
    xs: Vec<f64>,
    /// Row edges, top to bottom.
    ys: Vec<f64>,
    /// Vertical rules (grid tables).
    vs: Vec<Rule>,
    ruled_rows: bool,
}

impl Table {
    fn holds(&self, c: &Char) -> bool {
        let (cx, cy) = ((c.x0 + c.x1) / 2.0, (c.top + c.bottom) / 2.0);
        let [x0, top, x1, bottom] = self.bbox;
        x0 - 1.0 <= cx && cx <= x1 + 1.0 && top - 1.0 <= cy && cy <= bottom + 1.0
    }
}

/// `_grid_tables`: tables from rules that cross; which horizontal rules they use.
fn grid_tables(cx: &Cx, hs: &[Rule], vs: &[Rule]) -> (Vec<Table>, Vec<bool>) {
    let n = hs.len();
    let mut parent: Vec<usize> = (0..n + vs.len()).collect();
    fn find(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for (i, &(y, hx0, hx1)) in hs.iter().enumerate() {
        for (j, &(x, vt, vb)) in vs.iter().enumerate() {
            if hx0 - TOL <= x && x <= hx1 + TOL && vt - TOL <= y && y <= vb + TOL {
                // `parent[find(i)] = find(n + j)`: Python evaluates the right side first.
                let b = find(&mut parent, n + j);
                let a = find(&mut parent, i);
                parent[a] = b;
            }
        }
    }
    // Groups in the order their roots first appear, members ascending (a dict in Python).
    let mut slot: Vec<usize> = vec![usize::MAX; n + vs.len()];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in 0..n + vs.len() {
        let root = find(&mut parent, i);
        if slot[root] == usize::MAX {
            slot[root] = groups.len();
            groups.push(Vec::new());
        }
        groups[slot[root]].push(i);
    }
    let mut tables: Vec<Table> = Vec::new();
    let mut used = vec![false; n];
    for members in &groups {
        let h: Vec<Rule> = members.iter().filter(|&&i| i < n).map(|&i| hs[i]).collect();
        let v: Vec<Rule> = members
            .iter()
            .filter(|&&i| i >= n)
            .map(|&i| vs[i - n])
            .collect();
        let ys = cluster(cx, h.iter().map(|r| r.0).collect());
        let xs = cluster(cx, v.iter().map(|r| r.0).collect());
        if ys.len() < 2 || xs.len() < 2 || (ys.len() - 1) * (xs.len() - 1) < 2 {
            continue;
        }
        let bbox = [
            min2(min_of(h.iter().map(|r| r.1)), xs[0]),
            min2(min_of(v.iter().map(|r| r.1)), ys[0]),
            max2(max_of(h.iter().map(|r| r.2)), xs[xs.len() - 1]),
            max2(max_of(v.iter().map(|r| r.2)), ys[ys.len() - 1]),
        ];
        tables.push(Table {
            bbox,
            xs,
            ys,
            vs: v,
            ruled_rows: true,
        });
        for &i in members {
            if i < n {
                used[i] = true;
            }
        }
    }
    (tables, used)
}

/// `_alone`: for each line, whether no other line shares more than half the smaller height
/// with it (lines swept by top, as the Python module does).
fn alone(lines: &[Vec<Char>]) -> Vec<bool> {
    let ext: Vec<(f64, f64)> = lines
        .iter()
        .map(|ln| {
            let body = || ln.iter().filter(|c| c.flags & GENERATED == 0);
            (
                min_of(body().map(|c| c.top)),
                max_of(body().map(|c| c.bottom)),
            )
        })
        .collect();
    let mut order: Vec<usize> = (0..lines.len()).collect();
    order.sort_by(|&a, &b| float_cmp(ext[a].0, ext[b].0));
    let tallest = if ext.is_empty() {
        0.0
    } else {
        max_of(ext.iter().map(|&(t, b)| b - t))
    };
    let overlap = |(it, ib): (f64, f64), (jt, jb): (f64, f64)| {
        min2(ib, jb) - max2(it, jt) > 0.5 * min2(ib - it, jb - jt)
    };
    let mut out = vec![true; lines.len()];
    for (n, &i) in order.iter().enumerate() {
        let (it, ib) = ext[i];
        for &j in &order[n + 1..] {
            let (jt, _) = ext[j];
            if jt >= ib {
                break;
            }
            if overlap(ext[i], ext[j]) {
                out[i] = false;
                break;
            }
        }
        if !out[i] {
            continue;
        }
        for &j in order[..n].iter().rev() {
            let (jt, _) = ext[j];
            if jt < it - tallest {
                break;
            }
            if overlap(ext[i], ext[j]) {
                out[i] = false;
                break;
            }
        }
    }
    out
}

/// `_x_gaps`: column edges inside `[x0, x1]`.
fn x_gaps(cx: &Cx, chars: &[Char], x0: f64, x1: f64) -> Vec<f64> {
    let all = lines(cx, chars);
    let lone = alone(&all);
    let shared: Vec<&Vec<Char>> = all
        .iter()
        .zip(&lone)
        .filter(|(_, &a)| !a)
        .map(|(ln, _)| ln)
        .collect();
    let lines: Vec<&Vec<Char>> = if shared.len() >= 2 {
        shared
    } else {
        all.iter().collect()
    };
    if lines.is_empty() {
        return Vec::new();
    }
    let sizes = sorted(
        chars
            .iter()
            .filter(|c| c.flags & GENERATED == 0)
            .map(|c| c.size)
            .collect(),
    );
    let least = 0.5 * sizes[sizes.len() / 2];
    let lo = x0;
    let width = min_i(trunc((x1 - x0) * 4.0).saturating_add(2), MAX_BINS); // quarter-point bins
                                                                           // How many lines ink each bin: per line, its characters' bins merged into runs, each run
                                                                           // counted once (a difference array).
    let mut delta = vec![0i64; usize::try_from(width + 1).unwrap_or(0)];
    let mut runs: Vec<[i64; 2]> = Vec::new();
    for ln in &lines {
        runs.clear();
        for c in ln.iter() {
            if c.flags & GENERATED != 0 || cx.is_space(c.ch) {
                continue;
            }
            let a = trunc((c.x0 - lo) * 4.0).max(0);
            let b = min_i(width, trunc((c.x1 - lo) * 4.0).saturating_add(1));
            if a >= b {
                continue;
            }
            match runs.last_mut() {
                Some(last) if a <= last[1] && b >= last[0] => {
                    *last = [last[0].min(a), last[1].max(b)];
                }
                _ => runs.push([a, b]),
            }
        }
        runs.sort_unstable();
        let mut end = -1i64;
        for &[a, b] in &runs {
            let a = a.max(end);
            if b > a {
                delta[a as usize] += 1;
                delta[b as usize] -= 1;
                end = b;
            }
        }
    }
    let wu = usize::try_from(width).unwrap_or(0);
    let mut cover = vec![0i64; wu];
    let mut running = 0i64;
    for k in 0..wu {
        running += delta[k];
        cover[k] = running;
    }
    let limit = 0i64;
    let Some(first) = cover.iter().position(|&v| v > limit) else {
        return Vec::new();
    };
    let last = cover.iter().rposition(|&v| v > limit).unwrap_or(first);
    let mut edges = Vec::new();
    let mut k = first;
    while k <= last {
        if cover[k] <= limit {
            let start = k;
            while k <= last && cover[k] <= limit {
                k += 1;
            }
            if (k - start) as f64 / 4.0 >= least {
                edges.push(lo + k as f64 / 4.0 - 0.25);
            }
        }
        k += 1;
    }
    edges
}

/// Whether `t` (already stripped and lowercased) is a caption: it starts with a caption word
/// and has a digit among its first 12 characters.
fn is_caption(t: &str) -> bool {
    CAPTION_STARTS.iter().any(|p| t.starts_with(p)) && t.chars().take(12).any(is_digit)
}

/// The midpoint of a character.
fn centre(c: &Char) -> (f64, f64) {
    ((c.x0 + c.x1) / 2.0, (c.top + c.bottom) / 2.0)
}

/// `_ByY`: characters indexed by the height of their middle, so a band of the page is
/// found by bisection; a band's characters come back in their order on the page.
struct ByY<'a> {
    chars: &'a [Char],
    order: Vec<usize>,
    ys: Vec<f64>,
}

impl<'a> ByY<'a> {
    fn new(chars: &'a [Char]) -> ByY<'a> {
        let mut order: Vec<usize> = (0..chars.len()).collect();
        order.sort_by(|&i, &j| float_cmp(centre(&chars[i]).1, centre(&chars[j]).1));
        let ys = order.iter().map(|&i| centre(&chars[i]).1).collect();
        ByY { chars, order, ys }
    }

    /// The characters with `x0 <= middle x <= x1` and `lo < middle y < hi`.
    fn strictly_between(&self, x0: f64, x1: f64, lo: f64, hi: f64) -> Vec<Char> {
        let a = self.ys.partition_point(|&y| y <= lo);
        let b = self.ys.partition_point(|&y| y < hi);
        let mut picked: Vec<usize> = self.order[a..a.max(b)].to_vec();
        picked.sort_unstable();
        picked
            .into_iter()
            .map(|i| self.chars[i])
            .filter(|c| {
                let mx = centre(c).0;
                x0 <= mx && mx <= x1
            })
            .collect()
    }

    /// Whether a character's middle is inside the box (edges included).
    fn any_inside(&self, x0: f64, top: f64, x1: f64, bottom: f64) -> bool {
        let a = self.ys.partition_point(|&y| y < top);
        let b = self.ys.partition_point(|&y| y <= bottom);
        a < b
            && self.order[a..b].iter().any(|&i| {
                let mx = centre(&self.chars[i]).0;
                x0 <= mx && mx <= x1
            })
    }
}

/// `_ruleonly_tables`: tables bounded by horizontal rules of one extent.
fn ruleonly_tables(cx: &Cx, hs: &[Rule], used: &[bool], chars: &[Char]) -> Vec<Table> {
    let mut free: Vec<Rule> = hs
        .iter()
        .enumerate()
        .filter(|&(i, r)| !used[i] && r.2 - r.1 >= 40.0)
        .map(|(_, &r)| r)
        .collect();
    free.sort_by(|a, b| float_cmp(a.0, b.0));
    let mut groups: Vec<Vec<Rule>> = Vec::new();
    for r in free {
        match groups
            .iter_mut()
            .find(|g| (g[0].1 - r.1).abs() <= 3.0 && (g[0].2 - r.2).abs() <= 3.0)
        {
            Some(g) => g.push(r),
            None => groups.push(vec![r]),
        }
    }
    let mut tables: Vec<Table> = Vec::new();
    let by_y = ByY::new(chars);
    for g in &groups {
        let ys = cluster(cx, g.iter().map(|r| r.0).collect());
        let (x0, x1) = (min_of(g.iter().map(|r| r.1)), max_of(g.iter().map(|r| r.2)));
        let mut run: Vec<f64> = Vec::new();
        for y in ys.iter().copied().chain([f64::INFINITY]) {
            if let Some(&above) = run.last() {
                if y != f64::INFINITY {
                    let band = by_y.strictly_between(x0, x1, above, y);
                    let band_lines = lines(cx, &band);
                    let mut broken = band_lines.iter().any(|ln| {
                        let joined: String = ln.iter().map(|c| c.ch).collect();
                        is_caption(&cx.strip(&joined).to_lowercase())
                    });
                    if !broken && band_lines.len() > 2 && x_gaps(cx, &band, x0, x1).is_empty() {
                        broken = true;
                    }
                    if broken {
                        close(cx, &run, x0, x1, &by_y, &mut tables);
                        run.clear();
                    }
                }
            }
            run.push(y);
        }
        let end = match run.last() {
            Some(&y) if y == f64::INFINITY => run.len() - 1,
            _ => run.len(),
        };
        close(cx, &run[..end], x0, x1, &by_y, &mut tables);
    }
    tables
}

/// `_close`: a rule-only table over the rules `run`, if its text has columns.
fn close(cx: &Cx, run: &[f64], x0: f64, x1: f64, by_y: &ByY, out: &mut Vec<Table>) {
    let run: Vec<f64> = run
        .iter()
        .copied()
        .filter(|&y| y != f64::INFINITY)
        .collect();
    if run.len() < 2 {
        return;
    }
    let (first, last) = (run[0], run[run.len() - 1]);
    let inside = by_y.strictly_between(x0, x1, first, last);
    let gaps = x_gaps(cx, &inside, x0, x1);
    if gaps.is_empty() || (run.len() == 2 && line_ids(cx, &inside).len() < 2) {
        return;
    }
    let mut xs = Vec::with_capacity(gaps.len() + 2);
    xs.push(x0);
    xs.extend(gaps);
    xs.push(x1);
    out.push(Table {
        bbox: [x0, first, x1, last],
        xs,
        ys: run,
        vs: Vec::new(),
        ruled_rows: false,
    });
}

/// `_row_edges`: a rule-only table's row edges.
fn row_edges(cx: &Cx, t: &Table, chars: &[Char]) -> Vec<f64> {
    let ncols = t.xs.len() - 1;
    let mut cols: Vec<Vec<(Item, f64)>> = (0..ncols).map(|_| Vec::new()).collect();
    for cs in lines(cx, chars) {
        let ln = line_item(cx, &cs);
        let at = index(&t.xs, (ln.x0 + min2(ln.x1, ln.x0 + 10.0)) / 2.0);
        let k = at.min(ncols - 1);
        let base = baseline(cx, &cs);
        cols[k].push((ln, base));
    }
    let mut pitches: Vec<(f64, f64, f64)> = Vec::new(); // (pitch, top of the gap, bottom of it)
    for col in &mut cols {
        col.sort_by(|a, b| float_cmp(a.0.top, b.0.top));
        for pair in col.windows(2) {
            let ((a, base_a), (b, base_b)) = (&pair[0], &pair[1]);
            pitches.push((base_b - base_a, a.bottom, b.top));
        }
    }
    let mut glued: Vec<(f64, f64)> = Vec::new();
    if !pitches.is_empty() {
        let least = min_of(pitches.iter().map(|p| p.0));
        if max_of(pitches.iter().map(|p| p.0)) - least >= 2.0 {
            glued = pitches
                .iter()
                .filter(|p| p.0 <= least + 2.0)
                .map(|p| (p.1, p.2))
                .collect();
        }
    }
    let mut all: Vec<&Item> = cols.iter().flatten().map(|x| &x.0).collect();
    all.sort_by(|a, b| float_cmp(a.top, b.top));
    let mut bands: Vec<(f64, f64)> = Vec::new(); // (top, bottom) of each visual line
    for ln in all {
        let (top, bottom) = (ln.top, ln.bottom);
        match bands.last_mut() {
            Some(band) if top < band.1 - 0.5 * (bottom - top) => {
                *band = (min2(band.0, top), max2(band.1, bottom));
            }
            _ => bands.push((top, bottom)),
        }
    }
    // Whether a gap's middle is inside a glued stretch: the stretches by start, and the
    // furthest end among those that start before it.
    glued.sort_by(|a, b| float_cmp(a.0, b.0));
    let starts: Vec<f64> = glued.iter().map(|g| g.0 - 0.5).collect();
    let mut reach: Vec<f64> = Vec::with_capacity(glued.len());
    for g in &glued {
        let furthest = match reach.last() {
            Some(&r) => max2(r, g.1),
            None => g.1,
        };
        reach.push(furthest);
    }
    let mut edges = sorted(t.ys.clone());
    for pair in bands.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let mid = (a.1 + b.0) / 2.0;
        let k = starts.partition_point(|&s| s <= mid);
        if k > 0 && mid <= reach[k - 1] + 0.5 {
            continue;
        }
        // Not within 2 pt of an edge already there (the nearest one below or above).
        let i = edges.partition_point(|&e| e < mid);
        if (i > 0 && (mid - edges[i - 1]).abs() < 2.0)
            || (i < edges.len() && (mid - edges[i]).abs() < 2.0)
        {
            continue;
        }
        edges.insert(i, mid);
    }
    edges
}

/// `_baseline`: the most common bottom of a line's characters, in half points (the least
/// of equally common ones).
fn baseline(cx: &Cx, line: &[Char]) -> f64 {
    let mut counts: Vec<(f64, usize)> = Vec::new();
    for c in line {
        if c.flags & GENERATED == 0 && !cx.is_space(c.ch) {
            // `round(c.bottom * 2) / 2`: an int halved, so never -0.0.
            let key = (c.bottom * 2.0).round_ties_even() / 2.0 + 0.0;
            match counts.iter_mut().find(|(k, _)| *k == key) {
                Some((_, n)) => *n += 1,
                None => counts.push((key, 1)),
            }
        }
    }
    let mut best: Option<(f64, usize)> = None;
    for &(key, n) in &counts {
        best = match best {
            Some((bk, bn)) if !(n > bn || (n == bn && -key > -bk)) => Some((bk, bn)),
            _ => Some((key, n)),
        };
    }
    best.map_or(0.0, |(key, _)| key)
}

/// `_fill`: the table's item, its characters put into cells.
fn fill(cx: &Cx, t: &Table, chars: &[Char]) -> Item {
    let ys = if !t.ruled_rows {
        row_edges(cx, t, chars)
    } else {
        t.ys.clone()
    };
    let xs = &t.xs;
    let ncol = xs.len() - 1;
    // A line alone at its height that crosses a column edge is one cell, in the column where
    // it starts (tables without vertical rules), keyed by character index.
    let mut forced: Vec<Option<usize>> = vec![None; chars.len()];
    if t.vs.is_empty() {
        let ids = line_ids(cx, chars);
        let all: Vec<Vec<Char>> = ids.iter().map(|l| line_chars(chars, l)).collect();
        let lone = alone(&all);
        for (li, line) in ids.iter().enumerate() {
            let body: Vec<usize> = line
                .iter()
                .copied()
                .filter(|&i| i != SPACE && chars[i].flags & GENERATED == 0)
                .collect();
            let (b0, b1) = (&chars[body[0]], &chars[body[body.len() - 1]]);
            let first = index(xs, (b0.x0 + b0.x1) / 2.0);
            if lone[li] && index(xs, (b1.x0 + b1.x1) / 2.0) != first {
                for &i in &body {
                    forced[i] = Some(first);
                }
            }
        }
    }
    let nrows = ys.len() - 1;
    let mut cells: Vec<Vec<usize>> = vec![Vec::new(); nrows * ncol];
    let mut last: Option<usize> = None;
    for (i, c) in chars.iter().enumerate() {
        if c.flags & GENERATED != 0 {
            if let Some(cell) = last {
                cells[cell].push(i);
            }
            continue;
        }
        let (mx, my) = centre(c);
        let r = index(&ys, my).min(ys.len() - 2);
        let k = forced[i].unwrap_or_else(|| index(xs, mx).min(ncol - 1));
        let cell = r * ncol + k;
        cells[cell].push(i);
        last = Some(cell);
    }
    let mut rows: Vec<Vec<String>> = Vec::new();
    for r in 0..nrows {
        let mut row: Vec<String> = Vec::new();
        let mid = (ys[r] + ys[r + 1]) / 2.0;
        let mut k = 0;
        while k < ncol {
            let mut got: Vec<Char> = cells[r * ncol + k].iter().map(|&i| chars[i]).collect();
            // A grid cell no vertical rule closes spans into the next column.
            while !t.vs.is_empty()
                && k + 1 < ncol
                && !t
                    .vs
                    .iter()
                    .any(|v| (v.0 - xs[k + 1]).abs() <= TOL && v.1 - TOL <= mid && mid <= v.2 + TOL)
            {
                k += 1;
                got.extend(cells[r * ncol + k].iter().map(|&i| chars[i]));
            }
            row.push(cell_text(cx, &got));
            k += 1;
        }
        if row.iter().any(|s| !s.is_empty()) {
            rows.push(row);
        }
    }
    let text = rows
        .iter()
        .map(|row| row.join(" | "))
        .collect::<Vec<_>>()
        .join("\n");
    let [x0, top, x1, bottom] = t.bbox;
    let sizes: Vec<f64> = chars
        .iter()
        .filter(|c| c.flags & GENERATED == 0)
        .map(|c| c.size)
        .collect();
    let size = if sizes.is_empty() { 0.0 } else { median(sizes) };
    Item {
        kind: Kind::Table,
        text,
        x0,
        top,
        x1,
        bottom,
        size: round1(size),
        flags: 0,
        column: "span",
        rows: Some(rows),
    }
}

/// `_index`: the slot of `v` between sorted `edges`, the last `i < len - 1` with
/// `edges[i] <= v` (0 below the first edge): `bisect_right(edges, v, 1, len - 1) - 1`.
fn index(edges: &[f64], v: f64) -> usize {
    if edges.len() <= 2 {
        return 0;
    }
    edges[1..edges.len() - 1].partition_point(|&e| e <= v)
}

/// `_cell_text`: a cell's lines, top to bottom (by whole points) and left to right, joined
/// by spaces (none after a hyphen).
fn cell_text(cx: &Cx, chars: &[Char]) -> String {
    let mut items: Vec<Item> = lines(cx, chars)
        .iter()
        .map(|ln| line_item(cx, ln))
        .collect();
    items.sort_by(|a, b| {
        pair_cmp(
            (a.top.round_ties_even(), a.x0),
            (b.top.round_ties_even(), b.x0),
        )
    });
    let mut out = String::new();
    for ln in &items {
        if !out.is_empty() && !out.ends_with('-') {
            out.push(' ');
        }
        out.push_str(&ln.text);
    }
    out
}

// --------------------------------------------------------------------------- figures

/// `_figures`: images, and drawings with no text on them, outside the tables.
fn figures(graphics: &[Graphic], chars: &[Char], tables: &[Table]) -> Vec<[f64; 4]> {
    let mut boxes: Vec<[f64; 5]> = Vec::new();
    for g in graphics {
        let (x0, top, x1, bottom) = (g.x0, g.top, g.x1, g.bottom);
        let (w, h) = (x1 - x0, bottom - top);
        if g.kind == PATH && (w <= THIN || h <= THIN) {
            continue; // a rule
        }
        if g.kind != PATH && g.kind != IMAGE {
            continue;
        }
        if tables.iter().any(|t| {
            t.bbox[0] - 2.0 <= x0
                && x1 <= t.bbox[2] + 2.0
                && t.bbox[1] - 2.0 <= top
                && bottom <= t.bbox[3] + 2.0
        }) {
            continue;
        }
        let image = if g.kind == IMAGE { 1.0 } else { 0.0 };
        boxes.push([x0, top, x1, bottom, image]);
    }
    let boxes = merge_touching(boxes);
    let inked_chars: Vec<Char> = chars
        .iter()
        .filter(|c| c.flags & GENERATED == 0)
        .copied()
        .collect();
    let inked = ByY::new(&inked_chars);
    let mut out = Vec::new();
    for [x0, top, x1, bottom, image] in boxes {
        if x1 - x0 < FIGURE_MIN || bottom - top < FIGURE_MIN {
            continue;
        }
        if image == 0.0 && inked.any_inside(x0, top, x1, bottom) {
            continue; // a background behind text (a code block, a shaded box)
        }
        out.push([x0, top, x1, bottom]);
    }
    out
}

/// `_root`: the root of `i`, halving the path.
fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// `_merge_touching`: boxes `[x0, top, x1, bottom, image]` that touch (within 2 pt) merged
/// into their hull, until no two hulls touch; each hull in the place of its first box.
fn merge_touching(mut boxes: Vec<[f64; 5]>) -> Vec<[f64; 5]> {
    loop {
        let mut order: Vec<usize> = (0..boxes.len()).collect();
        order.sort_by(|&i, &j| float_cmp(boxes[i][0], boxes[j][0]));
        let mut parent: Vec<usize> = (0..boxes.len()).collect();
        let mut merged = false;
        let mut active: Vec<usize> = Vec::new();
        for &i in &order {
            let a = boxes[i];
            active.retain(|&j| boxes[j][2] + 2.0 >= a[0]);
            for &j in &active {
                let b = boxes[j];
                if a[1] - 2.0 <= b[3] && b[1] - 2.0 <= a[3] {
                    let (ri, rj) = (root(&mut parent, i), root(&mut parent, j));
                    if ri != rj {
                        parent[ri.max(rj)] = ri.min(rj);
                        merged = true;
                    }
                }
            }
            active.push(i);
        }
        if !merged {
            return boxes;
        }
        // Hulls by root, roots ascending (a root is the least index of its boxes).
        let mut hulls: Vec<Option<[f64; 5]>> = vec![None; boxes.len()];
        for (i, b) in boxes.iter().enumerate() {
            let r = root(&mut parent, i);
            let h = hulls[r].get_or_insert(*b);
            *h = [
                min2(h[0], b[0]),
                min2(h[1], b[1]),
                max2(h[2], b[2]),
                max2(h[3], b[3]),
                max2(h[4], b[4]),
            ];
        }
        boxes = hulls.into_iter().flatten().collect();
    }
}

// --------------------------------------------------------------------------- order

/// `sorted(items, key=lambda it: it.x0)`.
fn by_x0(mut row: Vec<Item>) -> Vec<Item> {
    row.sort_by(|a, b| float_cmp(a.x0, b.x0));
    row
}

/// `_rows`: items top to bottom, and left to right within a row of lines.
fn rows(mut items: Vec<Item>) -> Vec<Item> {
    items.sort_by(|a, b| pair_cmp((a.top, a.x0), (b.top, b.x0)));
    let mut out: Vec<Item> = Vec::new();
    let mut row: Vec<Item> = Vec::new();
    // The row's lowest top, highest bottom and least height so far.
    let (mut top, mut bottom, mut least) = (0.0, 0.0, 0.0);
    for it in items {
        if !row.is_empty() {
            let block = it.kind != Kind::Line || row[0].kind != Kind::Line;
            let small = min2(it.bottom - it.top, least);
            if block || min2(bottom, it.bottom) - max2(top, it.top) <= 0.5 * small {
                out.extend(by_x0(std::mem::take(&mut row)));
            }
        }
        if row.is_empty() {
            (top, bottom, least) = (it.top, it.bottom, it.bottom - it.top);
        } else {
            (top, bottom, least) = (
                max2(top, it.top),
                min2(bottom, it.bottom),
                min2(least, it.bottom - it.top),
            );
        }
        row.push(it);
    }
    out.extend(by_x0(row));
    out
}

/// `_order`: reading order, two columns when the page has them.
fn order(mut items: Vec<Item>, width: f64) -> Vec<Item> {
    let mid = width / 2.0;
    let column = |it: &Item| {
        if it.x1 < mid + 4.0 {
            "left"
        } else if it.x0 > mid - 4.0 {
            "right"
        } else {
            "span"
        }
    };
    let cols: Vec<&'static str> = items.iter().map(column).collect();
    let line_cols: Vec<&'static str> = items
        .iter()
        .zip(&cols)
        .filter(|(it, _)| it.kind == Kind::Line)
        .map(|(_, &c)| c)
        .collect();
    let heights = sorted(
        items
            .iter()
            .filter(|it| it.kind == Kind::Line)
            .map(|it| it.bottom - it.top)
            .collect(),
    );
    let least = if heights.is_empty() {
        0.0
    } else {
        4.0 * heights[heights.len() / 2]
    };
    let (mut left, mut right) = (0.0f64, 0.0f64);
    for (it, &c) in items.iter().zip(&cols) {
        match c {
            "left" => left += it.bottom - it.top,
            "right" => right += it.bottom - it.top,
            _ => {}
        }
    }
    let sided = line_cols.iter().filter(|&&c| c != "span").count();
    let two =
        sided as f64 >= 0.5 * line_cols.len().max(1) as f64 && right >= least && left >= least;
    for (it, &c) in items.iter_mut().zip(&cols) {
        it.column = if two { c } else { "span" };
    }
    let ordered = rows(items);
    if !two {
        return ordered;
    }
    let mut out: Vec<Item> = Vec::new();
    let mut left: Vec<Item> = Vec::new();
    let mut right: Vec<Item> = Vec::new();
    for it in ordered {
        if it.column == "span" {
            out.append(&mut left);
            out.append(&mut right);
            out.push(it);
        } else if it.column == "left" {
            left.push(it);
        } else {
            right.push(it);
        }
    }
    out.append(&mut left);
    out.append(&mut right);
    out
}

// --------------------------------------------------------------------------- Unicode tables

// BEGIN GENERATED by scripts/gen_pdf_nfkc.py
// (Python 3.11.7, Unicode 14.0.0; do not edit by hand.)
/// NFKC of the characters in U+FB00..=U+FB06 and U+FE70..=U+FEFF that it changes,
/// by code point (`unicodedata.normalize("NFKC", ch)`).
const NFKC: &[(u32, &str)] = &[
    (0xFB00, "\u{0066}\u{0066}"),
    (0xFB01, "\u{0066}\u{0069}"),
    (0xFB02, "\u{0066}\u{006C}"),
    (0xFB03, "\u{0066}\u{0066}\u{0069}"),
    (0xFB04, "\u{0066}\u{0066}\u{006C}"),
    (0xFB05, "\u{0073}\u{0074}"),
    (0xFB06, "\u{0073}\u{0074}"),
    (0xFE70, "\u{0020}\u{064B}"),
    (0xFE71, "\u{0640}\u{064B}"),
    (0xFE72, "\u{0020}\u{064C}"),
    (0xFE74, "\u{0020}\u{064D}"),
    (0xFE76, "\u{0020}\u{064E}"),
    (0xFE77, "\u{0640}\u{064E}"),
    (0xFE78, "\u{0020}\u{064F}"),
    (0xFE79, "\u{0640}\u{064F}"),
    (0xFE7A, "\u{0020}\u{0650}"),
    (0xFE7B, "\u{0640}\u{0650}"),
    (0xFE7C, "\u{0020}\u{0651}"),
    (0xFE7D, "\u{0640}\u{0651}"),
    (0xFE7E, "\u{0020}\u{0652}"),
    (0xFE7F, "\u{0640}\u{0652}"),
    (0xFE80, "\u{0621}"),
    (0xFE81, "\u{0622}"),
    (0xFE82, "\u{0622}"),
    (0xFE83, "\u{0623}"),
    (0xFE84, "\u{0623}"),
    (0xFE85, "\u{0624}"),
    (0xFE86, "\u{0624}"),
    (0xFE87, "\u{0625}"),
    (0xFE88, "\u{0625}"),
    (0xFE89, "\u{0626}"),
    (0xFE8A, "\u{0626}"),
    (0xFE8B, "\u{0626}"),
    (0xFE8C, "\u{0626}"),
    (0xFE8D, "\u{0627}"),
    (0xFE8E, "\u{0627}"),
    (0xFE8F, "\u{0628}"),
    (0xFE90, "\u{0628}"),
    (0xFE91, "\u{0628}"),
    (0xFE92, "\u{0628}"),
    (0xFE93, "\u{0629}"),
    (0xFE94, "\u{0629}"),
    (0xFE95, "\u{062A}"),
    (0xFE96, "\u{062A}"),
    (0xFE97, "\u{062A}"),
    (0xFE98, "\u{062A}"),
    (0xFE99, "\u{062B}"),
    (0xFE9A, "\u{062B}"),
    (0xFE9B, "\u{062B}"),
    (0xFE9C, "\u{062B}"),
    (0xFE9D, "\u{062C}"),
    (0xFE9E, "\u{062C}"),
    (0xFE9F, "\u{062C}"),
    (0xFEA0, "\u{062C}"),
    (0xFEA1, "\u{062D}"),
    (0xFEA2, "\u{062D}"),
    (0xFEA3, "\u{062D}"),
    (0xFEA4, "\u{062D}"),
    (0xFEA5, "\u{062E}"),
    (0xFEA6, "\u{062E}"),
    (0xFEA7, "\u{062E}"),
    (0xFEA8, "\u{062E}"),
    (0xFEA9, "\u{062F}"),
    (0xFEAA, "\u{062F}"),
    (0xFEAB, "\u{0630}"),
    (0xFEAC, "\u{0630}"),
    (0xFEAD, "\u{0631}"),
    (0xFEAE, "\u{0631}"),
    (0xFEAF, "\u{0632}"),
    (0xFEB0, "\u{0632}"),
    (0xFEB1, "\u{0633}"),
    (0xFEB2, "\u{0633}"),
    (0xFEB3, "\u{0633}"),
    (0xFEB4, "\u{0633}"),
    (0xFEB5, "\u{0634}"),
    (0xFEB6, "\u{0634}"),
    (0xFEB7, "\u{0634}"),
    (0xFEB8, "\u{0634}"),
    (0xFEB9, "\u{0635}"),
    (0xFEBA, "\u{0635}"),
    (0xFEBB, "\u{0635}"),
    (0xFEBC, "\u{0635}"),
    (0xFEBD, "\u{0636}"),
    (0xFEBE, "\u{0636}"),
    (0xFEBF, "\u{0636}"),
    (0xFEC0, "\u{0636}"),
    (0xFEC1, "\u{0637}"),
    (0xFEC2, "\u{0637}"),
    (0xFEC3, "\u{0637}"),
    (0xFEC4, "\u{0637}"),
    (0xFEC5, "\u{0638}"),
    (0xFEC6, "\u{0638}"),
    (0xFEC7, "\u{0638}"),
    (0xFEC8, "\u{0638}"),
    (0xFEC9, "\u{0639}"),
    (0xFECA, "\u{0639}"),
    (0xFECB, "\u{0639}"),
    (0xFECC, "\u{0639}"),
    (0xFECD, "\u{063A}"),
    (0xFECE, "\u{063A}"),
    (0xFECF, "\u{063A}"),
    (0xFED0, "\u{063A}"),
    (0xFED1, "\u{0641}"),
    (0xFED2, "\u{0641}"),
    (0xFED3, "\u{0641}"),
    (0xFED4, "\u{0641}"),
    (0xFED5, "\u{0642}"),
    (0xFED6, "\u{0642}"),
    (0xFED7, "\u{0642}"),
    (0xFED8, "\u{0642}"),
    (0xFED9, "\u{0643}"),
    (0xFEDA, "\u{0643}"),
    (0xFEDB, "\u{0643}"),
    (0xFEDC, "\u{0643}"),
    (0xFEDD, "\u{0644}"),
    (0xFEDE, "\u{0644}"),
    (0xFEDF, "\u{0644}"),
    (0xFEE0, "\u{0644}"),
    (0xFEE1, "\u{0645}"),
    (0xFEE2, "\u{0645}"),
    (0xFEE3, "\u{0645}"),
    (0xFEE4, "\u{0645}"),
    (0xFEE5, "\u{0646}"),
    (0xFEE6, "\u{0646}"),
    (0xFEE7, "\u{0646}"),
    (0xFEE8, "\u{0646}"),
    (0xFEE9, "\u{0647}"),
    (0xFEEA, "\u{0647}"),
    (0xFEEB, "\u{0647}"),
    (0xFEEC, "\u{0647}"),
    (0xFEED, "\u{0648}"),
    (0xFEEE, "\u{0648}"),
    (0xFEEF, "\u{0649}"),
    (0xFEF0, "\u{0649}"),
    (0xFEF1, "\u{064A}"),
    (0xFEF2, "\u{064A}"),
    (0xFEF3, "\u{064A}"),
    (0xFEF4, "\u{064A}"),
    (0xFEF5, "\u{0644}\u{0622}"),
    (0xFEF6, "\u{0644}\u{0622}"),
    (0xFEF7, "\u{0644}\u{0623}"),
    (0xFEF8, "\u{0644}\u{0623}"),
    (0xFEF9, "\u{0644}\u{0625}"),
    (0xFEFA, "\u{0644}\u{0625}"),
    (0xFEFB, "\u{0644}\u{0627}"),
    (0xFEFC, "\u{0644}\u{0627}"),
];

/// The characters for which Python's `str.isdigit` is true (Numeric_Type Digit or
/// Decimal), as inclusive code point ranges, ascending.
const DIGITS: &[(u32, u32)] = &[
    (0x0030, 0x0039),
    (0x00B2, 0x00B3),
    (0x00B9, 0x00B9),
    (0x0660, 0x0669),
    (0x06F0, 0x06F9),
    (0x07C0, 0x07C9),
    (0x0966, 0x096F),
    (0x09E6, 0x09EF),
    (0x0A66, 0x0A6F),
    (0x0AE6, 0x0AEF),
    (0x0B66, 0x0B6F),
    (0x0BE6, 0x0BEF),
    (0x0C66, 0x0C6F),
    (0x0CE6, 0x0CEF),
    (0x0D66, 0x0D6F),
    (0x0DE6, 0x0DEF),
    (0x0E50, 0x0E59),
    (0x0ED0, 0x0ED9),
    (0x0F20, 0x0F29),
    (0x1040, 0x1049),
    (0x1090, 0x1099),
    (0x1369, 0x1371),
    (0x17E0, 0x17E9),
    (0x1810, 0x1819),
    (0x1946, 0x194F),
    (0x19D0, 0x19DA),
    (0x1A80, 0x1A89),
    (0x1A90, 0x1A99),
    (0x1B50, 0x1B59),
    (0x1BB0, 0x1BB9),
    (0x1C40, 0x1C49),
    (0x1C50, 0x1C59),
    (0x2070, 0x2070),
    (0x2074, 0x2079),
    (0x2080, 0x2089),
    (0x2460, 0x2468),
    (0x2474, 0x247C),
    (0x2488, 0x2490),
    (0x24EA, 0x24EA),
    (0x24F5, 0x24FD),
    (0x24FF, 0x24FF),
    (0x2776, 0x277E),
    (0x2780, 0x2788),
    (0x278A, 0x2792),
    (0xA620, 0xA629),
    (0xA8D0, 0xA8D9),
    (0xA900, 0xA909),
    (0xA9D0, 0xA9D9),
    (0xA9F0, 0xA9F9),
    (0xAA50, 0xAA59),
    (0xABF0, 0xABF9),
    (0xFF10, 0xFF19),
    (0x104A0, 0x104A9),
    (0x10A40, 0x10A43),
    (0x10D30, 0x10D39),
    (0x10E60, 0x10E68),
    (0x11052, 0x1105A),
    (0x11066, 0x1106F),
    (0x110F0, 0x110F9),
    (0x11136, 0x1113F),
    (0x111D0, 0x111D9),
    (0x112F0, 0x112F9),
    (0x11450, 0x11459),
    (0x114D0, 0x114D9),
    (0x11650, 0x11659),
    (0x116C0, 0x116C9),
    (0x11730, 0x11739),
    (0x118E0, 0x118E9),
    (0x11950, 0x11959),
    (0x11C50, 0x11C59),
    (0x11D50, 0x11D59),
    (0x11DA0, 0x11DA9),
    (0x16A60, 0x16A69),
    (0x16AC0, 0x16AC9),
    (0x16B50, 0x16B59),
    (0x1D7CE, 0x1D7FF),
    (0x1E140, 0x1E149),
    (0x1E2F0, 0x1E2F9),
    (0x1E950, 0x1E959),
    (0x1F100, 0x1F10A),
    (0x1FBF0, 0x1FBF9),
];
// END GENERATED

#[cfg(test)]
mod tests {
    use super::*;

    fn ch(c: char, x0: f64, top: f64, x1: f64, bottom: f64) -> Char {
        Char {
            ch: c,
            x0,
            top,
            x1,
            bottom,
            size: 10.0,
            flags: 0,
        }
    }

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
    fn sums_like_cpython() {
        let v = [0.1, 0.2, 0.3];
        assert_eq!(py_sum(&v, false), 0.1 + 0.2 + 0.3);
        // 3.12's sum([0.1, 0.2, 0.3]) is 0.6, 3.11's 0.6000000000000001.
        assert_eq!(py_sum(&v, true), 0.6);
        assert_eq!(py_sum(&[1e100, 1.0, -1e100], true), 1.0);
        assert!(py_sum(&[-0.0], false).is_sign_positive());
        assert_eq!(py_sum(&[], true), 0.0);
    }

    #[test]
    fn python_whitespace_and_digits() {
        let cx = Cx::new(Semantics::default());
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
        for c in ['\u{FB01}', '\u{FFFE}', 'a', '\u{FEFB}', '\u{FEFF}'] {
            push_normal(&mut s, c);
        }
        assert_eq!(s, "fi-a\u{0644}\u{0627}\u{FEFF}");
    }

    #[test]
    fn captions() {
        assert!(is_caption("figure 3: a plot"));
        assert!(is_caption("table ²"));
        assert!(!is_caption("table of contents and 1"));
        assert!(is_caption("表1"));
    }

    #[test]
    fn lines_split_and_order() {
        let chars = [
            ch('H', 10.0, 10.0, 16.0, 20.0),
            ch('i', 16.0, 10.0, 19.0, 20.0),
            ch('Y', 10.0, 30.0, 16.0, 40.0),
            ch('o', 16.0, 30.0, 21.0, 40.0),
        ];
        let items = page_items(&chars, &[], 600.0);
        let texts: Vec<&str> = items.iter().map(|it| it.text.as_str()).collect();
        assert_eq!(texts, ["Hi", "Yo"]);
        assert_eq!(items[0].size, 10.0);
        assert!(page_items(&[], &[], 600.0).is_empty());
    }
}
