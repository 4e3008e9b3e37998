//! Boundary classes: which characters count as whitespace and which end a sentence, for
//! every chunker, in one place.
//!
//! There is no single right answer, because the chunkers match peers that disagree: Rust's
//! `char::is_whitespace` (Unicode `White_Space`) and Python's `str.isspace` differ on
//! U+001C–U+001F, LangChain-compatible splitting strips what `str.strip()` strips, HTML
//! collapses only its five ASCII spaces, CommonMark knows spaces and tabs. So each set below
//! is named after the rule it reproduces, and says whose rule that is. The pure-Python
//! fallback spells out the same sets, so both backends cut at the same characters; that is
//! why the sets are written out here rather than borrowed from a library whose tables could
//! change with its Unicode version (the one exception, [`is_py_space`], is defined as
//! Python's own behaviour).

// ---- whitespace ---------------------------------------------------------------------------

/// Unicode `White_Space`, spelled out: the word and sentence boundaries of HARD_CAP, the
/// ragchunk extension of RAGFlow's `naive_merge` (the same set as Rust's
/// `char::is_whitespace`; Python's `str.isspace` adds U+001C–U+001F).
#[inline]
pub fn is_white_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | '\u{85}' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

/// Python's `str.isspace()`: Unicode `White_Space` plus U+001C..U+001F (bidi classes B/S),
/// which is what `str.strip()` removes. The LangChain-compatible splitters (recursive,
/// sentence) strip and separate with it, as LangChain does in Python.
#[inline]
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `text.strip()` (Python) as a byte sub-range of `text`.
pub fn py_strip(text: &str) -> (usize, usize) {
    let trimmed_start = text.len() - text.trim_start_matches(is_py_space).len();
    let end = text.trim_end_matches(is_py_space).len();
    if end <= trimmed_start {
        (trimmed_start, trimmed_start)
    } else {
        (trimmed_start, end)
    }
}

/// The whitespace of the packer's sentence and word cuts (Markdown, HTML, code and title-tree
/// chunks, ragchunk's own rule). Spelled out because Rust's `char::is_whitespace` and
/// Python's `str.isspace` disagree on a few code points.
#[inline]
pub fn is_packer_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | '\r' | '\u{0b}' | '\u{0c}' | '\u{a0}' | '\u{3000}'
    )
}

/// HTML whitespace (WHATWG's ASCII whitespace: space, tab, LF, CR, FF): what the HTML layout
/// collapses. Other whitespace (e.g. U+00A0) is text.
#[inline]
pub fn is_html_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{0c}')
}

/// ASCII whitespace as C's `isspace` (and Python's `str.isspace` on ASCII, but for
/// U+001C–U+001F): what the code splitter trims around its atoms. A subset of Python's
/// `str.isspace`, so "every non-whitespace character is covered" holds for both backends.
#[inline]
pub fn is_ascii_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// CommonMark's "space or tab", the only whitespace its block structure looks at.
#[inline]
pub fn is_markdown_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// CommonMark's blank line: nothing but spaces and tabs.
#[inline]
pub fn is_blank_line(line: &[u8]) -> bool {
    line.iter().all(|&c| is_markdown_space(c))
}

// ---- sentence terminators -----------------------------------------------------------------

/// HARD_CAP's sentence terminators (ragchunk's extension of RAGFlow's `naive_merge`). After
/// an ASCII one a sentence ends only where whitespace follows (`3.14`, `e.g.x` stay whole);
/// after a full-width one ([`is_hard_cap_cjk_terminator`]) it always ends.
#[inline]
pub fn is_hard_cap_terminator(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '。' | '！' | '？')
}

/// The full-width terminators of [`is_hard_cap_terminator`], which end a sentence without
/// whitespace after them.
#[inline]
pub fn is_hard_cap_cjk_terminator(c: char) -> bool {
    matches!(c, '。' | '！' | '？')
}

/// The packer's terminators that always end a sentence (Markdown, HTML, code and title-tree
/// chunks): `。！？；`.
#[inline]
pub fn is_packer_cjk_terminator(c: char) -> bool {
    matches!(c, '。' | '！' | '？' | '；')
}

/// The packer's terminators that end a sentence when whitespace or the end follows: `.!?`.
#[inline]
pub fn is_packer_latin_terminator(c: char) -> bool {
    matches!(c, '.' | '!' | '?')
}

/// The sentence splitter's CJK terminators (`。｡！？；`, their full-width and small forms),
/// which end a sentence with no space after them.
#[inline]
pub fn is_cjk_terminator(c: char) -> bool {
    matches!(
        c,
        '。' | '｡' | '！' | '？' | '；' | '．' | '︒' | '﹒' | '﹖' | '﹗'
    )
}

/// The sentence splitter's Latin terminators, which end a sentence before whitespace (see
/// `splitters::sentence` for the rest of the rule).
#[inline]
pub fn is_latin_terminator(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '…' | '‼' | '⁇' | '⁈' | '⁉')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_is_pythons() {
        assert_eq!(py_strip("\u{1c} a \u{3000}"), (2, 3));
        assert_eq!(py_strip("  "), (2, 2));
    }

    #[test]
    fn white_space_is_rusts_and_py_space_adds_four() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            assert_eq!(is_white_space(c), c.is_whitespace(), "{c:?}");
            let separators = ('\u{1c}'..='\u{1f}').contains(&c);
            assert_eq!(is_py_space(c), is_white_space(c) || separators, "{c:?}");
        }
    }

    #[test]
    fn the_smaller_sets_are_subsets() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            if is_packer_space(c) || is_html_space(c) {
                assert!(is_white_space(c), "{c:?}");
            }
            if c.is_ascii() && is_ascii_space(c as u8) {
                assert!(is_py_space(c), "{c:?}");
            }
            if is_hard_cap_cjk_terminator(c) {
                assert!(is_hard_cap_terminator(c), "{c:?}");
            }
        }
    }
}
