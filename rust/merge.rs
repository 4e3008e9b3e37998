//! RAGFlow's `naive_merge`: split sections at delimiters and merge the pieces into chunks of
//! about `chunk_token_num` tokens, byte for byte as RAGFlow does it, for each release family.
//!
//! # Families ([`Compat`])
//!
//! * **v0.27** ([`Compat::V27`]): every section (CR/CRLF normalised to LF) is split at every
//!   delimiter; each non-empty piece becomes the paragraph `"\n" + piece`; paragraphs are
//!   grouped by [`Strategy`]; each chunk is its paragraphs concatenated, a paragraph's `pos`
//!   appended after it unless the text so far already contains it; then, if
//!   `overlapped_percent > 0`, every chunk after the first is prefixed with the tail of the
//!   previous *output* chunk. Counts are per paragraph and summed; the joined chunk is never
//!   recounted.
//! * **v0.20–v0.26** ([`Compat::V22`], [`Compat::V23`], [`Compat::V26`]), RAGFlow's `add_chunk`
//!   loop: the output starts with an extra `""` chunk; pieces are added one by one; a new chunk
//!   opens when the running count exceeds `chunk_token_num * (100 - p) / 100`, starting with the
//!   overlap prefix; `pos` is dropped for pieces under 8 tokens. They differ in when a section is
//!   split (v0.22/v0.26: only sections of at least `chunk_token_num` tokens; v0.23: never), in
//!   how the pattern's pieces are filtered (v0.22's `re.match` quirk), in whether the new chunk
//!   is recounted with its prefix (v0.26 only), and in custom mode (none in v0.22).
//!
//! # `Chunk::sources`
//!
//! For every piece (paragraph) that went into a chunk, in the order it went in, the index of
//! the section it came from; duplicates are kept (three paragraphs of section 4 give
//! `[4, 4, 4]`). `naive_merge_with_images` folds each paragraph's image into its chunk with
//! `concat_img` in exactly this order, skipping `None` images, so the Python side can rebuild
//! the images from `sources` alone:
//!
//! * v0.27 default mode: the paragraphs of the group. The overlap prefix is text only and adds
//!   no source.
//! * custom mode (v0.23, v0.26, v0.27): one segment per chunk, so one source.
//! * `add_chunk` families: the leading `""` chunk has no source (its image is `None`); every
//!   other chunk lists the piece that opened it, then each piece merged into it.
//!
//! # Performance notes
//!
//! Each paragraph is counted exactly once. With the built-in encodings `"\n" + piece` is
//! counted as `1 + count(piece)` in place whenever that is exact (the piece does not start with
//! whitespace; see `tokenizer::session`); other paragraphs and other counters go through one
//! reusable `"\n" + piece` buffer ([`TokenCounter::count_after_newline`]). v0.27 counts all
//! of a call's paragraphs in one [`TokenCounter::count_each_after_newline`] (one session with
//! the tokenizer's memo: paragraphs are often single short lines), where whole short
//! paragraphs are memoised as well (many lines repeat: fences, table rules, headings). Chunk
//! text is built once per chunk with its final capacity (v0.27) or grown in place
//! (`add_chunk` families, which append like RAGFlow). "Does the chunk already contain this
//! `pos`?" is answered once per run of paragraphs that share a `pos`: chunk text only grows, so
//! once a `pos` is in it, it stays in it. Code-point lengths are computed only for the overlap
//! cut. No regex runs in the hot path (see [`crate::delimiters::DelimiterSplitter`]).

use std::borrow::Cow;
use std::ops::Range;

use crate::counter::TokenCounter;
use crate::delimiters::{
    custom_delimiters, has_wrapped_delimiter, legacy_delimiters, normalize_newlines,
    split_every_char, splitter_for_field, v22_is_skipped, DelimiterSplitter, Piece,
};
use crate::positions::remove_tag;
use crate::splitters::CharOffsets;

/// How v0.27 groups paragraphs (RAGFlow's `MergeStrategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// `MergeStrategy.OVER_CAP`, the default: a paragraph joins the current group unless the
    /// group's running total already exceeds `chunk_token_num * (100 - p) / 100`, so a group can
    /// overflow by one paragraph. A paragraph of more than `chunk_token_num` tokens stands alone.
    #[default]
    OverCap,
    /// `MergeStrategy.UNDER_CAP`: a paragraph joins only while `running + size <=
    /// chunk_token_num`; the overlap does not affect grouping. Oversized paragraphs stand alone.
    UnderCap,
    /// `MergeStrategy.HARD_CAP`, a ragchunk extension (not in RAGFlow): **no chunk's text, as
    /// returned, counts more than `chunk_token_num` tokens** — overlap prefix and `pos` tags
    /// included, measured by recounting the final string.
    ///
    /// 1. Paragraphs come from the same delimiter split as the other strategies. A paragraph
    ///    that does not fit alone (`"\n" + piece` plus its `pos`) is cut into fragments that
    ///    do: at sentence ends (`.!?` followed by whitespace; `。！？` anywhere; the whitespace
    ///    stays with the sentence before it), then after whitespace runs, then between code
    ///    points — never inside a position tag `@@...##` of the text. Consecutive units are
    ///    packed greedily. Fragments are sub-slices covering the piece exactly; each becomes a
    ///    paragraph of its own (so it gets its own `"\n"`).
    /// 2. Paragraphs are grouped greedily; every candidate chunk is rebuilt and recounted.
    /// 3. With `overlapped_percent > 0` the v0.27 prefix is computed as usual, then only its
    ///    longest tail that still fits in front of the chunk is kept (possibly none).
    ///
    /// The one exception: a single code point or in-text position tag (with the `"\n"` before
    /// it and its section's `pos` after it) that is over the cap by itself stands alone.
    /// Probing uses galloping and bisection on verified counts; see [`gallop`]. Custom mode
    /// (a backtick token in the field) ignores the strategy, as RAGFlow does; the Python facade
    /// refuses HARD_CAP with such a field.
    HardCap,
}

/// Which RAGFlow release family to reproduce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compat {
    /// v0.27.x.
    #[default]
    V27,
    /// v0.26.x.
    V26,
    /// v0.23 – v0.25.
    V23,
    /// v0.20 – v0.22.
    V22,
}

/// The arguments of `naive_merge` besides the sections.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MergeOptions<'a> {
    /// Target size in tokens (RAGFlow default 128). Compared as a float, as Python does.
    pub chunk_token_num: f64,
    /// The delimiter field (RAGFlow default `"\n。；！？"`).
    pub delimiter: &'a str,
    /// Overlap between consecutive chunks, in percent (RAGFlow default 0).
    pub overlapped_percent: f64,
    /// Grouping strategy; only v0.27 has one.
    pub strategy: Strategy,
    /// Release family.
    pub compat: Compat,
}

impl Default for MergeOptions<'_> {
    fn default() -> Self {
        MergeOptions {
            chunk_token_num: 128.0,
            delimiter: "\n。；！？",
            overlapped_percent: 0.0,
            strategy: Strategy::OverCap,
            compat: Compat::V27,
        }
    }
}

/// One input section: its text and its optional position tag.
///
/// `pos: None` is Python `None`, `Some("")` is `""`; RAGFlow treats both as "no tag". A plain
/// `str` section is `pos: None` (RAGFlow turns it into `(s, "")`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section<'a> {
    pub text: &'a str,
    pub pos: Option<&'a str>,
}

impl<'a> Section<'a> {
    /// A section without a position tag.
    pub fn text(text: &'a str) -> Self {
        Section { text, pos: None }
    }

    fn pos_str(&self) -> &'a str {
        self.pos.unwrap_or("")
    }
}

/// One output chunk and where its pieces came from (see the module docs for `sources`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Chunk {
    pub text: String,
    pub sources: Vec<usize>,
}

/// RAGFlow's `naive_merge` (and the text side of `naive_merge_with_images`), with the section
/// index of every piece in each chunk.
///
/// `sections` empty gives no chunks in every family. The counter is called on `"\n" + piece`
/// strings (and, depending on the family, on whole sections, on `prefix + "\n" + piece`, or on
/// custom-mode segments); its first error is returned.
///
/// # Mapping RAGFlow's Python arguments
///
/// * `sections` as one `str` is `[str]`, **except `""`**: RAGFlow tests `if not sections`
///   before wrapping, so `naive_merge("")` is `[]` in every family (not `["", "\n"]` or
///   `["\n"]`). Pass an empty slice for it.
/// * A `str` element is `Section { text, pos: None }`; a `(text, pos)` pair keeps its `pos`
///   (`None` and `""` behave the same everywhere).
/// * `naive_merge_with_images`: a `None` text, or a pair whose text is `None`, is text `""`;
///   empty `texts` or `len(texts) != len(images)` is `([], [])` without calling this. The
///   images are then folded per [`Chunk::sources`] (see the module docs).
pub fn naive_merge<C: TokenCounter>(
    sections: &[Section<'_>],
    opts: &MergeOptions<'_>,
    counter: &C,
) -> Result<Vec<Chunk>, C::Error> {
    run(sections, opts, counter, true)
}

/// [`naive_merge`] without the `sources` bookkeeping: just the chunk strings.
pub fn naive_merge_texts<C: TokenCounter>(
    sections: &[Section<'_>],
    opts: &MergeOptions<'_>,
    counter: &C,
) -> Result<Vec<String>, C::Error> {
    Ok(run(sections, opts, counter, false)?
        .into_iter()
        .map(|c| c.text)
        .collect())
}

/// Where each chunk of [`naive_merge_offsets`] comes from, as code-point offsets (Python
/// string indexes) into the **original** text, CR/CRLF included.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChunkOffsets {
    /// Start of the chunk's first piece.
    pub starts: Vec<i64>,
    /// End of the chunk's last piece (exclusive); delimiters between its pieces lie inside.
    pub ends: Vec<i64>,
    /// Code points of the overlap prefix at the start of the chunk text (not in the span).
    pub prefix_lens: Vec<i64>,
}

/// Spans of the chunks `naive_merge` (v0.27) makes from one plain string, without the strings.
///
/// Chunk `i` is `prefix + "\n" + piece + "\n" + piece ...`: `text[starts[i]..ends[i]]` (code
/// points) runs from the first piece's start to the last piece's end, delimiters between them
/// included; the chunk holds the pieces of that span (delimiters removed, CRLF/CR as LF) each
/// after a `"\n"`, preceded by `prefix_lens[i]` code points of overlap prefix. With
/// [`Strategy::HardCap`] a piece may be cut into fragments, each after its own `"\n"`. In
/// custom mode (a backtick token in the field) every chunk is one segment. `opts.compat` is
/// ignored: the older families have no such spans (they do not split every section).
pub fn naive_merge_offsets<C: TokenCounter>(
    text: &str,
    opts: &MergeOptions<'_>,
    counter: &C,
) -> Result<ChunkOffsets, C::Error> {
    if text.is_empty() {
        return Ok(ChunkOffsets::default()); // RAGFlow: `if not sections: return []`
    }
    let sections = [Section::text(text)];
    let mut counting = Counting::new(counter);
    let mut spans = Vec::new();
    if has_wrapped_delimiter(opts.delimiter) {
        custom_mode(
            &sections,
            &splitter_for_field(opts.delimiter),
            &mut counting,
            Flavor::V27,
            false,
            Some(&mut spans),
        )?;
    } else {
        v27_default(&sections, opts, &mut counting, false, Some(&mut spans))?;
    }
    // Start, end, start, end...: in order for every mode, so one walk converts them all.
    let bounds: Vec<usize> = spans.iter().flat_map(|s| [s.start, s.end]).collect();
    let chars = to_original_chars(text, &bounds);
    Ok(ChunkOffsets {
        starts: chars.iter().step_by(2).copied().collect(),
        ends: chars.iter().skip(1).step_by(2).copied().collect(),
        prefix_lens: spans.iter().map(|s| s.prefix_chars as i64).collect(),
    })
}

/// Code-point offsets into `orig` of byte offsets into `normalize_newlines(orig)`: one walk
/// for non-decreasing offsets (restarted when one goes back). A `"\r\n"` is one byte of the
/// normalised text and two code points of the original; a lone `"\r"` is one of each.
///
/// Without a `"\r"` the two texts are the same bytes, and the code points before a byte
/// offset are the bytes before it that do not continue a character, which the splitters'
/// [`CharOffsets`] counts, vectorised (the byte-by-byte walk below took ~10% of
/// `naive_merge_offsets`).
fn to_original_chars(orig: &str, offsets: &[usize]) -> Vec<i64> {
    let b = orig.as_bytes();
    if memchr::memchr(b'\r', b).is_none() {
        let mut chars = CharOffsets::new(orig);
        return offsets
            .iter()
            .map(|&t| chars.char_offset(t) as i64)
            .collect();
    }
    let (mut ob, mut nb, mut cp) = (0usize, 0usize, 0usize);
    let mut out = Vec::with_capacity(offsets.len());
    for &t in offsets {
        if t < nb {
            (ob, nb, cp) = (0, 0, 0);
        }
        while nb < t {
            if b[ob] == b'\r' && b.get(ob + 1) == Some(&b'\n') {
                ob += 2;
                cp += 2;
                nb += 1;
            } else {
                let len = match b[ob] {
                    0..=0x7f => 1,
                    0xc0..=0xdf => 2,
                    0xe0..=0xef => 3,
                    _ => 4,
                };
                ob += len;
                nb += len;
                cp += 1;
            }
        }
        out.push(cp as i64);
    }
    out
}

fn run<C: TokenCounter>(
    sections: &[Section<'_>],
    opts: &MergeOptions<'_>,
    counter: &C,
    want_sources: bool,
) -> Result<Vec<Chunk>, C::Error> {
    if sections.is_empty() {
        return Ok(Vec::new());
    }
    let mut counting = Counting::new(counter);
    match opts.compat {
        Compat::V27 => {
            if has_wrapped_delimiter(opts.delimiter) {
                custom_mode(
                    sections,
                    &splitter_for_field(opts.delimiter),
                    &mut counting,
                    Flavor::V27,
                    want_sources,
                    None,
                )
            } else {
                v27_default(sections, opts, &mut counting, want_sources, None)
            }
        }
        Compat::V26 | Compat::V23 if has_wrapped_delimiter(opts.delimiter) => custom_mode(
            sections,
            &DelimiterSplitter::new(&custom_delimiters(opts.delimiter)),
            &mut counting,
            Flavor::Legacy,
            want_sources,
            None,
        ),
        Compat::V26 | Compat::V23 | Compat::V22 => {
            add_chunk_family(sections, opts, &mut counting, want_sources)
        }
    }
}

/// Counts through the caller's counter, keeping one buffer for the `"\n" + piece` strings
/// RAGFlow counts (when the counter needs them built), so that counting a piece allocates
/// nothing once the buffer has grown.
struct Counting<'c, C> {
    counter: &'c C,
    buf: String,
}

impl<'c, C: TokenCounter> Counting<'c, C> {
    fn new(counter: &'c C) -> Self {
        Counting {
            counter,
            buf: String::new(),
        }
    }

    /// `num_tokens_from_string("\n" + piece)`. The built-in encodings count `piece` in place
    /// and add 1 for the `"\n"` when that is exact; `buf` is only the fallback's copy.
    fn newline_piece(&mut self, piece: &str) -> Result<usize, C::Error> {
        self.counter.count_after_newline(piece, &mut self.buf)
    }

    fn text(&self, text: &str) -> Result<usize, C::Error> {
        self.counter.count(text)
    }
}

/// Python `haystack.find(needle) >= 0`.
fn contains(haystack: &str, needle: &str) -> bool {
    memchr::memmem::find(haystack.as_bytes(), needle.as_bytes()).is_some()
}

/// RAGFlow's overlap prefix, pushed onto `dst`: the tail of `remove_tag(prev)` starting at
/// code point `int(len(v) * (100 - p) / 100.0)`, with Python slice rules for the start index
/// (a negative start, from `p > 100`, counts from the end; beyond the end gives `""`).
///
/// The float arithmetic is Python's: `len * (100 - p)` then `/ 100.0`, truncated toward zero.
/// A NaN percentage (Python would raise) gives an empty prefix.
fn push_overlap_prefix(dst: &mut String, prev: &str, p: f64) {
    let v = remove_tag(prev);
    if v.is_empty() {
        return;
    }
    let n = v.chars().count();
    let x = (n as f64) * (100.0 - p) / 100.0;
    if x.is_nan() {
        return;
    }
    let mut start = x.trunc();
    if start < 0.0 {
        start += n as f64;
        if start < 0.0 {
            start = 0.0;
        }
    }
    if start >= n as f64 {
        return;
    }
    let take = n - start as usize; // 1..=n code points from the end
    let off = v.char_indices().rev().nth(take - 1).map_or(0, |(i, _)| i);
    dst.push_str(&v[off..]);
}

/// The threshold every family compares running counts against:
/// `chunk_token_num * (100 - overlapped_percent) / 100.0`, evaluated in Python's order.
fn threshold(opts: &MergeOptions<'_>) -> f64 {
    opts.chunk_token_num * (100.0 - opts.overlapped_percent) / 100.0
}

// ---------------------------------------------------------------------------------------------
// v0.27 default mode
// ---------------------------------------------------------------------------------------------

/// One v0.27 paragraph: `"\n" + text`, from section `sec`, of `tokens` tokens.
struct Paragraph<'t> {
    text: &'t str,
    sec: usize,
    tokens: usize,
}

/// Where one v0.27 chunk came from, for [`naive_merge_offsets`]: the section, the byte range
/// in that section's *normalised* text from its first piece's start to its last piece's end,
/// and the overlap prefix length in code points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    sec: usize,
    start: usize,
    end: usize,
    prefix_chars: usize,
}

/// Byte offset of `part` inside `whole` (`part` must be a sub-slice of `whole`).
fn offset_in(whole: &str, part: &str) -> usize {
    part.as_ptr() as usize - whole.as_ptr() as usize
}

fn v27_default<C: TokenCounter>(
    sections: &[Section<'_>],
    opts: &MergeOptions<'_>,
    counting: &mut Counting<'_, C>,
    want_sources: bool,
    mut spans: Option<&mut Vec<Span>>,
) -> Result<Vec<Chunk>, C::Error> {
    let splitter = splitter_for_field(opts.delimiter);
    // RAGFlow v0.27 normalises "\r\n" and lone "\r" in section text (not in pos) first.
    let texts: Vec<Cow<'_, str>> = sections
        .iter()
        .map(|s| normalize_newlines(s.text))
        .collect();
    // HARD_CAP measures whole chunks, never single paragraphs: skip the per-paragraph count.
    let hard = opts.strategy == Strategy::HardCap;

    let mut paras: Vec<Paragraph<'_>> = Vec::new();
    for (sec, text) in texts.iter().enumerate() {
        if splitter.is_empty() {
            // No delimiters: each section is one paragraph, "\n" for an empty section.
            paras.push(Paragraph {
                text,
                sec,
                tokens: 0,
            });
            continue;
        }
        // Delimiter text never enters a chunk; empty pieces are dropped.
        splitter.for_each_text(text, |t| {
            if !t.is_empty() {
                paras.push(Paragraph {
                    text: t,
                    sec,
                    tokens: 0,
                });
            }
        });
    }
    if !hard {
        // Every paragraph counted as `"\n" + text`, in one call (one memo session).
        let texts: Vec<&str> = paras.iter().map(|p| p.text).collect();
        let mut counts = Vec::with_capacity(texts.len());
        counting
            .counter
            .count_each_after_newline(&texts, &mut counts)?;
        for (p, n) in paras.iter_mut().zip(counts) {
            p.tokens = n;
        }
    }

    let groups = match opts.strategy {
        Strategy::OverCap => group_over_cap(&paras, opts.chunk_token_num, threshold(opts)),
        Strategy::UnderCap => group_under_cap(&paras, opts.chunk_token_num),
        Strategy::HardCap => {
            paras = hard_cap_fragments(paras, sections, opts.chunk_token_num, counting.counter)?;
            group_hard_cap(&paras, sections, opts.chunk_token_num, counting.counter)?
        }
    };

    let overlap = opts.overlapped_percent > 0.0;
    let mut out: Vec<Chunk> = Vec::with_capacity(groups.len());
    for g in groups {
        let group = &paras[g];
        let body: usize = group
            .iter()
            .map(|p| 1 + p.text.len() + sections[p.sec].pos_str().len())
            .sum();
        let mut text = String::new();
        // RAGFlow v0.27 adds the overlap after grouping, unconditionally, cut from the previous
        // chunk as output (its own prefix and pos tags included, tags then stripped).
        if overlap {
            if let Some(prev) = out.last() {
                push_overlap_prefix(&mut text, &prev.text, opts.overlapped_percent);
            }
        }
        let mut prefix_len = text.len();
        if hard {
            let mut b = String::with_capacity(body);
            push_body(&mut b, group, sections);
            prefix_len = shrink_prefix(&mut text, &b, opts.chunk_token_num, counting.counter)?;
            text.push_str(&b);
        } else {
            text.reserve_exact(body);
            // The pos check looks at the chunk as grouped, without the overlap prefix (RAGFlow
            // adds the prefix afterwards), so it must not see the prefix.
            push_body(&mut text, group, sections);
        }
        if let Some(spans) = spans.as_deref_mut() {
            let (first, last) = (&group[0], &group[group.len() - 1]);
            let whole = &texts[first.sec];
            spans.push(Span {
                sec: first.sec,
                start: offset_in(whole, first.text),
                end: offset_in(&texts[last.sec], last.text) + last.text.len(),
                prefix_chars: text[..prefix_len].chars().count(),
            });
        }
        let sources = if want_sources {
            group.iter().map(|p| p.sec).collect()
        } else {
            Vec::new()
        };
        out.push(Chunk { text, sources });
    }
    Ok(out)
}

/// Appends the v0.27 chunk body of `group` to `text`: each paragraph as `"\n" + piece`, its
/// section's `pos` after it unless the body so far (from where this call started, so never an
/// overlap prefix) already contains it.
fn push_body(text: &mut String, group: &[Paragraph<'_>], sections: &[Section<'_>]) {
    let body_start = text.len();
    let mut known: Option<&str> = None;
    for p in group {
        text.push('\n');
        text.push_str(p.text);
        let pos = sections[p.sec].pos_str();
        if !pos.is_empty() && known != Some(pos) {
            if !contains(&text[body_start..], pos) {
                text.push_str(pos);
            }
            known = Some(pos);
        }
    }
}

/// RAGFlow v0.27 `OVER_CAP` grouping (`_merge_paragraph_groups`), as ranges of paragraphs.
fn group_over_cap(paras: &[Paragraph<'_>], cap: f64, threshold: f64) -> Vec<Range<usize>> {
    let mut groups = Vec::new();
    let mut cur: Option<usize> = None;
    let mut cur_t = 0u64;
    for (i, p) in paras.iter().enumerate() {
        let pt = p.tokens as u64;
        if pt as f64 > cap {
            if let Some(s) = cur.take() {
                groups.push(s..i);
            }
            groups.push(i..i + 1);
            continue;
        }
        match cur {
            None => {
                cur = Some(i);
                cur_t = pt;
            }
            Some(s) if cur_t as f64 > threshold => {
                groups.push(s..i);
                cur = Some(i);
                cur_t = pt;
            }
            Some(_) => cur_t += pt,
        }
    }
    if let Some(s) = cur {
        groups.push(s..paras.len());
    }
    groups
}

/// RAGFlow v0.27 `UNDER_CAP` grouping (`_merge_paragraph_groups`), as ranges of paragraphs.
fn group_under_cap(paras: &[Paragraph<'_>], cap: f64) -> Vec<Range<usize>> {
    let mut groups = Vec::new();
    let mut cur: Option<usize> = None;
    let mut cur_t = 0u64;
    for (i, p) in paras.iter().enumerate() {
        let pt = p.tokens as u64;
        if let Some(s) = cur {
            if (cur_t + pt) as f64 <= cap {
                cur_t += pt;
                continue;
            }
            groups.push(s..i);
        }
        if pt as f64 > cap {
            groups.push(i..i + 1);
            cur = None;
        } else {
            cur = Some(i);
            cur_t = pt;
        }
    }
    if let Some(s) = cur {
        groups.push(s..paras.len());
    }
    groups
}

// ---------------------------------------------------------------------------------------------
// HARD_CAP (a ragchunk extension; v0.27 only)
// ---------------------------------------------------------------------------------------------
//
// Every rule below is mirrored line for line by `python/ragchunk/_pure/merge.py` (the
// backends must agree byte for byte), so the rules are spelled out rather than borrowed from
// `char::is_whitespace` or a regex.

/// Whitespace for sentence and word boundaries: a fixed set, so that both backends agree
/// (Rust's `char::is_whitespace` and Python's `str.isspace` differ on U+001C–U+001F).
fn is_ws(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | '\u{85}' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}' | '\u{2028}' | '\u{2029}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

/// Sentence terminators. After an ASCII one a sentence ends only where whitespace follows
/// (`3.14`, `e.g.x` stay whole); after a full-width one it always ends.
fn is_term(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '。' | '！' | '？')
}

fn is_cjk_term(c: char) -> bool {
    matches!(c, '。' | '！' | '？')
}

/// An indivisible unit of text: one code point, or a whole position tag `@@[\t0-9.-]+##`
/// found in the text (never cut, so `remove_tag` still finds every tag of the input).
#[derive(Debug, Clone, Copy)]
struct Atom {
    start: usize,
    end: usize,
    /// `None` for a position tag (neither whitespace nor a terminator).
    ch: Option<char>,
}

/// Byte length of a position tag starting at `s` (the `remove_tag` pattern), if any.
fn tag_len(s: &[u8]) -> Option<usize> {
    let body = s.strip_prefix(b"@@")?;
    let n = body
        .iter()
        .take_while(|&&b| matches!(b, b'\t' | b'0'..=b'9' | b'.' | b'-'))
        .count();
    (n > 0 && body[n..].starts_with(b"##")).then_some(n + 4)
}

fn atoms(piece: &str) -> Vec<Atom> {
    let bytes = piece.as_bytes();
    let mut out = Vec::with_capacity(piece.len());
    let mut i = 0;
    while i < bytes.len() {
        if let Some(n) = tag_len(&bytes[i..]) {
            out.push(Atom {
                start: i,
                end: i + n,
                ch: None,
            });
            i += n;
            continue;
        }
        let c = piece[i..]
            .chars()
            .next()
            .expect("i is a char boundary below len");
        out.push(Atom {
            start: i,
            end: i + c.len_utf8(),
            ch: Some(c),
        });
        i += c.len_utf8();
    }
    out
}

/// How finely an oversized paragraph is cut, coarsest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    /// After a run of terminators and the whitespace after it.
    Sentence,
    /// After each run of whitespace.
    Word,
    /// Between atoms (code points; position tags whole).
    Atom,
}

/// Splits `atoms` (a paragraph's atoms `lo..hi`) into consecutive units at `level`, as ranges
/// of atom indexes covering `lo..hi` exactly.
fn units(atoms: &[Atom], lo: usize, hi: usize, level: Level) -> Vec<Range<usize>> {
    let ws = |i: usize| atoms[i].ch.is_some_and(is_ws);
    let term = |i: usize| atoms[i].ch.is_some_and(is_term);
    let mut out = Vec::new();
    if level == Level::Atom {
        out.extend((lo..hi).map(|i| i..i + 1));
        return out;
    }
    let mut start = lo;
    let mut i = lo;
    while i < hi {
        let boundary_run = if level == Level::Sentence {
            term(i)
        } else {
            ws(i)
        };
        if !boundary_run {
            i += 1;
            continue;
        }
        let mut j = i;
        if level == Level::Sentence {
            while j < hi && term(j) {
                j += 1;
            }
        }
        let cjk = level == Level::Sentence && atoms[j - 1].ch.is_some_and(is_cjk_term);
        let mut k = j;
        while k < hi && ws(k) {
            k += 1;
        }
        // `i > start`: a unit never ends after nothing but terminators/whitespace (leading
        // whitespace stays with the word after it).
        if k < hi && i > start && (k > j || cjk || level == Level::Word) {
            out.push(start..k);
            start = k;
        }
        i = k.max(i + 1);
    }
    if start < hi {
        out.push(start..hi);
    }
    out
}

/// The largest `k` in `lo..=n` with `fits(k)`, given that `fits(lo)` holds: probe `lo + 1`,
/// `lo + 3`, `lo + 7`, ... until one fails, then bisect. Token counts are not monotone in the
/// text length, so this is "a long prefix that was verified to fit", not "the longest one";
/// both backends probe the same `k`s and so agree. Galloping keeps the counted text near the
/// size of the answer (a 100k-character paragraph is never counted whole per fragment).
fn gallop<E>(
    mut lo: usize,
    n: usize,
    mut fits: impl FnMut(usize) -> Result<bool, E>,
) -> Result<usize, E> {
    let mut step = 1;
    let mut hi = loop {
        if lo >= n {
            return Ok(n);
        }
        let probe = (lo + step).min(n);
        if fits(probe)? {
            lo = probe;
            step *= 2;
        } else {
            break probe;
        }
    };
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

/// [`gallop`] from an estimate: the `k` in `lo..=n` (with `fits(lo)` known, never re-probed)
/// found by probing `k0` first, galloping up from it when it fits, otherwise galloping down
/// (`k0 - 1`, `k0 - 2`, `k0 - 4`, ...) to one that fits and bisecting. A good estimate costs
/// one or two counts instead of gallop's ~2·log2(k). Measured on the 21M-character corpus
/// (cap 128, overlap 25%, release build, 2 shared cores): plain galloping made HARD_CAP 7.3x
/// the time of OVER_CAP, estimates 5.2x (2.1x without overlap; the overlap prefix needs its
/// own recounts). The results are whatever these probes find, identically in both backends.
fn settle<E>(
    lo: usize,
    k0: usize,
    n: usize,
    mut fits: impl FnMut(usize) -> Result<bool, E>,
) -> Result<usize, E> {
    if k0 <= lo {
        return gallop(lo, n, fits);
    }
    if fits(k0)? {
        return gallop(k0, n, fits);
    }
    let mut hi = k0;
    let mut step = 1;
    let mut good = loop {
        let probe = hi.saturating_sub(step).max(lo);
        if probe == lo || fits(probe)? {
            break probe;
        }
        hi = probe;
        step *= 2;
    };
    while hi - good > 1 {
        let mid = good + (hi - good) / 2;
        if fits(mid)? {
            good = mid;
        } else {
            hi = mid;
        }
    }
    Ok(good)
}

fn within<C: TokenCounter>(counter: &C, cap: f64, text: &str) -> Result<bool, C::Error> {
    Ok(counter.count(text)? as f64 <= cap)
}

/// The tokens of the chunk `frag` alone makes: `"\n" + frag`, then `pos` unless the chunk
/// already contains it, exactly as [`push_body`] would build it.
fn fragment_count<C: TokenCounter>(
    counter: &C,
    buf: &mut String,
    frag: &str,
    pos: &str,
) -> Result<usize, C::Error> {
    buf.clear();
    buf.push('\n');
    buf.push_str(frag);
    if !pos.is_empty() && !contains(buf, pos) {
        buf.push_str(pos);
    }
    counter.count(buf)
}

fn fragment_fits<C: TokenCounter>(
    counter: &C,
    cap: f64,
    buf: &mut String,
    frag: &str,
    pos: &str,
) -> Result<bool, C::Error> {
    Ok(fragment_count(counter, buf, frag, pos)? as f64 <= cap)
}

/// Cuts atoms `span` of `piece` into fragments (byte ranges of `piece`) that each fit alone,
/// at the coarsest `level` that has boundaries, packing consecutive units greedily.
#[allow(clippy::too_many_arguments)]
fn pack<C: TokenCounter>(
    counter: &C,
    cap: f64,
    piece: &str,
    pos: &str,
    atoms: &[Atom],
    span: Range<usize>,
    level: Level,
    buf: &mut String,
    out: &mut Vec<Range<usize>>,
) -> Result<(), C::Error> {
    let us = units(atoms, span.start, span.end, level);
    let bytes = |a: usize, b: usize| atoms[a].start..atoms[b - 1].end;
    let mut i = 0;
    while i < us.len() {
        let u = us[i].clone();
        if !fragment_fits(counter, cap, buf, &piece[bytes(u.start, u.end)], pos)? {
            match level {
                Level::Sentence => pack(counter, cap, piece, pos, atoms, u, Level::Word, buf, out)?,
                Level::Word => pack(counter, cap, piece, pos, atoms, u, Level::Atom, buf, out)?,
                // A single atom over the cap: the one documented exception, it stands alone.
                Level::Atom => out.push(bytes(u.start, u.end)),
            }
            i += 1;
            continue;
        }
        let k = gallop(1, us.len() - i, |k| {
            let r = bytes(us[i].start, us[i + k - 1].end);
            fragment_fits(counter, cap, buf, &piece[r], pos)
        })?;
        out.push(bytes(us[i].start, us[i + k - 1].end));
        i += k;
    }
    Ok(())
}

/// HARD_CAP step 1: every paragraph that does not fit alone is replaced by fragments (sub-slices
/// of its text, in order, covering it exactly) that do, or by single over-cap atoms. Each
/// resulting paragraph's `tokens` is the count of the chunk it makes alone.
fn hard_cap_fragments<'t, C: TokenCounter>(
    paras: Vec<Paragraph<'t>>,
    sections: &[Section<'_>],
    cap: f64,
    counter: &C,
) -> Result<Vec<Paragraph<'t>>, C::Error> {
    let mut buf = String::new();
    let mut out = Vec::with_capacity(paras.len());
    let mut frags = Vec::new();
    for mut p in paras {
        let pos = sections[p.sec].pos_str();
        p.tokens = fragment_count(counter, &mut buf, p.text, pos)?;
        if p.tokens as f64 <= cap {
            out.push(p);
            continue;
        }
        let atoms = atoms(p.text);
        if atoms.len() <= 1 {
            out.push(p); // one atom cannot be cut: it stays whole, over the cap
            continue;
        }
        frags.clear();
        let all = 0..atoms.len();
        pack(
            counter,
            cap,
            p.text,
            pos,
            &atoms,
            all,
            Level::Sentence,
            &mut buf,
            &mut frags,
        )?;
        for r in &frags {
            let text = &p.text[r.clone()];
            out.push(Paragraph {
                text,
                sec: p.sec,
                tokens: fragment_count(counter, &mut buf, text, pos)?,
            });
        }
    }
    Ok(out)
}

/// HARD_CAP step 2: greedy grouping, each candidate chunk body built and recounted (counts of
/// joined paragraphs are not sums; the sum only gives [`settle`] its first guess). A
/// paragraph that does not fit alone (an over-cap atom) is its own group.
fn group_hard_cap<C: TokenCounter>(
    paras: &[Paragraph<'_>],
    sections: &[Section<'_>],
    cap: f64,
    counter: &C,
) -> Result<Vec<Range<usize>>, C::Error> {
    let mut buf = String::new();
    let mut body_fits = |r: Range<usize>| {
        buf.clear();
        push_body(&mut buf, &paras[r], sections);
        within(counter, cap, &buf)
    };
    let mut groups = Vec::new();
    let mut i = 0;
    while i < paras.len() {
        if paras[i].tokens as f64 > cap {
            groups.push(i..i + 1);
            i += 1;
            continue;
        }
        let mut k0 = 1;
        let mut sum = paras[i].tokens;
        while i + k0 < paras.len() && (sum + paras[i + k0].tokens) as f64 <= cap {
            sum += paras[i + k0].tokens;
            k0 += 1;
        }
        let k = settle(1, k0, paras.len() - i, |k| body_fits(i..i + k))?;
        groups.push(i..i + k);
        i += k;
    }
    Ok(groups)
}

/// HARD_CAP step 3: `prefix` (the v0.27 overlap prefix) is cut down to its longest verified
/// tail (in code points) such that `tail + body` is within the cap; nothing is kept when the
/// body alone is over the cap. Returns the kept prefix's byte length.
fn shrink_prefix<C: TokenCounter>(
    prefix: &mut String,
    body: &str,
    cap: f64,
    counter: &C,
) -> Result<usize, C::Error> {
    if prefix.is_empty() {
        return Ok(0);
    }
    let body_tokens = counter.count(body)?;
    if body_tokens as f64 > cap {
        prefix.clear();
        return Ok(0);
    }
    let starts: Vec<usize> = prefix.char_indices().map(|(i, _)| i).collect();
    let n = starts.len();
    // First guess: the share of the prefix's code points that the room left would hold if
    // tokens were spread evenly (float arithmetic mirrored by the Python twin).
    let room = cap.floor() - body_tokens as f64;
    let prefix_tokens = counter.count(prefix)? as f64;
    let guess = if prefix_tokens <= room {
        n
    } else {
        ((n as f64 * room / prefix_tokens).floor() as usize).min(n)
    };
    let cut = |l: usize| if l == 0 { prefix.len() } else { starts[n - l] };
    let mut buf = String::new();
    let keep = settle(0, guess, n, |l| {
        buf.clear();
        buf.push_str(&prefix[cut(l)..]);
        buf.push_str(body);
        within(counter, cap, &buf)
    })?;
    let from = cut(keep);
    prefix.drain(..from);
    Ok(prefix.len())
}

// ---------------------------------------------------------------------------------------------
// Custom mode (a `backtick` token in the field)
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavor {
    /// v0.27: text CR/CRLF-normalised, split on every parsed delimiter, empty segments dropped.
    V27,
    /// v0.23–v0.26: split on the backtick tokens only, no normalisation, **empty segments
    /// kept** (they become `"\n"` chunks).
    Legacy,
}

/// Custom mode: every segment between delimiters is its own chunk `"\n" + segment`;
/// `chunk_token_num`, `overlapped_percent` and `strategy` are ignored; a segment's `pos` is
/// appended only when the chunk has at least 8 tokens and does not contain it already.
fn custom_mode<C: TokenCounter>(
    sections: &[Section<'_>],
    splitter: &DelimiterSplitter,
    counting: &mut Counting<'_, C>,
    flavor: Flavor,
    want_sources: bool,
    mut spans: Option<&mut Vec<Span>>,
) -> Result<Vec<Chunk>, C::Error> {
    let mut out = Vec::new();
    for (sec, s) in sections.iter().enumerate() {
        let text = match flavor {
            Flavor::V27 => normalize_newlines(s.text),
            Flavor::Legacy => Cow::Borrowed(s.text),
        };
        let pos = s.pos_str();
        for piece in splitter.split(&text) {
            let Piece::Text(seg) = piece else { continue };
            if seg.is_empty() && flavor == Flavor::V27 {
                continue;
            }
            let mut chunk = String::with_capacity(1 + seg.len() + pos.len());
            chunk.push('\n');
            chunk.push_str(seg);
            // Counting only matters for the pos rule, so skip it when there is no pos to add.
            if !pos.is_empty() && !contains(&chunk, pos) && counting.text(&chunk)? >= 8 {
                chunk.push_str(pos);
            }
            if let Some(spans) = spans.as_deref_mut() {
                let start = offset_in(&text, seg);
                spans.push(Span {
                    sec,
                    start,
                    end: start + seg.len(),
                    prefix_chars: 0,
                });
            }
            let sources = if want_sources { vec![sec] } else { Vec::new() };
            out.push(Chunk {
                text: chunk,
                sources,
            });
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// The add_chunk families (v0.20 – v0.26)
// ---------------------------------------------------------------------------------------------

/// State of RAGFlow's `add_chunk` closure: `cks`, the running count of the last chunk, and
/// which `pos` the last chunk is known to contain.
struct AddChunk<'p> {
    chunks: Vec<Chunk>,
    last_tokens: u64,
    known_pos: Option<&'p str>,
    threshold: f64,
    percent: f64,
    recount: bool,
    want_sources: bool,
}

impl<'p> AddChunk<'p> {
    /// `add_chunk("\n" + piece, pos)`.
    fn add<C: TokenCounter>(
        &mut self,
        piece: &str,
        pos: &'p str,
        sec: usize,
        counting: &mut Counting<'_, C>,
    ) -> Result<(), C::Error> {
        let mut tnum = counting.newline_piece(piece)? as u64;
        // RAGFlow: `if tnum < 8: pos = ""`.
        let pos = if tnum < 8 { "" } else { pos };
        let last = self
            .chunks
            .last_mut()
            .expect("starts with the leading \"\" chunk");
        if last.text.is_empty() || self.last_tokens as f64 > self.threshold {
            // New chunk: overlap prefix from the current chunk (tags stripped), then the piece.
            let mut text = String::new();
            push_overlap_prefix(&mut text, &last.text, self.percent);
            let has_prefix = !text.is_empty();
            text.reserve(1 + piece.len() + pos.len());
            text.push('\n');
            text.push_str(piece);
            // RAGFlow v0.26 recounts the new chunk with its prefix; v0.22/v0.23 keep
            // tokens("\n" + piece). Without a prefix the two are the same string.
            if self.recount && has_prefix {
                tnum = counting.text(&text)? as u64;
            }
            self.known_pos = None;
            if !pos.is_empty() {
                if !contains(&text, pos) {
                    text.push_str(pos);
                }
                self.known_pos = Some(pos);
            }
            let sources = if self.want_sources {
                vec![sec]
            } else {
                Vec::new()
            };
            self.chunks.push(Chunk { text, sources });
            self.last_tokens = tnum;
        } else {
            // Merge: pos is checked against the current chunk only, not the piece, so a piece
            // carrying its own tag can end up with it twice (RAGFlow quirk).
            let add_pos =
                !pos.is_empty() && self.known_pos != Some(pos) && !contains(&last.text, pos);
            last.text.push('\n');
            last.text.push_str(piece);
            if add_pos {
                last.text.push_str(pos);
            }
            if !pos.is_empty() {
                self.known_pos = Some(pos);
            }
            if self.want_sources {
                last.sources.push(sec);
            }
            self.last_tokens += tnum;
        }
        Ok(())
    }
}

fn add_chunk_family<C: TokenCounter>(
    sections: &[Section<'_>],
    opts: &MergeOptions<'_>,
    counting: &mut Counting<'_, C>,
    want_sources: bool,
) -> Result<Vec<Chunk>, C::Error> {
    let mut st = AddChunk {
        // The leading "" chunk RAGFlow starts with (and never removes).
        chunks: vec![Chunk::default()],
        last_tokens: 0,
        known_pos: None,
        threshold: threshold(opts),
        percent: opts.overlapped_percent,
        recount: opts.compat == Compat::V26,
        want_sources,
    };
    let legacy = legacy_delimiters(opts.delimiter);
    let splitter = DelimiterSplitter::new(&legacy);
    for (sec, s) in sections.iter().enumerate() {
        let pos = s.pos_str();
        let split = match opts.compat {
            Compat::V23 => false,
            Compat::V26 => {
                !legacy.is_empty() && counting.text(s.text)? as f64 >= opts.chunk_token_num
            }
            _ => counting.text(s.text)? as f64 >= opts.chunk_token_num,
        };
        if !split {
            st.add(s.text, pos, sec, counting)?;
            continue;
        }
        if opts.compat == Compat::V26 {
            // v0.26: empty pieces and delimiter pieces are skipped.
            for piece in splitter.split(s.text) {
                if let Piece::Text(t) = piece {
                    if !t.is_empty() {
                        st.add(t, pos, sec, counting)?;
                    }
                }
            }
        } else if legacy.is_empty() {
            // RAGFlow v0.22 quirk: pattern "()" splits between every character.
            for piece in split_every_char(s.text) {
                if !v22_is_skipped(piece.as_str(), &legacy) {
                    st.add(piece.as_str(), pos, sec, counting)?;
                }
            }
        } else {
            for piece in splitter.split(s.text) {
                if !v22_is_skipped(piece.as_str(), &legacy) {
                    st.add(piece.as_str(), pos, sec, counting)?;
                }
            }
        }
    }
    Ok(st.chunks)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One token per code point: easy to reason about by hand.
    fn chars(s: &str) -> usize {
        s.chars().count()
    }

    const TAG: &str = "@@1\t1.0\t2.0\t3.0\t4.0##";

    fn opts(compat: Compat, c: f64, d: &str, p: f64) -> MergeOptions<'_> {
        MergeOptions {
            chunk_token_num: c,
            delimiter: d,
            overlapped_percent: p,
            strategy: Strategy::OverCap,
            compat,
        }
    }

    fn texts(secs: &[&str]) -> Vec<Section<'static>> {
        secs.iter()
            .map(|t| Section::text(Box::leak(t.to_string().into_boxed_str())))
            .collect()
    }

    fn run_t(secs: &[Section<'_>], o: &MergeOptions<'_>) -> Vec<String> {
        let a = naive_merge_texts(secs, o, &chars).unwrap();
        let b: Vec<String> = naive_merge(secs, o, &chars)
            .unwrap()
            .into_iter()
            .map(|c| c.text)
            .collect();
        assert_eq!(a, b, "texts-only and full paths agree");
        a
    }

    fn m(secs: &[&str], o: &MergeOptions<'_>) -> Vec<String> {
        run_t(&texts(secs), o)
    }

    // --- v0.27 default mode ----------------------------------------------------------------

    #[test]
    fn v27_splits_every_section_and_drops_delimiters() {
        let o = MergeOptions::default();
        assert_eq!(m(&["a。b\n\nc"], &o), ["\na\nb\nc"]);
        // even a tiny section is split; regex metacharacters are literal
        assert_eq!(
            m(&["x.y*z"], &opts(Compat::V27, 128.0, ".*", 0.0)),
            ["\nx\ny\nz"]
        );
    }

    #[test]
    fn v27_empty_inputs() {
        let o = MergeOptions::default();
        assert!(m(&[], &o).is_empty());
        assert!(m(&[""], &o).is_empty());
        assert!(m(&["。\n"], &o).is_empty());
        let none = opts(Compat::V27, 128.0, "", 0.0);
        assert_eq!(m(&[""], &none), ["\n"]);
        assert_eq!(m(&["", "x。y"], &none), ["\n\nx。y"]);
    }

    #[test]
    fn v27_normalises_newlines_in_text_not_pos() {
        let o = opts(Compat::V27, 128.0, "\n", 0.0);
        assert_eq!(m(&["a\r\nb\rc\r\r\nd"], &o), ["\na\nb\nc\nd"]);
        let none = opts(Compat::V27, 128.0, "", 0.0);
        assert_eq!(m(&["a\r\nb"], &none), ["\na\nb"]);
        let secs = [Section {
            text: "a",
            pos: Some("\r\n"),
        }];
        assert_eq!(run_t(&secs, &o), ["\na\r\n"]);
    }

    #[test]
    fn v27_pos_follows_first_paragraph_of_its_section() {
        let secs = [
            Section {
                text: "a.b",
                pos: Some(TAG),
            },
            Section {
                text: "c",
                pos: Some(TAG),
            },
            Section {
                text: "d",
                pos: Some("§"),
            },
            Section {
                text: "e",
                pos: None,
            },
            Section {
                text: "f",
                pos: Some(""),
            },
            // already contained in the text so far: not appended again
            Section {
                text: "g§",
                pos: Some("§"),
            },
        ];
        let o = opts(Compat::V27, 128.0, ".", 0.0);
        // no "< 8 tokens" rule in v0.27: the tiny paragraphs keep their pos
        assert_eq!(run_t(&secs, &o), [format!("\na{TAG}\nb\nc\nd§\ne\nf\ng§")]);
    }

    #[test]
    fn v27_over_cap_overflows_by_one_paragraph() {
        let o = opts(Compat::V27, 6.0, ".", 0.0);
        // paragraphs: "\naa"=3 "\nbb"=3 "\ncc"=3 "\ndddddd"=7 (> cap: alone) "\ne"=2
        assert_eq!(
            m(&["aa.bb.cc.dddddd.e"], &o),
            ["\naa\nbb\ncc", "\ndddddd", "\ne"]
        );
    }

    #[test]
    fn v27_under_cap_never_overflows() {
        let o = MergeOptions {
            strategy: Strategy::UnderCap,
            ..opts(Compat::V27, 6.0, ".", 0.0)
        };
        assert_eq!(
            m(&["aa.bb.cc.dddddd.e"], &o),
            ["\naa\nbb", "\ncc", "\ndddddd", "\ne"]
        );
        // the overlap does not change UNDER_CAP grouping
        let p = MergeOptions {
            overlapped_percent: 50.0,
            ..o
        };
        assert_eq!(m(&["aa.bb.cc.dddddd.e"], &p).len(), 4);
    }

    #[test]
    fn v27_overlap_scales_the_over_cap_threshold() {
        // threshold 6 * 50 / 100 = 3: "aa"+"bb" = 6 > 3 closes the group; the prefix is the
        // last 3 of the 6 code points of "\naa\nbb"
        let o = opts(Compat::V27, 6.0, ".", 50.0);
        assert_eq!(m(&["aa.bb.cc"], &o), ["\naa\nbb", "\nbb\ncc"]);
    }

    #[test]
    fn v27_overlap_counts_code_points() {
        let o = opts(Compat::V27, 1.0, "。", 50.0);
        // "\n日本語です" has 6 code points (16 bytes): the cut is at code point 3
        assert_eq!(
            m(&["日本語です。テスト"], &o),
            ["\n日本語です", "語です\nテスト"]
        );
        // a combining mark is its own code point
        let o = opts(Compat::V27, 1.0, "|", 50.0);
        assert_eq!(m(&["e\u{301}e|x"], &o), ["\ne\u{301}e", "\u{301}e\nx"]);
    }

    #[test]
    fn v27_overlap_is_cut_from_the_previous_output_chunk() {
        let o = opts(Compat::V27, 1.0, "\n", 50.0);
        // chunk 1 = prefix "aaa" + "\nbbbb" (8 code points); chunk 2 cuts from that
        assert_eq!(
            m(&["aaaa", "bbbb", "cccc"], &o),
            ["\naaaa", "aaa\nbbbb", "bbbb\ncccc"]
        );
        // tags are stripped before cutting, so the prefix never holds one
        let secs = [
            Section {
                text: "ab",
                pos: Some(TAG),
            },
            Section::text("cd"),
        ];
        assert_eq!(run_t(&secs, &o), [format!("\nab{TAG}"), "ab\ncd".into()]);
    }

    #[test]
    fn v27_overlap_percent_edges() {
        let full = opts(Compat::V27, 1.0, "\n", 100.0);
        assert_eq!(m(&["ab", "c"], &full), ["\nab", "\nab\nc"]);
        // p > 100: negative start, Python slices from the end: int(3 * -50 / 100) = -1
        let over = opts(Compat::V27, 1.0, "\n", 150.0);
        assert_eq!(m(&["ab", "c"], &over), ["\nab", "b\nc"]);
        // p <= 0: no overlap at all
        let neg = opts(Compat::V27, 1.0, "\n", -20.0);
        assert_eq!(m(&["ab", "c"], &neg), ["\nab", "\nc"]);
        // a fractional percentage is float arithmetic: int(3 * 87.5 / 100) = 2
        let frac = opts(Compat::V27, 1.0, "\n", 12.5);
        assert_eq!(m(&["ab", "c"], &frac), ["\nab", "b\nc"]);
    }

    #[test]
    fn v27_pos_check_ignores_the_overlap_prefix() {
        // RAGFlow rebuilds the chunk (and decides about pos) before adding the prefix, so a
        // prefix that happens to contain the pos does not stop it being appended.
        let secs = [
            Section::text("x§"),
            Section {
                text: "y",
                pos: Some("§"),
            },
        ];
        let o = opts(Compat::V27, 1.0, "\n", 50.0);
        assert_eq!(run_t(&secs, &o), ["\nx§", "x§\ny§"]);
    }

    #[test]
    fn v27_custom_mode() {
        // every parsed delimiter splits, bare ones included; empty segments are skipped;
        // chunk_token_num and overlap are ignored
        let o = opts(Compat::V27, 1000.0, "`##`.", 50.0);
        assert_eq!(m(&["a##b..c##"], &o), ["\na", "\nb", "\nc"]);
        // pos only when the segment chunk has at least 8 tokens
        let secs = [Section {
            text: "short##abcdefghij##abcdefg§",
            pos: Some("§"),
        }];
        let o = opts(Compat::V27, 128.0, "`##`", 0.0);
        assert_eq!(run_t(&secs, &o), ["\nshort", "\nabcdefghij§", "\nabcdefg§"]);
        // "``" is not a token: no custom mode, its backtick is a bare delimiter
        let o = opts(Compat::V27, 128.0, "``", 0.0);
        assert_eq!(m(&["a`b"], &o), ["\na\nb"]);
    }

    #[test]
    fn v27_sources() {
        let secs = texts(&["a\nb", "c", "", "dddddddddd"]);
        let o = opts(Compat::V27, 5.0, "\n", 0.0);
        let got = naive_merge(&secs, &o, &chars).unwrap();
        let src: Vec<_> = got.iter().map(|c| c.sources.clone()).collect();
        assert_eq!(src, [vec![0, 0, 1], vec![3]]);
        let custom = opts(Compat::V27, 5.0, "`\n`", 0.0);
        let got = naive_merge(&secs, &custom, &chars).unwrap();
        let src: Vec<_> = got.iter().map(|c| c.sources.clone()).collect();
        assert_eq!(src, [vec![0], vec![0], vec![1], vec![3]]);
    }

    // --- HARD_CAP and offsets ---------------------------------------------------------------

    fn hard(c: f64, d: &str, p: f64) -> MergeOptions<'_> {
        MergeOptions {
            strategy: Strategy::HardCap,
            ..opts(Compat::V27, c, d, p)
        }
    }

    #[test]
    fn hard_cap_recount_never_exceeds_the_cap() {
        let text =
            "Hello world. This is a long sentence with many words! Short? 一二三四五六七八九十";
        for cap in [1.0, 2.0, 5.0, 9.0, 20.0, 200.0] {
            for p in [0.0, 30.0, 100.0] {
                let got = m(&[text], &hard(cap, "\n", p));
                for c in &got {
                    // one token per code point: only a lone "\n" + one char may be over
                    assert!(chars(c) as f64 <= cap || chars(c) == 2, "{c:?} over {cap}");
                }
                // nothing lost: without "\n" and overlap prefixes the text comes back
                if p == 0.0 {
                    assert_eq!(got.concat().replace('\n', ""), text);
                }
            }
        }
    }

    #[test]
    fn hard_cap_cuts_sentences_then_words_then_chars() {
        // "\nAb cd. " = 7 code points
        assert_eq!(
            m(&["Ab cd. Ef gh."], &hard(8.0, "\n", 0.0)),
            ["\nAb cd. ", "\nEf gh."]
        );
        assert_eq!(
            m(&["Ab cd. Ef gh."], &hard(5.0, "\n", 0.0)),
            ["\nAb ", "\ncd. ", "\nEf ", "\ngh."]
        );
        assert_eq!(
            m(&["abcdef"], &hard(3.0, "\n", 0.0)),
            ["\nab", "\ncd", "\nef"]
        );
        // 3.14 is not a sentence end; 。 always is
        assert_eq!(
            m(&["π=3.14。ok"], &hard(8.0, "\n", 0.0)),
            ["\nπ=3.14。", "\nok"]
        );
    }

    #[test]
    fn hard_cap_keeps_position_tags_whole() {
        let text = format!("ab{TAG}cd");
        let got = m(&[text.as_str()], &hard(4.0, "\n", 0.0));
        assert!(got.iter().any(|c| c == &format!("\n{TAG}")), "{got:?}");
        assert_eq!(got.concat().replace('\n', ""), text);
    }

    #[test]
    fn hard_cap_pos_and_overlap_fit() {
        let secs = [
            Section {
                text: "aaaa",
                pos: Some("§§"),
            },
            Section::text("bbbb"),
            Section::text("cccc"),
        ];
        let got = run_t(&secs, &hard(8.0, "\n", 50.0));
        assert_eq!(
            got,
            ["\naaaa§§", "a§§\nbbbb", "bbb\ncccc"].map(String::from)
        );
        for c in &got {
            assert!(chars(c) <= 8);
        }
    }

    #[test]
    fn hard_cap_single_char_over_cap_stands_alone() {
        let three = |s: &str| 3 * s.chars().count();
        let o = hard(1.0, "\n", 50.0);
        let got = naive_merge_texts(&texts(&["ab"]), &o, &three).unwrap();
        assert_eq!(got, ["\na", "\nb"]);
    }

    #[test]
    fn gallop_finds_verified_lengths() {
        for n in 1..40 {
            for t in 1..=n {
                let k: Result<usize, ()> = gallop(1, n, |k| Ok(k <= t));
                assert_eq!(k, Ok(t));
            }
        }
        assert_eq!(gallop::<()>(0, 0, |_| Ok(false)), Ok(0));
    }

    #[test]
    fn offsets_map_back_to_the_original_text() {
        let text = "a。bb\r\ncc\rd";
        let o = opts(Compat::V27, 3.0, "\n。", 0.0);
        let got = naive_merge_offsets(text, &o, &chars).unwrap();
        // chunks "\na\nbb" and "\ncc\nd": spans "a。bb" and "cc\rd"
        assert_eq!(m(&[text], &o).len(), got.starts.len());
        let cps: Vec<char> = text.chars().collect();
        let spans: Vec<String> = got
            .starts
            .iter()
            .zip(&got.ends)
            .map(|(&s, &e)| cps[s as usize..e as usize].iter().collect())
            .collect();
        let chunks = m(&[text], &o);
        for (span, chunk) in spans.iter().zip(&chunks) {
            let pieces: Vec<&str> = span
                .split(['\r', '\n', '。'])
                .filter(|p| !p.is_empty())
                .collect();
            assert_eq!(format!("\n{}", pieces.join("\n")), *chunk);
        }
        let custom = opts(Compat::V27, 3.0, "`cc`", 0.0);
        let got = naive_merge_offsets("xxccyy", &custom, &chars).unwrap();
        assert_eq!((got.starts, got.ends), (vec![0, 4], vec![2, 6]));
        let p = opts(Compat::V27, 1.0, "\n", 50.0);
        let got = naive_merge_offsets("ab\ncd", &p, &chars).unwrap();
        assert_eq!(got.prefix_lens, [0, 2]); // "\nab" -> prefix "ab"
        assert!(naive_merge_offsets("", &p, &chars)
            .unwrap()
            .starts
            .is_empty());
    }

    #[test]
    fn original_chars_of_every_boundary() {
        // Both walks (without and with a "\r"): every boundary of the normalised text in
        // order, then the same offsets again after a jump back. The reference replays the
        // normalisation character by character, noting where each one lands.
        for text in ["a中b😀é\nxyｿz。", "a中\r\nb😀\ré\nx\r", ""] {
            let chars: Vec<char> = text.chars().collect();
            let (mut offsets, mut want) = (Vec::new(), Vec::new());
            let (mut nb, mut k) = (0usize, 0usize);
            while k < chars.len() {
                offsets.push(nb);
                want.push(k as i64);
                if chars[k] == '\r' && chars.get(k + 1) == Some(&'\n') {
                    (nb, k) = (nb + 1, k + 2); // "\r\n" -> "\n"
                } else {
                    let c = if chars[k] == '\r' { '\n' } else { chars[k] };
                    (nb, k) = (nb + c.len_utf8(), k + 1);
                }
            }
            assert_eq!(nb, normalize_newlines(text).len());
            offsets.push(nb);
            want.push(chars.len() as i64);
            let twice: Vec<usize> = offsets.iter().chain(&offsets).copied().collect();
            let got = to_original_chars(text, &twice);
            assert_eq!(got[..want.len()], want[..], "{text:?}");
            assert_eq!(got[want.len()..], want[..], "{text:?} after a jump back");
        }
    }

    // --- add_chunk families -----------------------------------------------------------------

    #[test]
    fn legacy_leading_empty_chunk() {
        for compat in [Compat::V22, Compat::V23, Compat::V26] {
            let o = opts(compat, 128.0, "\n。；！？", 0.0);
            assert_eq!(m(&["a"], &o), ["", "\na"]);
            assert!(m(&[], &o).is_empty());
            let got = naive_merge(&texts(&["a", "b"]), &o, &chars).unwrap();
            assert_eq!(got[0].sources, Vec::<usize>::new());
            assert_eq!(got[1].sources, [0, 1]);
        }
    }

    #[test]
    fn legacy_split_rules() {
        // v0.23: never split at ordinary delimiters
        assert_eq!(
            m(&["a。b"], &opts(Compat::V23, 1.0, "。", 0.0)),
            ["", "\na。b"]
        );
        // v0.22 / v0.26: split only when tokens(section) >= chunk_token_num
        for compat in [Compat::V22, Compat::V26] {
            assert_eq!(m(&["a。b"], &opts(compat, 3.0, "。", 0.0)), ["", "\na\nb"]);
            assert_eq!(m(&["a。b"], &opts(compat, 4.0, "。", 0.0)), ["", "\na。b"]);
        }
        // v0.22 keeps empty pieces (as "\n"), v0.26 skips them
        assert_eq!(
            m(&["a。。b"], &opts(Compat::V22, 1.0, "。", 0.0)),
            ["", "\na", "\n\nb"]
        );
        assert_eq!(
            m(&["a。。b"], &opts(Compat::V26, 1.0, "。", 0.0)),
            ["", "\na", "\nb"]
        );
    }

    #[test]
    fn v22_empty_delimiter_splits_every_char() {
        // RAGFlow v0.22 quirk: pattern "()" splits between characters, and "^$" also drops
        // the "\n" characters
        assert_eq!(
            m(&["ab\nc"], &opts(Compat::V22, 1.0, "", 0.0)),
            ["", "\na", "\nb", "\nc"]
        );
        // below the threshold: not split
        assert_eq!(m(&["ab"], &opts(Compat::V22, 9.0, "", 0.0)), ["", "\nab"]);
        // v0.26 never splits with an empty delimiter
        assert_eq!(
            m(&["ab\nc"], &opts(Compat::V26, 1.0, "", 0.0)),
            ["", "\nab\nc"]
        );
    }

    #[test]
    fn legacy_no_newline_normalisation() {
        assert_eq!(
            m(&["ab\r\ncd"], &opts(Compat::V26, 1.0, "\n", 0.0)),
            ["", "\nab\r", "\ncd"]
        );
    }

    #[test]
    fn v22_backticks_are_plain_delimiters() {
        assert_eq!(
            m(&["a##b"], &opts(Compat::V22, 1.0, "`##`", 0.0)),
            ["", "\na", "\nb"]
        );
    }

    #[test]
    fn legacy_custom_mode() {
        for compat in [Compat::V23, Compat::V26] {
            // empty segments kept as "\n" chunks, no leading "", size ignored
            assert_eq!(
                m(&["a####b"], &opts(compat, 1000.0, "`##`", 50.0)),
                ["\na", "\n", "\nb"]
            );
            // bare characters are ignored
            assert_eq!(
                m(&["a\nb##c"], &opts(compat, 1000.0, "\n`##`", 0.0)),
                ["\na\nb", "\nc"]
            );
            let secs = [Section {
                text: "short##abcdefghij",
                pos: Some(TAG),
            }];
            assert_eq!(
                run_t(&secs, &opts(compat, 1.0, "`##`", 0.0)),
                ["\nshort".to_string(), format!("\nabcdefghij{TAG}")]
            );
        }
    }

    #[test]
    fn legacy_pos_rules() {
        let o = opts(Compat::V23, 100.0, "", 0.0);
        // dropped under 8 tokens
        let secs = [Section {
            text: "ab",
            pos: Some(TAG),
        }];
        assert_eq!(run_t(&secs, &o), ["", "\nab"]);
        let secs = [Section {
            text: "abcdefghij",
            pos: Some(TAG),
        }];
        assert_eq!(
            run_t(&secs, &o),
            ["".to_string(), format!("\nabcdefghij{TAG}")]
        );
        // on a merge the pos is checked against the chunk only: a piece that carries its own
        // tag gets it twice (RAGFlow quirk)
        let secs = [
            Section::text("abcdefghij"),
            Section {
                text: "klm§nopqrs",
                pos: Some("§"),
            },
        ];
        assert_eq!(run_t(&secs, &o), ["", "\nabcdefghij\nklm§nopqrs§"]);
        // already in the chunk: not appended again
        let secs = [
            Section {
                text: "abcdefghij",
                pos: Some("§"),
            },
            Section {
                text: "klmnopqrst",
                pos: Some("§"),
            },
        ];
        assert_eq!(run_t(&secs, &o), ["", "\nabcdefghij§\nklmnopqrst"]);
    }

    #[test]
    fn legacy_overlap_and_v26_recount() {
        // threshold 10 * 50 / 100 = 5; "\n" + 12 a's = 13 tokens, prefix = last 7 code points
        let secs = ["aaaaaaaaaaaa", "b", "c"];
        // v0.23 keeps tokens("\nb") = 2 for the new chunk, so "\nc" merges
        assert_eq!(
            m(&secs, &opts(Compat::V23, 10.0, "", 50.0)),
            ["", "\naaaaaaaaaaaa", "aaaaaaa\nb\nc"]
        );
        // v0.26 recounts "aaaaaaa\nb" = 9 > 5, so "\nc" opens another chunk
        assert_eq!(
            m(&secs, &opts(Compat::V26, 10.0, "", 50.0)),
            ["", "\naaaaaaaaaaaa", "aaaaaaa\nb", "aaa\nb\nc"]
        );
    }

    #[test]
    fn counter_errors_propagate() {
        struct Failing;
        impl TokenCounter for Failing {
            type Error = &'static str;
            fn count(&self, _: &str) -> Result<usize, &'static str> {
                Err("boom")
            }
        }
        for compat in [Compat::V22, Compat::V23, Compat::V26, Compat::V27] {
            let o = opts(compat, 128.0, "\n", 0.0);
            assert_eq!(naive_merge(&texts(&["a"]), &o, &Failing), Err("boom"));
        }
    }
}
