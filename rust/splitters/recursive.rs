//! Recursive splitting with LangChain's `RecursiveCharacterTextSplitter` semantics, on spans.
//!
//! The algorithm is LangChain's, step for step, so the chunks are the same strings:
//!
//! 1. pick the first separator that occurs in the text (`""` always "occurs"); the ones after it
//!    are the separators left for the recursion;
//! 2. split at it — the separator kept at the start of the following piece (`keep_separator`
//!    `True`/`"start"`), at the end of the preceding piece (`"end"`), or dropped (`False`) — and
//!    drop empty pieces;
//! 3. pieces whose length is `< chunk_size` are "good" and wait to be merged; a piece that is not
//!    first flushes the waiting ones through the merge, then is split again with the separators
//!    left (or emitted whole when none are left: the one documented overflow);
//! 4. the merge packs consecutive good pieces while `total + len (+ separator) <= chunk_size`,
//!    and after emitting a chunk drops pieces from its front until `total <= chunk_overlap` and
//!    the next piece fits — LangChain's overlap rule;
//! 5. every chunk is stripped of Python whitespace (`str.strip()`: the data file's
//!    `chars.whitespace.langchain`), and empty chunks vanish.
//!
//! Lengths are those of the individual pieces (and of the separator, when it is dropped), never
//! of the joined chunk, exactly as LangChain measures. Each piece is measured once and the count
//! reused by the merge (LangChain measures it up to three times; the values are the same).
//!
//! Pieces are byte ranges into the source, so a chunk is a source range; only with
//! `keep_separator=False` can LangChain's chunk differ from the source (it re-joins pieces with
//! the separator *string*, which differs from the source where a run of separators or a regex
//! match stood between them): then [`RecursiveChunk::joined`] holds LangChain's text.

use memchr::memmem;
use regex::Regex;

use crate::text::boundaries::py_strip;
use crate::text::CharIndex;
use crate::tokenizer::IndexedCharCount;
use crate::tokenizer::{OrdinaryCount, TokenCounter, UnitCount};

/// Where a matched separator goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeepSeparator {
    /// Dropped; pieces of a chunk are re-joined with the separator string (`False`).
    Drop,
    /// At the start of the following piece (`True` or `"start"`, LangChain's default).
    Start,
    /// At the end of the preceding piece (`"end"`).
    End,
}

/// One separator: how to find it, and the string LangChain joins with when it is dropped.
#[derive(Debug, Clone)]
pub struct Separator {
    /// The separator as the user gave it (a regex's source text when it is a regex).
    pub text: String,
    /// The compiled pattern, for regex separators; `None` for a literal.
    pub regex: Option<Regex>,
    /// The literal's searcher, built once (building one per search cost more than a short
    /// search).
    finder: memmem::Finder<'static>,
}

impl Separator {
    /// A literal separator (`""`: split between every character).
    pub fn literal(text: &str) -> Self {
        Separator {
            text: text.to_owned(),
            regex: None,
            finder: memmem::Finder::new(text.as_bytes()).into_owned(),
        }
    }

    /// A regex separator: `source` is the user's pattern (joined with when dropped), `regex` its
    /// compiled form (which the bindings may have translated from Python's dialect).
    pub fn regex(source: &str, regex: Regex) -> Self {
        Separator {
            text: source.to_owned(),
            regex: Some(regex),
            finder: memmem::Finder::new(b"").into_owned(),
        }
    }

    /// `""` as a literal: LangChain's "split into characters" sentinel. (An empty *regex* source
    /// is the same sentinel: LangChain tests `if not _s` before anything else.)
    fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Whether the separator occurs in `text`.
    fn occurs_in(&self, text: &str) -> bool {
        match &self.regex {
            Some(re) => re.is_match(text),
            None => self.finder.find(text.as_bytes()).is_some(),
        }
    }

    /// Byte ranges (relative to `text`) of the non-overlapping matches, leftmost first.
    fn matches(&self, text: &str, out: &mut Vec<(usize, usize)>) {
        out.clear();
        match &self.regex {
            Some(re) => out.extend(re.find_iter(text).map(|m| (m.start(), m.end()))),
            None => {
                let n = self.text.len();
                out.extend(self.finder.find_iter(text.as_bytes()).map(|s| (s, s + n)));
            }
        }
    }
}

/// Configuration of a recursive split (validated by the caller: `chunk_size >= 1`,
/// `chunk_overlap < chunk_size`, at least one separator).
#[derive(Debug, Clone)]
pub struct RecursiveConfig {
    /// The budget, in the counter's unit.
    pub chunk_size: usize,
    /// How much of a chunk's tail may start the next chunk.
    pub chunk_overlap: usize,
    /// Separators, coarsest first.
    pub separators: Vec<Separator>,
    /// Where matched separators go.
    pub keep_separator: KeepSeparator,
    /// `str.strip()` every chunk (LangChain's default `strip_whitespace=True`).
    pub strip_whitespace: bool,
}

/// One chunk: a byte range of the source, and LangChain's text when it is not that range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecursiveChunk {
    /// Byte offset of the chunk's first byte in the source.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// `Some(text)` only when the chunk text is not `source[start..end]` (with
    /// `keep_separator=False`: pieces re-joined with the separator string).
    pub joined: Option<String>,
}

#[derive(Debug, Clone, Copy)]
struct Piece {
    start: usize,
    end: usize,
    len: usize,
}

struct Run<'a, C> {
    text: &'a str,
    cfg: &'a RecursiveConfig,
    counter: &'a C,
    out: Vec<RecursiveChunk>,
}

/// Splits `text` the way LangChain's `RecursiveCharacterTextSplitter.split_text` does, with
/// lengths from `counter`.
pub fn split<C: TokenCounter>(
    text: &str,
    cfg: &RecursiveConfig,
    counter: &C,
) -> Result<Vec<RecursiveChunk>, C::Error> {
    let mut run = Run {
        text,
        cfg,
        counter,
        out: Vec::new(),
    };
    if !cfg.separators.is_empty() {
        run.split_range(0, text.len(), &cfg.separators)?;
    }
    Ok(run.out)
}

/// One chunk as the bindings return it: code-point offsets, the chunk's own size, and
/// LangChain's text when it is not `source[start..end]` (see [`RecursiveChunk::joined`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeasuredChunk {
    pub start: usize,
    pub end: usize,
    pub size: usize,
    pub joined: Option<String>,
}

/// [`split`] with code-point offsets. `with_counts`: measure each chunk's own text (for
/// `Chunk.token_count`); `split_text` does not need it and skips the extra tokenizer pass
/// (sizes are then 0). `index` is the text's [`CharIndex`] (the chars unit measures with it
/// too).
pub fn split_measured<C: TokenCounter>(
    index: &CharIndex<'_>,
    cfg: &RecursiveConfig,
    counter: &C,
    with_counts: bool,
) -> Result<Vec<MeasuredChunk>, C::Error> {
    let text = index.text();
    let chunks = split(text, cfg, counter)?;
    let mut out = Vec::with_capacity(chunks.len());
    for RecursiveChunk { start, end, joined } in chunks {
        let size = if with_counts {
            counter.count(joined.as_deref().unwrap_or(&text[start..end]))?
        } else {
            0
        };
        out.push(MeasuredChunk {
            start: index.char_offset(start),
            end: index.char_offset(end),
            size,
            joined,
        });
    }
    Ok(out)
}

/// [`split_measured`] in a built-in unit: tokens of a built-in encoding, or characters,
/// measured through the text's own [`CharIndex`] ([`IndexedCharCount`]: a piece of the text
/// costs two lookups instead of a walk).
pub fn split_measured_builtin(
    text: &str,
    cfg: &RecursiveConfig,
    unit: UnitCount,
    with_counts: bool,
) -> Vec<MeasuredChunk> {
    let index = CharIndex::new(text);
    let out = match unit {
        UnitCount::Tokens(tok) => split_measured(&index, cfg, &OrdinaryCount(tok), with_counts),
        UnitCount::Chars => {
            split_measured(&index, cfg, &IndexedCharCount::new(&index), with_counts)
        }
    };
    out.unwrap_or_else(|never| match never {})
}

impl<C: TokenCounter> Run<'_, C> {
    fn split_range(
        &mut self,
        start: usize,
        end: usize,
        separators: &[Separator],
    ) -> Result<(), C::Error> {
        let text = &self.text[start..end];
        // LangChain: the last separator unless an earlier one is "" or occurs in the text.
        let mut chosen = separators.len() - 1;
        let mut rest: &[Separator] = &[];
        for (i, sep) in separators.iter().enumerate() {
            if sep.is_empty() {
                chosen = i;
                break;
            }
            if sep.occurs_in(text) {
                chosen = i;
                rest = &separators[i + 1..];
                break;
            }
        }
        let sep = &separators[chosen];
        let ranges = self.pieces(start, end, sep);

        let cfg = self.cfg;
        let join_len = match cfg.keep_separator {
            KeepSeparator::Drop => self.counter.count(&sep.text)?,
            _ => 0,
        };
        let mut good: Vec<Piece> = Vec::new();
        for (s, e) in ranges {
            let len = self.counter.count(&self.text[s..e])?;
            if len < cfg.chunk_size {
                good.push(Piece {
                    start: s,
                    end: e,
                    len,
                });
            } else {
                if !good.is_empty() {
                    self.merge(&good, sep, join_len);
                    good.clear();
                }
                if rest.is_empty() {
                    // LangChain appends such a piece as it is: not stripped.
                    self.out.push(RecursiveChunk {
                        start: s,
                        end: e,
                        joined: None,
                    });
                } else {
                    self.split_range(s, e, rest)?;
                }
            }
        }
        if !good.is_empty() {
            self.merge(&good, sep, join_len);
        }
        Ok(())
    }

    /// `_split_text_with_regex`: the non-empty pieces of `[start, end)` cut at `sep`.
    fn pieces(&self, start: usize, end: usize, sep: &Separator) -> Vec<(usize, usize)> {
        let text = &self.text[start..end];
        let mut out = Vec::new();
        if sep.is_empty() {
            out.extend(
                text.char_indices()
                    .map(|(i, c)| (start + i, start + i + c.len_utf8())),
            );
            return out;
        }
        let mut found = Vec::new();
        sep.matches(text, &mut found);
        let mut push = |s: usize, e: usize| {
            if e > s {
                out.push((start + s, start + e));
            }
        };
        match self.cfg.keep_separator {
            KeepSeparator::Drop => {
                let mut prev = 0;
                for &(s, e) in &found {
                    push(prev, s);
                    prev = e;
                }
                push(prev, text.len());
            }
            KeepSeparator::Start => {
                let mut prev = 0;
                for &(s, _) in &found {
                    push(prev, s);
                    prev = s;
                }
                push(prev, text.len());
            }
            KeepSeparator::End => {
                let mut prev = 0;
                for &(_, e) in &found {
                    push(prev, e);
                    prev = e;
                }
                push(prev, text.len());
            }
        }
        out
    }

    /// `_merge_splits`, with LangChain's overlap rule.
    fn merge(&mut self, pieces: &[Piece], sep: &Separator, sep_len: usize) {
        let size = self.cfg.chunk_size;
        let overlap = self.cfg.chunk_overlap;
        // current_doc is pieces[first..next]
        let mut first = 0usize;
        let mut next = 0usize;
        let mut total = 0usize;
        for (i, d) in pieces.iter().enumerate() {
            let n_cur = next - first;
            let extra = if n_cur > 0 { sep_len } else { 0 };
            if total + d.len + extra > size && n_cur > 0 {
                self.emit(&pieces[first..next], sep);
                loop {
                    let n_cur = next - first;
                    let extra = if n_cur > 0 { sep_len } else { 0 };
                    let must_drop = total > overlap || (total + d.len + extra > size && total > 0);
                    if !must_drop || n_cur == 0 {
                        break;
                    }
                    let head = pieces[first].len + if n_cur > 1 { sep_len } else { 0 };
                    // LangChain's `total -= ...` never goes negative on consistent counts.
                    total = total.saturating_sub(head);
                    first += 1;
                }
            }
            debug_assert_eq!(next, i);
            next = i + 1;
            total += d.len + if next - first > 1 { sep_len } else { 0 };
        }
        if next > first {
            self.emit(&pieces[first..next], sep);
        }
    }

    /// `_join_docs`: the chunk made of consecutive `pieces`, stripped; nothing when empty.
    fn emit(&mut self, pieces: &[Piece], sep: &Separator) {
        let (Some(first), Some(last)) = (pieces.first(), pieces.last()) else {
            return;
        };
        let (mut start, mut end) = (first.start, last.end);
        if self.cfg.strip_whitespace {
            let (s, e) = py_strip(&self.text[start..end]);
            end = start + e;
            start += s;
        }
        let joined = if self.cfg.keep_separator == KeepSeparator::Drop && pieces.len() > 1 {
            let mut j = String::new();
            for (k, p) in pieces.iter().enumerate() {
                if k > 0 {
                    j.push_str(&sep.text);
                }
                j.push_str(&self.text[p.start..p.end]);
            }
            let j = if self.cfg.strip_whitespace {
                let (s, e) = py_strip(&j);
                j[s..e].to_owned()
            } else {
                j
            };
            if j.is_empty() {
                return;
            }
            (j != self.text[start..end]).then_some(j)
        } else {
            if start == end {
                return;
            }
            None
        };
        self.out.push(RecursiveChunk { start, end, joined });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::CharCount;

    fn cfg(size: usize, overlap: usize, seps: &[&str], keep: KeepSeparator) -> RecursiveConfig {
        RecursiveConfig {
            chunk_size: size,
            chunk_overlap: overlap,
            separators: seps.iter().map(|s| Separator::literal(s)).collect(),
            keep_separator: keep,
            strip_whitespace: true,
        }
    }

    fn texts(text: &str, c: &RecursiveConfig) -> Vec<String> {
        split(text, c, &CharCount)
            .unwrap()
            .into_iter()
            .map(|ch| {
                ch.joined
                    .unwrap_or_else(|| text[ch.start..ch.end].to_owned())
            })
            .collect()
    }

    #[test]
    fn langchain_docstring_example() {
        // LangChain's docstring-style example; expected = langchain-text-splitters 1.1 output.
        let text = "Hi.\n\nI'm Harrison.\n\nHow? Are? You?\nOkay then f f f f.\nThis is a weird text to write, but gotta test the splittingggg some how.\n\nBye!\n\n-H.";
        let c = cfg(10, 1, &["\n\n", "\n", " ", ""], KeepSeparator::Start);
        let expected = [
            "Hi.",
            "I'm",
            "Harrison.",
            "How? Are?",
            "You?",
            "Okay then",
            "f f f f.",
            "This is a",
            "weird",
            "text to",
            "write,",
            "but gotta",
            "test the",
            "splitting",
            "gggg",
            "some how.",
            "Bye!",
            "-H.",
        ];
        assert_eq!(texts(text, &c), expected);
    }

    #[test]
    fn keep_end_and_drop() {
        let text = "a.b.c.d";
        assert_eq!(
            texts(text, &cfg(4, 0, &["."], KeepSeparator::End)),
            ["a.b.", "c.d"]
        );
        assert_eq!(
            texts(text, &cfg(4, 0, &["."], KeepSeparator::Start)),
            ["a.b", ".c.d"]
        );
        assert_eq!(
            texts(text, &cfg(4, 0, &["."], KeepSeparator::Drop)),
            ["a.b", "c.d"]
        );
        // A run of separators: LangChain re-joins with one separator.
        let got = split("a..b", &cfg(10, 0, &["."], KeepSeparator::Drop), &CharCount).unwrap();
        assert_eq!(
            got,
            [RecursiveChunk {
                start: 0,
                end: 4,
                joined: Some("a.b".into())
            }]
        );
    }

    #[test]
    fn never_panics_on_odd_input() {
        for text in ["", " ", "\n\n\n", "🦀🦀🦀", "a\u{1c}b"] {
            for keep in [
                KeepSeparator::Drop,
                KeepSeparator::Start,
                KeepSeparator::End,
            ] {
                let c = cfg(1, 0, &["\n", ""], keep);
                let _ = split(text, &c, &CharCount).unwrap();
            }
        }
    }

    #[test]
    fn measured_chunks_are_in_code_points() {
        let c = cfg(2, 0, &[" "], KeepSeparator::Drop);
        let text = "ab é中";
        let got = split_measured_builtin(text, &c, UnitCount::Chars, true);
        let spans: Vec<_> = got.iter().map(|m| (m.start, m.end, m.size)).collect();
        assert_eq!(spans, [(0, 2, 2), (3, 5, 2)]);
        let index = CharIndex::new(text);
        let unmeasured = split_measured(&index, &c, &CharCount, false).unwrap();
        let spans: Vec<_> = unmeasured
            .iter()
            .map(|m| (m.start, m.end, m.size))
            .collect();
        assert_eq!(spans, [(0, 2, 0), (3, 5, 0)]);
    }
}
