//! Sentence segmentation (Latin scripts and Chinese/Japanese) and packing whole sentences.
//!
//! # Segmentation rules
//! Mirrored rule for rule by `python/ragchunk/_pure/splitters/sentence.py`.
//! * A CJK terminator (`。｡！？；` and their full-width forms `！？；．`), with any terminators
//!   and closing quotes/brackets right after it, ends a sentence: no space needed.
//! * A Latin terminator run (`.`, `!`, `?`, `…`, `‼⁇⁈⁉`), with closing quotes/brackets, ends a
//!   sentence when it is followed by whitespace or the end of the text **and** the next
//!   non-space character is not a lowercase letter (`e.g. the`, `approx. three`). So decimals
//!   (`3.14`), URLs and `a.b` never end a sentence.
//! * A single `.` does not end a sentence after an abbreviation (`Mr.`, `Dr.`, `vs.`, `Fig.`,
//!   the list below), after an initial (one uppercase letter: `J. K. Rowling`), or after a
//!   dotted abbreviation (`U.S.`, `e.g.`, `i.e.`, `Ph.D.`: ASCII letters in groups of one or
//!   two, separated by dots).
//! * A line break ends a sentence (Markdown headings, list items and table rows are lines;
//!   UAX #29 breaks there too).
//!
//! Sentences are the text between boundaries with surrounding whitespace removed; the
//! whitespace between sentences belongs to neither, so a chunk of consecutive sentences is
//! exactly a source range.
//!
//! The character sets are the shared data file's ([`crate::text::boundaries`]): the
//! terminators `chars.terminators.sentence_latin` and `sentence_cjk`, the quotes and brackets
//! `chars.closers.sentence` and `chars.openers.sentence`, and as whitespace Python's
//! `str.isspace` (`chars.whitespace.langchain`), so both backends cut at the same characters.

use std::sync::LazyLock;

use super::recursive::{self, KeepSeparator, RecursiveConfig, Separator};
use super::Span;
use crate::text::boundaries::{boundaries, py_strip};
use crate::text::rules::{rules, static_strs};
use crate::tokenizer::CharCount;
use crate::tokenizer::{OrdinaryCount, TokenCounter, UnitCount};

/// Lowercase abbreviations (without their final dot) after which `.` never ends a sentence:
/// `sentence.abbreviations` of the shared data file ([`crate::text::rules`]), which says why
/// some words are absent.
pub static ABBREVIATIONS: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| static_strs(&rules().abbreviations));

/// Whether `word` (the text before a single `.`) is an abbreviation, an initial or a dotted
/// abbreviation.
fn no_break_before_dot(word: &[char]) -> bool {
    let openers = boundaries().sentence_openers;
    let word: &[char] = {
        let start = word
            .iter()
            .position(|&c| !openers.contains(c))
            .unwrap_or(word.len());
        &word[start..]
    };
    if word.is_empty() {
        return false;
    }
    if word.len() == 1 && word[0].is_uppercase() {
        return true; // an initial
    }
    if !word.iter().all(|c| c.is_ascii()) {
        return false;
    }
    let lower: String = word.iter().map(|c| c.to_ascii_lowercase()).collect();
    if ABBREVIATIONS.contains(&lower.as_str()) {
        return true;
    }
    lower.contains('.')
        && lower
            .split('.')
            .all(|seg| (1..=2).contains(&seg.len()) && seg.chars().all(|c| c.is_ascii_alphabetic()))
}

/// Sentence spans of `text` as byte ranges (`size` 0).
pub fn sentences(text: &str) -> Vec<Span> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let n = chars.len();
    let byte_at = |i: usize| chars.get(i).map_or(text.len(), |&(b, _)| b);
    let b = boundaries();
    let (latin, cjk, terminator) = (
        b.sentence_latin_terminators,
        b.sentence_cjk_terminators,
        b.sentence_terminators,
    );
    let (closer, space) = (b.sentence_closers, b.langchain_space);
    let mut bounds: Vec<usize> = Vec::new(); // char positions where a sentence ends
    let mut i = 0;
    while i < n {
        let c = chars[i].1;
        if c == '\n' {
            bounds.push(i);
            i += 1;
            continue;
        }
        if !terminator.contains(c) {
            i += 1; // most characters: one test, not one per kind of terminator
            continue;
        }
        if cjk.contains(c) {
            let mut j = i + 1;
            while j < n && terminator.contains(chars[j].1) {
                j += 1;
            }
            while j < n && closer.contains(chars[j].1) {
                j += 1;
            }
            bounds.push(j);
            i = j;
            continue;
        }
        if latin.contains(c) {
            let mut j = i + 1;
            while j < n && terminator.contains(chars[j].1) {
                j += 1;
            }
            let run_is_single_dot = c == '.' && j == i + 1;
            while j < n && closer.contains(chars[j].1) {
                j += 1;
            }
            let spaced = j == n || space.contains(chars[j].1);
            let mut k = j;
            while k < n && space.contains(chars[k].1) && chars[k].1 != '\n' {
                k += 1;
            }
            let next_lower = k < n && chars[k].1.is_lowercase();
            let mut breaks = spaced && !next_lower;
            if breaks && run_is_single_dot {
                let mut w = i;
                while w > 0 && !space.contains(chars[w - 1].1) {
                    w -= 1;
                }
                let word: Vec<char> = chars[w..i].iter().map(|&(_, c)| c).collect();
                breaks = !no_break_before_dot(&word);
            }
            if breaks {
                bounds.push(j);
            }
            i = j.max(i + 1);
            continue;
        }
        i += 1;
    }
    bounds.push(n);
    let mut out = Vec::with_capacity(bounds.len());
    let mut prev = 0usize;
    for b in bounds {
        if b <= prev {
            continue;
        }
        let (s, e) = py_strip(&text[byte_at(prev)..byte_at(b)]);
        if e > s {
            out.push(Span {
                start: byte_at(prev) + s,
                end: byte_at(prev) + e,
                size: 0,
            });
        }
        prev = b;
    }
    out
}

/// Separators for cutting one over-long sentence, coarsest first: clauses, then words, then
/// characters (`sentence.separators` of the shared data file, [`crate::text::rules`]). The
/// punctuation stays at the end of the clause it closes.
pub static SENTENCE_SEPARATORS: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| static_strs(&rules().sentence_separators));

/// Configuration of [`split`] (validated by the caller: `chunk_size >= 1`).
#[derive(Debug, Clone, Copy)]
pub struct SentenceConfig {
    /// The budget in the counter's unit.
    pub chunk_size: usize,
    /// How many sentences of a chunk's end start the next chunk too (when they fit).
    pub overlap_sentences: usize,
}

/// Packs whole sentences of `text` into chunks of at most `chunk_size` (measured on the
/// chunk's own text); a sentence over the budget is cut by the recursive splitter at the
/// finest separator that fits (see [`SENTENCE_SEPARATORS`]). `size` of a span is its count.
pub fn split<C: TokenCounter>(
    text: &str,
    cfg: SentenceConfig,
    counter: &C,
) -> Result<Vec<Span>, C::Error> {
    // Units: sentences, and the parts of over-long sentences; each with its own count.
    let mut units: Vec<Span> = Vec::new();
    let long_cfg = RecursiveConfig {
        chunk_size: cfg.chunk_size,
        chunk_overlap: 0,
        separators: SENTENCE_SEPARATORS
            .iter()
            .map(|s| Separator::literal(s))
            .collect(),
        keep_separator: KeepSeparator::End,
        strip_whitespace: true,
    };
    for s in sentences(text) {
        let piece = &text[s.start..s.end];
        let n = counter.count(piece)?;
        if n <= cfg.chunk_size {
            units.push(Span { size: n, ..s });
            continue;
        }
        for part in recursive::split(piece, &long_cfg, counter)? {
            let sub = &piece[part.start..part.end];
            units.push(Span {
                start: s.start + part.start,
                end: s.start + part.end,
                size: counter.count(sub)?,
            });
        }
    }
    let mut out = Vec::new();
    let mut first = 0usize;
    while first < units.len() {
        // Greedy by the sum of unit counts, then confirmed on the chunk's own text.
        let mut last = first + 1;
        let mut total = units[first].size;
        while last < units.len() && total + units[last].size <= cfg.chunk_size {
            total += units[last].size;
            last += 1;
        }
        let mut size = counter.count(&text[units[first].start..units[last - 1].end])?;
        while size > cfg.chunk_size && last > first + 1 {
            last -= 1;
            size = counter.count(&text[units[first].start..units[last - 1].end])?;
        }
        out.push(Span {
            start: units[first].start,
            end: units[last - 1].end,
            size,
        });
        if last >= units.len() {
            break;
        }
        // Overlap: the last sentences again, as many as asked that still let the next
        // chunk take its first new unit; always advance.
        let mut next = last;
        let mut kept = 0usize;
        let mut budget = cfg.chunk_size.saturating_sub(units[last].size);
        while kept < cfg.overlap_sentences && next > first + 1 && units[next - 1].size <= budget {
            budget -= units[next - 1].size;
            next -= 1;
            kept += 1;
        }
        first = next;
    }
    Ok(out)
}

/// [`split`] in a built-in unit (tokens of a built-in encoding, or characters), each run
/// with its own counter type rather than one that decides at every count.
pub fn split_builtin(text: &str, cfg: SentenceConfig, unit: UnitCount) -> Vec<Span> {
    let out = match unit {
        UnitCount::Tokens(tok) => split(text, cfg, &OrdinaryCount(tok)),
        UnitCount::Chars => split(text, cfg, &CharCount),
    };
    out.unwrap_or_else(|never| match never {})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sents(text: &str) -> Vec<&str> {
        sentences(text)
            .into_iter()
            .map(|s| &text[s.start..s.end])
            .collect()
    }

    #[test]
    fn english_rules() {
        assert_eq!(
            sents("Mr. Smith paid $3.50 for it. Dr. J. K. Rowling agreed! Did she? Yes."),
            [
                "Mr. Smith paid $3.50 for it.",
                "Dr. J. K. Rowling agreed!",
                "Did she?",
                "Yes."
            ]
        );
        assert_eq!(
            sents(
                "He lives in the U.S. now, e.g. in Ohio. \"Wait...\" she said. Go on... Then stop."
            ),
            [
                "He lives in the U.S. now, e.g. in Ohio.",
                "\"Wait...\" she said.",
                "Go on...",
                "Then stop."
            ]
        );
        assert_eq!(
            sents("See Fig. 3 and Eq. 2. Next one."),
            ["See Fig. 3 and Eq. 2.", "Next one."]
        );
    }

    #[test]
    fn cjk_and_mixed() {
        assert_eq!(
            sents("今天天气很好。我们去公园吧！你觉得呢？「好的。」然后；结束"),
            [
                "今天天气很好。",
                "我们去公园吧！",
                "你觉得呢？",
                "「好的。」",
                "然后；",
                "结束"
            ]
        );
        assert_eq!(
            sents("Rust 很快。It is safe. 日本語もＯＫ！終わり"),
            ["Rust 很快。", "It is safe.", "日本語もＯＫ！", "終わり"]
        );
    }

    #[test]
    fn packing_keeps_sentences_whole_and_within_budget() {
        let text =
            "One two. Three four five. Six. A very long sentence without any stop that goes on";
        let cfg = SentenceConfig {
            chunk_size: 20,
            overlap_sentences: 0,
        };
        let chunks: Vec<&str> = split(text, cfg, &CharCount)
            .unwrap()
            .into_iter()
            .map(|s| &text[s.start..s.end])
            .collect();
        assert_eq!(chunks[0], "One two.");
        assert!(chunks.iter().all(|c| c.chars().count() <= 20));
        let with_overlap = split(
            "A b. C d. E f. G h.",
            SentenceConfig {
                chunk_size: 10,
                overlap_sentences: 1,
            },
            &CharCount,
        )
        .unwrap();
        let t = "A b. C d. E f. G h.";
        let got: Vec<&str> = with_overlap.iter().map(|s| &t[s.start..s.end]).collect();
        assert_eq!(got, ["A b. C d.", "C d. E f.", "E f. G h."]);
    }
}
