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

use std::cell::RefCell;
use std::rc::Rc;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

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

/// One element of a split: a stretch of text between delimiters, or a delimiter occurrence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'t> {
    /// Text between two delimiter occurrences (may be empty).
    Text(&'t str),
    /// The delimiter occurrence itself, as it appears in the text.
    Delimiter(&'t str),
}

impl<'t> Piece<'t> {
    /// The piece's text, whichever kind it is.
    pub fn as_str(&self) -> &'t str {
        match *self {
            Piece::Text(s) | Piece::Delimiter(s) => s,
        }
    }
}

/// How a [`DelimiterSplitter`] finds delimiter occurrences.
#[derive(Debug, Clone)]
enum Matcher {
    /// No delimiters: the text is never split.
    Nothing,
    /// Every delimiter is one character and their UTF-8 lead bytes are at most three distinct
    /// values: a SIMD scan for the lead bytes ([`LeadHits`]), then a check of the character
    /// found. A lead byte is never a UTF-8 continuation byte, so every hit is a character
    /// boundary. With single characters, "leftmost" is the whole story: two different
    /// characters never both match at one position. `chars` holds each character's UTF-8
    /// bytes, packed little-endian, for a byte compare at each lead-byte hit.
    Chars { lead: Vec<u8>, chars: Vec<Utf8Char> },
    /// The general case: an alternation of literals, leftmost position first, then the first
    /// pattern in priority order (aho-corasick `LeftmostFirst` = Python's regex alternation).
    Automaton(AhoCorasick),
    /// Only if the automaton cannot be built (a delimiter field far beyond aho-corasick's
    /// size limits): try each delimiter in order at each character. Same matches, no panic.
    Ordered(Vec<String>),
}

/// A compiled delimiter set that splits text like Python's
/// `re.split("(" + "|".join(map(re.escape, delims)) + ")", text)`.
///
/// Compile once per call and reuse it for every section.
#[derive(Debug, Clone)]
pub struct DelimiterSplitter {
    matcher: Matcher,
}

impl DelimiterSplitter {
    /// Compiles `delims`, which are tried in the given order at each position (RAGFlow passes
    /// them longest first). Empty strings are ignored, as RAGFlow's pattern builders drop them;
    /// duplicates are harmless.
    pub fn new(delims: &[String]) -> Self {
        let delims: Vec<&str> = delims
            .iter()
            .map(String::as_str)
            .filter(|d| !d.is_empty())
            .collect();
        if delims.is_empty() {
            return DelimiterSplitter {
                matcher: Matcher::Nothing,
            };
        }
        if let Some(m) = Self::char_matcher(&delims) {
            return DelimiterSplitter { matcher: m };
        }
        let matcher = match AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostFirst)
            .build(&delims)
        {
            Ok(ac) => Matcher::Automaton(ac),
            Err(_) => Matcher::Ordered(delims.iter().map(|d| d.to_string()).collect()),
        };
        DelimiterSplitter { matcher }
    }

    fn char_matcher(delims: &[&str]) -> Option<Matcher> {
        let mut chars = Vec::new();
        let mut lead: Vec<u8> = Vec::new();
        for d in delims {
            let mut it = d.chars();
            let c = it.next()?;
            if it.next().is_some() {
                return None;
            }
            let c = Utf8Char::new(c);
            if !chars.contains(&c) {
                chars.push(c);
            }
            let b = d.as_bytes()[0];
            if !lead.contains(&b) {
                lead.push(b);
            }
        }
        if lead.len() > 3 {
            return None;
        }
        Some(Matcher::Chars { lead, chars })
    }

    /// Whether this splitter has no delimiter at all (then [`split`](Self::split) yields the
    /// whole text as one [`Piece::Text`]).
    pub fn is_empty(&self) -> bool {
        matches!(self.matcher, Matcher::Nothing)
    }

    /// Splits `text`: `Text, Delimiter, Text, ..., Text`, always starting and ending with a
    /// (possibly empty) [`Piece::Text`], exactly the list Python's `re.split` with one capture
    /// group returns.
    pub fn split<'s, 't>(&'s self, text: &'t str) -> Split<'s, 't> {
        let matches = match &self.matcher {
            Matcher::Nothing => Matches::Nothing,
            Matcher::Chars { lead, chars } => Matches::Chars {
                text,
                chars,
                hits: LeadHits::new(lead, text.as_bytes()),
            },
            // One FindIter for the whole text: calling `find` per match re-enters the search
            // setup each time and measured up to 1.6x slower on short pieces.
            Matcher::Automaton(ac) => Matches::Automaton(ac.find_iter(text)),
            Matcher::Ordered(delims) => Matches::Ordered {
                text,
                delims,
                from: 0,
            },
        };
        Split {
            text,
            matches,
            pos: 0,
            pending: None,
            done: false,
        }
    }

    /// Calls `f` with each [`Piece::Text`] of [`split`](Self::split), in order (empty ones
    /// included), skipping the delimiters.
    ///
    /// The same pieces as filtering `split`, in one loop: with single-character delimiters
    /// (RAGFlow's default) the scan state then stays in registers, where the nested
    /// `Split`/`Matches` iterators reloaded it at every delimiter, which doubled the cost of
    /// splitting Chinese text.
    pub fn for_each_text<'t>(&self, text: &'t str, mut f: impl FnMut(&'t str)) {
        match &self.matcher {
            Matcher::Chars { lead, chars } => {
                let bytes = text.as_bytes();
                let mut pos = 0;
                for at in LeadHits::new(lead, bytes) {
                    if let Some(len) = Utf8Char::any_at(chars, bytes, at) {
                        f(&text[pos..at]);
                        pos = at + len;
                    }
                }
                f(&text[pos..]);
            }
            _ => {
                for piece in self.split(text) {
                    if let Piece::Text(t) = piece {
                        f(t);
                    }
                }
            }
        }
    }
}

/// The delimiter occurrences of one text, leftmost first, non-overlapping.
enum Matches<'s, 't> {
    Nothing,
    Chars {
        text: &'t str,
        chars: &'s [Utf8Char],
        hits: LeadHits<'t>,
    },
    Automaton(aho_corasick::FindIter<'s, 't>),
    Ordered {
        text: &'t str,
        delims: &'s [String],
        from: usize,
    },
}

impl Iterator for Matches<'_, '_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        match self {
            Matches::Nothing => None,
            Matches::Chars { text, chars, hits } => {
                let bytes = text.as_bytes();
                for at in hits.by_ref() {
                    // `at` is a char boundary: lead bytes are never continuation bytes.
                    if let Some(len) = Utf8Char::any_at(chars, bytes, at) {
                        return Some((at, at + len));
                    }
                }
                None
            }
            Matches::Automaton(it) => it.next().map(|m| (m.start(), m.end())),
            Matches::Ordered { text, delims, from } => {
                let (at, len) = ordered_find(text, delims, *from)?;
                *from = at + len;
                Some((at, at + len))
            }
        }
    }
}

/// One delimiter character as its UTF-8 bytes packed little-endian into a `u32`, so that a
/// candidate position is checked with one mask and compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Utf8Char {
    word: u32,
    mask: u32,
    len: usize,
}

impl Utf8Char {
    fn new(c: char) -> Self {
        let mut buf = [0u8; 4];
        let len = c.encode_utf8(&mut buf).len();
        let mask = u32::MAX >> (8 * (4 - len));
        Utf8Char {
            word: u32::from_le_bytes(buf) & mask,
            mask,
            len,
        }
    }

    /// The (up to) four bytes from `at`, little-endian, zero past the end of `bytes`.
    #[inline]
    fn word_at(bytes: &[u8], at: usize) -> u32 {
        match bytes.get(at..at + 4) {
            Some(w) => u32::from_le_bytes(w.try_into().expect("4 bytes")),
            None => bytes[at..]
                .iter()
                .rev()
                .fold(0, |w, &b| w << 8 | u32::from(b)),
        }
    }

    /// The byte length of the one of `chars` that occurs at byte `at` of `bytes`, if any
    /// (the check at every lead-byte hit).
    #[inline]
    fn any_at(chars: &[Utf8Char], bytes: &[u8], at: usize) -> Option<usize> {
        let word = Self::word_at(bytes, at);
        chars.iter().find(|c| c.is_at(word)).map(|c| c.len)
    }

    /// Whether this character's bytes start the `word` read by [`word_at`](Self::word_at).
    /// (A zero past the end never completes a multi-byte character: its bytes are all
    /// non-zero.)
    #[inline]
    fn is_at(&self, word: u32) -> bool {
        word & self.mask == self.word
    }
}

/// Leftmost occurrence at or after byte `from`, the first delimiter in order winning at a
/// position: the definition the automaton implements, spelled out.
fn ordered_find(text: &str, delims: &[String], from: usize) -> Option<(usize, usize)> {
    text[from..].char_indices().find_map(|(i, _)| {
        let at = from + i;
        delims
            .iter()
            .find(|d| text[at..].starts_with(d.as_str()))
            .map(|d| (at, d.len()))
    })
}

/// Positions of any of up to three lead bytes, in order.
///
/// The text is read 64 bytes at a time into a bit mask of the lead bytes it holds (SSE2 on
/// x86_64: three compares and a movemask per 16 bytes), and each hit is then popped off the
/// mask. The delimiters of real text are dense (Chinese has one every ~30 bytes, and `，`
/// shares `。`'s lead byte), and restarting `memchr3` at every hit cost about 170
/// instructions a hit; popping a bit costs a handful.
struct LeadHits<'t> {
    hay: &'t [u8],
    /// The lead bytes, the last one repeated to fill three places.
    lead: [u8; 3],
    /// Start of the 64-byte block `mask` describes.
    block: usize,
    /// Hits in that block not yet returned, bit `i` for byte `block + i`.
    mask: u64,
}

impl<'t> LeadHits<'t> {
    fn new(lead: &[u8], hay: &'t [u8]) -> Self {
        let last = *lead
            .last()
            .expect("a Chars matcher has at least one delimiter");
        let at = |i: usize| lead.get(i).copied().unwrap_or(last);
        let mut hits = LeadHits {
            hay,
            lead: [at(0), at(1), at(2)],
            block: 0,
            mask: 0,
        };
        hits.mask = hits.block_mask(0);
        hits
    }

    /// The hit mask of the (up to) 64 bytes from `from`.
    #[inline]
    fn block_mask(&self, from: usize) -> u64 {
        match self.hay.get(from..from + 64) {
            Some(block) => lanes64(block.try_into().expect("64 bytes"), self.lead),
            None => {
                let [a, b, c] = self.lead;
                self.hay
                    .get(from..)
                    .unwrap_or_default()
                    .iter()
                    .enumerate()
                    .filter(|&(_, &x)| x == a || x == b || x == c)
                    .fold(0, |m, (i, _)| m | 1 << i)
            }
        }
    }
}

/// Bit `i` set where `block[i]` is one of `lead`.
#[cfg(target_arch = "x86_64")]
#[inline]
fn lanes64(block: &[u8; 64], lead: [u8; 3]) -> u64 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    // SAFETY: SSE2 is part of the x86_64 baseline, so every target this compiles for has
    // these instructions; each `loadu` reads one 16-byte lane of `block`, in bounds, and
    // has no alignment requirement.
    unsafe {
        let [a, b, c] = lead.map(|x| _mm_set1_epi8(x as i8));
        let mut mask = 0u64;
        for (i, lane) in block.chunks_exact(16).enumerate() {
            let v = _mm_loadu_si128(lane.as_ptr().cast::<__m128i>());
            let hit = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, a), _mm_cmpeq_epi8(v, b)),
                _mm_cmpeq_epi8(v, c),
            );
            mask |= u64::from(_mm_movemask_epi8(hit) as u16) << (16 * i);
        }
        mask
    }
}

/// Bit `i` set where `block[i]` is one of `lead` (portable form).
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn lanes64(block: &[u8; 64], lead: [u8; 3]) -> u64 {
    let [a, b, c] = lead;
    block.iter().enumerate().fold(0, |m, (i, &x)| {
        m | u64::from(x == a || x == b || x == c) << i
    })
}

impl Iterator for LeadHits<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            self.block += 64;
            if self.block >= self.hay.len() {
                return None;
            }
            self.mask = self.block_mask(self.block);
        }
        let i = self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(self.block + i)
    }
}

/// Iterator returned by [`DelimiterSplitter::split`].
pub struct Split<'s, 't> {
    text: &'t str,
    matches: Matches<'s, 't>,
    pos: usize,
    pending: Option<&'t str>,
    done: bool,
}

impl<'t> Iterator for Split<'_, 't> {
    type Item = Piece<'t>;

    fn next(&mut self) -> Option<Piece<'t>> {
        if let Some(d) = self.pending.take() {
            return Some(Piece::Delimiter(d));
        }
        if self.done {
            return None;
        }
        match self.matches.next() {
            Some((s, e)) => {
                let piece = &self.text[self.pos..s];
                self.pending = Some(&self.text[s..e]);
                self.pos = e;
                Some(Piece::Text(piece))
            }
            None => {
                self.done = true;
                Some(Piece::Text(&self.text[self.pos..]))
            }
        }
    }
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
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    fn split_all(delims: &[&str], text: &str) -> Vec<Piece<'static>> {
        let sp = DelimiterSplitter::new(&s(delims));
        sp.split(text)
            .map(|p| match p {
                Piece::Text(t) => Piece::Text(Box::leak(t.to_string().into_boxed_str())),
                Piece::Delimiter(t) => Piece::Delimiter(Box::leak(t.to_string().into_boxed_str())),
            })
            .collect()
    }

    fn texts(pieces: &[Piece<'_>]) -> Vec<String> {
        pieces.iter().map(|p| p.as_str().to_string()).collect()
    }

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
    fn split_shape_matches_re_split() {
        let p = split_all(&["\n"], "a\nb\n");
        assert_eq!(texts(&p), s(&["a", "\n", "b", "\n", ""]));
        assert!(matches!(p[1], Piece::Delimiter(_)));
        assert_eq!(texts(&split_all(&["\n"], "")), s(&[""]));
        assert_eq!(texts(&split_all(&[], "abc")), s(&["abc"]));
        assert_eq!(texts(&split_all(&["a"], "aa")), s(&["", "a", "", "a", ""]));
    }

    #[test]
    fn split_longest_first_priority() {
        assert_eq!(
            texts(&split_all(&["##", "#"], "a###b")),
            s(&["a", "##", "", "#", "b"])
        );
        // priority order, not length, decides (Python alternation)
        assert_eq!(
            texts(&split_all(&["#", "##"], "a##b")),
            s(&["a", "#", "", "#", "b"])
        );
    }

    #[test]
    fn split_metacharacters_literal() {
        assert_eq!(
            texts(&split_all(&[".", "|", "*"], "a.b|c*d")),
            s(&["a", ".", "b", "|", "c", "*", "d"])
        );
        assert_eq!(
            texts(&split_all(&["\\d+"], "1\\d+2")),
            s(&["1", "\\d+", "2"])
        );
        assert_eq!(
            texts(&split_all(&["(a|b)"], "x(a|b)ya")),
            s(&["x", "(a|b)", "ya"])
        );
    }

    #[test]
    fn char_fast_path_agrees_with_automaton() {
        let delims = s(&["\n", "。", "；", "！", "？"]);
        let fast = DelimiterSplitter::new(&delims);
        assert!(matches!(fast.matcher, Matcher::Chars { .. }));
        let ac = DelimiterSplitter {
            matcher: Matcher::Automaton(
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::LeftmostFirst)
                    .build(&delims)
                    .unwrap(),
            ),
        };
        let text = "日本語。テキスト；ok！\n？ああ。。e\u{3000}\u{301c}end";
        let a: Vec<_> = fast.split(text).collect();
        let b: Vec<_> = ac.split(text).collect();
        assert_eq!(a, b);
        assert_eq!(a.len(), 15); // 7 delimiters
    }

    /// Texts of every length across several 64-byte blocks, built from delimiters, their
    /// lead-byte lookalikes (`，` and `、` share lead bytes with `；` and `。`), ASCII and other
    /// multi-byte characters, so hits land on every lane and block boundary.
    fn block_texts() -> Vec<String> {
        const ALPHABET: &[&str] = &[
            "\n", "。", "；", "！", "？", "，", "、", "「", "a", "b", " ", "中", "é", "😀", "\r",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut out = Vec::new();
        for len in 0..200 {
            for _ in 0..4 {
                let mut t = String::new();
                while t.len() < len {
                    t.push_str(ALPHABET[next() as usize % ALPHABET.len()]);
                }
                out.push(t);
            }
        }
        out
    }

    #[test]
    fn lead_hits_are_every_lead_byte_in_order() {
        for lead in [&b"\n"[..], b"\n\xe3", b"\n\xe3\xef"] {
            for text in block_texts() {
                let hay = text.as_bytes();
                let want: Vec<usize> = (0..hay.len()).filter(|&i| lead.contains(&hay[i])).collect();
                let got: Vec<usize> = LeadHits::new(lead, hay).collect();
                assert_eq!(got, want, "{lead:?} {text:?}");
            }
        }
    }

    #[test]
    fn for_each_text_is_split_without_delimiters() {
        for delims in [
            &["\n", "。", "；", "！", "？"][..],
            &["\n"],
            &["。", "a"],
            &["😀", "\n", "é"],
            &["\n\n", "。"], // not single characters: the automaton path
        ] {
            let sp = DelimiterSplitter::new(&s(delims));
            for text in block_texts() {
                let want: Vec<&str> = sp
                    .split(&text)
                    .filter_map(|p| match p {
                        Piece::Text(t) => Some(t),
                        Piece::Delimiter(_) => None,
                    })
                    .collect();
                let mut got = Vec::new();
                sp.for_each_text(&text, |t| got.push(t));
                assert_eq!(got, want, "{delims:?} {text:?}");
            }
        }
    }

    #[test]
    fn ordered_fallback_agrees_with_automaton() {
        let delims = s(&["abc", "ab", "b", "🚀", "\n"]);
        let ac = DelimiterSplitter::new(&delims);
        assert!(matches!(ac.matcher, Matcher::Automaton(_)));
        let ordered = DelimiterSplitter {
            matcher: Matcher::Ordered(delims.clone()),
        };
        for text in ["", "abcab b🚀\nxab", "aabcc🚀🚀", "é\n\nabbc"] {
            let a: Vec<_> = ac.split(text).collect();
            let b: Vec<_> = ordered.split(text).collect();
            assert_eq!(a, b, "{text:?}");
        }
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
