//! LlamaIndex's `SentenceSplitter` and `TokenTextSplitter`, chunk for chunk, and the sentence
//! tokenizer the first one uses by default (NLTK's Punkt with no trained parameters).
//!
//! The Python facade (`ragchunk.integrations.llama_index`) runs these only for the
//! configurations whose every step is mirrored here: a built-in encoding as the tokenizer, the
//! default sentence tokenizer, and the default secondary regex (or none). Anything else is run
//! by the facade in Python with the user's own functions.
//!
//!
//! * [`punkt`]: the sentence tokenizer `SentenceSplitter` uses by default (NLTK's Punkt with
//!   no trained parameters);
//! * [`counting`]: how a built-in encoding counts in LlamaIndex's tokenizer conventions, and
//!   a document's outcome under them (the entry points the bindings call);
//! * [`markdown`]: `MarkdownNodeParser`'s sections and header paths;
//! * here: the two splitters' splits and merges.

pub mod counting;
pub mod markdown;
pub mod punkt;

use punkt::is_py_space;
pub use punkt::{punkt_sentences, punkt_spans, CharInfo, DIGIT, LETTER, LOWER, UPPER};

/// LlamaIndex's `split_text_keep_separator`: pieces of `text` at `sep`, each separator kept at
/// the start of the piece after it, empty pieces dropped. `sep` is not empty.
fn split_keep<'a>(text: &'a str, sep: &str, out: &mut Vec<&'a str>) {
    out.clear();
    let mut start = 0;
    for (i, _) in text.match_indices(sep) {
        if i > start {
            out.push(&text[start..i]);
        }
        start = i;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
}

/// Each character of `text`.
fn split_chars<'a>(text: &'a str, out: &mut Vec<&'a str>) {
    out.clear();
    out.extend(text.char_indices().map(|(i, c)| &text[i..i + c.len_utf8()]));
}

/// The default `secondary_chunking_regex`, `[^,.;。？！]+[,.;。？！]?|[,.;。？！]`, as
/// `re.findall` runs it: runs of other characters, each with one mark after it if there is
/// one, and marks alone.
fn split_clauses<'a>(text: &'a str, out: &mut Vec<&'a str>) {
    out.clear();
    let is_mark = |c: char| matches!(c, ',' | '.' | ';' | '。' | '？' | '！');
    let mut start = 0;
    let mut in_run = false;
    for (i, c) in text.char_indices() {
        if is_mark(c) {
            out.push(&text[start..i + c.len_utf8()]);
            start = i + c.len_utf8();
            in_run = false;
        } else {
            in_run = true;
        }
    }
    if in_run {
        out.push(&text[start..]);
    }
}

/// A chunking failure LlamaIndex raises as `ValueError`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlamaIndexError {
    /// A piece that cannot be split further has more tokens than the chunk size.
    #[error("Single token exceeded chunk size")]
    SingleTokenExceeded,
}

/// `SentenceSplitter`'s settings (the chunk size is per call: metadata shortens it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentenceConfig {
    /// `chunk_overlap`, in tokens.
    pub chunk_overlap: usize,
    /// `separator` (not empty).
    pub separator: String,
    /// `paragraph_separator` (not empty).
    pub paragraph_separator: String,
    /// Whether the default `secondary_chunking_regex` is used (`false`: it is `None`).
    pub clause_regex: bool,
}

/// A split with its token count. (LlamaIndex also records whether it is a whole sentence; that
/// only matters in a branch of its merge that cannot be reached, see [`sentence_merge`].)
struct Piece<'a> {
    text: &'a str,
    tokens: usize,
}

/// `SentenceSplitter._split_text(text, chunk_size)` for non-empty `text`.
pub fn sentence_split(
    cfg: &SentenceConfig,
    info: &dyn CharInfo,
    count: &dyn Fn(&str) -> usize,
    text: &str,
    chunk_size: usize,
) -> Result<Vec<String>, LlamaIndexError> {
    let mut pieces = Vec::new();
    let n = count(text);
    sentence_pieces(cfg, info, count, text, n, chunk_size, &mut pieces);
    sentence_merge(cfg, &pieces, chunk_size)
}

fn sentence_pieces<'a>(
    cfg: &SentenceConfig,
    info: &dyn CharInfo,
    count: &dyn Fn(&str) -> usize,
    text: &'a str,
    tokens: usize,
    chunk_size: usize,
    out: &mut Vec<Piece<'a>>,
) {
    if tokens <= chunk_size {
        out.push(Piece { text, tokens });
        return;
    }
    let mut parts = Vec::new();
    split_keep(text, &cfg.paragraph_separator, &mut parts);
    if parts.len() <= 1 {
        parts = punkt_sentences(info, text);
        if parts.len() <= 1 {
            if cfg.clause_regex {
                split_clauses(text, &mut parts);
            }
            if parts.len() <= 1 || !cfg.clause_regex {
                split_keep(text, &cfg.separator, &mut parts);
                if parts.len() <= 1 {
                    split_chars(text, &mut parts);
                }
            }
        }
    }
    let single = parts.len() == 1;
    for part in parts {
        let n = count(part);
        if n <= chunk_size || single {
            out.push(Piece {
                text: part,
                tokens: n,
            });
        } else {
            sentence_pieces(cfg, info, count, part, n, chunk_size, out);
        }
    }
}

fn sentence_merge(
    cfg: &SentenceConfig,
    pieces: &[Piece<'_>],
    chunk_size: usize,
) -> Result<Vec<String>, LlamaIndexError> {
    let mut chunks: Vec<String> = Vec::new();
    // The chunk being built, as (piece index, tokens); the overlap is a tail of the last one.
    let mut cur: std::collections::VecDeque<usize> = std::collections::VecDeque::new();
    let mut cur_len = 0usize;
    let mut fresh = true;
    let join = |idx: &std::collections::VecDeque<usize>| -> String {
        idx.iter().map(|&i| pieces[i].text).collect::<String>()
    };
    let mut i = 0;
    while i < pieces.len() {
        let p = &pieces[i];
        if p.tokens > chunk_size {
            return Err(LlamaIndexError::SingleTokenExceeded);
        }
        if cur_len + p.tokens > chunk_size && !fresh {
            chunks.push(join(&cur));
            let last: Vec<usize> = cur.drain(..).collect();
            cur_len = 0;
            fresh = true;
            for &j in last.iter().rev() {
                if cur_len + pieces[j].tokens > cfg.chunk_overlap {
                    break;
                }
                cur_len += pieces[j].tokens;
                cur.push_front(j);
            }
        } else {
            if fresh {
                while !cur.is_empty() && cur_len + p.tokens > chunk_size {
                    if let Some(j) = cur.pop_front() {
                        cur_len -= pieces[j].tokens;
                    }
                }
            }
            // LlamaIndex also closes the chunk when the piece is a clause that does not fit,
            // which this branch never sees: not fresh means it fits.
            cur_len += p.tokens;
            cur.push_back(i);
            i += 1;
            fresh = false;
        }
    }
    if !fresh {
        chunks.push(join(&cur));
    }
    Ok(strip_chunks(chunks))
}

/// Chunks stripped of surrounding whitespace (`str.strip`), blank ones dropped.
fn strip_chunks(chunks: Vec<String>) -> Vec<String> {
    chunks
        .into_iter()
        .filter_map(|c| {
            let t = c.trim_matches(is_py_space);
            if t.is_empty() {
                None
            } else if t.len() == c.len() {
                Some(c)
            } else {
                Some(t.to_owned())
            }
        })
        .collect()
}

/// `TokenTextSplitter`'s settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenConfig {
    /// `chunk_overlap`, in tokens.
    pub chunk_overlap: usize,
    /// `separator` then `backup_separators`, in order (none empty).
    pub separators: Vec<String>,
    /// `keep_whitespaces`: chunks are not stripped.
    pub keep_whitespaces: bool,
}

/// The result of [`token_split`]: the chunks, and the sizes of the splits larger than the
/// chunk size (LlamaIndex logs a warning for each).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TokenSplit {
    /// The chunks.
    pub chunks: Vec<String>,
    /// Token counts of the oversized splits, in order.
    pub oversized: Vec<usize>,
}

/// `TokenTextSplitter._split_text(text, chunk_size)` for non-empty `text`.
pub fn token_split(
    cfg: &TokenConfig,
    count: &dyn Fn(&str) -> usize,
    text: &str,
    chunk_size: usize,
) -> TokenSplit {
    let mut splits: Vec<(&str, usize)> = Vec::new();
    let n = count(text);
    token_pieces(cfg, count, text, n, chunk_size, &mut splits);
    let mut out = TokenSplit::default();
    let mut cur: std::collections::VecDeque<(&str, usize)> = std::collections::VecDeque::new();
    let mut cur_len = 0usize;
    let finish = |cur: &std::collections::VecDeque<(&str, usize)>, chunks: &mut Vec<String>| {
        let joined: String = cur.iter().map(|s| s.0).collect();
        let kept = if cfg.keep_whitespaces {
            joined.as_str()
        } else {
            joined.trim_matches(is_py_space)
        };
        if !kept.is_empty() {
            chunks.push(kept.to_owned());
        }
    };
    for (split, len) in splits {
        if len > chunk_size {
            out.oversized.push(len);
        }
        if cur_len + len > chunk_size {
            finish(&cur, &mut out.chunks);
            while !cur.is_empty() && (cur_len > cfg.chunk_overlap || cur_len + len > chunk_size) {
                if let Some((_, n)) = cur.pop_front() {
                    cur_len -= n;
                }
            }
        }
        cur.push_back((split, len));
        cur_len += len;
    }
    finish(&cur, &mut out.chunks);
    out
}

fn token_pieces<'a>(
    cfg: &TokenConfig,
    count: &dyn Fn(&str) -> usize,
    text: &'a str,
    tokens: usize,
    chunk_size: usize,
    out: &mut Vec<(&'a str, usize)>,
) {
    if tokens <= chunk_size {
        out.push((text, tokens));
        return;
    }
    let mut parts = Vec::new();
    for sep in &cfg.separators {
        split_keep(text, sep, &mut parts);
        if parts.len() > 1 {
            break;
        }
    }
    if parts.len() <= 1 {
        split_chars(text, &mut parts);
    }
    let single = parts.len() == 1;
    for part in parts {
        let n = count(part);
        if n <= chunk_size || single {
            out.push((part, n));
        } else {
            token_pieces(cfg, count, part, n, chunk_size, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The character facts of a text whose characters are all ASCII: never asked.
    pub(super) struct AsciiOnly;
    impl CharInfo for AsciiOnly {
        fn flags(&self, c: char) -> u8 {
            unreachable!("asked about {c:?}, which is ASCII")
        }
    }

    #[test]
    fn clauses_and_separators() {
        let mut out = Vec::new();
        split_clauses("a, b.c;;d", &mut out);
        assert_eq!(out, ["a,", " b.", "c;", ";", "d"]);
        split_keep("a b  c", " ", &mut out);
        assert_eq!(out, ["a", " b", " ", " c"]);
    }

    #[test]
    fn sentence_split_packs_with_overlap() {
        let cfg = SentenceConfig {
            chunk_overlap: 2,
            separator: " ".into(),
            paragraph_separator: "\n\n\n".into(),
            clause_regex: true,
        };
        let words = |s: &str| s.split_whitespace().count();
        let got = sentence_split(
            &cfg,
            &AsciiOnly,
            &words,
            "One two. Three four. Five six.",
            4,
        );
        assert_eq!(
            got.unwrap(),
            ["One two. Three four.", "Three four. Five six."]
        );
        let chars = |s: &str| s.chars().count();
        assert_eq!(
            sentence_split(&cfg, &AsciiOnly, &|s| 3 * chars(s), "ab", 2),
            Err(LlamaIndexError::SingleTokenExceeded)
        );
    }

    #[test]
    fn token_split_windows() {
        let cfg = TokenConfig {
            chunk_overlap: 1,
            separators: vec![" ".into(), "\n".into()],
            keep_whitespaces: false,
        };
        let words = |s: &str| s.split_whitespace().count();
        let got = token_split(&cfg, &words, "a b c d e", 2);
        assert_eq!(got.chunks, ["a b", "b c", "c d", "d e"]);
        assert!(got.oversized.is_empty());
    }
}
