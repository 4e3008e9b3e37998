//! One PDF page's layout: characters and graphics in, lines, tables and figures out — the twin
//! of `python/ragchunk/_pure/documents/layout.py`, item for item and float for float.
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
//! * `statistics.median` is [`median`];
//! * a sum of floats is [`sum_left`], defined by ragchunk rather than by an interpreter (the
//!   Python twin's `sum_left`, not the built-in `sum`, whose rounding changed in Python 3.12):
//!   left to right from `0.0`, so both backends give the same floats on every Python;
//! * `str.isspace`, `str.strip`, `str.split` use Python's whitespace
//!   (`chars.whitespace.langchain`, the set the LangChain-compatible splitters use);
//! * `str.isdigit` and NFKC over ligatures and Arabic presentation forms come from tables
//!   generated from Python's `unicodedata` (`scripts/gen_pdf_nfkc.py`).
//!
//! Characters are keyed by their index where the Python module keys them by `id()`.
//!
//! The steps, one module each: `python_rules` (Python's semantics spelled out, with the
//! generated Unicode tables), `lines` (characters into lines), `tables` (rules, grid and
//! rule-only tables), `cells` (a table's characters into its cells), `figures` (images
//! and drawings), `columns` (three columns or more, from the page's gutters) and `order`
//! (reading order, columns).

mod cells;
mod columns;
mod figures;
mod lines;
mod order;
mod python_rules;
mod tables;

use super::pdfium::{Char, Graphic, GENERATED};
#[cfg(doc)]
use super::pdfium::{BOLD, MONO};
use cells::fill;
use figures::figures;
use lines::{line_item, lines};
use order::order;
use python_rules::Cx;
pub use python_rules::{median, round1, sum_left};
use tables::{grid_tables, ruleonly_tables, rules};

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

/// A page's lines, tables and figures in reading order, as the Python twin's `page_items`
/// gives them.
pub fn page_items(chars: &[Char], graphics: &[Graphic], width: f64) -> Vec<Item> {
    let cx = Cx::new();
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
    let (mut tables, used) = grid_tables(&hs, &vs);
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
