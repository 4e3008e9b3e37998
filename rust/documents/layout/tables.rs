//! Rules, and the tables they make: grid tables (rules that cross) and rule-only tables
//! (horizontal rules of one extent over text in columns).

use super::lines::{line_ids, lines};
use super::python_rules::*;
use super::{CAPTION_STARTS, MAX_BINS, MIN_RULE, THIN, TOL};
use crate::documents::pdfium::{Char, Graphic, GENERATED, PATH, STRAIGHT, STROKE};

/// A rule: `(y, x0, x1)` for a horizontal one, `(x, top, bottom)` for a vertical one.
pub(super) type Rule = (f64, f64, f64);

/// `_rules`: horizontal and vertical rules.
pub(super) fn rules(graphics: &[Graphic]) -> (Vec<Rule>, Vec<Rule>) {
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
pub(super) fn cluster(values: Vec<f64>) -> Vec<f64> {
    let mut out: Vec<Vec<f64>> = Vec::new();
    for v in sorted(values) {
        match out.last_mut() {
            Some(g) if v - g[g.len() - 1] <= TOL => g.push(v),
            _ => out.push(vec![v]),
        }
    }
    out.iter().map(|g| sum_left(g) / g.len() as f64).collect()
}

/// `_Table`.
pub(super) struct Table {
    /// `(x0, top, x1, bottom)`.
    pub(super) bbox: [f64; 4],
    /// Column edges, left to right.
    pub(super) xs: Vec<f64>,
    /// Row edges, top to bottom.
    pub(super) ys: Vec<f64>,
    /// Vertical rules (grid tables).
    pub(super) vs: Vec<Rule>,
    pub(super) ruled_rows: bool,
}

impl Table {
    pub(super) fn holds(&self, c: &Char) -> bool {
        let (cx, cy) = ((c.x0 + c.x1) / 2.0, (c.top + c.bottom) / 2.0);
        let [x0, top, x1, bottom] = self.bbox;
        x0 - 1.0 <= cx && cx <= x1 + 1.0 && top - 1.0 <= cy && cy <= bottom + 1.0
    }
}

/// `_grid_tables`: tables from rules that cross; which horizontal rules they use.
pub(super) fn grid_tables(hs: &[Rule], vs: &[Rule]) -> (Vec<Table>, Vec<bool>) {
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
        let ys = cluster(h.iter().map(|r| r.0).collect());
        let xs = cluster(v.iter().map(|r| r.0).collect());
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
pub(super) fn alone(lines: &[Vec<Char>]) -> Vec<bool> {
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
pub(super) fn x_gaps(cx: &Cx, chars: &[Char], x0: f64, x1: f64) -> Vec<f64> {
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
pub(super) fn is_caption(t: &str) -> bool {
    CAPTION_STARTS.iter().any(|p| t.starts_with(p)) && t.chars().take(12).any(is_digit)
}

/// The midpoint of a character.
pub(super) fn centre(c: &Char) -> (f64, f64) {
    ((c.x0 + c.x1) / 2.0, (c.top + c.bottom) / 2.0)
}

/// `_ByY`: characters indexed by the height of their middle, so a band of the page is
/// found by bisection; a band's characters come back in their order on the page.
pub(super) struct ByY<'a> {
    pub(super) chars: &'a [Char],
    pub(super) order: Vec<usize>,
    pub(super) ys: Vec<f64>,
}

impl<'a> ByY<'a> {
    pub(super) fn new(chars: &'a [Char]) -> ByY<'a> {
        let mut order: Vec<usize> = (0..chars.len()).collect();
        order.sort_by(|&i, &j| float_cmp(centre(&chars[i]).1, centre(&chars[j]).1));
        let ys = order.iter().map(|&i| centre(&chars[i]).1).collect();
        ByY { chars, order, ys }
    }

    /// The characters with `x0 <= middle x <= x1` and `lo < middle y < hi`.
    pub(super) fn strictly_between(&self, x0: f64, x1: f64, lo: f64, hi: f64) -> Vec<Char> {
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
    pub(super) fn any_inside(&self, x0: f64, top: f64, x1: f64, bottom: f64) -> bool {
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
pub(super) fn ruleonly_tables(cx: &Cx, hs: &[Rule], used: &[bool], chars: &[Char]) -> Vec<Table> {
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
        let ys = cluster(g.iter().map(|r| r.0).collect());
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
pub(super) fn close(cx: &Cx, run: &[f64], x0: f64, x1: f64, by_y: &ByY, out: &mut Vec<Table>) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captions() {
        assert!(is_caption("figure 3: a plot"));
        assert!(is_caption("table ²"));
        assert!(!is_caption("table of contents and 1"));
        assert!(is_caption("表1"));
    }
}
