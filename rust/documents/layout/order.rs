//! Reading order: rows of items top to bottom, and two columns when the page has them.

use super::columns::{columns, LABELS};
use super::python_rules::*;
use super::{Item, Kind};

/// `sorted(items, key=lambda it: it.x0)`.
pub(super) fn by_x0(mut row: Vec<Item>) -> Vec<Item> {
    row.sort_by(|a, b| float_cmp(a.x0, b.x0));
    row
}

/// `_rows`: items top to bottom, and left to right within a row of lines.
pub(super) fn rows(mut items: Vec<Item>) -> Vec<Item> {
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

/// `_by_columns`: items in reading order by their columns, left to right, between the items
/// that cross a gutter.
fn by_columns(items: Vec<Item>, ks: &[i64]) -> Vec<Item> {
    let items: Vec<Item> = items
        .into_iter()
        .zip(ks)
        .map(|(mut it, &k)| {
            it.column = if k >= 0 { LABELS[k as usize] } else { "span" };
            it
        })
        .collect();
    let mut out: Vec<Item> = Vec::new();
    let mut held: Vec<Vec<Item>> = vec![Vec::new(); LABELS.len()];
    for it in rows(items) {
        if it.column == "span" {
            for col in held.iter_mut() {
                out.append(col);
            }
            out.push(it);
        } else {
            let k = LABELS.iter().position(|&l| l == it.column).unwrap_or(0);
            held[k].push(it);
        }
    }
    for col in held.iter_mut() {
        out.append(col);
    }
    out
}

/// `_order`: reading order, two columns when the page has them.
pub(super) fn order(mut items: Vec<Item>, width: f64) -> Vec<Item> {
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
    // Three columns or more, by the page's gutters (two by the middle, as below).
    let gap = if heights.is_empty() {
        0.0
    } else {
        heights[heights.len() / 2]
    };
    if let Some(ks) = columns(&items, gap, least) {
        return by_columns(items, &ks);
    }
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
