//! v0.27 default mode: every section split into paragraphs at every delimiter, the
//! paragraphs grouped by strategy, each group's chunk body built once.

use std::borrow::Cow;
use std::ops::Range;

use crate::ragflow::delimiters::{normalize_newlines, splitter_for_field};
use crate::tokenizer::TokenCounter;

use super::counting::Counting;
use super::hard_cap::{group_hard_cap, hard_cap_fragments, shrink_prefix};
use super::overlap::{push_overlap_prefix, threshold};
use super::{push_body, Chunk, MergeOptions, Paragraph, Section, Strategy};

/// Where one v0.27 chunk came from, for [`naive_merge_offsets`](super::naive_merge_offsets): the section, the byte range
/// in that section's *normalised* text from its first piece's start to its last piece's end,
/// and the overlap prefix length in code points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    pub(super) sec: usize,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) prefix_chars: usize,
}

/// Byte offset of `part` inside `whole` (`part` must be a sub-slice of `whole`).
pub(super) fn offset_in(whole: &str, part: &str) -> usize {
    part.as_ptr() as usize - whole.as_ptr() as usize
}

pub(super) fn v27_default<C: TokenCounter>(
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

#[cfg(test)]
mod tests {
    use super::super::test_util::*;

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
}
