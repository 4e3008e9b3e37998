//! The line scanner the structure-aware splitters share: a text's lines as byte spans, a
//! line's indentation, list-item lines and the items of a list block. The Markdown block
//! scanner ([`super::markdown`]) and the packer ([`super::packer`], which cuts an oversized
//! block at its lines and a list between its items) both stand on it. ASCII decisions only.

use crate::text::boundaries::is_blank_line;

/// The lines of `text` as byte spans: a line ends at `\n`, and a `\r` before it is not part
/// of the line (the packer cuts oversized blocks at these lines too).
pub(crate) fn lines_of(text: &str) -> Vec<(usize, usize)> {
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

/// Leading indentation in columns (a tab counts 4) and the rest after it.
pub(crate) fn indent(s: &[u8]) -> (usize, &[u8]) {
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

/// The marker kind of a list item line (`-`, `+` or `*`; `.` or `)` for an ordered list),
/// or `None` when the line does not start a list item. Items with different markers belong
/// to different lists (CommonMark).
pub(crate) fn list_marker(s: &[u8]) -> Option<u8> {
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

/// Whether the line starts a list item.
pub(crate) fn list_item(s: &[u8]) -> bool {
    list_marker(s).is_some()
}

/// The items of the list block spanning `(s, e)`: each runs from a line starting an item at
/// the list's own indentation (or less) to its last non-blank line, nested items included.
pub(crate) fn list_items(text: &str, s: usize, e: usize) -> Vec<(usize, usize)> {
    let piece = &text.as_bytes()[s..e];
    let lines = lines_of(&text[s..e]);
    let base = indent(&piece[lines[0].0..lines[0].1]).0;
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (j, &(a, b)) in lines.iter().enumerate() {
        let l = &piece[a..b];
        if j == 0 || (list_item(l) && indent(l).0 <= base) {
            out.push((s + a, s + b));
        } else if !is_blank_line(l) {
            if let Some(last) = out.last_mut() {
                last.1 = s + b;
            }
        }
    }
    out
}
