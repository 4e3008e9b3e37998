//! Characters into lines, and a line's item.

use super::python_rules::*;
use super::{Item, Kind, LINE_JUMP};
use crate::documents::pdfium::{Char, BOLD, BREAK, GENERATED, MONO};

/// A character that stands in a line for the space a generated character (or a gap after a
/// line break) makes.
pub(super) const SPACE: usize = usize::MAX;

pub(super) const GENERATED_SPACE: Char = Char {
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
pub(super) fn line_ids(cx: &Cx, chars: &[Char]) -> Vec<Vec<usize>> {
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
pub(super) fn line_chars(chars: &[Char], ids: &[usize]) -> Vec<Char> {
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
pub(super) fn lines(cx: &Cx, chars: &[Char]) -> Vec<Vec<Char>> {
    line_ids(cx, chars)
        .iter()
        .map(|ids| line_chars(chars, ids))
        .collect()
}

/// `_line_item`.
pub(super) fn line_item(cx: &Cx, cs: &[Char]) -> Item {
    let body: Vec<&Char> = cs
        .iter()
        .filter(|c| c.flags & GENERATED == 0 && !cx.is_space(c.ch))
        .collect();
    // A soft hyphen at the end of the line is where the word was broken: it stays, as the
    // hyphen it was drawn as (U+2010), for the paragraph to join the word.
    let last = cs
        .iter()
        .rposition(|c| c.flags & GENERATED == 0 && !cx.is_space(c.ch));
    let mut joined = String::with_capacity(cs.len());
    for (i, c) in cs.iter().enumerate() {
        if Some(i) == last && c.ch == '\u{AD}' {
            joined.push('\u{2010}');
        } else {
            push_normal(&mut joined, c.ch);
        }
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
