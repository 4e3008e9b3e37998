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
                custom_mode(sections, &delims, &mut counting, Flavor::V27, want_sources)
            } else {
                v27_default(sections, opts, &mut counting, want_sources)
            }
        }
        Compat::V26 | Compat::V23 if has_wrapped_delimiter(opts.delimiter) => {
            let delims = custom_delimiters(opts.delimiter);
            custom_mode(
                sections,
                &delims,
                &mut counting,
                Flavor::Legacy,
                want_sources,
            )
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
    want_sources: bool,
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
