//! Figures: images, and drawings with no text on them, outside the tables.

use super::python_rules::*;
use super::tables::{ByY, Table};
use super::{FIGURE_MIN, THIN};
use crate::documents::pdfium::{Char, Graphic, GENERATED, IMAGE, PATH};

/// `_figures`: images, and drawings with no text on them, outside the tables.
pub(super) fn figures(graphics: &[Graphic], chars: &[Char], tables: &[Table]) -> Vec<[f64; 4]> {
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
pub(super) fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// `_merge_touching`: boxes `[x0, top, x1, bottom, image]` that touch (within 2 pt) merged
/// into their hull, until no two hulls touch; each hull in the place of its first box.
pub(super) fn merge_touching(mut boxes: Vec<[f64; 5]>) -> Vec<[f64; 5]> {
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
