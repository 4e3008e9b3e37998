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
//! Each paragraph is counted exactly once, through one reusable `"\n" + piece` buffer. Chunk
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
    parse_delimiter_field, split_every_char, v22_is_skipped, DelimiterSplitter, Piece,
};
use crate::positions::remove_tag;

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
                let delims = parse_delimiter_field(opts.delimiter);
                custom_mode(sections, &delims, &mut counting, Flavor::V27)
            } else {
                v27_default(sections, opts, &mut counting, want_sources)
            }
        }
        Compat::V26 | Compat::V23 if has_wrapped_delimiter(opts.delimiter) => {
            let delims = custom_delimiters(opts.delimiter);
            custom_mode(sections, &delims, &mut counting, Flavor::Legacy)
        }
        Compat::V26 | Compat::V23 | Compat::V22 => {
            add_chunk_family(sections, opts, &mut counting, want_sources)
        }
    }
}

/// Counts through the caller's counter, keeping one buffer for the `"\n" + piece` strings
/// RAGFlow counts, so that counting a piece allocates nothing once the buffer has grown.
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

    /// `num_tokens_from_string("\n" + piece)`.
    fn newline_piece(&mut self, piece: &str) -> Result<usize, C::Error> {
        self.buf.clear();
        self.buf.push('\n');
        self.buf.push_str(piece);
        self.counter.count(&self.buf)
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

fn v27_default<C: TokenCounter>(
    sections: &[Section<'_>],
    opts: &MergeOptions<'_>,
    counting: &mut Counting<'_, C>,
    want_sources: bool,
) -> Result<Vec<Chunk>, C::Error> {
    let splitter = DelimiterSplitter::new(&parse_delimiter_field(opts.delimiter));
    // RAGFlow v0.27 normalises "\r\n" and lone "\r" in section text (not in pos) first.
    let texts: Vec<Cow<'_, str>> = sections
        .iter()
        .map(|s| normalize_newlines(s.text))
        .collect();

    let mut paras: Vec<Paragraph<'_>> = Vec::new();
    for (sec, text) in texts.iter().enumerate() {
        if splitter.is_empty() {
            // No delimiters: each section is one paragraph, "\n" for an empty section.
            let tokens = counting.newline_piece(text)?;
            paras.push(Paragraph { text, sec, tokens });
            continue;
        }
        for piece in splitter.split(text) {
            // Delimiter text never enters a chunk; empty pieces are dropped.
            if let Piece::Text(t) = piece {
                if !t.is_empty() {
                    let tokens = counting.newline_piece(t)?;
                    paras.push(Paragraph {
                        text: t,
                        sec,
                        tokens,
                    });
                }
            }
        }
    }

    let groups = match opts.strategy {
        Strategy::OverCap => group_over_cap(&paras, opts.chunk_token_num, threshold(opts)),
        Strategy::UnderCap => group_under_cap(&paras, opts.chunk_token_num),
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
        text.reserve_exact(body);
        // The pos check looks at the chunk as grouped, without the overlap prefix (RAGFlow adds
        // the prefix afterwards), so it must not see the prefix.
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
        let sources = if want_sources {
            group.iter().map(|p| p.sec).collect()
        } else {
            Vec::new()
        };
        out.push(Chunk { text, sources });
    }
    Ok(out)
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
    delims: &[String],
    counting: &mut Counting<'_, C>,
    flavor: Flavor,
) -> Result<Vec<Chunk>, C::Error> {
    let splitter = DelimiterSplitter::new(delims);
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
            out.push(Chunk {
                text: chunk,
                sources: vec![sec],
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
