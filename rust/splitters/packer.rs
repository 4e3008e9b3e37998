//! The packer the structure-aware splitters share (Markdown, HTML, code, title tree): a
//! document's blocks are cut into sections at headings, and each section's blocks are packed
//! into chunks that fit the budget.
//!
//! 1. The document is cut into *sections* at the headings whose level is in
//!    [`PackOptions::split_levels`]; each section knows its heading path.
//! 2. Within a section, whole blocks are packed greedily (largest prefix that fits, found by
//!    galloping then binary search on the exact count of the source span).
//! 3. A block that alone exceeds the budget is cut at line boundaries (a list between its
//!    items first; a table at row boundaries, its header rows repeated in front of every
//!    continuation chunk: [`PackedChunk::prefix`]); a line still too long at sentence ends,
//!    then at whitespace, then between characters. One character over budget is emitted
//!    alone.
//! 4. With `overlap > 0`, a chunk starts with the trailing whole blocks of the previous chunk
//!    of the same section that fit in `overlap` (never the whole previous chunk).
//! 5. With [`PackOptions::merge_sections`], before packing, small adjacent sections of one
//!    parent that fit the budget together become one chunk (see [`pack_blocks`]).
//!
//! Markdown ([`super::markdown`]) scans its blocks from the source; HTML lays its DOM out as
//! text and blocks; code and title trees pack their own units with [`pack_spans`].

use super::lines::{lines_of, list_items};
use super::Span;
use crate::text::boundaries::{boundaries, is_blank_line, CharSet};
use crate::text::CharOffsets;
use crate::tokenizer::TokenCounter;

/// Kinds of block the scanner recognises.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockKind {
    /// YAML/TOML-ish front matter between `---` lines at the very start.
    FrontMatter,
    /// ATX (`## Title`) or setext (`Title\n===`) heading.
    Heading { level: usize, text: String },
    /// Fenced code block (an unclosed fence runs to the end of the document).
    Fence,
    /// Indented code block.
    IndentedCode,
    /// HTML block of CommonMark types 1-5 (`<script>`/`<pre>`/`<style>`/`<textarea>`,
    /// comment, processing instruction, declaration, CDATA): runs to its end marker, across
    /// blank lines (unclosed, to the last non-blank line of the document).
    Html,
    /// GFM table: header row, delimiter row, body rows.
    Table,
    /// A list (all its items and their indented continuation).
    List,
    /// Block quote.
    Quote,
    /// Thematic break.
    Break,
    /// Anything else: a paragraph.
    Paragraph,
}

/// One block: lines `first..=last` and the byte span they cover (line terminators excluded
/// at the end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub kind: BlockKind,
    pub first: usize,
    pub last: usize,
    pub start: usize,
    pub end: usize,
}

/// A packed chunk: the span, its section, and the repeated table header it starts with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackedChunk {
    pub span: Span,
    /// Index into [`PackOutput::sections`].
    pub section: usize,
    /// Byte range of text *added* in front of `span` (a table's header and delimiter rows,
    /// followed by one `"\n"`), for continuation chunks of a split table.
    pub prefix: Option<(usize, usize)>,
}

/// Result of [`pack_blocks`] (and of the Markdown and HTML splitters).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PackOutput {
    pub chunks: Vec<PackedChunk>,
    /// Heading path of each section (of a merged group of sections: their common path).
    pub sections: Vec<Vec<String>>,
    /// For each entry of `sections`: the heading paths of the sections merged into it, in
    /// order, or nothing for a single section.
    pub merged: Vec<Vec<Vec<String>>>,
}

/// Options of [`pack_blocks`] (and of the Markdown and HTML splitters).
#[derive(Debug, Clone)]
pub struct PackOptions {
    pub chunk_size: usize,
    pub overlap: usize,
    /// Heading levels (1..=6) that start a new section.
    pub split_levels: [bool; 7],
    /// Leave the section headings out of the chunk text (they stay in `headers`).
    pub strip_headers: bool,
    /// Merge small adjacent sections of one parent into one chunk while they fit (see
    /// [`pack_blocks`]).
    pub merge_sections: bool,
}

/// `e` moved back over the packer's whitespace (`ws`), down to `s` at most.
fn trim_end_ws(text: &str, s: usize, mut e: usize, ws: &CharSet) -> usize {
    while e > s {
        let c = text[..e].chars().next_back().unwrap_or(' ');
        if !ws.contains(c) {
            break;
        }
        e -= c.len_utf8();
    }
    e
}

/// Sub-units of span `(s, e)` at `level`: 1 lines, 2 sentences, 3 words, 4 characters.
/// Units are non-empty, in order, and trimmed of trailing whitespace.
fn sub_units(text: &str, s: usize, e: usize, level: u8) -> Vec<(usize, usize)> {
    let piece = &text[s..e];
    let mut out = Vec::new();
    match level {
        1 => {
            for (a, b) in lines_of(piece) {
                if !is_blank_line(&piece.as_bytes()[a..b]) {
                    out.push((s + a, s + b));
                }
            }
        }
        2 | 3 => {
            let b = boundaries();
            let (ws, cjk, ascii) = (
                b.packer_space,
                b.packer_cjk_terminators,
                b.ascii_terminators,
            );
            let mut start = 0;
            let mut it = piece.char_indices().peekable();
            while let Some((i, c)) = it.next() {
                let next = it.peek().map(|&(_, n)| n);
                let cut = if level == 2 {
                    cjk.contains(c) || (ascii.contains(c) && next.map_or(true, |n| ws.contains(n)))
                } else {
                    ws.contains(c) && matches!(next, Some(n) if !ws.contains(n))
                };
                if cut {
                    let mut end = i + c.len_utf8();
                    while let Some(&(j, n)) = it.peek() {
                        if !ws.contains(n) {
                            break;
                        }
                        end = j + n.len_utf8();
                        it.next();
                    }
                    let t = trim_end_ws(piece, start, end, &ws);
                    if t > start {
                        out.push((s + start, s + t));
                    }
                    start = end;
                }
            }
            let t = trim_end_ws(piece, start, piece.len(), &ws);
            if t > start {
                out.push((s + start, s + t));
            }
        }
        _ => {
            for (i, c) in piece.char_indices() {
                out.push((s + i, s + i + c.len_utf8()));
            }
        }
    }
    out
}

/// Marks the units of a cut list as list items (see [`Packer::split_unit`]).
static LIST_ITEM: BlockKind = BlockKind::List;

struct Packer<'a, C> {
    text: &'a str,
    budget: usize,
    counter: &'a C,
    section: usize,
    out: Vec<PackedChunk>,
    buf: String,
    /// Lines of a [`BlockKind::Table`] that form its header (repeated in front of every
    /// continuation chunk): 2 in Markdown (header + delimiter row), 1 in HTML.
    head_lines: usize,
}

impl<C: TokenCounter> Packer<'_, C> {
    fn size(
        &mut self,
        prefix: Option<(usize, usize)>,
        s: usize,
        e: usize,
    ) -> Result<usize, C::Error> {
        match prefix {
            None => self.counter.count(&self.text[s..e]),
            Some((a, b)) => {
                self.buf.clear();
                self.buf.push_str(&self.text[a..b]);
                self.buf.push('\n');
                self.buf.push_str(&self.text[s..e]);
                let buf = std::mem::take(&mut self.buf);
                let n = self.counter.count(&buf);
                self.buf = buf;
                n
            }
        }
    }

    /// Largest `k >= min` with units `i..i+k` within budget, or `None` when even `min`
    /// units do not fit. The search starts from an estimate — the most units whose
    /// *separate* counts (`sums`, prefix sums) fit — verified by exact counts of the span:
    /// up from a fitting estimate by galloping, down from a failing one by binary search.
    ///
    /// Performance note: galloping from `min` alone re-counted ~25x the text (each probe
    /// counts a span up to twice the budget; 2.5 MB/s on the corpus at 512 tokens). Counting
    /// every unit once and starting from the estimate needs ~2-3 span counts per chunk.
    fn longest_fit(
        &mut self,
        units: &[(usize, usize)],
        i: usize,
        min: usize,
        prefix: Option<(usize, usize)>,
        sums: Option<&[usize]>,
    ) -> Result<Option<(usize, usize)>, C::Error> {
        let n = units.len() - i;
        let start = units[i].0;
        let mut est = min;
        if let Some(ps) = sums {
            let (mut lo, mut hi) = (min, n);
            while lo < hi {
                let mid = (lo + hi).div_ceil(2);
                if ps[i + mid] - ps[i] <= self.budget {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            est = lo;
        }
        let (mut good, mut good_size) = (0, 0);
        let mut bad = None;
        if est > min {
            let sz = self.size(prefix, start, units[i + est - 1].1)?;
            if sz <= self.budget {
                (good, good_size) = (est, sz);
            } else {
                bad = Some(est);
            }
        }
        if good == 0 {
            let sz = self.size(prefix, start, units[i + min - 1].1)?;
            if sz > self.budget {
                return Ok(None);
            }
            (good, good_size) = (min, sz);
        }
        if bad.is_none() {
            let mut step = 1;
            while good < n {
                let k = (good + step).min(n);
                let sz = self.size(prefix, start, units[i + k - 1].1)?;
                if sz <= self.budget {
                    (good, good_size) = (k, sz);
                    step *= 2;
                } else {
                    bad = Some(k);
                    break;
                }
            }
        }
        if let Some(mut bad) = bad {
            while bad - good > 1 {
                let mid = (good + bad) / 2;
                let sz = self.size(prefix, start, units[i + mid - 1].1)?;
                if sz <= self.budget {
                    (good, good_size) = (mid, sz);
                } else {
                    bad = mid;
                }
            }
        }
        Ok(Some((good, good_size)))
    }

    fn emit(&mut self, s: usize, e: usize, size: usize, prefix: Option<(usize, usize)>) {
        self.out.push(PackedChunk {
            span: Span {
                start: s,
                end: e,
                size,
            },
            section: self.section,
            prefix,
        });
    }

    /// Packs `units` (non-empty spans in order). `level` is the level the units are at (0 =
    /// blocks); an oversize unit is cut at the next level. `prefix` (a table header) goes in
    /// front of every chunk not starting with unit 0. Overlap applies at level 0 only.
    fn pack(
        &mut self,
        units: &[(usize, usize)],
        level: u8,
        kinds: Option<&[&BlockKind]>,
        prefix: Option<(usize, usize)>,
        overlap: usize,
    ) -> Result<(), C::Error> {
        // Separate counts of the units (not for characters: one count per character would
        // cost more than the galloping it saves).
        let sums = if level < 4 {
            let mut ps = Vec::with_capacity(units.len() + 1);
            ps.push(0);
            for &(s, e) in units {
                let c = self.counter.count(&self.text[s..e])?;
                ps.push(ps[ps.len() - 1] + c);
            }
            Some(ps)
        } else {
            None
        };
        let mut i = 0;
        let mut carried = 0; // units at the front of the next chunk that repeat as overlap
        while i < units.len() {
            let pre = if i > 0 { prefix } else { None };
            let fit = self.longest_fit(units, i, carried + 1, pre, sums.as_deref())?;
            let (k, size) = match fit {
                Some(f) => f,
                None if carried > 0 => {
                    i += 1;
                    carried -= 1;
                    continue;
                }
                None => {
                    self.split_unit(units, i, level, kinds, pre)?;
                    i += 1;
                    continue;
                }
            };
            let (s, e) = (units[i].0, units[i + k - 1].1);
            self.emit(s, e, size, pre);
            let end = i + k;
            carried = 0;
            if overlap > 0 && level == 0 && end < units.len() {
                let mut j = end - 1;
                while j > i && self.size(None, units[j].0, units[end - 1].1)? <= overlap {
                    j -= 1;
                    carried += 1;
                }
            }
            i = end - carried;
        }
        Ok(())
    }

    fn split_unit(
        &mut self,
        units: &[(usize, usize)],
        i: usize,
        level: u8,
        kinds: Option<&[&BlockKind]>,
        pre: Option<(usize, usize)>,
    ) -> Result<(), C::Error> {
        let (s, e) = units[i];
        if level >= 4 {
            // One character over budget: emitted alone (documented overflow).
            let size = self.size(pre, s, e)?;
            self.emit(s, e, size, pre);
            return Ok(());
        }
        let kind = kinds.map(|k| k[i]);
        if kind == Some(&BlockKind::List) {
            // A list is cut between its items first (level 1, marked as items), an item too
            // big for the budget then between its lines (still level 1, unmarked).
            if level == 0 {
                let items = list_items(self.text, s, e);
                if items.len() > 1 {
                    let marks = vec![&LIST_ITEM; items.len()];
                    return self.pack(&items, 1, Some(&marks), None, 0);
                }
            }
            let lines = sub_units(self.text, s, e, 1);
            return self.pack(&lines, 1, None, None, 0);
        }
        let is_table = level == 0 && kind == Some(&BlockKind::Table);
        let sub = sub_units(self.text, s, e, level + 1);
        let hl = self.head_lines.max(1);
        if is_table && sub.len() > hl {
            // The header lines (Markdown: header + delimiter rows) form the first unit and are
            // repeated in front of every continuation chunk, unless they would take more than
            // half the budget.
            let head = (sub[0].0, sub[hl - 1].1);
            let mut rows = vec![head];
            rows.extend_from_slice(&sub[hl..]);
            let p = if self.size(None, head.0, head.1)? * 2 <= self.budget {
                Some(head)
            } else {
                None
            };
            return self.pack(&rows, 1, None, p, 0);
        }
        self.pack(&sub, level + 1, None, None, 0)
    }
}

/// Packs `units` (non-empty byte spans of `text`, in order) into spans of at most `budget`:
/// the largest run of whole units that fits; a unit over budget is cut at the next `level`
/// (2 sentences, 3 whitespace, 4 characters). The code and title-tree chunkers pack with it.
pub fn pack_spans<C: TokenCounter>(
    text: &str,
    units: &[(usize, usize)],
    level: u8,
    budget: usize,
    counter: &C,
) -> Result<Vec<Span>, C::Error> {
    let mut packer = Packer {
        text,
        budget: budget.max(1),
        counter,
        section: 0,
        out: Vec::new(),
        buf: String::new(),
        head_lines: 2,
    };
    packer.pack(units, level, None, None, 0)?;
    Ok(packer.out.into_iter().map(|c| c.span).collect())
}

/// One section of [`pack_blocks`]: its heading path and its blocks `a..b`.
struct Section {
    path: Vec<String>,
    a: usize,
    b: usize,
}

/// A planned piece of the section tree: sections `lo..hi`, either kept as one chunk of
/// `size` (`whole`) or already cut into final groups.
enum Piece {
    Whole { lo: usize, hi: usize, size: usize },
    Cut(Vec<(usize, usize, usize)>),
}

/// Plans which runs of sections become one chunk (see [`pack_blocks`]).
struct Planner<'a, C> {
    text: &'a str,
    blocks: &'a [Block],
    sections: &'a [Section],
    opts: &'a PackOptions,
    counter: &'a C,
}

impl<C: TokenCounter> Planner<'_, C> {
    /// The blocks of sections `lo..hi` a chunk holding them starts and ends with: the leading
    /// section heading is left out with `strip_headers` when the chunk's heading path (the
    /// sections' common path) ends with it and something else remains.
    fn block_range(&self, lo: usize, hi: usize) -> (usize, usize) {
        let (a, b) = (self.sections[lo].a, self.sections[hi - 1].b);
        if self.opts.strip_headers
            && b - a > 1
            && common_len(&self.sections[lo..hi]) == self.sections[lo].path.len()
        {
            if let BlockKind::Heading { level, .. } = &self.blocks[a].kind {
                if self.opts.split_levels[*level] {
                    return (a + 1, b);
                }
            }
        }
        (a, b)
    }

    /// The size of sections `lo..hi` as one chunk, or `None` when it is over budget.
    fn fit(&self, lo: usize, hi: usize) -> Result<Option<usize>, C::Error> {
        let (a, b) = self.block_range(lo, hi);
        if a == b {
            return Ok(Some(0));
        }
        let n = self
            .counter
            .count(&self.text[self.blocks[a].start..self.blocks[b - 1].end])?;
        Ok((n <= self.opts.chunk_size.max(1)).then_some(n))
    }

    /// Plans section `k` (its own blocks) and its subsection tree, sections `k + 1..hi`:
    /// bottom-up, the node's own blocks and each child subtree are pieces; adjacent whole
    /// pieces merge left to right while their text fits; a child already cut is a barrier.
    fn plan(&self, k: usize, hi: usize) -> Result<Piece, C::Error> {
        let depth = self.sections[k].path.len();
        let mut items = Vec::new();
        let own = &self.sections[k];
        if own.b > own.a {
            items.push(match self.fit(k, k + 1)? {
                Some(size) => Piece::Whole {
                    lo: k,
                    hi: k + 1,
                    size,
                },
                None => Piece::Cut(vec![(k, k + 1, 0)]),
            });
        }
        let mut j = k + 1;
        while j < hi {
            let d = self.sections[j].path.len();
            let mut e = j + 1;
            while e < hi && self.sections[e].path.len() > d {
                e += 1;
            }
            debug_assert!(d > depth);
            items.push(self.plan(j, e)?);
            j = e;
        }
        let mut groups = Vec::new();
        let mut run: Option<(usize, usize, usize)> = None;
        let whole_node = items.len();
        let mut merged_all = true;
        for item in items {
            match item {
                Piece::Whole { lo, hi, size } => match run {
                    None => run = Some((lo, hi, size)),
                    Some((rlo, _, _)) => match self.fit(rlo, hi)? {
                        Some(size) => run = Some((rlo, hi, size)),
                        None => {
                            groups.extend(run.take());
                            merged_all = false;
                            run = Some((lo, hi, size));
                        }
                    },
                },
                Piece::Cut(cut) => {
                    groups.extend(run.take());
                    groups.extend(cut);
                    merged_all = false;
                }
            }
        }
        groups.extend(run);
        if merged_all && whole_node > 0 && groups.len() == 1 {
            let (lo, hi, size) = groups[0];
            return Ok(Piece::Whole { lo, hi, size });
        }
        Ok(Piece::Cut(groups))
    }
}

/// Length of the heading path the sections of a planned run share (a run is its first
/// section's subtree, or consecutive siblings and their subtrees): the first section's path
/// when every other one is below it, else its parent's. Decided by depth, not by comparing
/// titles, so two siblings with the same title still have their parent's path.
fn common_len(sections: &[Section]) -> usize {
    let d = sections[0].path.len();
    if sections[1..].iter().any(|s| s.path.len() <= d) {
        d.saturating_sub(1)
    } else {
        d
    }
}

/// Sections at the headings of `opts.split_levels`, then packing of each section's blocks
/// (see the module docs). `blocks` are in order, non-overlapping, non-empty spans of `text`;
/// `head_lines` is how many lines of a [`BlockKind::Table`] are its repeated header (2 for
/// Markdown's header and delimiter rows, 1 for HTML, which lays its DOM out as text and
/// blocks).
///
/// With `opts.merge_sections`, small adjacent sections of one parent share a chunk: the
/// sections form a tree by heading path, and bottom-up, a section's own blocks and each of
/// its child subtrees that fits the budget whole are merged left to right while the merged
/// text fits. A child that had to be cut is a barrier, and nothing merges across a heading
/// of a higher level than the merged sections' parent. A merged chunk's heading path is the
/// common path of its sections ([`PackOutput::merged`] lists their own paths); it holds
/// whole sections, so it carries no overlap.
pub fn pack_blocks<C: TokenCounter>(
    text: &str,
    blocks: &[Block],
    opts: &PackOptions,
    head_lines: usize,
    counter: &C,
) -> Result<PackOutput, C::Error> {
    let mut out = PackOutput::default();
    let mut packer = Packer {
        text,
        budget: opts.chunk_size.max(1),
        counter,
        section: 0,
        out: Vec::new(),
        buf: String::new(),
        head_lines,
    };
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut sec_start = 0;
    let mut sections: Vec<Section> = Vec::new();
    for (bi, blk) in blocks.iter().enumerate() {
        if let BlockKind::Heading { level, text: t } = &blk.kind {
            if opts.split_levels[*level] {
                sections.push(Section {
                    path: stack.iter().map(|x| x.1.clone()).collect(),
                    a: sec_start,
                    b: bi,
                });
                while stack.last().is_some_and(|x| x.0 >= *level) {
                    stack.pop();
                }
                stack.push((*level, t.clone()));
                sec_start = bi;
            }
        }
    }
    sections.push(Section {
        path: stack.iter().map(|x| x.1.clone()).collect(),
        a: sec_start,
        b: blocks.len(),
    });
    let planner = Planner {
        text,
        blocks,
        sections: &sections,
        opts,
        counter,
    };
    // Runs of sections `lo..hi` that form one chunk (when more than one) with its size.
    let groups: Vec<(usize, usize, usize)> = if opts.merge_sections {
        match planner.plan(0, sections.len())? {
            Piece::Whole { lo, hi, size } => vec![(lo, hi, size)],
            Piece::Cut(groups) => groups,
        }
    } else {
        (0..sections.len()).map(|k| (k, k + 1, 0)).collect()
    };
    for (lo, hi, size) in groups {
        let (a, b) = planner.block_range(lo, hi);
        if a == b && sections[lo].path.is_empty() {
            continue;
        }
        packer.section = out.sections.len();
        if hi - lo > 1 {
            let group = &sections[lo..hi];
            out.sections
                .push(sections[lo].path[..common_len(group)].to_vec());
            out.merged
                .push(group.iter().map(|s| s.path.clone()).collect());
            packer.emit(blocks[a].start, blocks[b - 1].end, size, None);
            continue;
        }
        out.sections.push(sections[lo].path.clone());
        out.merged.push(Vec::new());
        let sel = &blocks[a..b];
        let units: Vec<(usize, usize)> = sel.iter().map(|b| (b.start, b.end)).collect();
        let kinds: Vec<&BlockKind> = sel.iter().map(|b| &b.kind).collect();
        packer.pack(&units, 0, Some(&kinds), None, opts.overlap)?;
    }
    // Drop sections that produced no chunk so indexes stay dense and meaningful.
    let mut used = vec![false; out.sections.len()];
    for c in &packer.out {
        used[c.section] = true;
    }
    let mut remap = vec![0; out.sections.len()];
    let mut kept = Vec::new();
    let mut kept_merged = Vec::new();
    for (i, (sec, m)) in out.sections.into_iter().zip(out.merged).enumerate() {
        if used[i] {
            remap[i] = kept.len();
            kept.push(sec);
            kept_merged.push(m);
        }
    }
    out.sections = kept;
    out.merged = kept_merged;
    out.chunks = packer.out;
    for c in &mut out.chunks {
        c.section = remap[c.section];
    }
    Ok(out)
}

impl PackOutput {
    /// The same chunks with code-point offsets (spans and prefixes) into `text`, the text the
    /// byte offsets index: what the bindings hand to Python.
    pub fn in_chars(mut self, text: &str) -> PackOutput {
        // Chunk starts are non-decreasing but ends and prefixes are not, so convert every
        // offset in one sorted pass (CharOffsets is fastest walking forward).
        let mut offs: Vec<usize> = Vec::with_capacity(self.chunks.len() * 4);
        for c in &self.chunks {
            offs.extend([c.span.start, c.span.end]);
            if let Some((a, b)) = c.prefix {
                offs.extend([a, b]);
            }
        }
        offs.sort_unstable();
        offs.dedup();
        let mut conv = CharOffsets::new(text);
        let chars: Vec<usize> = offs.iter().map(|&b| conv.char_offset(b)).collect();
        let at = |b: usize| chars[offs.binary_search(&b).unwrap_or(0)];
        for c in &mut self.chunks {
            c.span.start = at(c.span.start);
            c.span.end = at(c.span.end);
            c.prefix = c.prefix.map(|(a, b)| (at(a), at(b)));
        }
        self
    }
}
