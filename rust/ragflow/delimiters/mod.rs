//! RAGFlow's delimiter field: parsing it into delimiter strings and splitting text on them.
//!
//! The `delimiter` argument of RAGFlow's `naive_merge` is one string that mixes two kinds of
//! delimiter: every character stands for itself, and a run of characters wrapped in backticks
//! (`` `##` ``) is one multi-character delimiter. How that field is read changed across releases:
//!
//! * v0.27 ([`parse_delimiter_field`]): CR/CRLF normalised to LF, backtick tokens and bare
//!   characters deduplicated in first-seen order, then stably sorted longest first.
//! * v0.20–v0.26 ([`legacy_delimiters`], RAGFlow's `get_delimiters`): the same two kinds, but in a
//!   different order, with duplicates kept and no newline normalisation.
//! * v0.23–v0.26 custom mode ([`custom_delimiters`]): only the backtick tokens, deduplicated.
//!
//! All of them end up as a regex alternation of `re.escape`d literals that RAGFlow feeds to
//! `re.split("(" + pattern + ")", text)`. [`DelimiterSplitter`] reproduces that split without a
//! regex engine: an alternation of literals tried in order at the leftmost position is exactly
//! aho-corasick's `LeftmostFirst` match kind.
//!
//! The split itself lives in [`DelimiterSplitter`] (module `splitter`): the field's rules here,
//! the matching machinery there.

mod splitter;

use std::cell::RefCell;
use std::rc::Rc;

pub use splitter::{DelimiterSplitter, Piece, Split};

/// One backtick-wrapped token found by RAGFlow's regex `` `([^`]+)` `` (Python `re.finditer`
/// semantics: leftmost, non-overlapping, scanning resumes after each match).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BacktickToken<'a> {
    /// Byte offset of the opening backtick.
    start: usize,
    /// Byte offset just past the closing backtick.
    end: usize,
    /// The text between the backticks (never empty).
    token: &'a str,
}

/// Iterates the matches of `` `([^`]+)` `` in `field`, like Python's `re.finditer`.
///
/// A backtick followed directly by another backtick cannot open a token (`[^`]+` needs at
/// least one character), so the scan moves on and the second backtick gets its chance to open
/// one. That is why `"``"` holds no token, and `"```a`"` holds the token `a`.
fn backtick_tokens(field: &str) -> impl Iterator<Item = BacktickToken<'_>> + '_ {
    let bytes = field.as_bytes();
    let mut from = 0usize;
    std::iter::from_fn(move || loop {
        let open = from + memchr::memchr(b'`', &bytes[from..])?;
        let close = open + 1 + memchr::memchr(b'`', &bytes[open + 1..])?;
        if close == open + 1 {
            // "``": empty content, try again from the second backtick.
            from = close;
            continue;
        }
        from = close + 1;
        return Some(BacktickToken {
            start: open,
            end: close + 1,
            token: &field[open + 1..close],
        });
    })
}

/// Whether `field` holds at least one backtick-wrapped token (`` `x` ``).
///
/// RAGFlow reads that as "custom mode": every segment between delimiters is its own chunk and
/// `chunk_token_num` / `overlapped_percent` are ignored. `"``"` is not a token.
/// (v0.27 `rag/nlp/delim.py::has_wrapped_delimiter`; v0.23–v0.26 test
/// `bool(re.findall(...))` on the same regex, which is the same thing.)
pub fn has_wrapped_delimiter(field: &str) -> bool {
    backtick_tokens(field).next().is_some()
}

/// Parses a delimiter field the way RAGFlow v0.27 does (`rag/nlp/delim.py::parse_delimiter_field`).
///
/// 1. `"\r\n"`, then any lone `"\r"`, become `"\n"` (in the field only; v0.27 normalises section
///    text separately, see `merge`).
/// 2. Each `` `token` `` is one delimiter; every other character, whitespace included, is its
///    own one-character delimiter. `"``"` is no token, so its backticks are bare delimiters.
/// 3. The list is deduplicated in first-seen order, then stably sorted longest first (length
///    in code points, as Python's `len`), so `##` is tried before `#`.
///
/// Matching is literal and case-sensitive; regex metacharacters are plain text.
pub fn parse_delimiter_field(field: &str) -> Vec<String> {
    if field.is_empty() {
        return Vec::new();
    }
    let normalized = normalize_newlines(field);
    let mut out: Vec<String> = Vec::new();
    let mut push = |d: &str| {
        if !d.is_empty() && !out.iter().any(|x| x == d) {
            out.push(d.to_owned());
        }
    };
    let mut cursor = 0usize;
    for tok in backtick_tokens(&normalized) {
        for (i, ch) in normalized[cursor..tok.start].char_indices() {
            push(&normalized[cursor + i..cursor + i + ch.len_utf8()]);
        }
        push(tok.token);
        cursor = tok.end;
    }
    for (i, ch) in normalized[cursor..].char_indices() {
        push(&normalized[cursor + i..cursor + i + ch.len_utf8()]);
    }
    sort_longest_first(&mut out);
    out
}

/// The [`DelimiterSplitter`] of a RAGFlow delimiter `field` (its [`parse_delimiter_field`]),
/// kept per thread for the last field seen. Building one allocates for every delimiter and
/// took ~550 ns, a third of a `naive_merge` call on a short text, while a caller passes the
/// same field with every document.
pub fn splitter_for_field(field: &str) -> Rc<DelimiterSplitter> {
    thread_local! {
        static LAST: RefCell<Option<(Box<str>, Rc<DelimiterSplitter>)>> =
            const { RefCell::new(None) };
    }
    let build = || Rc::new(DelimiterSplitter::new(&parse_delimiter_field(field)));
    LAST.try_with(|last| {
        let Ok(mut last) = last.try_borrow_mut() else {
            return build();
        };
        match last.as_ref() {
            Some((seen, splitter)) if **seen == *field => Rc::clone(splitter),
            _ => {
                let splitter = build();
                *last = Some((field.into(), Rc::clone(&splitter)));
                splitter
            }
        }
    })
    .unwrap_or_else(|_| build())
}

/// RAGFlow's `get_delimiters` (v0.20–v0.26): the delimiter list behind the pattern of the
/// `add_chunk` families' default path.
///
/// RAGFlow v0.22/v0.26 quirks kept here, because the v0.22 "is this piece a delimiter?" test
/// depends on the exact list:
/// * each backtick token is listed *before* the bare characters that precede it;
/// * duplicates are kept;
/// * no CR/CRLF normalisation;
/// * then a stable sort longest first (code points).
pub fn legacy_delimiters(field: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cursor = 0usize;
    for tok in backtick_tokens(field) {
        out.push(tok.token.to_owned());
        out.extend(field[cursor..tok.start].chars().map(String::from));
        cursor = tok.end;
    }
    out.extend(field[cursor..].chars().map(String::from));
    sort_longest_first(&mut out);
    out
}

/// The delimiters of the v0.23–v0.26 custom mode: only the backtick tokens (bare characters
/// are ignored), deduplicated, longest first, no newline normalisation.
///
/// RAGFlow builds this list from a Python `set`, so equal-length tokens come out in hash
/// order; that cannot change a split, because two different strings of the same length never
/// both match at one position.
pub fn custom_delimiters(field: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for tok in backtick_tokens(field) {
        if !out.iter().any(|x| x == tok.token) {
            out.push(tok.token.to_owned());
        }
    }
    sort_longest_first(&mut out);
    out
}

/// `s.replace("\r\n", "\n").replace("\r", "\n")`, borrowing when there is no `\r`.
pub fn normalize_newlines(s: &str) -> std::borrow::Cow<'_, str> {
    if memchr::memchr(b'\r', s.as_bytes()).is_none() {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = memchr::memchr(b'\r', rest.as_bytes()) {
        out.push_str(&rest[..i]);
        out.push('\n');
        rest = &rest[i + 1..];
        if let Some(r) = rest.strip_prefix('\n') {
            rest = r;
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// Python `sorted(xs, key=len, reverse=True)`: stable, longest (in code points) first.
///
/// (`reverse=True` keeps equal elements in their original order, like a stable sort on the
/// negated key.)
fn sort_longest_first(v: &mut [String]) {
    v.sort_by_key(|d| std::cmp::Reverse(d.chars().count()));
}

/// RAGFlow v0.22 quirk: with `delimiter=""` its pattern is empty, and
/// `re.split("()", text)` splits at the empty match before and after every character:
/// `"ab"` gives `["", "", "a", "", "b", "", ""]`. Same shape as [`DelimiterSplitter::split`]:
/// text pieces (`""`, then each character, then `""`) alternate with empty delimiters.
pub fn split_every_char(text: &str) -> impl Iterator<Item = Piece<'_>> + '_ {
    let chars = text
        .char_indices()
        .map(move |(i, c)| Piece::Text(&text[i..i + c.len_utf8()]));
    std::iter::once(Piece::Text(&text[..0]))
        .chain(chars)
        .chain(std::iter::once(Piece::Text(&text[text.len()..])))
        .enumerate()
        .flat_map(|(i, p)| {
            let sep = if i == 0 {
                None
            } else {
                Some(Piece::Delimiter(""))
            };
            sep.into_iter().chain(std::iter::once(p))
        })
}

/// RAGFlow v0.22 quirk: a piece of `re.split` is dropped when
/// `re.match("^" + pattern + "$", piece)` matches, where `pattern` is
/// `"|".join(re.escape(d) for d in delims)`. The anchors bind only to the first and the last
/// alternatives, so the test really is:
///
/// * the piece starts with any delimiter but the last (the first one through `^d1`, the middle
///   ones because `re.match` anchors at the start anyway), or
/// * the piece is the last delimiter, optionally followed by one `"\n"` (Python's `$` also
///   matches just before a final newline);
/// * with no delimiter at all the pattern is `^$`, which matches `""` and `"\n"`.
///
/// Delimiter pieces are therefore dropped, empty text pieces are kept (they become `"\n"`
/// pieces), and in the empty-pattern split every `"\n"` character is dropped too.
pub fn v22_is_skipped(piece: &str, legacy_delims: &[String]) -> bool {
    let is_last = |last: &str| piece == last || piece.strip_suffix('\n') == Some(last);
    match legacy_delims.split_last() {
        None => is_last(""),
        Some((last, rest)) => rest.iter().any(|d| piece.starts_with(d.as_str())) || is_last(last),
    }
}

#[cfg(test)]
mod tests {
    use super::splitter::tests::{s, texts};
    use super::*;

    #[test]
    fn splitter_for_field_follows_the_field() {
        // Switching fields back and forth must never split with the previous field's splitter.
        let text = "a。b`x`c\nd##e";
        for field in ["\n。；！？", "`##`", "\n。；！？", "", "`x`", "`x`", "\n"] {
            let cached = splitter_for_field(field);
            let fresh = DelimiterSplitter::new(&parse_delimiter_field(field));
            let got: Vec<&str> = cached.split(text).map(|p| p.as_str()).collect();
            let want: Vec<&str> = fresh.split(text).map(|p| p.as_str()).collect();
            assert_eq!(got, want, "{field:?}");
        }
        let (a, b) = (splitter_for_field("`##`"), splitter_for_field("`##`"));
        assert!(Rc::ptr_eq(&a, &b), "the same field is built once");
    }

    #[test]
    fn parse_default_field() {
        assert_eq!(
            parse_delimiter_field("\n。；！？"),
            s(&["\n", "。", "；", "！", "？"])
        );
        assert!(parse_delimiter_field("").is_empty());
    }

    #[test]
    fn parse_backticks_dedupe_longest_first() {
        assert_eq!(parse_delimiter_field("`##`#`###`"), s(&["###", "##", "#"]));
        // first-seen order among equal lengths, dedupe across kinds
        assert_eq!(parse_delimiter_field("ba`a`b`cd`"), s(&["cd", "b", "a"]));
        assert_eq!(parse_delimiter_field("`ab``abc`"), s(&["abc", "ab"]));
    }

    #[test]
    fn parse_crlf_in_field() {
        assert_eq!(parse_delimiter_field("\r\n"), s(&["\n"]));
        assert_eq!(parse_delimiter_field("`\r\n`\r"), s(&["\n"]));
        assert_eq!(parse_delimiter_field("`a\r\rb`"), s(&["a\n\nb"]));
        assert_eq!(parse_delimiter_field("`\n`\r\n"), s(&["\n"]));
    }

    #[test]
    fn parse_empty_backticks_are_bare() {
        assert_eq!(parse_delimiter_field("``"), s(&["`"]));
        assert!(!has_wrapped_delimiter("``"));
        assert_eq!(parse_delimiter_field("```a`"), s(&["`", "a"]));
        assert!(has_wrapped_delimiter("```a`"));
        assert_eq!(parse_delimiter_field("`"), s(&["`"]));
        assert!(!has_wrapped_delimiter("`"));
        assert!(has_wrapped_delimiter("`?``!`"));
        assert_eq!(parse_delimiter_field("`?``!`"), s(&["?", "!"]));
    }

    #[test]
    fn parse_whitespace_and_multibyte() {
        assert_eq!(parse_delimiter_field(" \t"), s(&[" ", "\t"]));
        // code-point length: "🚀" (4 bytes) is one character, shorter than "ab"
        assert_eq!(parse_delimiter_field("`🚀``ab`"), s(&["ab", "🚀"]));
    }

    #[test]
    fn legacy_order_keeps_duplicates() {
        // token listed before the bare chars that precede it
        assert_eq!(legacy_delimiters("ab`xy`c"), s(&["xy", "a", "b", "c"]));
        assert_eq!(legacy_delimiters("aa`a`"), s(&["a", "a", "a"]));
        assert_eq!(legacy_delimiters("\r\n"), s(&["\r", "\n"]));
        assert!(legacy_delimiters("").is_empty());
    }

    #[test]
    fn custom_only_tokens() {
        assert_eq!(custom_delimiters("\n`##`"), s(&["##"]));
        assert_eq!(custom_delimiters("`#``##``#`"), s(&["##", "#"]));
        assert!(custom_delimiters("abc").is_empty());
    }

    #[test]
    fn normalize() {
        assert_eq!(normalize_newlines("a\r\nb\rc\n\r\r\n"), "a\nb\nc\n\n\n");
        assert!(matches!(
            normalize_newlines("abc"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn every_char_split() {
        let p: Vec<_> = split_every_char("ab").collect();
        assert_eq!(texts(&p), s(&["", "", "a", "", "b", "", ""]));
        assert_eq!(
            texts(&split_every_char("").collect::<Vec<_>>()),
            s(&["", "", ""])
        );
        assert_eq!(
            p.iter()
                .filter(|p| matches!(p, Piece::Delimiter(_)))
                .count(),
            3
        );
    }

    #[test]
    fn v22_match_quirk() {
        let d = s(&["\n", "。"]);
        assert!(v22_is_skipped("\n", &d));
        assert!(v22_is_skipped("。", &d));
        assert!(v22_is_skipped("。\n", &d));
        assert!(!v22_is_skipped("", &d));
        assert!(!v22_is_skipped("abc", &d));
        assert!(v22_is_skipped("\nabc", &d)); // starts with the first alternative
        assert!(!v22_is_skipped("。abc", &d)); // last alternative is end-anchored
        assert!(v22_is_skipped("", &[]));
        assert!(v22_is_skipped("\n", &[]));
        assert!(!v22_is_skipped("a", &[]));
    }
}
