//! Resumable exact counting for text that only ever changes near its end.
//!
//! A chunker that grows a chunk by editing its tail (the JSON splitter inserts each entry just
//! before the closing braces) would recount the whole chunk for every candidate entry. But a
//! pretokenizer piece depends only on its own bytes and a few characters after it: the
//! regexes stop a run at the first character outside its class, look one character ahead
//! (`\s+(?!\S)`), reach at most 3 characters further (o200k's optional `'re`-style suffix),
//! and see the end of the text only through a whitespace run (`\s++$`). So at a piece start
//! whose character is not whitespace, with 4 unchanged bytes from there on, the pieces before
//! it are the same in every later version of the text that keeps those bytes.
//! [`Tokenizer::count_ordinary_resume`] counts from such a boundary and reports the next one,
//! so each candidate costs only the pieces near its edit.

use super::Tokenizer;

/// What [`Tokenizer::count_ordinary_resume`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resume {
    /// Tokens of `text[start..]`.
    pub count: usize,
    /// A piece boundary (byte offset) at which a later call may resume, provided the text
    /// before it and [`LOOKAHEAD`] bytes after it are unchanged: the last piece start before
    /// the editable tail at a non-whitespace character with that margin, or `start`.
    pub stable: usize,
    /// Tokens of `text[start..stable]`.
    pub count_to_stable: usize,
}

impl Tokenizer {
    /// Counts the tokens of `text[start..]` (ordinary semantics), where `start` is a piece
    /// boundary of `text` (0, or a `stable` offset returned for an earlier version of `text`
    /// with the same bytes before it). `tail` is the number of bytes at the end of `text`
    /// that a later version may change; the returned `stable` boundary is chosen before them.
    ///
    /// Returns `None` when `start` is past the end or not on a character boundary.
    ///
    /// With `stop_above = Some(n)`, counting stops once the count passes `n` (the returned
    /// `count` is then some value above `n`, not the exact count): enough to reject a
    /// candidate that cannot fit.
    pub fn count_ordinary_resume(
        &self,
        text: &str,
        start: usize,
        tail: usize,
        stop_above: Option<usize>,
    ) -> Option<Resume> {
        let rest = text.get(start..)?;
        if let Some(ext) = &self.external {
            // No piece boundaries to resume from: the whole rest, every time.
            return Some(Resume {
                count: ext.count(rest),
                stable: start,
                count_to_stable: 0,
            });
        }
        let limit = text.len().saturating_sub(tail);
        let mut count = 0;
        let mut stable = (start, 0);
        let stop = stop_above.unwrap_or(usize::MAX);
        let mut at = start;
        super::cache::with(|mut cache| {
            self.for_each_piece(rest, |piece| {
                if count > stop {
                    return; // still walks the pieces, but no longer merges them
                }
                if at + LOOKAHEAD <= limit
                    && at > start
                    && text
                        .get(at..)
                        .and_then(|t| t.chars().next())
                        .is_some_and(|c| !c.is_whitespace())
                {
                    stable = (at, count);
                }
                count += self.count_piece(piece, cache.as_deref_mut());
                at += piece.len();
            })
        });
        Some(Resume {
            count,
            stable: stable.0,
            count_to_stable: stable.1,
        })
    }
}

/// Bytes after a boundary that must stay unchanged for the pieces before it to stay the same
/// (the boundary character and o200k's longest optional suffix after it).
const LOOKAHEAD: usize = 4;

#[cfg(test)]
mod tests {
    use super::super::{EncodingName, Tokenizer};

    /// Grows texts by editing just before a fixed-length tail, resuming at each step, and
    /// checks every count against a full recount.
    #[test]
    fn resumed_counts_equal_full_counts() {
        let inserts = [
            "\"k\": 1",
            "\"name\": \"Hello world\"",
            "\"x\": {\"y\": [1, 2, 3]}",
            "\"中文\": \"你好，世界。\"",
            "\"s\": \"  spaces   \"",
            "\"n\": \"line\\nbreak\"",
            "\"e\": \"émoji 🎉🎉\"",
            "\"a\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"",
            "\"d\": 12345678901234567890",
        ];
        for name in [EncodingName::Cl100kBase, EncodingName::O200kBase] {
            let tok = Tokenizer::get(name);
            for tail in 1..4 {
                let mut text = format!("{{{}{}", inserts[0], "}".repeat(tail));
                let mut base = (0, 0);
                for (step, ins) in inserts.iter().cycle().skip(1).take(40).enumerate() {
                    // Try a candidate: insert before the tail; keep every other one.
                    let at = text.len() - tail;
                    let cand = format!("{}, {}{}", &text[..at], ins, &text[at..]);
                    let r = tok
                        .count_ordinary_resume(&cand, base.0, tail, None)
                        .unwrap();
                    assert_eq!(base.1 + r.count, tok.count_ordinary(&cand), "{cand}");
                    if step % 2 == 0 {
                        text = cand;
                        base = (r.stable, base.1 + r.count_to_stable);
                    }
                }
            }
        }
    }

    /// The contract on random text: after any change confined to the last `tail` bytes,
    /// resuming at the reported boundary gives the full count.
    #[test]
    fn any_tail_change_keeps_the_boundary_valid() {
        const ALPHABET: [&str; 24] = [
            "a", "B", "xyz", "'", "'re", "'S", " ", "  ", "\n", "\r\n", "\t", "1", "2345", "中",
            "文。", "\u{3000}", "é", "🎉", "\"", "}", "{", ", ", ": ", "-",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize % n
        };
        for name in [EncodingName::Cl100kBase, EncodingName::O200kBase] {
            let tok = Tokenizer::get(name);
            for _ in 0..3000 {
                let mut text = String::new();
                for _ in 0..next(30) {
                    text.push_str(ALPHABET[next(ALPHABET.len())]);
                }
                let mut cut = next(text.len() + 1);
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                let tail = text.len() - cut;
                let first = tok.count_ordinary_resume(&text, 0, tail, None).unwrap();
                assert_eq!(first.count, tok.count_ordinary(&text));
                let mut changed = text[..cut].to_string();
                for _ in 0..next(8) {
                    changed.push_str(ALPHABET[next(ALPHABET.len())]);
                }
                let r = tok
                    .count_ordinary_resume(&changed, first.stable, 0, None)
                    .unwrap();
                assert_eq!(
                    first.count_to_stable + r.count,
                    tok.count_ordinary(&changed),
                    "{name:?} {text:?} -> {changed:?} at {}",
                    first.stable
                );
            }
        }
    }

    #[test]
    fn stop_above_only_says_more() {
        let tok = Tokenizer::get(EncodingName::Cl100kBase);
        let text = "word ".repeat(100);
        let full = tok.count_ordinary(&text);
        for stop in [0, 1, 10, 99, 100, 1000] {
            let r = tok.count_ordinary_resume(&text, 0, 0, Some(stop)).unwrap();
            if full > stop {
                assert!(r.count > stop && r.count <= full, "{stop}: {}", r.count);
            } else {
                assert_eq!(r.count, full);
            }
        }
    }

    #[test]
    fn bad_start_is_none() {
        let tok = Tokenizer::get(EncodingName::Cl100kBase);
        assert!(tok.count_ordinary_resume("é", 1, 0, None).is_none());
        assert!(tok.count_ordinary_resume("ab", 3, 0, None).is_none());
        let r = tok.count_ordinary_resume("ab", 2, 0, None).unwrap();
        assert_eq!((r.count, r.stable, r.count_to_stable), (0, 2, 0));
    }
}
