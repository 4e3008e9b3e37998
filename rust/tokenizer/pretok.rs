//! Hand-written pretokenizers: each returns where the regex match starting at byte `i` ends.
//!
//! tiktoken cuts text with `fancy_regex::Regex::find_iter` before BPE. Matches are contiguous
//! (every character is matched by some branch), so splitting is "from `i`, find the end of the
//! match, continue there". Each function below is the leftmost-first backtracking semantics of the
//! pattern worked out branch by branch; the derivations are in the comments. Why hand-written: the
//! regex is 35-58% of a fast counter's time with a general engine (RUST-DEPS.md), while these
//! lexers touch each byte about once with an ASCII fast path.
//!
//! All functions take valid UTF-8 `s` and a char boundary `i < s.len()` and return an end
//! `i < end <= s.len()` on a char boundary. They never index out of bounds (all reads use `get`).

use super::unicode::{
    decode, Classes, CRLF, LETTER, LOWER, NUMBER, PREFIX_MASK, PUNCT_MASK, UPPER, WS,
};

/// Flags and byte length of the character at `i`, or `None` at the end.
#[inline(always)]
fn at(cls: &Classes, s: &[u8], i: usize) -> Option<(u8, usize)> {
    match s.get(i) {
        None => None,
        Some(&b) if b < 0x80 => Some((cls.of(b as u32), 1)),
        Some(_) => {
            let (cp, len) = decode(s, i);
            Some((cls.of(cp), len))
        }
    }
}

/// End of the run of characters from `i` whose flags satisfy `keep`.
#[inline(always)]
fn run(cls: &Classes, s: &[u8], mut i: usize, keep: impl Fn(u8) -> bool) -> usize {
    while let Some((f, len)) = at(cls, s, i) {
        if !keep(f) {
            break;
        }
        i += len;
    }
    i
}

/// End of the run of o200k "lower" characters `[\p{Ll}\p{Lm}\p{Lo}\p{M}]` from `i`: `run` with
/// a byte loop over ASCII lowercase letters (the only ASCII characters of the class), which
/// most of the run is in English text.
#[inline(always)]
fn lower_run(cls: &Classes, s: &[u8], mut i: usize) -> usize {
    loop {
        while s.get(i).is_some_and(u8::is_ascii_lowercase) {
            i += 1;
        }
        match at(cls, s, i) {
            Some((f, len)) if f & LOWER != 0 => i += len,
            _ => return i,
        }
    }
}

/// Whether `(?i:letter)` matches the character at `i`; returns the position after it.
#[inline]
fn ci(cls: &Classes, s: &[u8], i: usize, letter: u8) -> Option<usize> {
    let b = *s.get(i)?;
    if b | 0x20 == letter {
        return Some(i + 1);
    }
    if b < 0x80 {
        return None;
    }
    // Non-ASCII case-fold equivalents, e.g. `ſ` (U+017F) for `s`.
    let (cp, len) = decode(s, i);
    cls.folds_to(cp, letter).then_some(i + len)
}

/// The `\s` run from `i`: (end, end of its last `\r`/`\n` if any, start of its last char, chars).
#[inline]
fn whitespace(cls: &Classes, s: &[u8], i: usize) -> (usize, Option<usize>, usize, usize) {
    let (mut j, mut newline_end, mut last, mut n) = (i, None, i, 0usize);
    while let Some((f, len)) = at(cls, s, j) {
        if f & WS == 0 {
            break;
        }
        last = j;
        n += 1;
        j += len;
        if f & CRLF != 0 {
            newline_end = Some(j);
        }
    }
    (j, newline_end, last, n)
}

/// cl100k_base:
/// `'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s`
pub(crate) fn cl100k_end(cls: &Classes, s: &[u8], i: usize) -> usize {
    let Some((f, len)) = at(cls, s, i) else {
        return s.len();
    };
    let next = i + len;
    // 1. Contractions, case-insensitively (`'S`, `'ſ`, `'Ll`, ...), only at the match start.
    if s.get(i) == Some(&b'\'') {
        for letter in [b's', b'd', b'm', b't'] {
            if let Some(e) = ci(cls, s, next, letter) {
                return e;
            }
        }
        for (a, b) in [(b'l', b'l'), (b'v', b'e'), (b'r', b'e')] {
            if let Some(e) = ci(cls, s, next, a).and_then(|m| ci(cls, s, m, b)) {
                return e;
            }
        }
    }
    // 2. `[^\r\n\p{L}\p{N}]?+\p{L}++`: a letter run, optionally after one non-letter/number/newline
    //    (space, punctuation, a mark...). Possessiveness changes nothing: without the optional char
    //    the run would have to start at a non-letter.
    if f & LETTER != 0 {
        return run(cls, s, next, |f| f & LETTER != 0);
    }
    if f & PREFIX_MASK == 0 {
        if let Some((g, l2)) = at(cls, s, next) {
            if g & LETTER != 0 {
                return run(cls, s, next + l2, |f| f & LETTER != 0);
            }
        }
    }
    // 3. `\p{N}{1,3}+`.
    if f & NUMBER != 0 {
        let mut e = next;
        for _ in 0..2 {
            match at(cls, s, e) {
                Some((g, l2)) if g & NUMBER != 0 => e += l2,
                _ => break,
            }
        }
        return e;
    }
    // 4. ` ?[^\s\p{L}\p{N}]++[\r\n]*+`.
    let start = if s.get(i) == Some(&b' ') {
        match at(cls, s, next) {
            Some((g, _)) if g & PUNCT_MASK == 0 => next,
            _ => i,
        }
    } else {
        i
    };
    if let Some((g, _)) = at(cls, s, start) {
        if g & PUNCT_MASK == 0 {
            let e = run(cls, s, start, |f| f & PUNCT_MASK == 0);
            return e + s
                .get(e..)
                .unwrap_or_default()
                .iter()
                .take_while(|&&b| b == b'\r' || b == b'\n')
                .count();
        }
    }
    // Only whitespace is left.
    let (end, newline_end, last, n) = whitespace(cls, s, i);
    if end == s.len() {
        // 5. `\s++$` (`$` is the end of the text only).
        end
    } else if let Some(e) = newline_end {
        // 6. `\s*[\r\n]`: greedy, backtracks to the run's last newline.
        e
    } else if n >= 2 {
        // 7. `\s+(?!\S)`: the run is followed by a non-space, so it gives back its last char.
        last
    } else {
        // 8. `\s`.
        next
    }
}

/// Contraction suffix `(?i:'s|'t|'re|'ve|'m|'ll|'d)` at `i`, returning its end.
#[inline]
fn o200k_contraction(cls: &Classes, s: &[u8], i: usize) -> Option<usize> {
    if s.get(i) != Some(&b'\'') {
        return None;
    }
    let next = i + 1;
    for letter in [b's', b't', b'm', b'd'] {
        if let Some(e) = ci(cls, s, next, letter) {
            return Some(e);
        }
    }
    for (a, b) in [(b'r', b'e'), (b'v', b'e'), (b'l', b'l')] {
        if let Some(e) = ci(cls, s, next, a).and_then(|m| ci(cls, s, m, b)) {
            return Some(e);
        }
    }
    None
}

/// o200k branch 1 without its prefix, from `p`: `U*L+C?` with U = `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`,
/// L = `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`, C the contraction. Backtracking: `U*` takes the whole U run, then
/// gives back characters until `L+` can start. If the character after the U run is in L, `L+`
/// starts there and runs greedily; otherwise `L+` starts at the run's last character that is also
/// in L (Lm/Lo/M), and ends right after it (the next one is U-only or ends the run).
#[inline]
fn o200k_word1(cls: &Classes, s: &[u8], p: usize) -> Option<usize> {
    let mut j = p;
    let mut last_lower_end = None;
    let mut after = None;
    while let Some((f, len)) = at(cls, s, j) {
        if f & UPPER == 0 {
            after = Some(f);
            break;
        }
        j += len;
        if f & LOWER != 0 {
            last_lower_end = Some(j);
        }
    }
    let end = match after {
        Some(f) if f & LOWER != 0 => lower_run(cls, s, j),
        _ => last_lower_end?,
    };
    Some(o200k_contraction(cls, s, end).unwrap_or(end))
}

/// o200k branch 2 without its prefix, from `p`: `U+L*C?` (all greedy, no backtracking needed).
#[inline]
fn o200k_word2(cls: &Classes, s: &[u8], p: usize) -> Option<usize> {
    match at(cls, s, p) {
        Some((f, _)) if f & UPPER != 0 => {}
        _ => return None,
    }
    let e = run(cls, s, p, |f| f & UPPER != 0);
    let e = lower_run(cls, s, e);
    Some(o200k_contraction(cls, s, e).unwrap_or(e))
}

/// o200k_base, the `|`-join of:
/// `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
/// `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
/// `\p{N}{1,3}`, ` ?[^\s\p{L}\p{N}]+[\r\n/]*`, `\s*[\r\n]+`, `\s+(?!\S)`, `\s+`.
/// Nothing is possessive here, so the order in which alternatives are tried matters.
pub(crate) fn o200k_end(cls: &Classes, s: &[u8], i: usize) -> usize {
    let Some((f, len)) = at(cls, s, i) else {
        return s.len();
    };
    let next = i + len;
    // The common case first: a lowercase ASCII letter, after a prefix character (a space) or
    // not. Branch 1 matches there (it is tried first, with the prefix when there is one): `U*`
    // is empty (the letter is not in U) and `L+` runs on.
    let p = if f & PREFIX_MASK == 0 { next } else { i };
    if s.get(p).is_some_and(u8::is_ascii_lowercase) {
        let e = lower_run(cls, s, p + 1);
        return match s.get(e) {
            Some(b'\'') => o200k_contraction(cls, s, e).unwrap_or(e),
            _ => e,
        };
    }
    // Branches 1 and 2 need a character of U or L where they start (`U*L+` and `U+L*`), after
    // the prefix or without it: the prefix `[^\r\n\p{L}\p{N}]` can be the char at `i` (it is
    // neither letter, number nor newline). Checking that first spares spaces and punctuation
    // (which start no word) four failed attempts.
    let word_here = f & (UPPER | LOWER) != 0;
    let word_next =
        f & PREFIX_MASK == 0 && at(cls, s, next).is_some_and(|(g, _)| g & (UPPER | LOWER) != 0);
    if word_here || word_next {
        // Tried in order: branch 1 with prefix, branch 1 without (only a mark can start it
        // after a prefix: marks are in L but not \p{L}), branch 2 with prefix, branch 2 without
        // (cannot succeed if branch 1 without prefix failed: U ∖ L is letters).
        if word_next {
            if let Some(e) = o200k_word1(cls, s, next) {
                return e;
            }
        }
        if word_here {
            if let Some(e) = o200k_word1(cls, s, i) {
                return e;
            }
        }
        if word_next {
            if let Some(e) = o200k_word2(cls, s, next) {
                return e;
            }
        }
        if word_here {
            if let Some(e) = o200k_word2(cls, s, i) {
                return e;
            }
        }
    }
    // 3. `\p{N}{1,3}`.
    if f & NUMBER != 0 {
        let mut e = next;
        for _ in 0..2 {
            match at(cls, s, e) {
                Some((g, l2)) if g & NUMBER != 0 => e += l2,
                _ => break,
            }
        }
        return e;
    }
    // 4. ` ?[^\s\p{L}\p{N}]+[\r\n/]*`.
    let start = if s.get(i) == Some(&b' ') {
        match at(cls, s, next) {
            Some((g, _)) if g & PUNCT_MASK == 0 => next,
            _ => i,
        }
    } else {
        i
    };
    if let Some((g, _)) = at(cls, s, start) {
        if g & PUNCT_MASK == 0 {
            let e = run(cls, s, start, |f| f & PUNCT_MASK == 0);
            return e + s
                .get(e..)
                .unwrap_or_default()
                .iter()
                .take_while(|&&b| b == b'\r' || b == b'\n' || b == b'/')
                .count();
        }
    }
    // Only whitespace is left.
    let (end, newline_end, last, n) = whitespace(cls, s, i);
    if let Some(e) = newline_end {
        // 5. `\s*[\r\n]+`: backtracks to the run's last newline (the next char is no newline).
        e
    } else if end == s.len() || n < 2 {
        // 6. `\s+(?!\S)` at the end of text takes the whole run; 7. `\s+` takes a lone space.
        end
    } else {
        // 6. followed by a non-space: the run gives back its last char.
        last
    }
}
