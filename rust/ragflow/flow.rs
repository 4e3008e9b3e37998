//! The hot kernels of RAGFlow's ingestion-pipeline chunkers (`TokenChunker`, `TitleChunker`
//! at v0.27), twins of `python/ragchunk/_pure/ragflow/flow.py`:
//!
//! * [`split_on_tokens`]: `re.split` on an alternation of literal tokens (tried in the given
//!   order at each position), delimiters dropped, empty segments dropped, with code-point
//!   ranges;
//! * [`take_sentences`]: whole sentences from one end of a text until a token budget is met
//!   (the table/image context);
//! * [`merge_run`]: the token merge of consecutive JSON text items, overlap glued without a
//!   separator, and the items whose positions each merged chunk carries;
//! * [`cap_split`]: TitleChunker's token cap (sentence re-split, then a hard split on token
//!   boundaries).
//!
//! Offsets are code points, as Python's string indexes are.

use crate::ragflow::positions::remove_tag;
use crate::text::boundaries::boundaries;
use crate::tokenizer::Tokenizer;

/// Non-empty segments of `text` between occurrences of `tokens`, as code-point ranges.
pub fn split_on_tokens(text: &str, tokens: &[String]) -> Vec<(usize, usize)> {
    let toks: Vec<&str> = tokens
        .iter()
        .map(String::as_str)
        .filter(|t| !t.is_empty())
        .collect();
    let mut out = Vec::new();
    if toks.is_empty() {
        let n = text.chars().count();
        if n > 0 {
            out.push((0, n));
        }
        return out;
    }
    let bytes = text.as_bytes();
    let mut seg_start_cp = 0usize;
    let mut cp = 0usize;
    let mut i = 0usize;
    while i < bytes.len() {
        let rest = &text[i..];
        if let Some(hit) = toks.iter().find(|t| rest.starts_with(**t)) {
            if cp > seg_start_cp {
                out.push((seg_start_cp, cp));
            }
            i += hit.len();
            cp += hit.chars().count();
            seg_start_cp = cp;
            continue;
        }
        let step = rest.chars().next().map_or(1, char::len_utf8);
        i += step;
        cp += 1;
    }
    if cp > seg_start_cp {
        out.push((seg_start_cp, cp));
    }
    out
}

/// The sentences of `text`: split after each of `chars.terminators.flow` (`。!?？；！\n`, the
/// data file's set) and after `". "`, each keeping its boundary
/// (`re.split(r"([。!?？；！\n]|\. )")` re-joined pairwise).
pub fn sentences(text: &str) -> Vec<&str> {
    let terminators = boundaries().flow_terminators;
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut iter = text.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        let end = match c {
            c if terminators.contains(c) => Some(i + c.len_utf8()),
            '.' if matches!(iter.peek(), Some((_, ' '))) => {
                iter.next();
                Some(i + 2)
            }
            _ => None,
        };
        if let Some(end) = end {
            out.push(&text[start..end]);
            start = end;
        }
    }
    out.push(&text[start..]);
    out
}

/// Whole sentences from the start (or the end) of `text` until they hold at least `need`
/// tokens (RAGFlow's `_take_sentences`).
pub fn take_sentences(tok: &Tokenizer, text: &str, need: f64, from_end: bool) -> String {
    let parts = sentences(text);
    if from_end {
        let mut start = text.len();
        for s in parts.iter().rev() {
            start -= s.len();
            if tok.count_or_zero(&text[start..]) as f64 >= need {
                break;
            }
        }
        text[start..].to_string()
    } else {
        let mut end = 0usize;
        for s in &parts {
            end += s.len();
            if tok.count_or_zero(&text[..end]) as f64 >= need {
                break;
            }
        }
        text[..end].to_string()
    }
}

fn cp_slice_from(text: &str, cp: usize) -> &str {
    match text.char_indices().nth(cp) {
        Some((b, _)) => &text[b..],
        None => "",
    }
}

/// One merged chunk of [`merge_run`]: its text and the indexes of the items whose positions it
/// carries, in order (an index may repeat, as RAGFlow keeps duplicate boxes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub text: String,
    pub sources: Vec<usize>,
}

/// TokenChunker's merge of consecutive text items (`texts` with their RAGFlow token `counts`):
/// a new chunk starts when the running sum exceeds `size * (100 - percent) / 100` or the item
/// alone exceeds `size`; with `percent > 0` it is prefixed (no separator) with the tail of the
/// previous chunk's visible text, and carries the positions of every part of the previous chunk
/// that reaches into that tail.
pub fn merge_run(
    tok: &Tokenizer,
    texts: &[&str],
    counts: &[usize],
    size: usize,
    percent: u32,
) -> Vec<Merged> {
    let keep = f64::from(100 - percent.min(100));
    let threshold = (size as f64) * keep / 100.0;
    let mut out: Vec<Merged> = Vec::new();
    let mut running = 0usize;
    // (end in code points, sources) of each part of the last chunk.
    let mut spans: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut len_cp = 0usize;
    for (i, (&text, &n)) in texts.iter().zip(counts).enumerate() {
        let start_new = out.is_empty() || (running as f64) > threshold || n > size;
        if start_new {
            let mut sources = Vec::new();
            let mut new_text = String::new();
            if let Some(last) = out.last() {
                if percent > 0 && !last.text.is_empty() {
                    let visible = remove_tag(&last.text);
                    let vis_len = visible.chars().count();
                    let cut = ((vis_len as u64 * u64::from(100 - percent)) as f64 / 100.0) as usize;
                    new_text.push_str(cp_slice_from(&visible, cut));
                    for (end, src) in &spans {
                        if *end > cut {
                            sources.extend_from_slice(src);
                        }
                    }
                }
            }
            let overlapped = !new_text.is_empty() || !sources.is_empty();
            new_text.push_str(text);
            sources.push(i);
            running = if overlapped {
                tok.count_or_zero(&new_text)
            } else {
                n
            };
            len_cp = new_text.chars().count();
            spans.clear();
            spans.push((len_cp, sources.clone()));
            out.push(Merged {
                text: new_text,
                sources,
            });
            continue;
        }
        if let Some(last) = out.last_mut() {
            if !last.text.is_empty() && !text.is_empty() {
                last.text.push('\n');
                len_cp += 1;
            }
            last.text.push_str(text);
            len_cp += text.chars().count();
            last.sources.push(i);
            running += n;
            spans.push((len_cp, vec![i]));
        }
    }
    out
}

fn cap_count(tok: &Tokenizer, text: &str) -> usize {
    let n = tok.count_or_zero(text);
    if n == 0 && !text.is_empty() {
        text.chars().count()
    } else {
        n
    }
}

/// `cap_count(text) > cap`, without counting text too short to hold more than `cap` tokens
/// (every token covers at least one byte, and a 0-count text counts its characters).
fn over_cap(tok: &Tokenizer, text: &str, cap: usize) -> bool {
    text.len() > cap && cap_count(tok, text) > cap
}

fn hard_split(tok: &Tokenizer, text: &str, cap: usize, out: &mut Vec<String>) {
    let mut rest = text;
    while !rest.is_empty() {
        let mut head: String = if tok.find_special(rest).is_some() {
            rest.chars().take(cap).collect()
        } else {
            let ids = tok.encode_ordinary(rest);
            let bytes = tok
                .decode_bytes(ids.get(..cap.min(ids.len())).unwrap_or_default())
                .unwrap_or_default();
            let decoded = String::from_utf8_lossy(&bytes).into_owned();
            if rest.starts_with(&decoded) {
                decoded
            } else {
                let mut d = decoded;
                d.pop();
                d
            }
        };
        if head.is_empty() || !rest.starts_with(&head) {
            head = rest.chars().take(1).collect();
        }
        rest = &rest[head.len()..];
        out.push(head);
    }
}

/// TitleChunker's token cap on one chunk text: unchanged when within `cap`, else sentences
/// merged greedily within `cap`, a piece still over it hard-split on token boundaries.
pub fn cap_split(tok: &Tokenizer, text: &str, cap: usize) -> Vec<String> {
    if !over_cap(tok, text, cap) {
        return vec![text.to_string()];
    }
    // Each candidate only appends a sentence to the current piece, so without special-token
    // text (whose count is 0, then the characters) it is counted from the last stable piece
    // boundary instead of from the piece start.
    let resumable = !tok.is_external() && tok.find_special(text).is_none();
    // (piece, known to fit): a piece of two or more sentences was counted within `cap`.
    let mut pieces: Vec<(&str, bool)> = Vec::new();
    let mut start = 0usize;
    let mut end = 0usize;
    let mut fits = false;
    // Resume point (absolute offset) and the tokens of `text[start..resume.0]`.
    let mut resume = (0usize, 0usize);
    for s in sentences(text) {
        if s.is_empty() {
            continue;
        }
        if end > start {
            let cand = &text[start..end + s.len()];
            let over = if !resumable {
                over_cap(tok, cand, cap)
            } else if cand.len() <= cap {
                false
            } else {
                let budget = cap.saturating_sub(resume.1);
                match tok.count_ordinary_resume(cand, resume.0 - start, 0, Some(budget)) {
                    Some(r) if r.count <= budget => {
                        resume = (start + r.stable, resume.1 + r.count_to_stable);
                        false
                    }
                    Some(_) => true,
                    None => over_cap(tok, cand, cap),
                }
            };
            if over {
                pieces.push((&text[start..end], fits));
                start = end;
                resume = (end, 0);
                fits = false;
            } else {
                fits = true;
            }
        }
        end += s.len();
    }
    if end > start {
        pieces.push((&text[start..end], fits));
    }
    let mut out = Vec::new();
    for (p, fits) in pieces {
        if fits || !over_cap(tok, p, cap) {
            out.push(p.to_string());
        } else {
            hard_split(tok, p, cap, &mut out);
        }
    }
    out
}

/// A box as RAGFlow indexes it: `(page, left, right, top, bottom)`, ints.
pub type IntBox = (i64, i64, i64, i64, i64);

/// RAGFlow's last steps on a chunk's normalised boxes `[page, left, right, top, bottom]`:
/// optionally one more page normalisation (a page <= 0 gets + 1), then `int()` of every
/// field (truncation), a box with a NaN skipped. `None` when a field is infinite or out of
/// `i64` range: the caller then takes the exact Python path (which raises `OverflowError`).
pub fn finalize_boxes(boxes: &[Vec<f64>], normalise: bool) -> Option<Vec<IntBox>> {
    const LIMIT: f64 = 9.0e18;
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53: larger pages are not exact as f64
    let mut out = Vec::with_capacity(boxes.len());
    for bx in boxes {
        let &[page, l, r, t, b] = bx.as_slice() else {
            return None;
        };
        if page.fract() != 0.0 || page.abs() >= EXACT {
            return None;
        }
        let page = page as i64;
        let page = if normalise && page <= 0 {
            page + 1
        } else {
            page
        };
        let coords = [l, r, t, b];
        if coords.iter().any(|c| c.is_infinite() || c.abs() >= LIMIT) {
            return None;
        }
        if coords.iter().any(|c| c.is_nan()) {
            continue;
        }
        out.push((page, l as i64, r as i64, t as i64, b as i64));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::EncodingName;

    fn cl() -> &'static Tokenizer {
        Tokenizer::get(EncodingName::Cl100kBase)
    }

    #[test]
    fn splits_on_literal_tokens_in_order() {
        let toks = vec!["##".to_string()];
        assert_eq!(
            split_on_tokens("a##b####c", &toks),
            vec![(0, 1), (3, 4), (8, 9)]
        );
        let longest_first = vec!["\n\n".to_string(), "\n".to_string()];
        assert_eq!(
            split_on_tokens("é\n\nb\nc", &longest_first),
            vec![(0, 1), (3, 4), (5, 6)]
        );
        assert!(split_on_tokens("", &toks).is_empty());
    }

    #[test]
    fn sentences_keep_their_boundary() {
        assert_eq!(sentences("One. Two。x"), vec!["One. ", "Two。", "x"]);
        assert_eq!(sentences("a\n"), vec!["a\n", ""]);
    }

    #[test]
    fn takes_sentences_from_either_end() {
        assert_eq!(
            take_sentences(cl(), "One. Two. Three.", 1.0, true),
            "Three."
        );
        assert_eq!(
            take_sentences(cl(), "One. Two. Three.", 1.0, false),
            "One. "
        );
    }

    #[test]
    fn merges_by_summed_counts_with_overlap() {
        let texts = ["aaaa", "bbbb", "cccc"];
        let counts = [2, 2, 2];
        let merged = merge_run(cl(), &texts, &counts, 3, 0);
        assert_eq!(merged.len(), 2);
        assert_eq!(merged[0].text, "aaaa\nbbbb");
        assert_eq!(merged[0].sources, vec![0, 1]);
        let ov = merge_run(cl(), &texts, &counts, 1, 50);
        assert_eq!(ov[1].text, "aabbbb");
        assert_eq!(ov[1].sources, vec![0, 1]);
    }

    #[test]
    fn finalizes_boxes_like_python_int() {
        let boxes = [
            vec![-1.0, 1.9, -2.7, 3.0, 4.5],
            vec![2.0, f64::NAN, 1.0, 1.0, 1.0],
        ];
        assert_eq!(finalize_boxes(&boxes, true), Some(vec![(0, 1, -2, 3, 4)]));
        assert_eq!(finalize_boxes(&boxes, false), Some(vec![(-1, 1, -2, 3, 4)]));
        let inf = [vec![1.0, f64::INFINITY, 0.0, 0.0, 0.0]];
        assert_eq!(finalize_boxes(&inf, true), None);
    }

    #[test]
    fn caps_by_sentences_then_tokens() {
        assert_eq!(cap_split(cl(), "a. b. ", 3), vec!["a. ", "b. "]);
        let long = "x".repeat(50);
        let pieces = cap_split(cl(), &long, 2);
        assert_eq!(pieces.concat(), long);
        assert!(pieces.iter().all(|p| cl().count_or_zero(p) <= 2));
    }

    /// The greedy merge recounting every candidate from its piece start, as RAGFlow does.
    fn cap_split_recounting(tok: &Tokenizer, text: &str, cap: usize) -> Vec<String> {
        if !over_cap(tok, text, cap) {
            return vec![text.to_string()];
        }
        let (mut pieces, mut start, mut end) = (Vec::new(), 0usize, 0usize);
        for s in sentences(text) {
            if s.is_empty() {
                continue;
            }
            if end > start && over_cap(tok, &text[start..end + s.len()], cap) {
                pieces.push(&text[start..end]);
                start = end;
            }
            end += s.len();
        }
        if end > start {
            pieces.push(&text[start..end]);
        }
        let mut out = Vec::new();
        for p in pieces {
            if over_cap(tok, p, cap) {
                hard_split(tok, p, cap, &mut out);
            } else {
                out.push(p.to_string());
            }
        }
        out
    }

    #[test]
    fn resumed_cap_split_equals_recounting() {
        const WORDS: [&str; 22] = [
            "alpha",
            " beta",
            "。",
            ". ",
            "!",
            "？",
            " ",
            "  ",
            "\n",
            "\r\n",
            "'re",
            "'S",
            "12345",
            "中文",
            "，",
            "é",
            "🎉",
            "\t",
            "x",
            "<|endoftext|>",
            "...",
            ";",
        ];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        for round in 0..400 {
            let mut text = String::new();
            let len = 5 + (round % 120);
            for _ in 0..len {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let w = WORDS[(seed % WORDS.len() as u64) as usize];
                // special-token text in one round of ten only
                if w.starts_with("<|") && round % 10 != 0 {
                    continue;
                }
                text.push_str(w);
            }
            for cap in [1, 3, 8, 20, 64] {
                assert_eq!(
                    cap_split(cl(), &text, cap),
                    cap_split_recounting(cl(), &text, cap),
                    "{text:?} cap {cap}"
                );
            }
        }
    }
}
