//! Markdown splitting that respects the document's blocks and heading structure.
//!
//! # Why a hand-written block scanner (and not pulldown-cmark)
//! ragchunk promises that the pure-Python fallback returns *identical* chunks. Using
//! pulldown-cmark here and markdown-it-py there would tie that promise to two independent
//! parsers agreeing on every corner of CommonMark (lazy continuation, list interruption rules,
//! HTML blocks...), and they do not. Chunking only needs the *block* structure: where headings,
//! fences, tables, lists, quotes, front matter and paragraphs start and end. So both backends
//! implement the same small line-based scanner with the same rules (CommonMark's for ATX and
//! setext headings, fences, thematic breaks and indented code; GFM's for tables; a simplified
//! rule for list extent), documented on [`scan_blocks`] and mirrored line for line in
//! `python/ragchunk/_pure/structured.py`. Inline syntax never matters for where a chunk may
//! be cut, and everything is decided on ASCII bytes at line starts, so byte and code-point
//! views agree.
//!
//! # Chunking
//! 1. The document is cut into *sections* at the headings whose level is in
//!    `headers_to_split_on`; each section knows its heading path (`headers`).
//! 2. Within a section, whole blocks are packed greedily (largest prefix that fits, found by
//!    galloping then binary search on the exact count of the source span).
//! 3. A block that alone exceeds the budget is cut at line boundaries (a table at row
//!    boundaries, the header and delimiter rows repeated in front of every continuation
//!    chunk: [`MdChunk::prefix`]); a line still too long at sentence ends, then at
//!    whitespace, then between characters. One character over budget is emitted alone.
//! 4. With `overlap > 0`, a chunk starts with the trailing whole blocks of the previous chunk
//!    of the same section that fit in `overlap` (never the whole previous chunk).

use super::Span;
use crate::counter::TokenCounter;

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

/// A Markdown chunk: the span, its section, and the repeated table header it starts with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MdChunk {
    pub span: Span,
    /// Index into [`MdOutput::sections`].
    pub section: usize,
    /// Byte range of text *added* in front of `span` (a table's header and delimiter rows,
    /// followed by one `"\n"`), for continuation chunks of a split table.
    pub prefix: Option<(usize, usize)>,
}

/// Result of [`split_markdown`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MdOutput {
    pub chunks: Vec<MdChunk>,
    /// Heading path of each section.
    pub sections: Vec<Vec<String>>,
}

/// Options of [`split_markdown`].
#[derive(Debug, Clone)]
pub struct MdOptions {
    pub chunk_size: usize,
    pub overlap: usize,
    /// Heading levels (1..=6) that start a new section.
    pub split_levels: [bool; 7],
    /// Leave the section headings out of the chunk text (they stay in `headers`).
    pub strip_headers: bool,
}

// ------------------------------------------------------------------------------------------
// line predicates (ASCII decisions only)

fn lines_of(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    loop {
        let nl = memchr::memchr(b'\n', &b[start..]).map(|p| start + p);
        let end = nl.unwrap_or(b.len());
        let mut e = end;
        if e > start && b[e - 1] == b'\r' {
            e -= 1;
        }
        out.push((start, e));
        match nl {
            Some(p) => start = p + 1,
            None => break,
        }
    }
    out
}

fn is_blank(s: &[u8]) -> bool {
    s.iter().all(|&c| c == b' ' || c == b'\t')
}

/// Leading indentation in columns (a tab counts 4) and the rest after it.
fn indent(s: &[u8]) -> (usize, &[u8]) {
    let mut cols = 0;
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b' ' => cols += 1,
            b'\t' => cols += 4,
            _ => break,
        }
        i += 1;
    }
    (cols, &s[i..])
}

fn strip(s: &[u8]) -> &[u8] {
    let mut a = 0;
    let mut b = s.len();
    while a < b && (s[a] == b' ' || s[a] == b'\t') {
        a += 1;
    }
    while b > a && (s[b - 1] == b' ' || s[b - 1] == b'\t') {
        b -= 1;
    }
    &s[a..b]
}

fn run(s: &[u8], c: u8) -> usize {
    s.iter().take_while(|&&x| x == c).count()
}

/// ATX heading: level and text (closing `#` sequence removed).
fn atx(s: &[u8]) -> Option<(usize, &[u8])> {
    let (ind, t) = indent(s);
    if ind >= 4 {
        return None;
    }
    let n = run(t, b'#');
    if !(1..=6).contains(&n) {
        return None;
    }
    let after = &t[n..];
    if !after.is_empty() && after[0] != b' ' && after[0] != b'\t' {
        return None;
    }
    let mut text = strip(after);
    if text.last() == Some(&b'#') {
        let k = text.len() - text.iter().rev().take_while(|&&c| c == b'#').count();
        if k == 0 {
            text = &text[..0];
        } else if text[k - 1] == b' ' || text[k - 1] == b'\t' {
            text = strip(&text[..k]);
        }
    }
    Some((n, text))
}

fn fence_open(s: &[u8]) -> Option<(u8, usize)> {
    let (ind, t) = indent(s);
    if ind >= 4 || t.is_empty() || (t[0] != b'`' && t[0] != b'~') {
        return None;
    }
    let c = t[0];
    let n = run(t, c);
    if n < 3 || (c == b'`' && t[n..].contains(&b'`')) {
        return None;
    }
    Some((c, n))
}

fn fence_close(s: &[u8], c: u8, n: usize) -> bool {
    let (ind, t) = indent(s);
    let m = run(t, c);
    ind < 4 && m >= n && is_blank(&t[m..])
}

fn thematic(s: &[u8]) -> bool {
    let (ind, t) = indent(s);
    if ind >= 4 || t.is_empty() || !matches!(t[0], b'-' | b'*' | b'_') {
        return false;
    }
    let c = t[0];
    let mut n = 0;
    for &x in t {
        if x == c {
            n += 1;
        } else if x != b' ' && x != b'\t' {
            return false;
        }
    }
    n >= 3
}

fn setext(s: &[u8]) -> Option<usize> {
    let (ind, _) = indent(s);
    let t = strip(s);
    if ind >= 4 || t.is_empty() {
        return None;
    }
    if t.iter().all(|&c| c == b'=') {
        Some(1)
    } else if t.iter().all(|&c| c == b'-') {
        Some(2)
    } else {
        None
    }
}

/// The marker kind of a list item line (`-`, `+` or `*`; `.` or `)` for an ordered list),
/// or `None` when the line does not start a list item. Items with different markers belong
/// to different lists (CommonMark).
fn list_marker(s: &[u8]) -> Option<u8> {
    let (ind, t) = indent(s);
    if ind >= 4 || t.is_empty() {
        return None;
    }
    let sep_ok = |rest: &[u8]| rest.is_empty() || rest[0] == b' ' || rest[0] == b'\t';
    if matches!(t[0], b'-' | b'+' | b'*') {
        return sep_ok(&t[1..]).then_some(t[0]);
    }
    let d = t.iter().take_while(|c| c.is_ascii_digit()).count();
    if (1..=9).contains(&d) && d < t.len() && matches!(t[d], b'.' | b')') && sep_ok(&t[d + 1..]) {
        Some(t[d])
    } else {
        None
    }
}

fn list_item(s: &[u8]) -> bool {
    list_marker(s).is_some()
}

/// The end tags of CommonMark's HTML block type 1 (any of them ends the block).
const HTML_RAW_TAGS: [&[u8]; 4] = [b"script", b"pre", b"style", b"textarea"];

/// CommonMark HTML blocks of types 1-5, the ones a blank line does not end: `<script>`,
/// `<pre>`, `<style>`, `<textarea>` (1), comments (2), processing instructions (3),
/// declarations (4) and CDATA (5). Returns the type, or `None`.
fn html_open(s: &[u8]) -> Option<u8> {
    let (ind, t) = indent(s);
    if ind >= 4 || t.first() != Some(&b'<') {
        return None;
    }
    let r = &t[1..];
    for tag in HTML_RAW_TAGS {
        if r.len() >= tag.len()
            && r[..tag.len()].eq_ignore_ascii_case(tag)
            && matches!(r.get(tag.len()), None | Some(b' ' | b'\t' | b'>'))
        {
            return Some(1);
        }
    }
    if r.starts_with(b"!--") {
        Some(2)
    } else if r.starts_with(b"?") {
        Some(3)
    } else if r.starts_with(b"![CDATA[") {
        Some(5)
    } else if r.first() == Some(&b'!') && r.get(1).is_some_and(u8::is_ascii_alphabetic) {
        Some(4)
    } else {
        None
    }
}

/// Whether line `s` ends an HTML block of type `kind` (the start line counts too).
fn html_close(s: &[u8], kind: u8) -> bool {
    let has = |pat: &[u8]| s.windows(pat.len()).any(|w| w == pat);
    match kind {
        1 => HTML_RAW_TAGS.iter().any(|tag| {
            let n = tag.len() + 3;
            s.windows(n).any(|w| {
                w[0] == b'<'
                    && w[1] == b'/'
                    && w[n - 1] == b'>'
                    && w[2..n - 1].eq_ignore_ascii_case(tag)
            })
        }),
        2 => has(b"-->"),
        3 => has(b"?>"),
        4 => has(b">"),
        _ => has(b"]]>"),
    }
}

fn quote(s: &[u8]) -> bool {
    let (ind, t) = indent(s);
    ind < 4 && t.first() == Some(&b'>')
}

fn table_delim(s: &[u8]) -> bool {
    let mut t = strip(s);
    if !t.contains(&b'|') && !t.contains(&b'-') {
        return false;
    }
    let has_pipe = t.contains(&b'|');
    if t.first() == Some(&b'|') {
        t = &t[1..];
    }
    if t.last() == Some(&b'|') {
        t = &t[..t.len() - 1];
    }
    if !has_pipe {
        return false;
    }
    t.split(|&c| c == b'|').all(|cell| {
        let mut c = strip(cell);
        if c.first() == Some(&b':') {
            c = &c[1..];
        }
        if c.last() == Some(&b':') {
            c = &c[..c.len() - 1];
        }
        !c.is_empty() && c.iter().all(|&x| x == b'-')
    })
}

fn table_start(lines: &[&[u8]], i: usize) -> bool {
    i + 1 < lines.len() && lines[i].contains(&b'|') && table_delim(lines[i + 1])
}

fn heading_text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Scans `text` into blocks. Rules (mirrored exactly by the Python fallback):
///
/// * lines end at `\n`; a `\r` before it is not part of the line;
/// * front matter: line 0 is `---` (trailing blanks allowed) and a later line is `---` or
///   `...`; without a closing line there is no front matter;
/// * blank lines (only spaces/tabs) separate blocks and belong to none;
/// * a line indented 4+ columns starts indented code, which runs over indented and blank
///   lines (trailing blank lines excluded);
/// * a fence opens with 3+ backticks or tildes (backtick info strings without backticks) and
///   closes with a run of the same character at least as long; unclosed, it runs to the
///   last non-blank line;
/// * HTML block (CommonMark types 1–5): a line starting (indent < 4) with `<script`,
///   `<pre`, `<style` or `<textarea` (ASCII case-insensitive, then a blank, `>` or the line
///   end), `<!--`, `<?`, `<!` + letter, or `<![CDATA[`; it runs to the first line, the start
///   line included, containing its end marker (`</script>`, `</pre>`, `</style>` or
///   `</textarea>` case-insensitively; `-->`; `?>`; `>`; `]]>`); unclosed, it runs to the
///   last non-blank line;
/// * ATX heading: 1–6 `#` then a blank or the line end; thematic break: 3+ of one of `-*_`;
/// * list: a `-`/`+`/`*` or 1–9 digits and `.`/`)` marker, then a blank or the line end;
///   the list continues over every non-blank line except an unindented (< 2 columns)
///   heading, fence, HTML block start, thematic break or list item with a different marker
///   (`-`, `+`, `*`, or `.`/`)` for ordered items), and over blank lines when the next
///   non-blank line is indented 2+ columns or is a list item with the same marker;
/// * table: a line with `|` followed by a delimiter row; it runs until a blank line, heading,
///   fence or HTML block start;
/// * quote: a `>` line and the non-blank lines after it;
/// * paragraph: anything else, ended by a blank line, or by a heading, fence, HTML block
///   start, thematic break, list item, quote or table start; a setext underline (`===` / `---`) turns the
///   paragraph above it into a heading whose text is its lines, stripped, joined by spaces.
pub fn scan_blocks(text: &str) -> Vec<Block> {
    let spans = lines_of(text);
    let b = text.as_bytes();
    let lines: Vec<&[u8]> = spans.iter().map(|&(s, e)| &b[s..e]).collect();
    let n = lines.len();
    let mut blocks = Vec::new();
    let mut push = |kind: BlockKind, first: usize, last: usize| {
        blocks.push(Block {
            kind,
            first,
            last,
            start: spans[first].0,
            end: spans[last].1,
        });
    };
    let mut i = 0;
    if strip(lines[0]) == b"---" && lines[0].starts_with(b"---") {
        if let Some(j) = (1..n).find(|&j| {
            let t = strip(lines[j]);
            (t == b"---" || t == b"...") && lines[j].starts_with(t)
        }) {
            push(BlockKind::FrontMatter, 0, j);
            i = j + 1;
        }
    }
    while i < n {
        let s = lines[i];
        if is_blank(s) {
            i += 1;
            continue;
        }
        if indent(s).0 >= 4 {
            let mut last = i;
            let mut j = i + 1;
            while j < n && (is_blank(lines[j]) || indent(lines[j]).0 >= 4) {
                if !is_blank(lines[j]) {
                    last = j;
                }
                j += 1;
            }
            push(BlockKind::IndentedCode, i, last);
            i = last + 1;
            continue;
        }
        if let Some((c, len)) = fence_open(s) {
            let close = (i + 1..n).find(|&k| fence_close(lines[k], c, len));
            // Unclosed: runs to the last non-blank line of the document.
            let last =
                close.unwrap_or_else(|| (i..n).rev().find(|&k| !is_blank(lines[k])).unwrap_or(i));
            push(BlockKind::Fence, i, last);
            i = last + 1;
            continue;
        }
        if let Some(kind) = html_open(s) {
            let close = (i..n).find(|&k| html_close(lines[k], kind));
            let last =
                close.unwrap_or_else(|| (i..n).rev().find(|&k| !is_blank(lines[k])).unwrap_or(i));
            push(BlockKind::Html, i, last);
            i = last + 1;
            continue;
        }
        if let Some((level, t)) = atx(s) {
            push(
                BlockKind::Heading {
                    level,
                    text: heading_text(t),
                },
                i,
                i,
            );
            i += 1;
            continue;
        }
        if thematic(s) {
            push(BlockKind::Break, i, i);
            i += 1;
            continue;
        }
        if let Some(marker) = list_marker(s) {
            let mut last = i;
            let mut j = i + 1;
            while j < n {
                if is_blank(lines[j]) {
                    let mut k = j;
                    while k < n && is_blank(lines[k]) {
                        k += 1;
                    }
                    if k < n && (indent(lines[k]).0 >= 2 || list_marker(lines[k]) == Some(marker)) {
                        j = k;
                        continue;
                    }
                    break;
                }
                let l = lines[j];
                if indent(l).0 < 2
                    && (atx(l).is_some()
                        || fence_open(l).is_some()
                        || html_open(l).is_some()
                        || thematic(l)
                        || list_marker(l).is_some_and(|m| m != marker))
                {
                    break;
                }
                last = j;
                j += 1;
            }
            push(BlockKind::List, i, last);
            i = last + 1;
            continue;
        }
        if table_start(&lines, i) {
            let mut j = i + 2;
            while j < n
                && !is_blank(lines[j])
                && atx(lines[j]).is_none()
                && fence_open(lines[j]).is_none()
                && html_open(lines[j]).is_none()
            {
                j += 1;
            }
            push(BlockKind::Table, i, j - 1);
            i = j;
            continue;
        }
        if quote(s) {
            let mut j = i + 1;
            while j < n && !is_blank(lines[j]) {
                j += 1;
            }
            push(BlockKind::Quote, i, j - 1);
            i = j;
            continue;
        }
        let mut j = i + 1;
        let mut heading = None;
        while j < n {
            let l = lines[j];
            if is_blank(l) {
                break;
            }
            if let Some(level) = setext(l) {
                heading = Some(level);
                break;
            }
            if atx(l).is_some()
                || fence_open(l).is_some()
                || html_open(l).is_some()
                || thematic(l)
                || list_item(l)
                || quote(l)
                || table_start(&lines, j)
            {
                break;
            }
            j += 1;
        }
        match heading {
            Some(level) => {
                let parts: Vec<String> = (i..j).map(|k| heading_text(strip(lines[k]))).collect();
                push(
                    BlockKind::Heading {
                        level,
                        text: parts.join(" "),
                    },
                    i,
                    j,
                );
                i = j + 1;
            }
            None => {
                push(BlockKind::Paragraph, i, j - 1);
                i = j;
            }
        }
    }
    blocks
}

// ------------------------------------------------------------------------------------------
// packing

/// The whitespace of sentence and word splitting. Spelled out because Rust's
/// `char::is_whitespace` and Python's `str.isspace` disagree on a few code points.
pub fn is_ws(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | '\r' | '\u{0b}' | '\u{0c}' | '\u{a0}' | '\u{3000}'
    )
}

fn trim_end_ws(text: &str, s: usize, mut e: usize) -> usize {
    while e > s {
        let c = text[..e].chars().next_back().unwrap_or(' ');
        if !is_ws(c) {
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
                if !is_blank(&piece.as_bytes()[a..b]) {
                    out.push((s + a, s + b));
                }
            }
        }
        2 | 3 => {
            let mut start = 0;
            let mut it = piece.char_indices().peekable();
            while let Some((i, c)) = it.next() {
                let next = it.peek().map(|&(_, n)| n);
                let cut = if level == 2 {
                    matches!(c, '。' | '！' | '？' | '；')
                        || (matches!(c, '.' | '!' | '?') && next.map_or(true, is_ws))
                } else {
                    is_ws(c) && matches!(next, Some(n) if !is_ws(n))
                };
                if cut {
                    let mut end = i + c.len_utf8();
                    while let Some(&(j, n)) = it.peek() {
                        if !is_ws(n) {
                            break;
                        }
                        end = j + n.len_utf8();
                        it.next();
                    }
                    let t = trim_end_ws(piece, start, end);
                    if t > start {
                        out.push((s + start, s + t));
                    }
                    start = end;
                }
            }
            let t = trim_end_ws(piece, start, piece.len());
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

/// The items of the list block spanning `(s, e)`: each runs from a line starting an item at
/// the list's own indentation (or less) to its last non-blank line, nested items included.
fn list_items(text: &str, s: usize, e: usize) -> Vec<(usize, usize)> {
    let piece = &text.as_bytes()[s..e];
    let lines = lines_of(&text[s..e]);
    let base = indent(&piece[lines[0].0..lines[0].1]).0;
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (j, &(a, b)) in lines.iter().enumerate() {
        let l = &piece[a..b];
        if j == 0 || (list_item(l) && indent(l).0 <= base) {
            out.push((s + a, s + b));
        } else if !is_blank(l) {
            if let Some(last) = out.last_mut() {
                last.1 = s + b;
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
    out: Vec<MdChunk>,
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
        self.out.push(MdChunk {
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
/// (2 sentences, 3 whitespace, 4 characters). Shared with the title-tree chunker.
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

/// Splits Markdown `text` into chunks of at most `opts.chunk_size` (in `counter`'s unit),
/// cutting at the structure described in the module docs.
pub fn split_markdown<C: TokenCounter>(
    text: &str,
    opts: &MdOptions,
    counter: &C,
) -> Result<MdOutput, C::Error> {
    if text.is_empty() {
        return Ok(MdOutput {
            chunks: Vec::new(),
            sections: Vec::new(),
        });
    }
    let blocks = scan_blocks(text);
    pack_blocks(text, &blocks, opts, 2, counter)
}

/// Sections at the headings of `opts.split_levels`, then packing of each section's blocks
/// (see the module docs). `blocks` are in order, non-overlapping, non-empty spans of `text`;
/// `head_lines` is how many lines of a [`BlockKind::Table`] are its repeated header. Shared
/// with the HTML splitter, which lays its DOM out as text and blocks.
pub fn pack_blocks<C: TokenCounter>(
    text: &str,
    blocks: &[Block],
    opts: &MdOptions,
    head_lines: usize,
    counter: &C,
) -> Result<MdOutput, C::Error> {
    let mut out = MdOutput {
        chunks: Vec::new(),
        sections: Vec::new(),
    };
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
    let mut sections: Vec<(Vec<String>, usize, usize)> = Vec::new(); // (path, blocks a..b)
    for (bi, blk) in blocks.iter().enumerate() {
        if let BlockKind::Heading { level, text: t } = &blk.kind {
            if opts.split_levels[*level] {
                sections.push((stack.iter().map(|x| x.1.clone()).collect(), sec_start, bi));
                while stack.last().is_some_and(|x| x.0 >= *level) {
                    stack.pop();
                }
                stack.push((*level, t.clone()));
                sec_start = bi;
            }
        }
    }
    sections.push((
        stack.iter().map(|x| x.1.clone()).collect(),
        sec_start,
        blocks.len(),
    ));
    for (path, a, b) in sections {
        let mut sel: Vec<&Block> = blocks[a..b].iter().collect();
        // A heading is stripped only when its section has other content: an empty section
        // keeps its heading as text, otherwise the heading would be in no chunk at all.
        if opts.strip_headers && sel.len() > 1 {
            if let Some(BlockKind::Heading { level, .. }) = sel.first().map(|b| &b.kind) {
                if opts.split_levels[*level] {
                    sel.remove(0);
                }
            }
        }
        if sel.is_empty() && path.is_empty() {
            continue;
        }
        packer.section = out.sections.len();
        out.sections.push(path);
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
    for (i, sec) in out.sections.into_iter().enumerate() {
        if used[i] {
            remap[i] = kept.len();
            kept.push(sec);
        }
    }
    out.sections = kept;
    out.chunks = packer.out;
    for c in &mut out.chunks {
        c.section = remap[c.section];
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::CharCount;
    use super::*;

    /// Options for tests: `size` budget, no overlap, cut at h1-h3, headings kept (the HTML
    /// splitter's tests share it).
    pub(crate) fn opts(size: usize) -> MdOptions {
        let mut levels = [false; 7];
        levels[1..=3].iter_mut().for_each(|l| *l = true);
        MdOptions {
            chunk_size: size,
            overlap: 0,
            split_levels: levels,
            strip_headers: false,
        }
    }

    fn texts(text: &str, o: &MdOptions) -> Vec<(String, Vec<String>)> {
        let out = split_markdown(text, o, &CharCount).unwrap();
        out.chunks
            .iter()
            .map(|c| {
                let mut t = String::new();
                if let Some((a, b)) = c.prefix {
                    t.push_str(&text[a..b]);
                    t.push('\n');
                }
                t.push_str(&text[c.span.start..c.span.end]);
                (t, out.sections[c.section].clone())
            })
            .collect()
    }

    #[test]
    fn blocks_are_recognised() {
        let doc = "---\na: 1\n---\n# T #\n\npara\nline\n\n```py\nx\n\ny\n```\n| a | b |\n|---|:-:|\n| 1 | 2 |\n\n- a\n\n  b\n- c\nSub\n---\n";
        let kinds: Vec<BlockKind> = scan_blocks(doc).into_iter().map(|b| b.kind).collect();
        let h = BlockKind::Heading {
            level: 1,
            text: "T".into(),
        };
        // "Sub" is a lazy continuation of the list; the "---" after it is a thematic break.
        use BlockKind::*;
        assert_eq!(
            kinds,
            vec![FrontMatter, h, Paragraph, Fence, Table, List, Break]
        );
    }

    #[test]
    fn headers_path_and_fence_kept_whole() {
        let doc = "# A\n\nintro\n\n## B\n\n```\nlet x = 1;\nlet y = 2;\n```\n\n# C\n\ntail";
        let got = texts(doc, &opts(40));
        assert_eq!(got[0], ("# A\n\nintro".into(), vec!["A".to_string()]));
        assert_eq!(got[1].1, vec!["A".to_string(), "B".to_string()], "{got:?}");
        assert!(got[1].0.contains("let x = 1;\nlet y = 2;"));
        assert_eq!(got[2], ("# C\n\ntail".into(), vec!["C".to_string()]));
    }

    #[test]
    fn big_table_repeats_header() {
        let mut doc = String::from("| h1 | h2 |\n|----|----|\n");
        for i in 0..20 {
            doc.push_str(&format!("| r{i} | v{i} |\n"));
        }
        let o = opts(60);
        let out = split_markdown(&doc, &o, &CharCount).unwrap();
        assert!(out.chunks.len() > 1);
        assert!(out.chunks[0].prefix.is_none());
        for c in &out.chunks[1..] {
            assert_eq!(c.prefix, Some((0, 23)));
            assert!(c.span.size <= 60);
        }
    }

    #[test]
    fn long_line_cut_at_sentences_then_chars() {
        let doc = "One two three. Four five six. ".repeat(10) + &"x".repeat(50);
        let out = split_markdown(&doc, &opts(20), &CharCount).unwrap();
        for c in &out.chunks {
            assert!(c.span.size <= 20);
        }
        let joined: String = out
            .chunks
            .iter()
            .map(|c| &doc[c.span.start..c.span.end])
            .collect();
        let strip = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        assert_eq!(strip(&joined), strip(&doc));
    }

    #[test]
    fn html_blocks_run_to_their_end_marker() {
        // A comment and a <style> keep their blank lines and the `#` and `-` lines inside;
        // `<div>` (type 6) is an ordinary paragraph-like block ended by a blank line.
        let doc = "intro\n<!--\n# not a heading\n\n- nor a list\n-->\n<STYLE>\na {}\n\nb {}\n</style >x</Style>\n\n<div>\n\n<?php\n\n?>\n<!DOCTYPE\n\nhtml>\n<![CDATA[\n\n]]>\n<!-- unclosed\n\nend\n\n";
        let kinds: Vec<(BlockKind, usize, usize)> = scan_blocks(doc)
            .into_iter()
            .map(|b| (b.kind, b.first, b.last))
            .collect();
        use BlockKind::*;
        assert_eq!(
            kinds,
            vec![
                (Paragraph, 0, 0),
                (Html, 1, 5),
                (Html, 6, 10),
                (Paragraph, 12, 12),
                (Html, 14, 16),
                (Html, 17, 19),
                (Html, 20, 22),
                (Html, 23, 25),
            ]
        );
    }

    #[test]
    fn a_new_marker_starts_a_new_list() {
        let doc = "1. one\n2. two\n\n- a\n- b\n  * nested\n* c\n\n* d\n3) e\n";
        let spans: Vec<(BlockKind, usize, usize)> = scan_blocks(doc)
            .into_iter()
            .map(|b| (b.kind, b.first, b.last))
            .collect();
        use BlockKind::*;
        assert_eq!(
            spans,
            vec![(List, 0, 1), (List, 3, 5), (List, 6, 8), (List, 9, 9)]
        );
    }

    #[test]
    fn digits_alone_are_not_a_list_marker() {
        for line in ["0", "12", "1234567890.", "1.x", "1)"] {
            assert_eq!(
                list_marker(line.as_bytes()),
                (line == "1)").then_some(b')'),
                "{line}"
            );
        }
    }

    #[test]
    fn big_list_is_cut_between_items() {
        let doc = "- alpha one\n  continued\n- beta two\n  * nested\n- gamma\n";
        let got: Vec<String> = texts(doc, &opts(24)).into_iter().map(|c| c.0).collect();
        assert_eq!(
            got,
            vec![
                "- alpha one\n  continued",
                "- beta two\n  * nested",
                "- gamma"
            ]
        );
        let got: Vec<String> = texts(doc, &opts(30)).into_iter().map(|c| c.0).collect();
        assert_eq!(
            got,
            vec![
                "- alpha one\n  continued",
                "- beta two\n  * nested\n- gamma"
            ]
        );
        // An item alone over budget is cut between its lines.
        let got: Vec<String> = texts(doc, &opts(12)).into_iter().map(|c| c.0).collect();
        assert_eq!(
            got,
            vec![
                "- alpha one",
                "  continued",
                "- beta two",
                "  * nested",
                "- gamma"
            ]
        );
    }

    #[test]
    fn empty_and_blank() {
        assert!(split_markdown("", &opts(10), &CharCount)
            .unwrap()
            .chunks
            .is_empty());
        assert!(split_markdown("\n \n", &opts(10), &CharCount)
            .unwrap()
            .chunks
            .is_empty());
        let out = split_markdown("```\nunclosed", &opts(100), &CharCount).unwrap();
        assert_eq!(out.chunks.len(), 1);
    }
}
