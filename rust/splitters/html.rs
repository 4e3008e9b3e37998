//! HTML splitting: a WHATWG parse (html5ever), the DOM laid out as plain text and blocks,
//! then the packer the structure-aware splitters share ([`pack_blocks`]).
//!
//! # Why text offsets, not source offsets
//! html5ever's tree has no source positions, and after error recovery (foster parenting,
//! implied end tags, adoption agency) a node's text need not even be contiguous in the
//! source. So chunks are spans of the **laid-out text** ([`layout_html`]), which both
//! backends build identically from the same spec-defined tree (html5lib in the fallback).
//!
//! # Layout
//! Mirrored line for line by `python/ragchunk/_pure/splitters/html.py`.
//! * The tree is walked in document order. Comments, doctypes and processing instructions
//!   are ignored; elements named `script`, `style`, `template` or `noscript` (any namespace)
//!   are dropped with their content (parsed with scripting disabled, so `noscript` content
//!   is markup, as in html5lib).
//! * Inline text is collapsed as a browser would: each run of HTML whitespace (space, tab,
//!   LF, CR, FF) becomes one space; none at the start or end of a block or after a line
//!   break. `<br>` is a line break (`"\n"`). Other whitespace (e.g. U+00A0) is kept.
//! * Blocks: every element of [`BLOCK`] (HTML namespace) ends the running paragraph before
//!   and after itself; the non-empty paragraphs become [`BlockKind::Paragraph`] blocks.
//! * `h1`–`h6`: a [`BlockKind::Heading`] with the element's collapsed text (nested blocks
//!   and `<br>` count as spaces). Empty headings produce nothing.
//! * `pre`: one paragraph block with its text verbatim (`<br>` as `"\n"`), leading line
//!   breaks and trailing whitespace removed.
//! * `table`: its `caption`s first, one paragraph each; then one line per `tr` whose cells
//!   (`td`/`th`, collapsed text; a nested table's text flattened into its cell) are joined
//!   by `"\t"`. Rows with only empty cells are left out, and so is whitespace-only text
//!   between cells; other text found in the table outside cells becomes a row of its own.
//!   The first row is a *header* when it is in `thead` or all its cells are `th`; a table
//!   with a header and another row is a [`BlockKind::Table`] (cut at rows with the header
//!   repeated, [`pack_blocks`] with one head line), otherwise a paragraph (cut at
//!   rows, nothing repeated).
//! * Blocks are joined by `"\n\n"`; the text has no leading or trailing separator.
//!
//! Every non-whitespace character of the tree's text (outside the dropped elements) is in
//! the layout, in order; chunks cover every block, so no text is lost.

use std::rc::Rc;

use html5ever::tendril::TendrilSink;
use html5ever::{parse_document, ParseOpts};
use markup5ever_rcdom::{Handle, NodeData, RcDom};

use super::html_depth;
use super::packer::{pack_blocks, Block, BlockKind, PackOptions, PackOutput};
use super::title_tree::TitleBlock;
use crate::text::boundaries::boundaries;
use crate::text::CharOffsets;
use crate::tokenizer::TokenCounter;

const HTML_NS: &str = "http://www.w3.org/1999/xhtml";

/// Elements (HTML namespace) that end the running paragraph before and after themselves: the
/// block-level elements of the nesting bound, one list for both.
pub use super::html_depth::BLOCK;

/// Elements dropped with their content, in any namespace.
pub const DROPPED: &[&str] = &["noscript", "script", "style", "template"];

/// What the walks need to know about a node: its text, or an element's namespace and name.
enum Kind<'a> {
    Text(String),
    Element { html: bool, local: &'a str },
    Other,
}

fn kind(node: &Handle) -> Kind<'_> {
    match &node.data {
        NodeData::Text { contents } => Kind::Text(contents.borrow().to_string()),
        NodeData::Element { name, .. } => Kind::Element {
            html: &*name.ns == HTML_NS,
            local: &name.local,
        },
        NodeData::Document => Kind::Element {
            html: false,
            local: "",
        },
        _ => Kind::Other,
    }
}

fn children(node: &Handle) -> Vec<Handle> {
    node.children.borrow().iter().map(Rc::clone).collect()
}

/// Collapsing text accumulator (see the module docs).
#[derive(Default)]
struct Collapser {
    buf: String,
    pending: bool,
}

impl Collapser {
    /// Adds `t`: each run of HTML whitespace becomes one pending space, written before the
    /// next word unless it would start a line.
    fn text(&mut self, t: &str) {
        let ws = boundaries().html_space;
        let mut word = 0; // where the current run of non-whitespace began
        for (i, c) in t.char_indices() {
            if ws.contains(c) {
                self.word(&t[word..i]);
                self.pending = true;
                word = i + c.len_utf8();
            }
        }
        self.word(&t[word..]);
    }

    /// Adds a run of non-whitespace (nothing when empty), after the pending space if any.
    fn word(&mut self, w: &str) {
        if w.is_empty() {
            return;
        }
        if self.pending && !self.buf.is_empty() && !self.buf.ends_with('\n') {
            self.buf.push(' ');
        }
        self.pending = false;
        self.buf.push_str(w);
    }

    fn space(&mut self) {
        self.pending = true;
    }

    fn line_break(&mut self) {
        self.buf.push('\n');
        self.pending = false;
    }

    /// The collected text, trimmed of spaces and line breaks; the accumulator is reset.
    fn take(&mut self) -> String {
        self.pending = false;
        let t = self.buf.trim_matches(|c| c == ' ' || c == '\n').to_owned();
        self.buf.clear();
        t
    }
}

/// Collapsed text of `node`'s subtree; block boundaries and `<br>` are spaces.
fn inline_text(node: &Handle) -> String {
    let mut col = Collapser::default();
    let mut stack: Vec<Step> = children(node).into_iter().rev().map(Step::Node).collect();
    while let Some(step) = stack.pop() {
        let n = match step {
            Step::Flush => {
                col.space();
                continue;
            }
            Step::Node(n) => n,
        };
        match kind(&n) {
            Kind::Text(t) => col.text(&t),
            Kind::Element { local, .. } if DROPPED.contains(&local) => {}
            Kind::Element { html, local } => {
                if html && (local == "br" || boundary(local)) {
                    col.space();
                    stack.push(Step::Flush);
                }
                stack.extend(children(&n).into_iter().rev().map(Step::Node));
            }
            Kind::Other => {}
        }
    }
    col.take()
}

/// Elements that separate words in [`inline_text`]: blocks, headings, `pre`.
fn boundary(local: &str) -> bool {
    BLOCK.contains(&local) || heading(local).is_some() || local == "pre"
}

/// Text of a `pre` element: verbatim, `<br>` as `"\n"`.
fn raw_text(node: &Handle) -> String {
    let mut out = String::new();
    let mut stack = children(node);
    stack.reverse();
    while let Some(n) = stack.pop() {
        match kind(&n) {
            Kind::Text(t) => out.push_str(&t),
            Kind::Element { local, .. } if DROPPED.contains(&local) => {}
            Kind::Element { html, local } => {
                if html && local == "br" {
                    out.push('\n');
                }
                let mut ch = children(&n);
                ch.reverse();
                stack.extend(ch);
            }
            Kind::Other => {}
        }
    }
    let ws = boundaries().html_space;
    let t = out
        .trim_start_matches('\n')
        .trim_end_matches(|c| ws.contains(c));
    t.to_owned()
}

fn heading(local: &str) -> Option<usize> {
    match local {
        "h1" => Some(1),
        "h2" => Some(2),
        "h3" => Some(3),
        "h4" => Some(4),
        "h5" => Some(5),
        "h6" => Some(6),
        _ => None,
    }
}

/// The laid-out text of a document and its blocks (byte spans of `text`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    pub text: String,
    pub blocks: Vec<Block>,
}

impl Layout {
    fn push(&mut self, kind: BlockKind, body: &str) {
        if body.is_empty() {
            return;
        }
        if !self.text.is_empty() {
            self.text.push_str("\n\n");
        }
        let start = self.text.len();
        self.text.push_str(body);
        self.blocks.push(Block {
            kind,
            first: 0,
            last: 0,
            start,
            end: self.text.len(),
        });
    }
}

/// A table's captions and rows (`(cells, is_header)`), in document order.
fn table(node: &Handle, layout: &mut Layout) {
    let mut captions = Vec::new();
    let mut rows: Vec<(String, bool)> = Vec::new();
    let mut stack: Vec<(Handle, bool)> = children(node)
        .into_iter()
        .rev()
        .map(|n| (n, false))
        .collect();
    while let Some((n, in_head)) = stack.pop() {
        match kind(&n) {
            Kind::Text(t) => {
                let mut col = Collapser::default();
                col.text(&t);
                let t = col.take();
                if !t.is_empty() {
                    rows.push((t, false));
                }
            }
            Kind::Element { local, .. } if DROPPED.contains(&local) => {}
            Kind::Element {
                html: true,
                local: "caption",
            } => captions.push(inline_text(&n)),
            Kind::Element {
                html: true,
                local: "tr",
            } => {
                let mut cells = Vec::new();
                let mut all_th = true;
                for c in children(&n) {
                    match kind(&c) {
                        Kind::Element { local, .. } if DROPPED.contains(&local) => {}
                        Kind::Element { html, local } => {
                            all_th &= html && local == "th";
                            cells.push(inline_text(&c));
                        }
                        Kind::Text(t) => {
                            let mut col = Collapser::default();
                            col.text(&t);
                            let t = col.take();
                            if !t.is_empty() {
                                all_th = false;
                                cells.push(t);
                            }
                        }
                        Kind::Other => {}
                    }
                }
                if cells.iter().any(|c| !c.is_empty()) {
                    rows.push((cells.join("\t"), in_head || all_th));
                }
            }
            Kind::Element { html, local } => {
                let head = in_head || (html && local == "thead");
                stack.extend(children(&n).into_iter().rev().map(|c| (c, head)));
            }
            Kind::Other => {}
        }
    }
    for c in captions {
        layout.push(BlockKind::Paragraph, &c);
    }
    let header = rows.first().is_some_and(|r| r.1);
    let body: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    let k = if header && rows.len() >= 2 {
        BlockKind::Table
    } else {
        BlockKind::Paragraph
    };
    layout.push(k, &body.join("\n"));
}

/// A walk step: visit a node, or close a block (end the paragraph / add a space).
enum Step {
    Node(Handle),
    Flush,
}

/// Lays a parsed document out as text and blocks (rules in the module docs).
pub fn layout_dom(document: &Handle) -> Layout {
    let mut layout = Layout::default();
    let mut para = Collapser::default();
    let mut stack = vec![Step::Node(Rc::clone(document))];
    let flush = |para: &mut Collapser, layout: &mut Layout| {
        let t = para.take();
        layout.push(BlockKind::Paragraph, &t);
    };
    while let Some(step) = stack.pop() {
        let n = match step {
            Step::Flush => {
                flush(&mut para, &mut layout);
                continue;
            }
            Step::Node(n) => n,
        };
        match kind(&n) {
            Kind::Text(t) => para.text(&t),
            Kind::Other => {}
            Kind::Element { local, .. } if DROPPED.contains(&local) => {}
            Kind::Element { html, local } => {
                if html {
                    if let Some(level) = heading(local) {
                        flush(&mut para, &mut layout);
                        let t = inline_text(&n);
                        layout.push(
                            BlockKind::Heading {
                                level,
                                text: t.clone(),
                            },
                            &t,
                        );
                        continue;
                    }
                    match local {
                        "pre" => {
                            flush(&mut para, &mut layout);
                            layout.push(BlockKind::Paragraph, &raw_text(&n));
                            continue;
                        }
                        "table" => {
                            flush(&mut para, &mut layout);
                            table(&n, &mut layout);
                            continue;
                        }
                        "br" => {
                            para.line_break();
                            continue;
                        }
                        _ => {}
                    }
                }
                let block = html && BLOCK.contains(&local);
                if block {
                    flush(&mut para, &mut layout);
                    stack.push(Step::Flush);
                }
                stack.extend(children(&n).into_iter().rev().map(Step::Node));
            }
        }
    }
    flush(&mut para, &mut layout);
    layout
}

/// Parses `html` (WHATWG rules, scripting disabled) and lays it out; start tags nesting
/// past [`html_depth::MAX_DEPTH`] are removed first ([`html_depth::bound_depth`]), as the
/// fallback removes them, so both parse the same markup.
pub fn layout_html(html: &str) -> Layout {
    let html = html_depth::bound_depth(html);
    let mut opts = ParseOpts::default();
    opts.tree_builder.scripting_enabled = false;
    let dom = parse_document(RcDom::default(), opts).one(&*html);
    layout_dom(&dom.document)
}

/// Result of [`split_html`]: the laid-out text the chunks' spans index into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HtmlOutput {
    pub text: String,
    pub out: PackOutput,
}

/// Splits an HTML document: layout, then sections and packing as in Markdown (a table's
/// header is its first row).
pub fn split_html<C: TokenCounter>(
    html: &str,
    opts: &PackOptions,
    counter: &C,
) -> Result<HtmlOutput, C::Error> {
    let layout = layout_html(html);
    let out = if layout.blocks.is_empty() {
        PackOutput::default()
    } else {
        pack_blocks(&layout.text, &layout.blocks, opts, 1, counter)?
    };
    Ok(HtmlOutput {
        text: layout.text,
        out,
    })
}

impl HtmlOutput {
    /// The same result with code-point offsets into [`HtmlOutput::text`] (see
    /// [`PackOutput::in_chars`]).
    pub fn in_chars(self) -> HtmlOutput {
        let out = self.out.in_chars(&self.text);
        HtmlOutput {
            text: self.text,
            out,
        }
    }
}

/// The blocks of `layout` as [`TitleBlock`]s, in order.
pub fn title_blocks(layout: &Layout) -> Vec<TitleBlock> {
    let mut at = CharOffsets::new(&layout.text);
    layout
        .blocks
        .iter()
        .map(|b| {
            let (start, end) = (at.char_offset(b.start), at.char_offset(b.end));
            match &b.kind {
                BlockKind::Heading { level, text } => TitleBlock {
                    start,
                    end,
                    level: *level,
                    title: text.clone(),
                },
                _ => TitleBlock {
                    start,
                    end,
                    level: 0,
                    title: String::new(),
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::markdown::tests::opts;
    use super::*;
    use crate::tokenizer::CharCount;

    fn chunks(html: &str, size: usize) -> Vec<(String, Vec<String>)> {
        let r = split_html(html, &opts(size), &CharCount).unwrap();
        r.out
            .chunks
            .iter()
            .map(|c| {
                let mut t = String::new();
                if let Some((a, b)) = c.prefix {
                    t.push_str(&r.text[a..b]);
                    t.push('\n');
                }
                t.push_str(&r.text[c.span.start..c.span.end]);
                (t, r.out.sections[c.section].clone())
            })
            .collect()
    }

    #[test]
    fn layout_collapses_and_drops_scripts() {
        let l = layout_html(
            "<html><head><title>T</title><style>p{}</style></head><body>\
             <p>a  <b>b</b>\n c<br> d</p><script>x()</script><ul><li>one</li><li>two</li></ul>\
             <pre>\n  code\n    more\n</pre>tail&amp;</body></html>",
        );
        assert_eq!(
            l.text,
            "T\n\na b c\nd\n\none\n\ntwo\n\n  code\n    more\n\ntail&"
        );
        assert_eq!(l.blocks.len(), 6);
        assert_eq!(&l.text[l.blocks[1].start..l.blocks[1].end], "a b c\nd");
    }

    #[test]
    fn headings_make_sections() {
        let got = chunks(
            "<h1>A</h1><p>intro</p><h2>B <i>x</i></h2><p>body</p><h1>C</h1><p>tail</p>",
            20,
        );
        assert_eq!(got[0], ("A\n\nintro".into(), vec!["A".to_string()]));
        assert_eq!(
            got[1],
            ("B x\n\nbody".into(), vec!["A".into(), "B x".into()])
        );
        assert_eq!(got[2], ("C\n\ntail".into(), vec!["C".to_string()]));
    }

    #[test]
    fn table_rows_and_repeated_header() {
        let mut html = String::from("<table><caption>Cap</caption><tr><th>h1</th><th>h2</th></tr>");
        for i in 0..20 {
            html.push_str(&format!("<tr><td>r{i}</td><td>v{i}</td></tr>"));
        }
        html.push_str("</table>");
        let l = layout_html(&html);
        assert!(l.text.starts_with("Cap\n\nh1\th2\nr0\tv0\nr1\tv1\n"));
        assert_eq!(l.blocks[1].kind, BlockKind::Table);
        let got = chunks(&html, 30);
        assert!(got.len() > 2);
        for (t, _) in &got[2..] {
            assert!(t.starts_with("h1\th2\n"), "{t:?}");
            assert!(t.chars().count() <= 30);
        }
        // A table whose first row is data repeats nothing.
        let l =
            layout_html("<table><tr><td>a</td><td></td><td>c</td></tr><tr><td>d</td></tr></table>");
        assert_eq!(l.text, "a\t\tc\nd");
        assert_eq!(l.blocks[0].kind, BlockKind::Paragraph);
    }

    #[test]
    fn malformed_input_recovers_without_losing_text() {
        let html = "<div><p>one<p>two<table><td>cell</b>x<i>three<li>four</div>five</span>";
        let l = layout_html(html);
        for w in ["one", "two", "cell", "x", "three", "four", "five"] {
            assert!(l.text.contains(w), "{w} missing from {:?}", l.text);
        }
        let r = split_html(html, &opts(5), &CharCount).unwrap();
        let covered: String = r
            .out
            .chunks
            .iter()
            .map(|c| &r.text[c.span.start..c.span.end])
            .collect();
        let strip = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        assert_eq!(strip(&covered), strip(&l.text));
    }

    #[test]
    fn empty_and_deep() {
        assert!(split_html("", &opts(10), &CharCount)
            .unwrap()
            .out
            .chunks
            .is_empty());
        assert!(
            split_html("<p> </p><script>x</script>", &opts(10), &CharCount)
                .unwrap()
                .out
                .chunks
                .is_empty()
        );
        let deep = "<div>".repeat(3_000) + "deep";
        assert_eq!(layout_html(&deep).text, "deep");
    }

    #[test]
    fn title_blocks_are_in_code_points() {
        let layout = layout_html("<h2>Tïtle</h2><p>é中</p>");
        assert_eq!(layout.text, "Tïtle\n\né中");
        assert_eq!(
            title_blocks(&layout),
            [
                TitleBlock {
                    start: 0,
                    end: 5,
                    level: 2,
                    title: "Tïtle".into()
                },
                TitleBlock {
                    start: 7,
                    end: 9,
                    level: 0,
                    title: String::new()
                },
            ]
        );
    }
}
