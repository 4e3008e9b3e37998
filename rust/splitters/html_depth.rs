//! The nesting bound applied to HTML before it is parsed ([`bound_depth`]): the start tags that
//! would nest past [`MAX_DEPTH`] are removed (and so are their end tags), each replaced by a
//! space, from a linear-time estimate of the depth made from the tags alone.
//!
//! A port of `bound_depth` in `python/ragchunk/core/markup.py`, which the fallback runs before
//! parsing, so that the core bounds a document by itself (an Arrow batch of HTML is chunked
//! entirely in Rust). The result is the same string, byte for
//! byte: the same tag pattern, the same estimate, the same cuts (tag names lowercased as
//! Python's `str.lower()` does, see `lower`). Python works in code points and this port in
//! bytes; only offsets differ, never the text.

use std::borrow::Cow;
use std::sync::LazyLock;

use memchr::memmem;
use regex::Regex;
use rustc_hash::FxHashMap;

// The sets below mirror python/ragchunk/core/markup.py (`BLOCK`, `_NOT_NESTING`, `_RAW`,
// `_SCOPE`, `_END_REACH`, `MAX_DEPTH`); each list is sorted, for `binary_search`. Change them
// there and here together: tests/splitters/test_bound_depth.py compares the two functions.

/// Block-level elements (`BLOCK` of python/ragchunk/core/markup.py; the HTML layout's blocks
/// too, [`super::html::BLOCK`]): an inline element's end tag does not close an element across
/// one.
pub const BLOCK: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "caption",
    "center",
    "dd",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "head",
    "header",
    "hgroup",
    "hr",
    "html",
    "legend",
    "li",
    "listing",
    "main",
    "menu",
    "nav",
    "ol",
    "option",
    "p",
    "plaintext",
    "search",
    "section",
    "summary",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "ul",
    "xmp",
];

/// The deepest element nesting laid out as structure (`MAX_DEPTH` of
/// python/ragchunk/core/markup.py): past it, start tags and their end tags are removed, since
/// WHATWG parsers spend time proportional to the depth of the open elements on many tags.
/// Blink's HTML parser has the same limit.
pub const MAX_DEPTH: usize = 512;

/// Elements whose start tag opens nothing the estimate counts (`_NOT_NESTING` of
/// python/ragchunk/core/markup.py): void elements, and elements with optional end tags that a
/// repeat of themselves closes.
pub const NOT_NESTING: &[&str] = &[
    "a", "area", "base", "basefont", "bgsound", "body", "br", "button", "caption", "col",
    "colgroup", "dd", "dt", "embed", "frame", "head", "hr", "html", "img", "input", "keygen", "li",
    "link", "meta", "nobr", "optgroup", "option", "p", "param", "rb", "rp", "rt", "rtc", "source",
    "tbody", "td", "tfoot", "th", "thead", "tr", "track", "wbr",
];

/// Elements whose content is raw text up to their end tag (`_RAW` of
/// python/ragchunk/core/markup.py).
pub const RAW: &[&str] = &[
    "iframe",
    "noembed",
    "noframes",
    "plaintext",
    "script",
    "style",
    "textarea",
    "title",
    "xmp",
];

/// Elements whose content is foreign (SVG, MathML; `_FOREIGN`): there a CDATA section runs
/// to `]]>` and no element's content is raw text.
const FOREIGN: [&str; 2] = ["svg", "math"];

/// Where an end tag stops looking for its element (`_SCOPE` of
/// python/ragchunk/core/markup.py: the spec's default scope boundaries).
pub const SCOPE: &[&str] = &[
    "applet", "caption", "html", "marquee", "object", "table", "td", "template", "th",
];

/// How far below the top of the estimated stack an end tag may find its element
/// (`_END_REACH` of python/ragchunk/core/markup.py).
pub const END_REACH: usize = 8;

/// `_TAG` of python/ragchunk/core/markup.py: what the scan stops at, in order: a comment
/// (ended by `-->` or `--!>`, or at once by the abrupt `<!-->` and `<!--->`; unclosed, it runs
/// to the end of the text searched), the opener of a CDATA section, any other `<!` or `<?`
/// markup (a bogus comment, to the first `>`), and a start or end tag up to the first `>`.
/// Python's `re.DOTALL` is `(?s)`, its `\Z` is `\z`; captures follow the same leftmost-first
/// rules as Python's backtracking engine, so the lazy `[^>]*?` leaves a `/` right before the
/// `>` to the third group in both.
static TAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"(?s)<!--(?:-?>|.*?(?:--!?>|\z))|<!\[CDATA\[|<[!?][^>]*>",
        r"|<(/?)([A-Za-z][^\t\n\f\r />]*)[^>]*?(/?)>",
    ))
    .expect("the tag pattern compiles")
});

const CDATA: &str = "<![CDATA[";

fn member(set: &[&str], name: &str) -> bool {
    set.binary_search(&name).is_ok()
}

/// Python's `name.lower()`: the full Unicode lowercase mapping, final sigma included (as
/// Rust's `to_lowercase`); borrowed when the name is already lowercase ASCII. Each follows
/// its own Unicode version (the interpreter's, the compiler's): they differ on the few dozen
/// letters given case pairs in between (Python 3.11 has Unicode 14), as Python releases do.
fn lower(name: &str) -> Cow<'_, str> {
    if name
        .bytes()
        .all(|b| b.is_ascii() && !b.is_ascii_uppercase())
    {
        Cow::Borrowed(name)
    } else if name.is_ascii() {
        Cow::Owned(name.to_ascii_lowercase())
    } else {
        Cow::Owned(name.to_lowercase())
    }
}

/// Whether `c` matches the lowercase ASCII letter `letter` in a Python `re.IGNORECASE` pattern
/// on `str`: its own two cases, and the characters whose simple lowercase mapping is the
/// letter or its fixed equivalents (U+0130 and U+0131 for `i`, U+212A KELVIN SIGN for `k`,
/// U+017F LONG S for `s`).
fn py_ignorecase_letter(letter: u8, c: char) -> bool {
    if c.is_ascii() {
        return c.to_ascii_lowercase() as u32 == u32::from(letter);
    }
    matches!(
        (letter, c),
        (b'i', '\u{130}' | '\u{131}') | (b'k', '\u{212A}') | (b's', '\u{17F}')
    )
}

/// Where the raw text of element `name` (lowercase ASCII letters) opened before `from` ends:
/// the byte offset of the first `</name` followed by one of `\t\n\f\r />`, the name matched as
/// Python's `re.IGNORECASE` does, or `None`. The whole text is searched, not only up to its
/// last `>`, as in python/ragchunk/core/markup.py.
fn raw_text_end(html: &str, from: usize, name: &str) -> Option<usize> {
    let finder = memmem::Finder::new("</");
    let mut at = from;
    while let Some(found) = finder.find(&html.as_bytes()[at..]) {
        let lt = at + found;
        let mut rest = html[lt + 2..].chars();
        let name_matches = name
            .bytes()
            .all(|letter| rest.next().is_some_and(|c| py_ignorecase_letter(letter, c)));
        if name_matches
            && matches!(
                rest.next(),
                Some('\t' | '\n' | '\x0c' | '\r' | ' ' | '/' | '>')
            )
        {
            return Some(lt);
        }
        at = lt + 1;
    }
    None
}

/// `html` with the start tags that would nest past [`MAX_DEPTH`] replaced by a space (and so
/// are their end tags); `html` itself, borrowed, when nothing is that deep (nearly always).
///
/// The same function as `bound_depth` of python/ragchunk/core/markup.py, output for output:
/// the depth is estimated from the tags alone in one linear pass. A start tag opens an element
/// (except void elements and those a repeat of themselves closes, such as `p`, `li`, `td`); an
/// end tag closes its element when it is among the top few open ones with no table/cell
/// boundary in between (and no block, for an inline element's end tag: the parser ignores
/// those); comments and raw-text elements (`script`, `style`, `textarea`, ...) are skipped.
/// Idempotent: the result has nothing to remove.
pub fn bound_depth(html: &str) -> Cow<'_, str> {
    if memchr::memchr_iter(b'<', html.as_bytes()).count() <= MAX_DEPTH {
        return Cow::Borrowed(html);
    }
    // Matched only up to the last `>`, so every match succeeds at its first try: linear.
    let searched = &html[..html.rfind('>').map_or(0, |i| i + 1)];
    let mut stack: Vec<Cow<'_, str>> = Vec::new();
    let mut excess: FxHashMap<Cow<'_, str>, usize> = FxHashMap::default();
    let mut cut: Vec<(usize, usize)> = Vec::new();
    let foreign = |stack: &[Cow<'_, str>]| stack.iter().any(|n| FOREIGN.contains(&&**n));
    let mut pos = 0;
    while pos <= searched.len() {
        let Some(caps) = TAG.captures_at(searched, pos) else {
            break;
        };
        let whole = caps.get(0).expect("group 0 is the match");
        pos = whole.end();
        let Some(name) = caps.get(2) else {
            if whole.as_str() == CDATA {
                let (close, len) = if foreign(&stack) {
                    ("]]>", 3)
                } else {
                    (">", 1)
                };
                pos = html[pos..]
                    .find(close)
                    .map_or(html.len(), |i| pos + i + len);
            }
            continue; // a comment, bogus comment or CDATA section
        };
        let name = lower(name.as_str());
        let closed = caps.get(3).is_some_and(|g| !g.is_empty());
        if caps.get(1).is_some_and(|g| !g.is_empty()) {
            // An end tag.
            if let Some(n) = excess.get_mut(&name).filter(|n| **n > 0) {
                // It closes a removed start tag (the innermost are removed).
                *n -= 1;
                cut.push((whole.start(), whole.end()));
            } else if stack.last() == Some(&name) {
                stack.pop();
            } else if stack.len() >= 2 {
                let inline = !member(BLOCK, &name);
                let top = stack.len() - 1;
                for i in (top.saturating_sub(END_REACH - 1)..top).rev() {
                    let above: &str = &stack[i + 1]; // would be closed too
                    if member(SCOPE, above) || (inline && member(BLOCK, above)) {
                        break; // a boundary, or a block under an inline: the parser ignores it
                    }
                    if stack[i] == name {
                        stack.truncate(i);
                        break;
                    }
                }
            }
            continue;
        }
        if member(NOT_NESTING, &name) {
            continue;
        }
        if member(RAW, &name) && !foreign(&stack) {
            // Raw text, whatever a `/` before the `>` says, to its end tag (`plaintext`: to
            // the end).
            pos = if name == "plaintext" {
                html.len()
            } else {
                raw_text_end(html, pos, &name).unwrap_or(html.len())
            };
            continue;
        }
        if closed && name != "span" && !member(BLOCK, &name) {
            continue;
        }
        if stack.len() < MAX_DEPTH {
            stack.push(name);
        } else {
            *excess.entry(name).or_insert(0) += 1;
            cut.push((whole.start(), whole.end()));
        }
    }
    if cut.is_empty() {
        return Cow::Borrowed(html);
    }
    // A space for each removed tag keeps words apart.
    let removed: usize = cut.iter().map(|(a, b)| b - a).sum();
    let mut out = String::with_capacity(html.len() - removed + cut.len());
    let mut at = 0;
    for (a, b) in cut {
        out.push_str(&html[at..a]);
        out.push(' ');
        at = b;
    }
    out.push_str(&html[at..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(html: &str) -> String {
        match bound_depth(html) {
            Cow::Owned(s) => s,
            Cow::Borrowed(_) => panic!("expected a cut in {:.80}...", html),
        }
    }

    fn unchanged(html: &str) {
        assert!(
            matches!(bound_depth(html), Cow::Borrowed(s) if std::ptr::eq(s, html)),
            "expected nothing cut in {:.80}...",
            html
        );
    }

    #[test]
    fn sets_are_sorted() {
        for set in [BLOCK, NOT_NESTING, RAW, SCOPE] {
            assert!(set.windows(2).all(|w| w[0] < w[1]), "{set:?}");
        }
    }

    #[test]
    fn few_tags_are_never_cut() {
        unchanged("");
        unchanged("no tags at all");
        let shallow = "<div>".repeat(MAX_DEPTH);
        unchanged(&shallow);
        // 513 '<' but no '>' after the first ones: nothing to match.
        unchanged(&"<".repeat(2000));
    }

    #[test]
    fn deep_divs_are_cut_at_the_limit() {
        let n = 2000;
        let html = format!("{}x{}", "<div>".repeat(n), "</div>".repeat(n));
        let cut = n - MAX_DEPTH;
        let want = format!(
            "{}{}x{}{}",
            "<div>".repeat(MAX_DEPTH),
            " ".repeat(cut),
            " ".repeat(cut),
            "</div>".repeat(MAX_DEPTH)
        );
        assert_eq!(owned(&html), want);
        unchanged(&want); // idempotent
    }

    #[test]
    fn section_example_of_the_python_tests() {
        let html = format!("{}x{}", "<section>".repeat(600), "</section>".repeat(600));
        let want = format!(
            "{}{}x{}{}",
            "<section>".repeat(512),
            " ".repeat(88),
            " ".repeat(88),
            "</section>".repeat(512)
        );
        assert_eq!(owned(&html), want);
    }

    #[test]
    fn not_nesting_elements_do_not_count() {
        let html = "<ul>".to_string() + &"<li><p>a<b>b</b>".repeat(2000) + "</ul>";
        unchanged(&html);
        let svg = "<svg>".to_string() + &"<path d='M0 0'/>".repeat(2000) + "</svg>";
        unchanged(&svg);
        let voids = "<div>".repeat(500) + &"<br><img src=x><hr/>".repeat(300);
        unchanged(&voids);
    }

    #[test]
    fn raw_text_elements_hide_their_content() {
        for raw in RAW.iter().filter(|r| **r != "plaintext") {
            let html = format!("<{raw}>{}</{raw}>after", "<div>".repeat(900));
            unchanged(&html);
            // The close is found case-insensitively, followed by a space, '/' or '>'.
            let upper = raw.to_ascii_uppercase();
            let html = format!(
                "<{raw} a=1>{}</{upper} >{}",
                "<div>".repeat(900),
                "<i>".repeat(600)
            );
            // Two spaces of the tags, and one for each `<i>` past the limit.
            assert_eq!(owned(&html).matches(' ').count(), 2 + 600 - MAX_DEPTH);
        }
        // `</scriptx>` does not close a script; the content runs to the end.
        let html = format!(
            "<script>{}</scriptx>{}",
            "<div>".repeat(600),
            "<div>".repeat(600)
        );
        unchanged(&html);
        // A `/` before the `>` does not close a script (HTML ignores it): raw text follows.
        unchanged(&format!("<script/>{}", "<div>".repeat(600)));
        // `plaintext` never ends, not even at its end tag.
        unchanged(&format!("<plaintext>x</plaintext>{}", "<div>".repeat(600)));
        // In SVG or MathML no element is raw text: a `<style>` there hides nothing.
        let html = format!("<svg><style>{}", "<g>".repeat(600));
        assert_eq!(owned(&html).matches(' ').count(), 600 + 2 - MAX_DEPTH);
    }

    #[test]
    fn raw_text_close_matches_as_python_ignorecase() {
        // Python's re.IGNORECASE: `ı` and `İ` match `i`, `ſ` matches `s`.
        for close in ["</ſcrıpt>", "</SCRİPT>", "</Script\t>", "</script/>"] {
            let html = format!("<script>x{close}{}", "<div>".repeat(600));
            assert_eq!(
                owned(&html).matches(' ').count(),
                600 - MAX_DEPTH,
                "{close}"
            );
        }
        // `\x0b` is not one of the terminators.
        let html = format!("<script>x</script\x0b>{}", "<div>".repeat(600));
        unchanged(&html);
    }

    #[test]
    fn comments_and_cdata_are_skipped() {
        let html = format!("<!--{}-->ok", "<div>".repeat(900));
        unchanged(&html);
        // A CDATA section runs to `]]>` in SVG or MathML, but in HTML content it is a bogus
        // comment, ended by the first `>`.
        let html = format!("<svg><![CDATA[{}]]></svg>ok", "<div>".repeat(900));
        unchanged(&html);
        let html = format!("<![CDATA[{}]]>ok", "<div>".repeat(900));
        assert_eq!(owned(&html).matches(' ').count(), 899 - MAX_DEPTH);
        // `<!-->` and `<!--->` are whole (empty) comments, `--!>` ends one, and any other
        // `<!...>` or `<?...>` is a bogus comment ended by its `>`: the tags after them count.
        for opener in [
            "<!-->",
            "<!--->",
            "<!-- a --!>",
            "<!DOCTYPE html>",
            "<?xml x?>",
        ] {
            let html = format!("{opener}{}", "<div>".repeat(600));
            assert_eq!(owned(&html).matches("<div>").count(), MAX_DEPTH, "{opener}");
        }
        // An unclosed comment runs to the end of what is searched (the last '>').
        let html = format!("<!--{}", "<div>".repeat(900));
        unchanged(&html);
        // A comment is skipped, but the tags after it count.
        let html = format!("<!-- <div> -->{}", "<div>".repeat(600));
        assert_eq!(owned(&html).matches(' ').count(), 2 + 600 - MAX_DEPTH);
    }

    #[test]
    fn tables_are_scope_boundaries() {
        // `</span>` does not cross a table or a cell, so the spans stay open and count.
        let html = "<span><table><tr><td></span>".repeat(300);
        let out = owned(&html);
        assert_eq!(
            out.matches("<span>").count() + out.matches("<table>").count(),
            MAX_DEPTH
        );
        unchanged(&out);
        // `</table>` right above closes it.
        let html = "<table><tr><td>x</td></tr></table>".repeat(1000);
        unchanged(&html);
    }

    #[test]
    fn inline_end_tags_do_not_cross_blocks() {
        // The span end tag does not close the span under the div: both stay open.
        let html = "<span><div></span>".repeat(400);
        let out = owned(&html);
        assert_eq!(
            out.matches("<div>").count() + out.matches("<span>").count(),
            MAX_DEPTH
        );
        assert_eq!(bound_depth(&out), out);
        // A block's end tag does close across inline elements (within reach).
        let html = "<div><b><i>x</div>".repeat(1000);
        unchanged(&html);
        // Seven open elements above it are within reach: the `</div>` closes them all, and
        // twelve of the twenty `<i>` after it fit.
        let html = "<div>".repeat(501) + &"<b>".repeat(7) + "</div>" + &"<i>".repeat(20);
        assert_eq!(owned(&html).matches(' ').count(), 8);
        // Eight are beyond reach: the end tag closes nothing, and only three `<i>` fit.
        let html = "<div>".repeat(501) + &"<b>".repeat(8) + "</div>" + &"<i>".repeat(20);
        assert_eq!(owned(&html).matches(' ').count(), 17);
    }

    #[test]
    fn end_tags_of_removed_elements_are_removed() {
        let html = "<div>".repeat(MAX_DEPTH) + "<em>a</em><em>b</em>" + &"</div>".repeat(MAX_DEPTH);
        let out = owned(&html);
        assert_eq!(
            out,
            "<div>".repeat(MAX_DEPTH) + " a  b " + &"</div>".repeat(MAX_DEPTH)
        );
    }

    #[test]
    fn names_are_lowercased_as_python() {
        // (A tag name starts with an ASCII letter; the rest may be anything.)
        let html = "<DIV>".repeat(MAX_DEPTH) + "<aÄrger>x</AäRGER>" + &"</div>".repeat(MAX_DEPTH);
        let out = owned(&html);
        assert_eq!(
            out,
            "<DIV>".repeat(MAX_DEPTH) + " x " + &"</div>".repeat(MAX_DEPTH)
        );
        // `İ` lowercases to two characters; final sigma: `ΑΣ` is `ας`, as is `Ας`.
        let html = "<x>".repeat(MAX_DEPTH) + "<aİ>1</ai\u{307}><aΑΣ>2</aΑς>";
        let out = owned(&html);
        assert_eq!(out, "<x>".repeat(MAX_DEPTH) + " 1  2 ");
        // The Kelvin sign lowercases to `k`: `<lin\u{212A}>` is a `link`, nesting nothing.
        unchanged(&("<x>".repeat(MAX_DEPTH) + "<lin\u{212A}>"));
    }

    #[test]
    fn tag_ends_at_the_first_gt_even_in_quotes() {
        // The '>' in the attribute ends the tag: the rest is text.
        let html = "<div>".repeat(MAX_DEPTH) + "<div title='a>b'>x";
        let out = owned(&html);
        assert_eq!(out, "<div>".repeat(MAX_DEPTH) + " b'>x");
    }

    #[test]
    fn self_closing_start_tags() {
        // Only blocks and span nest when written self-closing.
        let html = "<div>".repeat(MAX_DEPTH) + "<b/><span/><div/><title/>";
        let out = owned(&html);
        // (`<title/>` opens raw text, as `<title>` does: nothing after it counts.)
        assert_eq!(out, "<div>".repeat(MAX_DEPTH) + "<b/>  <title/>");
        // `<a / >` is not self-closing: the slash must touch the '>'.
        let html = "<div>".repeat(MAX_DEPTH) + "<i / >";
        assert_eq!(owned(&html), "<div>".repeat(MAX_DEPTH) + " ");
    }

    #[test]
    fn text_after_the_last_gt_is_not_searched() {
        let html = "<div>".repeat(600) + "<b";
        let out = owned(&html);
        assert_eq!(out, "<div>".repeat(MAX_DEPTH) + &" ".repeat(88) + "<b");
    }

    #[test]
    fn multibyte_text_keeps_its_bytes() {
        let html = "<div>中文".repeat(600) + "🦀" + &"</div>é".repeat(600);
        let out = owned(&html);
        let want = "<div>中文".repeat(MAX_DEPTH)
            + &" 中文".repeat(88)
            + "🦀"
            + &" é".repeat(88)
            + &"</div>é".repeat(MAX_DEPTH);
        assert_eq!(out, want);
    }
}
