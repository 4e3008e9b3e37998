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
//! `python/ragchunk/_pure/splitters/markdown.py`. Inline syntax never matters for where a
//! chunk may be cut, and everything is decided on ASCII bytes at line starts, so byte and
//! code-point views agree.
//!
//! # Chunking
//! The blocks go to the packer the structure-aware splitters share ([`super::packer`]):
//! sections at the headings whose level is in `headers_to_split_on` (small adjacent
//! sections of one parent merged while they fit, with `merge_sections`), whole blocks packed
//! greedily, an oversized block cut at lines (a list between its items, a table at rows with
//! the header and delimiter rows repeated in front of every continuation chunk), then at
//! sentence ends, whitespace and characters; overlap in whole trailing blocks.

use super::lines::{indent, lines_of, list_item, list_marker};
use super::packer::{pack_blocks, Block, BlockKind, PackOptions, PackOutput};
use super::title_tree::TitleBlock;
use crate::text::boundaries::{is_blank_line, is_markdown_space};
use crate::text::CharOffsets;
use crate::tokenizer::TokenCounter;

// ------------------------------------------------------------------------------------------
// line predicates (ASCII decisions only)

fn strip(s: &[u8]) -> &[u8] {
    let mut a = 0;
    let mut b = s.len();
    while a < b && is_markdown_space(s[a]) {
        a += 1;
    }
    while b > a && is_markdown_space(s[b - 1]) {
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
    ind < 4 && m >= n && is_blank_line(&t[m..])
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
    let mut lines: Vec<&[u8]> = spans.iter().map(|&(s, e)| &b[s..e]).collect();
    // A leading byte-order mark (a file saved with one) is not part of the first line's
    // syntax, so it does not hide a heading or a fence; it stays in the first block's span.
    if let Some(rest) = lines[0].strip_prefix("\u{feff}".as_bytes()) {
        lines[0] = rest;
    }
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
        if is_blank_line(s) {
            i += 1;
            continue;
        }
        if indent(s).0 >= 4 {
            let mut last = i;
            let mut j = i + 1;
            while j < n && (is_blank_line(lines[j]) || indent(lines[j]).0 >= 4) {
                if !is_blank_line(lines[j]) {
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
            let last = close.unwrap_or_else(|| {
                (i..n)
                    .rev()
                    .find(|&k| !is_blank_line(lines[k]))
                    .unwrap_or(i)
            });
            push(BlockKind::Fence, i, last);
            i = last + 1;
            continue;
        }
        if let Some(kind) = html_open(s) {
            let close = (i..n).find(|&k| html_close(lines[k], kind));
            let last = close.unwrap_or_else(|| {
                (i..n)
                    .rev()
                    .find(|&k| !is_blank_line(lines[k]))
                    .unwrap_or(i)
            });
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
                if is_blank_line(lines[j]) {
                    let mut k = j;
                    while k < n && is_blank_line(lines[k]) {
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
                && !is_blank_line(lines[j])
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
            while j < n && !is_blank_line(lines[j]) {
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
            if is_blank_line(l) {
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

/// The blocks of [`scan_blocks`] as `TitleTreeChunker(title_source="markdown")` lays its
/// title tree out from them: code-point spans, and for a heading its level and text (`0` and
/// `""` for every other block), the same shape as the HTML layout's blocks.
pub fn title_blocks(text: &str) -> Vec<TitleBlock> {
    let mut at = CharOffsets::new(text);
    scan_blocks(text)
        .into_iter()
        .map(|b| {
            let (start, end) = (at.char_offset(b.start), at.char_offset(b.end));
            let (level, title) = match b.kind {
                BlockKind::Heading { level, text } => (level, text),
                _ => (0, String::new()),
            };
            TitleBlock {
                start,
                end,
                level,
                title,
            }
        })
        .collect()
}

/// Splits Markdown `text` into chunks of at most `opts.chunk_size` (in `counter`'s unit),
/// cutting at the structure described in the module docs.
pub fn split_markdown<C: TokenCounter>(
    text: &str,
    opts: &PackOptions,
    counter: &C,
) -> Result<PackOutput, C::Error> {
    if text.is_empty() {
        return Ok(PackOutput::default());
    }
    let blocks = scan_blocks(text);
    pack_blocks(text, &blocks, opts, 2, counter)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::tokenizer::CharCount;
    use BlockKind::*;

    /// Options for tests: `size` budget, no overlap, cut at h1-h3, headings kept (the HTML
    /// splitter's tests share it).
    pub(crate) fn opts(size: usize) -> PackOptions {
        let mut levels = [false; 7];
        levels[1..=3].iter_mut().for_each(|l| *l = true);
        PackOptions {
            chunk_size: size,
            overlap: 0,
            split_levels: levels,
            strip_headers: false,
            merge_sections: false,
        }
    }

    fn texts(text: &str, o: &PackOptions) -> Vec<(String, Vec<String>)> {
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
    fn title_blocks_are_in_code_points() {
        let blocks = title_blocks("# Tïtle\n\né中 para\n\nSub\n===\n");
        let got: Vec<(usize, usize, usize, &str)> = blocks
            .iter()
            .map(|b| (b.start, b.end, b.level, b.title.as_str()))
            .collect();
        assert_eq!(
            got,
            [(0, 7, 1, "Tïtle"), (9, 16, 0, ""), (18, 25, 1, "Sub")]
        );
        assert!(title_blocks("").is_empty());
    }

    fn merged(size: usize, strip: bool) -> PackOptions {
        PackOptions {
            merge_sections: true,
            strip_headers: strip,
            ..opts(size)
        }
    }

    #[test]
    fn small_sections_merge_within_their_parent_only() {
        let long = "word ".repeat(12);
        let doc = format!(
            "# A\n\nintro\n\n## B\n\nbb\n\n### B1\n\n{long}\n\n## C\n\ncc\n\n## D\n\ndd\n\n# E\n\nee"
        );
        let out = split_markdown(&doc, &merged(40, false), &CharCount).unwrap();
        let got: Vec<(&str, &[String], usize)> = out
            .chunks
            .iter()
            .map(|c| {
                (
                    &doc[c.span.start..c.span.end],
                    out.sections[c.section].as_slice(),
                    out.merged[c.section].len(),
                )
            })
            .collect();
        let a = vec!["A".to_string()];
        // "# A" with "## B": B's subtree is cut (B1 is over budget), so B is a barrier; the
        // tail of B1 never merges with C (across a "##" heading); C and D merge under A; E
        // (another "#") never joins A's children.
        assert_eq!(got[0], ("# A\n\nintro", a.as_slice(), 0));
        assert_eq!(got[1].0, "## B\n\nbb");
        assert!(got[2].0.starts_with("### B1"), "{got:?}");
        let n = got.len();
        assert_eq!(got[n - 2], ("## C\n\ncc\n\n## D\n\ndd", a.as_slice(), 2));
        assert_eq!(got[n - 1].0, "# E\n\nee");
        assert_eq!(
            out.merged[out.chunks[n - 2].section],
            vec![
                vec!["A".to_string(), "C".to_string()],
                vec!["A".to_string(), "D".to_string()]
            ]
        );
        for c in &out.chunks {
            assert!(c.span.size <= 40);
        }
        // Unmerged, every section is its own chunk.
        let plain = split_markdown(&doc, &opts(40), &CharCount).unwrap();
        assert_eq!(plain.chunks.len(), n + 1);
        assert!(plain.merged.iter().all(|m| m.is_empty()));
    }

    #[test]
    fn a_parent_intro_merges_with_its_first_children() {
        let doc = "# A\n\nintro\n\n## B\n\nbb\n\n## C\n\nsome longer text here";
        let got: Vec<(String, Vec<String>)> = texts(doc, &merged(30, false));
        assert_eq!(
            got,
            vec![
                ("# A\n\nintro\n\n## B\n\nbb".into(), vec!["A".into()]),
                (
                    "## C\n\nsome longer text here".into(),
                    vec!["A".into(), "C".into()]
                ),
            ]
        );
        // Everything fits: the whole tree is one chunk under the common path.
        let got = texts(doc, &merged(100, false));
        assert_eq!(got, vec![(doc.to_string(), vec!["A".to_string()])]);
        // Stripped: the leading heading is the chunk's own path and goes; the merged
        // sections' headings stay (they are not in `headers`).
        let got = texts(doc, &merged(30, true));
        assert_eq!(got[0], ("intro\n\n## B\n\nbb".into(), vec!["A".into()]));
        assert_eq!(
            got[1],
            ("some longer text here".into(), vec!["A".into(), "C".into()])
        );
        let siblings =
            "# A\n\n## B\n\nbb\n\n## C\n\ncc\n\n### C1\n\n".to_string() + &"x".repeat(40);
        let got = texts(&siblings, &merged(30, true));
        // "# A" alone is stripped into the merge with B, whose heading stays; C's subtree is
        // cut (C1 is over budget), so C does not join B.
        assert_eq!(got[0], ("## B\n\nbb".into(), vec!["A".into()]));
        assert_eq!(got[1], ("cc".into(), vec!["A".into(), "C".into()]));
    }

    #[test]
    fn siblings_with_one_title_share_their_parent_path() {
        // Two different sections named alike: their common path is their parent's (none),
        // decided by the tree, not by comparing titles.
        let doc = "## S\n\nx\n\n## S\n\ny";
        let got = texts(doc, &merged(100, false));
        assert_eq!(got, vec![(doc.to_string(), Vec::<String>::new())]);
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
