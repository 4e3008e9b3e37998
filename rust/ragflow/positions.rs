//! RAGFlow's PDF position tags: `@@<pages>\t<left>\t<right>\t<top>\t<bottom>##`.
//!
//! RAGFlow's PDF parser appends such a tag to every text box; chunkers carry the tags along
//! and later stages read them back (`RAGFlowPdfParser.extract_positions`) or strip them
//! (`RAGFlowPdfParser.remove_tag`). Both are regex one-liners in RAGFlow; here they are
//! hand-written scanners with the same match semantics (leftmost, non-overlapping, and a
//! failed attempt at `@@` retries one character later, so `"@@@1##"` loses `"@@1##"`).

use std::borrow::Cow;

/// `[\t0-9.-]`: the characters `remove_tag` lets sit between `@@` and `##`.
fn is_remove_class(b: u8) -> bool {
    matches!(b, b'\t' | b'0'..=b'9' | b'.' | b'-')
}

/// Byte length of the match of `@@[\t0-9.-]+?##` at the start of `s`, if any.
///
/// The lazy `+?` changes nothing here: `#` is not in the class, so the only way to reach `##`
/// is through the first non-class character.
fn remove_tag_match(s: &[u8]) -> Option<usize> {
    let body = s.get(2..)?;
    let n = body.iter().take_while(|&&b| is_remove_class(b)).count();
    (n > 0 && body[n..].starts_with(b"##")).then_some(2 + n + 2)
}

/// Calls `f(start, end)` for each non-overlapping match of a tag scanner, Python-style.
fn for_each_tag(
    text: &str,
    matcher: impl Fn(&[u8]) -> Option<usize>,
    mut f: impl FnMut(usize, usize),
) {
    let bytes = text.as_bytes();
    let finder = memchr::memmem::Finder::new(b"@@");
    let mut from = 0usize;
    while let Some(i) = finder.find(&bytes[from..]) {
        let at = from + i;
        match matcher(&bytes[at..]) {
            Some(len) => {
                f(at, at + len);
                from = at + len;
            }
            // Retry one byte later: "@@@1##" must still find "@@1##". `at + 1` is a char
            // boundary because `@` is ASCII.
            None => from = at + 1,
        }
    }
}

/// `re.sub(r"@@[\t0-9.-]+?##", "", text)`: removes position tags, malformed ones too
/// (`"@@1\t2\t3##"`, `"@@-##"`). Borrows when there is nothing to remove.
pub fn remove_tag(text: &str) -> Cow<'_, str> {
    let mut out: Option<String> = None;
    let mut last = 0usize;
    for_each_tag(text, remove_tag_match, |s, e| {
        let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
        o.push_str(&text[last..s]);
        last = e;
    });
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.push_str(&text[last..]);
            Cow::Owned(o)
        }
    }
}

/// One position read back from a tag: zero-based page indexes and the box coordinates.
#[derive(Debug, Clone, PartialEq)]
pub struct Position {
    /// `int(p) - 1` for each `p` in the page field split on `"-"` (`"3-4"` gives `[2, 3]`).
    pub pages: Vec<i64>,
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
}

/// Why [`extract_positions`] failed. Every variant except [`PositionError::PageOutOfRange`]
/// is a case where RAGFlow raises `ValueError`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The tag does not split on `\t` into exactly five fields (Python: "not enough / too many
    /// values to unpack").
    #[error("position tag {tag:?} has {fields} tab-separated fields, expected 5")]
    FieldCount { tag: String, fields: usize },
    /// A coordinate is not a valid `float()` literal (`""`, `"."`, `"1..2"`).
    #[error("could not convert string to float: {0:?}")]
    BadFloat(String),
    /// A page number is not a valid `int()` literal (`""`, from `"-"` or `"1--2"`).
    #[error("invalid literal for int() with base 10: {0:?}")]
    BadInt(String),
    /// A page number does not fit in `i64`. Python would accept it (its ints are unbounded);
    /// we cannot represent it, so this is an error RAGFlow never raises.
    #[error("page number {0:?} does not fit in a 64-bit integer")]
    PageOutOfRange(String),
}

/// Byte length of the match of `@@[0-9-]+\t[0-9.\t]+##` at the start of `s`, if any.
/// (Greedy runs, but backtracking can never help: neither class contains the character that
/// must follow it.)
fn position_tag_match(s: &[u8]) -> Option<usize> {
    let mut i = 2usize;
    let body = s.get(i..)?;
    let n = body
        .iter()
        .take_while(|b| matches!(b, b'0'..=b'9' | b'-'))
        .count();
    if n == 0 {
        return None;
    }
    i += n;
    if s.get(i) != Some(&b'\t') {
        return None;
    }
    i += 1;
    let n = s[i..]
        .iter()
        .take_while(|b| matches!(b, b'0'..=b'9' | b'.' | b'\t'))
        .count();
    if n == 0 {
        return None;
    }
    i += n;
    s[i..].starts_with(b"##").then_some(i + 2)
}

/// Python `float(s)` for `s` made only of `[0-9.]`: at least one digit and at most one dot.
fn parse_float(s: &str) -> Result<f64, PositionError> {
    let ok = s.bytes().any(|b| b.is_ascii_digit()) && s.bytes().filter(|&b| b == b'.').count() <= 1;
    if !ok {
        return Err(PositionError::BadFloat(s.to_owned()));
    }
    // Rust's parser is correctly rounded, like CPython's; it accepts "1." and ".5" as Python does.
    s.parse::<f64>()
        .map_err(|_| PositionError::BadFloat(s.to_owned()))
}

/// Python `int(p) - 1` for `p` made only of digits (leading zeros allowed).
fn parse_page(p: &str) -> Result<i64, PositionError> {
    if p.is_empty() {
        return Err(PositionError::BadInt(p.to_owned()));
    }
    p.parse::<i64>()
        .ok()
        .and_then(|n| n.checked_sub(1))
        .ok_or_else(|| PositionError::PageOutOfRange(p.to_owned()))
}

/// RAGFlow's `RAGFlowPdfParser.extract_positions`: every tag matching
/// `@@[0-9-]+\t[0-9.\t]+##`, in order, parsed as
/// `([int(p) - 1 for p in pages.split("-")], float(left), float(right), float(top), float(bottom))`.
///
/// One malformed tag fails the whole call, as RAGFlow's `ValueError` does: a tag with other
/// than five fields (`"@@1\t2\t3##"`), an empty or doubled-dot coordinate (`"\t\t"`, `"1..2"`),
/// or an empty page (`"@@-\t..."`, `"@@1--2\t..."`). Fields are checked in RAGFlow's order
/// (field count, the four floats, then the pages).
pub fn extract_positions(text: &str) -> Result<Vec<Position>, PositionError> {
    let mut out = Vec::new();
    let mut err = None;
    for_each_tag(text, position_tag_match, |s, e| {
        if err.is_some() {
            return;
        }
        match parse_tag(&text[s + 2..e - 2]) {
            Ok(p) => out.push(p),
            Err(x) => err = Some(x),
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

fn parse_tag(inner: &str) -> Result<Position, PositionError> {
    let fields: Vec<&str> = inner.split('\t').collect();
    let [pn, l, r, t, b] = fields[..] else {
        return Err(PositionError::FieldCount {
            tag: format!("@@{inner}##"),
            fields: fields.len(),
        });
    };
    let (left, right, top, bottom) = (
        parse_float(l)?,
        parse_float(r)?,
        parse_float(t)?,
        parse_float(b)?,
    );
    let pages = pn
        .split('-')
        .map(parse_page)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Position {
        pages,
        left,
        right,
        top,
        bottom,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remove_tag_basic() {
        assert_eq!(remove_tag(""), "");
        assert_eq!(remove_tag("plain"), "plain");
        assert!(matches!(remove_tag("plain"), Cow::Borrowed(_)));
        assert_eq!(remove_tag("a@@3\t10.0\t200.5\t30.0\t45.5##b"), "ab");
        assert_eq!(remove_tag("@@1\t2\t3##x@@-##"), "x");
        assert_eq!(remove_tag("@@@1##"), "@");
        assert_eq!(remove_tag("@@##"), "@@##");
        assert_eq!(remove_tag("@@1#"), "@@1#");
        assert_eq!(remove_tag("é@@1##ü@@2-3\t4##"), "éü");
        assert_eq!(remove_tag("@@1@@2##"), "@@1");
    }

    #[test]
    fn extract_basic() {
        let p =
            extract_positions("a@@3\t10.0\t200.5\t30.0\t45.5##b@@1-2\t0\t1.\t.5\t007##").unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].pages, vec![2]);
        assert_eq!(
            (p[0].left, p[0].right, p[0].top, p[0].bottom),
            (10.0, 200.5, 30.0, 45.5)
        );
        assert_eq!(p[1].pages, vec![0, 1]);
        assert_eq!(
            (p[1].left, p[1].right, p[1].top, p[1].bottom),
            (0.0, 1.0, 0.5, 7.0)
        );
        assert!(extract_positions("none @@ here").unwrap().is_empty());
        // not a position tag (no tab after the pages): ignored, not an error
        assert!(extract_positions("@@1##").unwrap().is_empty());
        assert_eq!(
            extract_positions("@@@1\t1\t2\t3\t4##").unwrap()[0].pages,
            vec![0]
        );
    }

    #[test]
    fn extract_errors() {
        assert!(matches!(
            extract_positions("@@1\t2\t3##"),
            Err(PositionError::FieldCount { fields: 3, .. })
        ));
        assert!(matches!(
            extract_positions("@@1\t2\t3\t4\t5\t6##"),
            Err(PositionError::FieldCount { .. })
        ));
        assert!(matches!(
            extract_positions("@@-\t1\t2\t3\t4##"),
            Err(PositionError::BadInt(_))
        ));
        assert!(matches!(
            extract_positions("@@1--2\t1\t2\t3\t4##"),
            Err(PositionError::BadInt(_))
        ));
        assert!(matches!(
            extract_positions("@@1\t1..2\t3\t4\t5##"),
            Err(PositionError::BadFloat(_))
        ));
        assert!(matches!(
            extract_positions("@@1\t.\t3\t4\t5##"),
            Err(PositionError::BadFloat(_))
        ));
        assert!(matches!(
            extract_positions("@@1\t\t1\t2\t3##"),
            Err(PositionError::BadFloat(_))
        ));
        assert!(matches!(
            extract_positions("@@99999999999999999999\t1\t2\t3\t4##"),
            Err(PositionError::PageOutOfRange(_))
        ));
        assert_eq!(
            extract_positions("@@0\t1\t2\t3\t4##").unwrap()[0].pages,
            vec![-1]
        );
    }
}
