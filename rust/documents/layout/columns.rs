//! The columns of a page of three or more, found from its gutters: the twin of
//! `python/ragchunk/_pure/documents/columns.py` (see it for the rules).

use super::python_rules::*;
use super::{Item, Kind};

/// The column names items carry (`"span"`: across a gutter).
pub(super) const LABELS: [&str; 6] = [
    "column 1", "column 2", "column 3", "column 4", "column 5", "column 6",
];

/// `gutters`: the x-ranges at least `gap` wide, inside the lines' extent, that at most a
/// tenth of the lines cross, by a sweep over the lines' edges.
pub(super) fn gutters(lines: &[&Item], gap: f64) -> Vec<(f64, f64)> {
    if lines.is_empty() {
        return Vec::new();
    }
    let limit = (lines.len() / 10) as i64;
    let mut events: Vec<(f64, i64)> = lines.iter().map(|it| (it.x0, 1)).collect();
    events.extend(lines.iter().map(|it| (it.x1, -1)));
    events.sort_by(|a, b| float_cmp(a.0, b.0).then(a.1.cmp(&b.1)));
    let (lo, hi) = (events[0].0, events[events.len() - 1].0);
    let mut out = Vec::new();
    let mut count = 0i64;
    let mut start: Option<f64> = None;
    for &(x, d) in &events {
        let before = count;
        count += d;
        if before > limit && limit >= count {
            start = Some(x);
        } else if before <= limit && limit < count {
            if let Some(s) = start.take() {
                if x - s >= gap && lo < s && x < hi {
                    out.push((s, x));
                }
            }
        }
    }
    out
}

/// `columns`: each item's column (0 the leftmost, -1 across a gutter) on a page of three to
/// six columns, else None.
pub(super) fn columns(items: &[Item], gap: f64, least: f64) -> Option<Vec<i64>> {
    let lines: Vec<&Item> = items.iter().filter(|it| it.kind == Kind::Line).collect();
    let found = gutters(&lines, gap);
    if found.len() < 2 || found.len() > LABELS.len() - 1 {
        return None;
    }
    let mut edges = vec![(f64::NEG_INFINITY, found[0].0)];
    for k in 1..found.len() {
        edges.push((found[k - 1].1, found[k].0));
    }
    edges.push((found[found.len() - 1].1, f64::INFINITY));
    let ks: Vec<i64> = items
        .iter()
        .map(|it| {
            edges
                .iter()
                .position(|&(lo, hi)| it.x0 >= lo - 1.0 && it.x1 <= hi + 1.0)
                .map_or(-1, |k| k as i64)
        })
        .collect();
    let mut tall = vec![0.0f64; edges.len()];
    let mut inside = 0usize;
    for (it, &k) in items.iter().zip(&ks) {
        if k >= 0 {
            tall[k as usize] += it.bottom - it.top;
            inside += usize::from(it.kind == Kind::Line);
        }
    }
    let least_tall = tall
        .iter()
        .copied()
        .fold(f64::INFINITY, |m, v| if v < m { v } else { m });
    if (inside as f64) < 0.5 * lines.len() as f64 || least_tall < least {
        return None;
    }
    Some(ks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(x0: f64) -> Item {
        Item {
            kind: Kind::Line,
            text: String::new(),
            x0,
            top: 0.0,
            x1: x0 + 90.0,
            bottom: 10.0,
            size: 10.0,
            flags: 0,
            column: "span",
            rows: None,
        }
    }

    #[test]
    fn gutters_between_three_columns() {
        let items: Vec<Item> = (0..4)
            .flat_map(|_| [line(0.0), line(100.0), line(200.0)])
            .collect();
        let refs: Vec<&Item> = items.iter().collect();
        assert_eq!(gutters(&refs, 5.0), [(90.0, 100.0), (190.0, 200.0)]);
        assert!(gutters(&refs, 20.0).is_empty());
        let ks = columns(&items, 5.0, 10.0).expect("three columns");
        assert_eq!(&ks[..3], [0, 1, 2]);
        // Too little text in each column.
        assert!(columns(&items, 5.0, 100.0).is_none());
    }
}
