//! Custom mode (a backtick token in the delimiter field): every segment between delimiters is
//! its own chunk.

use std::borrow::Cow;

use crate::ragflow::delimiters::{normalize_newlines, DelimiterSplitter, Piece};
use crate::tokenizer::TokenCounter;

use super::counting::Counting;
use super::paragraphs::{offset_in, Span};
use super::{contains, Chunk, Section};

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Flavor {
    /// v0.27: text CR/CRLF-normalised, split on every parsed delimiter, empty segments dropped.
    V27,
    /// v0.23–v0.26: split on the backtick tokens only, no normalisation, **empty segments
    /// kept** (they become `"\n"` chunks).
    Legacy,
}

/// Custom mode: every segment between delimiters is its own chunk `"\n" + segment`;
/// `chunk_token_num`, `overlapped_percent` and `strategy` are ignored; a segment's `pos` is
/// appended only when the chunk has at least 8 tokens and does not contain it already.
pub(super) fn custom_mode<C: TokenCounter>(
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

#[cfg(test)]
mod tests {
    use super::super::test_util::*;

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
}
