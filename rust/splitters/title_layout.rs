//! Where a title tree comes from when the input is text: Markdown headings, numbered title
//! lines (RAGFlow's 第一章 / 1.2.3 / Article 5 style), or the headings of an HTML document,
//! laid out as [`TreeLayout`]s for [`super::title_tree`] to chunk.
//!
//! The pure-Python fallback lays trees out with the same rules
//! (`python/ragchunk/_pure/splitters/title_tree.py`); where a rule is a Python regular
//! expression or string method, it is spelled out here as Python evaluates it (its `\b`, its
//! `str.strip`, whose whitespace both read from the rules file), so both backends build the
//! same tree from the same text.

use std::sync::LazyLock;

use regex::Regex;

use super::title_tree::TitleBlock;
use super::{html, markdown};
use crate::text::boundaries::boundaries;

/// Where the titles of a text are read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TitleSource {
    /// Markdown when the text has a Markdown heading, else numbered title lines.
    Auto,
    /// Markdown headings (ATX or setext) as the Markdown splitter scans them.
    Markdown,
    /// Numbered title lines; every other non-blank line is a paragraph.
    Numbered,
    /// The text is HTML: `<h1>`...`<h6>` are the titles, the other blocks of its text layout
    /// the paragraphs; offsets then index that layout.
    Html,
}

impl TitleSource {
    /// The source named `name` (`"auto"`, `"markdown"`, `"numbered"` or `"html"`).
    pub fn from_name(name: &str) -> Option<TitleSource> {
        Some(match name {
            "auto" => TitleSource::Auto,
            "markdown" => TitleSource::Markdown,
            "numbered" => TitleSource::Numbered,
            "html" => TitleSource::Html,
            _ => return None,
        })
    }
}

/// A title tree laid out over a text: nodes in pre-order (node 0 the root, untitled),
/// `parents[i] < i`, and items `(node, start, end)` in document order, code points.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TreeLayout {
    /// The text the items index when it is not the input (an HTML document's text layout).
    pub text: Option<String>,
    pub titles: Vec<String>,
    pub parents: Vec<usize>,
    pub items: Vec<(usize, usize, usize)>,
}

impl TreeLayout {
    fn root() -> TreeLayout {
        TreeLayout {
            text: None,
            titles: vec![String::new()],
            parents: vec![0],
            items: Vec::new(),
        }
    }

    /// The non-empty titles from the root down to `node` (the root's own title is empty).
    pub fn path(&self, mut node: usize) -> Vec<String> {
        let mut out = Vec::new();
        while node > 0 {
            if !self.titles[node].is_empty() {
                out.push(self.titles[node].clone());
            }
            node = self.parents[node];
        }
        out.reverse();
        out
    }
}

/// Builds the tree of a sequence of levelled lines or blocks: a title of level `l` is the
/// child of the nearest title above it of a lower level; every entry is an item of the node
/// it opens or sits under.
struct TreeBuilder {
    layout: TreeLayout,
    /// `(level, node)` of the open titles, the root (level 0) at the bottom.
    stack: Vec<(usize, usize)>,
}

impl TreeBuilder {
    fn new() -> TreeBuilder {
        TreeBuilder {
            layout: TreeLayout::root(),
            stack: vec![(0, 0)],
        }
    }

    fn title(&mut self, level: usize, title: String) {
        while self.stack.last().is_some_and(|&(l, _)| l >= level) {
            self.stack.pop();
        }
        let node = self.layout.titles.len();
        self.layout.titles.push(title);
        self.layout
            .parents
            .push(self.stack.last().map_or(0, |&(_, n)| n));
        self.stack.push((level, node));
    }

    fn item(&mut self, start: usize, end: usize) {
        let node = self.stack.last().map_or(0, |&(_, n)| n);
        self.layout.items.push((node, start, end));
    }

    fn blocks(blocks: Vec<TitleBlock>) -> TreeLayout {
        let mut b = TreeBuilder::new();
        for block in blocks {
            if block.level > 0 {
                b.title(block.level, block.title);
            }
            b.item(block.start, block.end);
        }
        b.layout
    }
}

/// Markdown headings (any level) as titles, the other blocks as paragraphs.
pub fn layout_markdown(text: &str) -> TreeLayout {
    TreeBuilder::blocks(markdown::title_blocks(text))
}

/// HTML headings as titles, the other blocks of the text layout as paragraphs.
pub fn layout_html(html: &str) -> TreeLayout {
    let lay = html::layout_html(html);
    let blocks = html::title_blocks(&lay);
    let mut layout = TreeBuilder::blocks(blocks);
    layout.text = Some(lay.text);
    layout
}

/// The tree of `text` read from `source`.
pub fn layout(text: &str, source: TitleSource) -> TreeLayout {
    match source {
        TitleSource::Markdown => layout_markdown(text),
        TitleSource::Numbered => layout_numbered(text),
        TitleSource::Html => layout_html(text),
        TitleSource::Auto => {
            let md = layout_markdown(text);
            if md.titles.len() > 1 {
                md
            } else {
                layout_numbered(text)
            }
        }
    }
}

/// Python's `str.isspace` (`chars.whitespace.langchain` of the rules file: Unicode
/// White_Space and the four information separators U+001C..U+001F, which Rust's
/// `char::is_whitespace` leaves out): what the numbered titles are stripped of.
fn py_space(c: char) -> bool {
    boundaries().langchain_space.contains(c)
}

/// Python's `\w` in a `str` pattern: letters, numbers and the underscore.
fn py_word(c: char) -> bool {
    static WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[\p{L}\p{N}_]").unwrap());
    let mut buf = [0u8; 4];
    WORD.is_match(c.encode_utf8(&mut buf))
}

/// The numbered title patterns, in the order they are tried, with their levels; `bounded`:
/// the match must end at a Python word boundary (the pattern's `\b`).
static NUMBERED: LazyLock<Vec<(usize, Regex, bool)>> = LazyLock::new(|| {
    const NUM: &str = "零一二三四五六七八九十百千0-9";
    let p = |s: &str| Regex::new(&format!("^(?:{s})")).unwrap();
    vec![
        (1, p(&format!("第[{NUM}]+(?:编|部分)")), false),
        (2, p(&format!("第[{NUM}]+章")), false),
        (2, p("(?:Chapter|CHAPTER|Part|PART) [0-9IVXLC]+"), true),
        (3, p(&format!("第[{NUM}]+节")), false),
        (3, p("(?:Section|SECTION) [0-9]+"), true),
        (4, p(&format!("第[{NUM}]+条")), false),
        (4, p("(?:Article|ARTICLE) [0-9]+"), true),
        (2, p("[一二三四五六七八九十百]+、"), false),
        (3, p("[(（][一二三四五六七八九十百]+[)）]"), false),
    ]
});

const NOT_TITLE_END: [char; 7] = ['。', '；', ';', '，', ',', '：', ':'];

/// `([0-9]{1,2}(?:\.[0-9]{1,2}){0,3})(?:[ 、．]|\.(?![0-9]))` matched at the start of `t`
/// with Python's backtracking order: `(dots in the group, end of the match)`.
fn dotted(t: &[char]) -> Option<(usize, usize)> {
    let digits = |at: usize| {
        t[at.min(t.len())..]
            .iter()
            .take(2)
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    // After the group: a separator, or a dot not followed by a digit.
    let tail = |at: usize| match t.get(at) {
        Some(' ' | '、' | '．') => Some(at + 1),
        Some('.') if !t.get(at + 1).is_some_and(char::is_ascii_digit) => Some(at + 1),
        _ => None,
    };
    // `(?:\.[0-9]{1,2}){reps..=3}` from `at`, greedy, then the tail.
    fn more(
        t: &[char],
        at: usize,
        reps: usize,
        digits: &dyn Fn(usize) -> usize,
        tail: &dyn Fn(usize) -> Option<usize>,
    ) -> Option<(usize, usize)> {
        if reps < 3 && t.get(at) == Some(&'.') {
            for d in (1..=digits(at + 1)).rev() {
                if let Some(hit) = more(t, at + 1 + d, reps + 1, digits, tail) {
                    return Some(hit);
                }
            }
        }
        tail(at).map(|end| (reps, end))
    }
    (1..=digits(0))
        .rev()
        .find_map(|d| more(t, d, 0, &digits, &tail))
}

/// The level of a numbered title line, or `None` for a paragraph: a short line (at most 64
/// characters stripped) that starts with a numbering and does not end like a sentence or a
/// lead-in.
pub fn numbered_level(line: &str) -> Option<usize> {
    let t = line.trim_matches(py_space);
    let chars: Vec<char> = t.chars().collect();
    if chars.is_empty() || chars.len() > 64 || t.ends_with(NOT_TITLE_END) {
        return None;
    }
    for (level, re, bounded) in NUMBERED.iter() {
        if let Some(m) = re.find(t) {
            if !bounded || !t[m.end()..].chars().next().is_some_and(py_word) {
                return Some(*level);
            }
        }
    }
    match dotted(&chars) {
        Some((dots, end)) if chars.len() > end => Some(dots + 2),
        _ => None,
    }
}

/// Numbered title lines as titles (their stripped text); every non-blank line an item.
pub fn layout_numbered(text: &str) -> TreeLayout {
    let mut b = TreeBuilder::new();
    let mut start = 0; // code points
    for raw in text.split('\n') {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let len = line.chars().count();
        if !line.trim_matches(py_space).is_empty() {
            if let Some(level) = numbered_level(line) {
                b.title(level, line.trim_matches(py_space).to_owned());
            }
            b.item(start, start + len);
        }
        start += raw.chars().count() + 1;
    }
    b.layout
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_levels_follow_the_patterns() {
        assert_eq!(numbered_level("第一编 总则"), Some(1));
        assert_eq!(numbered_level("第二章 定义"), Some(2));
        assert_eq!(numbered_level("第3节"), Some(3));
        assert_eq!(numbered_level("第十条 责任"), Some(4));
        assert_eq!(numbered_level("一、概述"), Some(2));
        assert_eq!(numbered_level("（二）范围"), Some(3));
        assert_eq!(numbered_level("Chapter IV The End"), Some(2));
        assert_eq!(numbered_level("Chapter IVa"), None);
        assert_eq!(numbered_level("Section 2_b"), None);
        assert_eq!(numbered_level("Article 5."), Some(4));
        assert_eq!(numbered_level("1 Intro"), Some(2));
        assert_eq!(numbered_level("1.2 Scope"), Some(3));
        assert_eq!(numbered_level("1.2.3.4 Deep"), Some(5));
        assert_eq!(numbered_level("1. Intro"), Some(2));
        assert_eq!(numbered_level("1.5"), None);
        assert_eq!(numbered_level("1 "), None);
        assert_eq!(numbered_level("1.2 ends like a sentence;"), None);
        assert_eq!(numbered_level(&format!("1 {}", "x".repeat(70))), None);
        assert_eq!(numbered_level("\u{1c}一、概述\u{1f}"), Some(2));
        assert_eq!(numbered_level("plain text"), None);
    }

    #[test]
    fn dotted_backtracks_like_python() {
        let c = |s: &str| s.chars().collect::<Vec<_>>();
        // `12.345 x`: `12.34` then `5` is neither separator nor dot; back to `12.3`, `4`... then
        // `12` and the dot is followed by a digit: no match.
        assert_eq!(dotted(&c("12.345 x")), None);
        assert_eq!(dotted(&c("1.2.3 x")), Some((2, 6)));
        assert_eq!(dotted(&c("123 x")), None);
        assert_eq!(dotted(&c("1.2.3.4.5 x")), None);
        assert_eq!(dotted(&c("1.2.3.4. x")), Some((3, 8)));
    }

    #[test]
    fn trees_nest_by_level() {
        let lay = layout_numbered("第一章 A\n正文\n\n第一节 B\r\n内容\n第二章 C\n");
        assert_eq!(lay.titles, ["", "第一章 A", "第一节 B", "第二章 C"]);
        assert_eq!(lay.parents, [0, 0, 1, 0]);
        assert_eq!(
            lay.items,
            [(1, 0, 5), (1, 6, 8), (2, 10, 15), (2, 17, 19), (3, 20, 25)]
        );
        assert_eq!(lay.path(2), ["第一章 A", "第一节 B"]);
        let md = layout("# T\n\ntext\n\n## U\n\nmore\n", TitleSource::Auto);
        assert_eq!(md.titles, ["", "T", "U"]);
        assert_eq!(md.path(2), ["T", "U"]);
        assert_eq!(layout("no titles", TitleSource::Auto).titles, [""]);
    }
}
