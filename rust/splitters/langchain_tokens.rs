//! LangChain's `TokenTextSplitter.split_text` for the built-in encodings: windows of token ids,
//! each decoded back to text the way tiktoken's `decode` does (the window's bytes read as
//! UTF-8, invalid bytes replaced by U+FFFD). A window may therefore begin or end inside a
//! character, exactly as LangChain's chunks do; ragchunk's own [`super::token_window`] never
//! cuts one.
//!
//! A window's token ids are a run of `encode_ordinary(text)`, whose bytes are the text's bytes
//! between two token edges, so no id is built: the edges come from one counting pass
//! ([`Tokenizer::token_edges`]).

use std::borrow::Cow;

use crate::tokenizer::Tokenizer;

/// A window step outside `1..=tokens_per_chunk`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("step must be in 1..=tokens_per_chunk ({tokens_per_chunk}), got {step}")]
pub struct StepError {
    /// The window's length in tokens.
    pub tokens_per_chunk: usize,
    /// The step asked for.
    pub step: usize,
}

/// `Ok` for a step LangChain's windows can take: `1..=tokens_per_chunk`.
pub fn check_step(tokens_per_chunk: usize, step: usize) -> Result<(), StepError> {
    if step == 0 || step > tokens_per_chunk {
        return Err(StepError {
            tokens_per_chunk,
            step,
        });
    }
    Ok(())
}

/// Byte ranges of the windows over `edges` (the `n + 1` token edges of a text): `tokens` tokens
/// each, the next one starting `step` tokens later, the last one ending at the last token.
/// `step` is at least 1.
pub fn byte_windows(edges: &[usize], tokens: usize, step: usize) -> Vec<(usize, usize)> {
    let n = edges.len().saturating_sub(1);
    let mut out = Vec::with_capacity(n / step.max(1) + 1);
    let mut start = 0;
    while start < n {
        let end = (start + tokens).min(n);
        out.push((edges[start], edges[end]));
        if end == n {
            break;
        }
        start += step.max(1);
    }
    out
}

/// The chunk strings of LangChain's `TokenTextSplitter(chunk_size=tokens_per_chunk,
/// chunk_overlap=tokens_per_chunk - step)` over `tok`, empty ones left out (special-token
/// text is ordinary text here: the facade sends it to LangChain's own code).
pub fn token_windows<'a>(
    tok: &Tokenizer,
    text: &'a str,
    tokens_per_chunk: usize,
    step: usize,
) -> Result<Vec<Cow<'a, str>>, StepError> {
    check_step(tokens_per_chunk, step)?;
    let bytes = text.as_bytes();
    Ok(byte_windows(&tok.token_edges(text), tokens_per_chunk, step)
        .into_iter()
        .map(|(start, end)| String::from_utf8_lossy(&bytes[start..end]))
        .filter(|s| !s.is_empty())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::EncodingName;

    #[test]
    fn windows_step_and_end_at_the_last_token() {
        let edges = [0, 1, 2, 3, 4, 5];
        assert_eq!(byte_windows(&edges, 2, 2), [(0, 2), (2, 4), (4, 5)]);
        assert_eq!(byte_windows(&edges, 3, 1), [(0, 3), (1, 4), (2, 5)]);
        assert_eq!(byte_windows(&edges, 9, 9), [(0, 5)]);
        assert!(byte_windows(&[0], 2, 1).is_empty());
    }

    #[test]
    fn decoded_like_tiktoken() {
        let tok = Tokenizer::get(EncodingName::Cl100kBase);
        let got = token_windows(tok, "a b c d e", 2, 1).unwrap();
        assert_eq!(got, ["a b", " b c", " c d", " d e"]);
        // One character split across tokens: each window decodes its own bytes.
        let crab = "🦀🦀";
        let ids = tok.encode_ordinary(crab);
        if ids.len() > 2 {
            let got = token_windows(tok, crab, 1, 1).unwrap();
            assert!(got.iter().any(|s| s.contains('\u{FFFD}')));
        }
        assert_eq!(
            token_windows(tok, "x", 2, 3),
            Err(StepError {
                tokens_per_chunk: 2,
                step: 3
            })
        );
        assert!(token_windows(tok, "x", 2, 0).is_err());
        assert!(token_windows(tok, "", 2, 1).unwrap().is_empty());
    }
}
