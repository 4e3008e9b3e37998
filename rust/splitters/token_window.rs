//! Sliding windows over tokens, cut only where a character ends.
//!
//! The text's token edges come from one pass of the tokenizer ([`Tokenizer::token_edges`]:
//! the byte offset where each token of `encode_ordinary(text)` starts, from the same piece memo
//! as counting, with no token ids built). A window of `chunk_size` tokens from edge `s` ends at the last edge
//! `<= s + chunk_size` that is also a character boundary (byte-level BPE can split one
//! character's UTF-8 bytes across tokens, and a chunk must never hold half a character). When
//! no such edge exists after `s` — a run of tokens with no character boundary inside (one
//! character, or two whose bytes share a token) worth more than `chunk_size` tokens — the
//! window runs to the first character boundary after it: the one documented overflow. The
//! next window starts at the last character-boundary edge `<= s + step` (or the first one
//! after `s`, so it always advances), which is never after the previous window's end: no text
//! is skipped. A window that would end where the previous one ended adds nothing and is
//! skipped. Where every token edge is a character boundary (ASCII, most Latin text) the
//! windows are exactly LangChain's `TokenTextSplitter`'s.

use super::Span;
use crate::tokenizer::Tokenizer;

/// Token windows of `text` under `tok` (its [`Tokenizer::token_edges`], then [`windows`]):
/// `chunk_size` tokens, stepping by `chunk_size - chunk_overlap`.
pub fn split(tok: &Tokenizer, text: &str, chunk_size: usize, chunk_overlap: usize) -> Vec<Span> {
    windows(text, &tok.token_edges(text), chunk_size, chunk_overlap)
}

/// Windows over token edges `edges` (byte offsets; see [`Tokenizer::token_edges`]) of `text`; `size` of a
/// span is its number of tokens. Requires `chunk_size >= 1`, `chunk_overlap < chunk_size`.
pub fn windows(text: &str, edges: &[usize], chunk_size: usize, chunk_overlap: usize) -> Vec<Span> {
    let n = edges.len().saturating_sub(1);
    if n == 0 || chunk_size == 0 || chunk_overlap >= chunk_size {
        return Vec::new();
    }
    let step = chunk_size - chunk_overlap;
    let ok = |k: usize| text.is_char_boundary(edges[k]);
    let back = |from: usize, floor: usize| (floor + 1..=from).rev().find(|&k| ok(k));
    let forward = |after: usize| (after + 1..=n).find(|&k| ok(k)).unwrap_or(n);
    let mut out = Vec::new();
    let mut s = 0usize;
    loop {
        let want = (s + chunk_size).min(n);
        let e = back(want, s).unwrap_or_else(|| forward(want));
        // A window that ends where the previous one did adds nothing (it can happen when
        // snapping to a character boundary pulled both back to the same edge): skip it.
        if out.last().map_or(true, |prev: &Span| edges[e] > prev.end) {
            out.push(Span {
                start: edges[s],
                end: edges[e],
                size: e - s,
            });
        }
        if e >= n {
            break;
        }
        let target = (s + step).min(n);
        s = back(target, s).unwrap_or_else(|| forward(s));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::EncodingName;

    #[test]
    fn windows_cover_text_and_respect_chars() {
        let tok = Tokenizer::get(EncodingName::Cl100kBase);
        for text in [
            "hello world, this is a test of windows",
            "中文分词测试🦀🦀 ok 😀😀😀",
            "",
        ] {
            let edges = tok.token_edges(text);
            for (size, overlap) in [(1, 0), (2, 1), (3, 0), (5, 2)] {
                let spans = windows(text, &edges, size, overlap);
                let mut covered = 0;
                for sp in &spans {
                    assert!(text.is_char_boundary(sp.start) && text.is_char_boundary(sp.end));
                    assert!(sp.start <= covered, "gap before {sp:?}");
                    covered = covered.max(sp.end);
                    let inner_char_edge = edges
                        .iter()
                        .any(|&b| b > sp.start && b < sp.end && text.is_char_boundary(b));
                    assert!(sp.size <= size || !inner_char_edge);
                }
                assert_eq!(covered, text.len());
            }
        }
    }

    #[test]
    fn edges_are_decoded_lengths() {
        let long_run = "─".repeat(60) + &"🦀".repeat(40) + &" ".repeat(300);
        for name in [EncodingName::Cl100kBase, EncodingName::O200kBase] {
            let tok = Tokenizer::get(name);
            for text in [
                "héllo 中文分词 🦀 <|endoftext|> ok",
                "",
                "x",
                long_run.as_str(),
            ] {
                // Twice: the second pass reads the piece memo the first one filled.
                for _ in 0..2 {
                    let edges = tok.token_edges(text);
                    let ids = tok.encode_ordinary(text);
                    assert_eq!(edges.len(), ids.len() + 1);
                    let mut at = 0;
                    for (k, id) in ids.iter().enumerate() {
                        assert_eq!(edges[k], at, "{text:?} token {k}");
                        at += tok.decode_bytes(&[*id]).unwrap().len();
                    }
                    assert_eq!(edges.last(), Some(&text.len()));
                    assert_eq!(at, text.len());
                }
            }
        }
    }

    #[test]
    fn ascii_windows_step() {
        let tok = Tokenizer::get(EncodingName::Cl100kBase);
        let text = "a b c d e";
        let edges = tok.token_edges(text);
        let got: Vec<&str> = windows(text, &edges, 2, 1)
            .iter()
            .map(|s| &text[s.start..s.end])
            .collect();
        assert_eq!(got, ["a b", " b c", " c d", " d e"]);
    }
}
