//! A table's characters put into its cells.

use super::lines::{line_chars, line_ids, line_item, lines, SPACE};
use super::python_rules::*;
use super::tables::{alone, centre, Table};
use super::{Item, Kind, TOL};
use crate::documents::pdfium::{Char, GENERATED};

/// `_row_edges`: a rule-only table's row edges.
pub(super) fn row_edges(cx: &Cx, t: &Table, chars: &[Char]) -> Vec<f64> {
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
pub(super) fn baseline(cx: &Cx, line: &[Char]) -> f64 {
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
pub(super) fn fill(cx: &Cx, t: &Table, chars: &[Char]) -> Item {
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
pub(super) fn index(edges: &[f64], v: f64) -> usize {
    if edges.len() <= 2 {
        return 0;
    }
    edges[1..edges.len() - 1].partition_point(|&e| e <= v)
}

/// `_cell_text`: a cell's lines, top to bottom (by whole points) and left to right, joined
/// by spaces (none after a hyphen; a line-end U+2010 is dropped, the word joined).
pub(super) fn cell_text(cx: &Cx, chars: &[Char]) -> String {
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
        // A word broken with the hyphen an engine draws at a break (U+2010) is joined whole.
        if out.ends_with('\u{2010}') {
            out.pop();
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push(' ');
        }
        out.push_str(&ln.text);
    }
    out
}
