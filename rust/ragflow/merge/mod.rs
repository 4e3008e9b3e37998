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
//! cut. No regex runs in the hot path (see [`crate::ragflow::delimiters::DelimiterSplitter`]).
//!
//! # Layout
//!
//! `options` (the arguments: [`MergeOptions`], [`Section`], the families [`Compat`] and the
//! strategies [`Strategy`]), `counting` (one reusable buffer, and [`MergeCount`], the counter
//! a built-in encoding merges with), `paragraphs` (v0.27 default mode: paragraphs, grouping,
//! chunk bodies), `hard_cap`, `overlap` (the prefix every family cuts from the previous
//! chunk), `custom` (custom mode), `add_chunk` (the v0.20–v0.26 families) and `offsets`
//! ([`naive_merge_offsets`]).

mod add_chunk;
mod counting;
mod custom;
mod hard_cap;
mod offsets;
mod options;
mod overlap;
mod paragraphs;

use crate::ragflow::delimiters::{
    custom_delimiters, has_wrapped_delimiter, splitter_for_field, DelimiterSplitter,
};
use crate::tokenizer::TokenCounter;

use add_chunk::add_chunk_family;
use counting::Counting;
use custom::{custom_mode, Flavor};
use paragraphs::v27_default;

pub use counting::MergeCount;
pub use offsets::{naive_merge_offsets, ChunkOffsets};
pub use options::{Chunk, Compat, MergeOptions, Section, Strategy};

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
        // RAGFlow, every release: `if not sections: return []`.
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

/// One v0.27 paragraph: `"\n" + text`, from section `sec`, of `tokens` tokens.
pub(super) struct Paragraph<'t> {
    pub(super) text: &'t str,
    pub(super) sec: usize,
    pub(super) tokens: usize,
}

/// Appends the v0.27 chunk body of `group` to `text`: each paragraph as `"\n" + piece`, its
/// section's `pos` after it unless the body so far (from where this call started, so never an
/// overlap prefix) already contains it.
pub(super) fn push_body(text: &mut String, group: &[Paragraph<'_>], sections: &[Section<'_>]) {
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

/// Python `haystack.find(needle) >= 0`.
pub(super) fn contains(haystack: &str, needle: &str) -> bool {
    memchr::memmem::find(haystack.as_bytes(), needle.as_bytes()).is_some()
}

/// Helpers of the tests of every family.
#[cfg(test)]
mod test_util {
    pub(super) use super::*;

    /// One token per code point: easy to reason about by hand.
    pub(super) fn chars(s: &str) -> usize {
        s.chars().count()
    }

    pub(super) const TAG: &str = "@@1\t1.0\t2.0\t3.0\t4.0##";

    pub(super) fn opts(compat: Compat, c: f64, d: &str, p: f64) -> MergeOptions<'_> {
        MergeOptions {
            chunk_token_num: c,
            delimiter: d,
            overlapped_percent: p,
            strategy: Strategy::OverCap,
            compat,
        }
    }

    pub(super) fn texts(secs: &[&str]) -> Vec<Section<'static>> {
        secs.iter()
            .map(|t| Section::text(Box::leak(t.to_string().into_boxed_str())))
            .collect()
    }

    pub(super) fn run_t(secs: &[Section<'_>], o: &MergeOptions<'_>) -> Vec<String> {
        let a = naive_merge_texts(secs, o, &chars).unwrap();
        let b: Vec<String> = naive_merge(secs, o, &chars)
            .unwrap()
            .into_iter()
            .map(|c| c.text)
            .collect();
        assert_eq!(a, b, "texts-only and full paths agree");
        a
    }

    pub(super) fn m(secs: &[&str], o: &MergeOptions<'_>) -> Vec<String> {
        run_t(&texts(secs), o)
    }
}

#[cfg(test)]
mod tests {
    use super::test_util::*;

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
