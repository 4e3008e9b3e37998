//! NLTK's Punkt sentence tokenizer with no trained parameters, as LlamaIndex's
//! `SentenceSplitter` runs it by default.
//!
//! # Punkt without parameters
//! LlamaIndex builds `PunktSentenceTokenizer()` with no training text, so its abbreviation,
//! collocation, sentence-starter and orthographic tables are all empty. What is left of the
//! algorithm is local:
//! * every `.`, `?` or `!` followed by closing punctuation (`NON_WORD`), or by whitespace and
//!   a token, is a candidate; consecutive candidates with no whitespace between them are one
//!   (the last is kept, with the word before the first);
//! * a candidate breaks when its context (the word before, the mark, what follows) holds a
//!   sentence-break token that is not the last token;
//! * a token ending in `.` breaks unless it is an ellipsis (`..`, `...`); an initial (`J.`) or a
//!   number (`3.`) does not break before a lowercase word or punctuation, and an initial not
//!   before a capitalised word either;
//! * closing quotes and brackets after a break are moved back onto the sentence they close.
//!
//! The regular expressions are NLTK's, run by the `regex` module: `\s` is Unicode
//! `White_Space` (the rules file's `chars.whitespace.hard_cap`); `\d`, `[^\W\d]` and
//! Python's `str.isupper` / `str.islower` of non-ASCII characters come from a [`CharInfo`]
//! (the bindings ask Python once per character, so the answers are those of the running
//! interpreter).

use crate::text::boundaries::boundaries;

/// Unicode `White_Space` (`char::is_whitespace`): the rules file's
/// `chars.whitespace.hard_cap`.
#[inline]
fn is_white_space(c: char) -> bool {
    boundaries().hard_cap_space.contains(c)
}

/// Python's `str.isspace`, what `str.strip()` strips: the rules file's
/// `chars.whitespace.langchain`.
#[inline]
pub(super) fn is_py_space(c: char) -> bool {
    boundaries().langchain_space.contains(c)
}

/// `upper` flag of [`CharInfo::flags`]: `str.isupper()`.
pub const UPPER: u8 = 1;
/// `lower` flag: `str.islower()`.
pub const LOWER: u8 = 2;
/// `digit` flag: `regex` `\d`.
pub const DIGIT: u8 = 4;
/// `letter` flag: `regex` `[^\W\d]` (word characters other than digits).
pub const LETTER: u8 = 8;

/// What Python says of a non-ASCII character: an OR of [`UPPER`], [`LOWER`], [`DIGIT`],
/// [`LETTER`]. Only asked for characters Punkt's decisions depend on.
pub trait CharInfo {
    /// The flags of `c` (never called for ASCII characters).
    fn flags(&self, c: char) -> u8;
}

fn flags(info: &dyn CharInfo, c: char) -> u8 {
    if c.is_ascii() {
        let mut f = 0;
        if c.is_ascii_uppercase() {
            f |= UPPER | LETTER;
        } else if c.is_ascii_lowercase() {
            f |= LOWER | LETTER;
        } else if c.is_ascii_digit() {
            f |= DIGIT;
        } else if c == '_' {
            f |= LETTER;
        }
        f
    } else {
        info.flags(c)
    }
}

/// Punkt's `_re_non_word_chars`: punctuation that can never be inside a word.
fn is_non_word(c: char) -> bool {
    matches!(
        c,
        ')' | '"'
            | ';'
            | '}'
            | ']'
            | '*'
            | ':'
            | '@'
            | '\''
            | '('
            | '{'
            | '['
            | '\u{2018}'
            | '\u{2019}'
            | '\u{201c}'
            | '\u{201d}'
            | '\u{ab}'
            | '\u{bb}'
            | '?'
            | '!'
    )
}

/// Characters that cannot start a word token (Punkt's `_re_word_start` excludes them).
fn cannot_start_word(c: char) -> bool {
    matches!(
        c,
        '(' | '"'
            | '`'
            | '{'
            | '['
            | ':'
            | ';'
            | '&'
            | '#'
            | '*'
            | '@'
            | ')'
            | '}'
            | ']'
            | '-'
            | ','
    )
}

/// Closing punctuation that realignment moves back onto the sentence before.
fn is_closer(c: char) -> bool {
    matches!(
        c,
        '"' | '\''
            | ')'
            | ']'
            | '}'
            | '\u{2018}'
            | '\u{2019}'
            | '\u{201c}'
            | '\u{201d}'
            | '\u{ab}'
            | '\u{bb}'
    )
}

fn char_at(s: &str, i: usize) -> Option<char> {
    s.get(i..).and_then(|r| r.chars().next())
}

/// Length of Punkt's multi-character punctuation (`--+`, `..+`, `. . .`) at `p`, if any.
fn multi_char(s: &str, p: usize) -> Option<usize> {
    let b = s.as_bytes();
    let at = |i: usize| b.get(i).copied();
    match at(p) {
        Some(b'-') if at(p + 1) == Some(b'-') => {
            let n = b[p..].iter().take_while(|&&c| c == b'-').count();
            Some(n)
        }
        Some(b'.') if at(p + 1) == Some(b'.') => {
            let n = b[p..].iter().take_while(|&&c| c == b'.').count();
            Some(n)
        }
        Some(b'.') => {
            // (?:\.\s){2,}\. : as many ". " pairs as there are, backing off one pair when the
            // last pair is not followed by a dot.
            let mut pairs = 0usize;
            let mut q = p;
            let mut before_last = p;
            while at(q) == Some(b'.') {
                match char_at(s, q + 1) {
                    Some(c) if is_white_space(c) => {
                        before_last = q;
                        q += 1 + c.len_utf8();
                        pairs += 1;
                    }
                    _ => break,
                }
            }
            if pairs >= 2 && at(q) == Some(b'.') {
                Some(q + 1 - p)
            } else if pairs >= 3 {
                Some(before_last + 1 - p)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Whether a word token may end before position `q` of `s` (the lookahead of Punkt's word
/// pattern).
fn word_ends_at(s: &str, q: usize) -> bool {
    let Some(c) = char_at(s, q) else {
        return true;
    };
    if is_white_space(c) || is_non_word(c) || multi_char(s, q).is_some() {
        return true;
    }
    if c == ',' {
        return match char_at(s, q + 1) {
            None => true,
            Some(n) => is_white_space(n) || is_non_word(n) || multi_char(s, q + 1).is_some(),
        };
    }
    false
}

/// Punkt's `word_tokenize` of one line (no `\n` in it).
fn word_tokens<'a>(line: &'a str, out: &mut Vec<&'a str>) {
    let mut p = 0;
    while let Some(c) = char_at(line, p) {
        if is_white_space(c) {
            p += c.len_utf8();
            continue;
        }
        let end = if let Some(n) = multi_char(line, p) {
            p + n
        } else if cannot_start_word(c) {
            p + c.len_utf8()
        } else {
            let mut q = p + c.len_utf8();
            while !word_ends_at(line, q) {
                q += char_at(line, q).map_or(1, char::len_utf8);
            }
            q
        };
        out.push(&line[p..end]);
        p = end;
    }
}

/// `tok` is all dots, two or more: an ellipsis.
fn is_ellipsis(tok: &str) -> bool {
    tok.len() >= 2 && tok.bytes().all(|b| b == b'.')
}

/// Punkt's `_RE_INITIAL`: one letter and a dot.
fn is_initial(info: &dyn CharInfo, tok: &str) -> bool {
    let mut it = tok.chars();
    match (it.next(), it.next(), it.next()) {
        (Some(c), Some('.'), None) => flags(info, c) & LETTER != 0,
        _ => false,
    }
}

/// Whether the token's type, without its final period, is `##number##`: the token is a number
/// (`_RE_NUMERIC`), or literally that text.
fn is_number_type(info: &dyn CharInfo, tok: &str) -> bool {
    if tok.eq_ignore_ascii_case("##number##") || tok.eq_ignore_ascii_case("##number##.") {
        return true;
    }
    let mut rest = tok.strip_prefix('-').unwrap_or(tok);
    if let Some(r) = rest.strip_prefix(['.', ',']) {
        rest = r;
    }
    let mut chars = rest.chars();
    match chars.next() {
        Some(c) if flags(info, c) & DIGIT != 0 => {}
        _ => return false,
    }
    chars.all(|c| matches!(c, ',' | '.' | '-') || flags(info, c) & DIGIT != 0)
}

/// Whether `tok` is a sentence break once its successor `next` is known (Punkt's two
/// annotation passes with empty parameters).
fn breaks_before(info: &dyn CharInfo, tok: &str, next: &str) -> bool {
    let first_pass = matches!(tok, "." | "?" | "!")
        || (!is_ellipsis(tok) && tok.ends_with('.') && !tok.ends_with(".."));
    if !tok.ends_with('.') {
        return first_pass;
    }
    let initial = is_initial(info, tok);
    if initial || is_number_type(info, tok) {
        let first = next.chars().next().map_or(0, |c| flags(info, c));
        let punct = matches!(next, ";" | ":" | "," | "." | "!" | "?");
        if punct || first & LOWER != 0 {
            return false;
        }
        if initial && first & UPPER != 0 {
            return false;
        }
    }
    first_pass
}

/// Punkt's `text_contains_sentbreak`: some token other than the last is a break.
fn contains_break(info: &dyn CharInfo, context: &str) -> bool {
    let mut toks: Vec<&str> = Vec::new();
    for line in context.split('\n') {
        if !line.trim_matches(is_py_space).is_empty() {
            word_tokens(line, &mut toks);
        }
    }
    toks.windows(2).any(|w| breaks_before(info, w[0], w[1]))
}

/// A candidate sentence end: the mark's byte offset, the end of what follows it, and where the
/// next token starts when whitespace follows.
struct Candidate {
    at: usize,
    after_end: usize,
    next_tok: Option<usize>,
}

fn candidates(text: &str) -> Vec<Candidate> {
    let mut out = Vec::new();
    for (i, b) in text.bytes().enumerate() {
        if !matches!(b, b'.' | b'?' | b'!') {
            continue;
        }
        let Some(n) = char_at(text, i + 1) else {
            continue;
        };
        if is_non_word(n) {
            out.push(Candidate {
                at: i,
                after_end: i + 1 + n.len_utf8(),
                next_tok: None,
            });
        } else if is_white_space(n) {
            let rest = &text[i + 1..];
            let ws = rest.len() - rest.trim_start_matches(is_white_space).len();
            let j = i + 1 + ws;
            if j < text.len() {
                let tail = &text[j..];
                let k = j + tail.find(is_white_space).unwrap_or(tail.len());
                out.push(Candidate {
                    at: i,
                    after_end: k,
                    next_tok: Some(j),
                });
            }
        }
    }
    out
}

/// Punkt's `span_tokenize(text)` (realigned), as byte ranges.
pub fn punkt_spans(info: &dyn CharInfo, text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let ascii_space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c');
    // _match_potential_end_contexts: each kept candidate with the start of the word before it.
    let mut kept: Vec<(usize, usize)> = Vec::new(); // (candidate index, word start)
    let mut prev: Option<(usize, usize, usize)> = None; // (candidate index, word start, word end)
    let cands = candidates(text);
    for (ci, c) in cands.iter().enumerate() {
        let (prev_start, prev_stop) = prev.map_or((0, 0), |(_, s, e)| (s, e));
        let before = &b[prev_stop..c.at];
        let last_ws = before.iter().rposition(|&x| ascii_space(x)).unwrap_or(0);
        let start = if last_ws != 0 {
            last_ws + prev_stop + 1
        } else {
            prev_start
        };
        if let Some((pi, ps, pe)) = prev {
            if pe <= start {
                kept.push((pi, ps));
            }
        }
        prev = Some((ci, start, c.at));
    }
    if let Some((pi, ps, _)) = prev {
        kept.push((pi, ps));
    }
    // _slices_from_text
    let mut slices: Vec<(usize, usize)> = Vec::new();
    let mut last_break = 0;
    for (ci, word_start) in kept {
        let c = &cands[ci];
        let context = text
            .get(word_start..c.after_end)
            .expect("candidate contexts lie on character boundaries");
        if contains_break(info, context) {
            slices.push((last_break, c.at + 1));
            last_break = c.next_tok.unwrap_or(c.at + 1);
        }
    }
    slices.push((last_break, text.trim_end_matches(is_py_space).len()));
    // _realign_boundaries
    let mut spans = Vec::with_capacity(slices.len());
    let mut realign = 0;
    for (k, &(s1_start, s1_stop)) in slices.iter().enumerate() {
        let s1_start = s1_start + realign;
        let non_empty = s1_start < s1_stop;
        let Some(&(s2_start, s2_stop)) = slices.get(k + 1) else {
            if non_empty {
                spans.push((s1_start, s1_stop));
            }
            continue;
        };
        let s2 = if s2_start < s2_stop {
            &text[s2_start..s2_stop]
        } else {
            ""
        };
        match realignment(s2) {
            Some((closers, end)) => {
                spans.push((s1_start, s2_start + closers));
                realign = end;
            }
            None => {
                realign = 0;
                if non_empty {
                    spans.push((s1_start, s1_stop));
                }
            }
        }
    }
    spans
}

/// Punkt's `re_boundary_realignment.match(s)`: closing punctuation (as little as possible)
/// followed by whitespace, `--` or a line end. Returns the length of the punctuation and the
/// end of the match.
fn realignment(s: &str) -> Option<(usize, usize)> {
    let mut q = 0;
    while let Some(c) = char_at(s, q) {
        if !is_closer(c) {
            return None;
        }
        q += c.len_utf8();
        match char_at(s, q) {
            None => return Some((q, q)),
            Some(n) if is_white_space(n) => {
                let rest = &s[q..];
                let ws = rest.len() - rest.trim_start_matches(is_white_space).len();
                return Some((q, q + ws));
            }
            Some('-') if s[q..].starts_with("--") => return Some((q, q)),
            Some(_) => {}
        }
    }
    None
}

/// LlamaIndex's `split_by_sentence_tokenizer`: each sentence runs from its span's start to the
/// next span's start (the last to the end of the text), so text before the first span is
/// dropped and the whitespace after a sentence stays with it.
pub fn punkt_sentences<'a>(info: &dyn CharInfo, text: &'a str) -> Vec<&'a str> {
    let spans = punkt_spans(info, text);
    let mut out = Vec::with_capacity(spans.len());
    for (i, &(start, _)) in spans.iter().enumerate() {
        let end = spans.get(i + 1).map_or(text.len(), |s| s.0);
        out.push(if start < end { &text[start..end] } else { "" });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    struct NoInfo;
    impl CharInfo for NoInfo {
        fn flags(&self, c: char) -> u8 {
            let mut f = 0;
            if c.is_uppercase() {
                f |= UPPER;
            }
            if c.is_lowercase() {
                f |= LOWER;
            }
            if c.is_alphabetic() {
                f |= LETTER;
            }
            f
        }
    }

    fn sentences(text: &str) -> Vec<&str> {
        punkt_sentences(&NoInfo, text)
    }

    #[test]
    fn punkt_breaks_after_marks_followed_by_space() {
        assert_eq!(
            sentences("Hello there. How are you? Fine!"),
            ["Hello there. ", "How are you? ", "Fine!"]
        );
    }

    #[test]
    fn punkt_keeps_initials_numbers_and_ellipses() {
        // No abbreviations are known: a plain word's period breaks even before lowercase.
        assert_eq!(sentences("J. Smith came. ok"), ["J. Smith came. ", "ok"]);
        assert_eq!(sentences("It costs 3. dollars"), ["It costs 3. dollars"]);
        assert_eq!(sentences("Wait... Then go."), ["Wait... Then go."]);
        assert_eq!(sentences("It was 3. Then"), ["It was 3. ", "Then"]);
    }

    #[test]
    fn punkt_realigns_closing_quotes() {
        assert_eq!(
            sentences("He said \"Stop.\" Then left."),
            ["He said \"Stop.\" ", "Then left."]
        );
        assert_eq!(sentences("(Sent1.) Sent2."), ["(Sent1.) ", "Sent2."]);
    }

    #[test]
    fn punkt_words_and_multichar_punctuation() {
        let mut toks = Vec::new();
        word_tokens("a-- b... c. . . d, e,f (g)", &mut toks);
        assert_eq!(
            toks,
            ["a", "--", "b", "...", "c", ". . .", "d", ",", "e,f", "(", "g", ")"]
        );
    }
}
