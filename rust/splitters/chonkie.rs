//! Chonkie's `SentenceChunker` packing, for the Chonkie drop-in: the pieces Chonkie's
//! delimiter split makes (byte ranges), each counted, packed greedily into chunks of at most
//! `chunk_size` tokens with Chonkie's minimum-sentences rule and its sentence overlap.

use aho_corasick::{AhoCorasick, MatchKind};

use crate::text::offsets::CharOffsets;

/// `[first, last)` piece ranges, Chonkie's packing of pieces with token `counts`: each run
/// the longest from its first piece whose tokens stay within `chunk_size` (at least one
/// piece, at least `min_pieces` where that many remain); the next run starts back over the
/// last pieces that fit in `overlap` tokens, each counted one more (Chonkie's allowance for a
/// space).
pub fn pack_sentences(
    counts: &[usize],
    chunk_size: usize,
    overlap: f64,
    min_pieces: usize,
) -> Vec<(usize, usize)> {
    let n = counts.len();
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < n {
        let (mut total, mut end) = (0usize, pos);
        while end < n && total + counts[end] <= chunk_size {
            total += counts[end];
            end += 1;
        }
        end = end.max(pos + 1);
        if end - pos < min_pieces {
            end = if pos + min_pieces <= n {
                pos + min_pieces
            } else {
                n
            };
        }
        out.push((pos, end));
        if overlap > 0.0 && end < n {
            let (mut tokens, mut back) = (0usize, end - 1);
            while back > pos && (tokens as f64) < overlap {
                let step = tokens + counts[back] + 1;
                if step as f64 > overlap {
                    break;
                }
                tokens = step;
                back -= 1;
            }
            pos = back + 1;
        } else {
            pos = end;
        }
    }
    out
}

/// The pieces of Chonkie's delimiter split of `text` (byte ranges, tiling the text): cut
/// after (or, with `include_next`, before) every leftmost-first match of `patterns`, then
/// runs of pieces merged while the run so far or the next piece is shorter than `min_bytes`
/// (Chonkie measures `min_characters_per_sentence` in UTF-8 bytes).
pub fn delimiter_pieces(
    text: &str,
    patterns: &[&str],
    include_next: bool,
    min_bytes: usize,
) -> Vec<(usize, usize)> {
    let mut cuts = Vec::new();
    if !patterns.is_empty() {
        let matcher = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostFirst)
            .build(patterns)
            .expect("plain patterns always build");
        for m in matcher.find_iter(text) {
            cuts.push(if include_next { m.start() } else { m.end() });
        }
    }
    cuts.push(text.len());
    let mut pieces: Vec<(usize, usize)> = Vec::with_capacity(cuts.len());
    let mut start = 0;
    let mut run: Option<(usize, usize)> = None;
    for cut in cuts {
        if cut <= start {
            continue;
        }
        let piece = (start, cut);
        start = cut;
        if min_bytes == 0 {
            pieces.push(piece);
            continue;
        }
        run = Some(match run {
            None => piece,
            Some((s, e)) if e - s < min_bytes || piece.1 - piece.0 < min_bytes => (s, piece.1),
            Some(done) => {
                pieces.push(done);
                piece
            }
        });
    }
    pieces.extend(run);
    pieces
}

/// Chonkie's sentence chunks of `text`: its delimiter split ([`delimiter_pieces`]), each
/// piece counted by `count` (code points when `None`), packed ([`pack_sentences`]); the
/// chunks' code-point `(start, end)` and token counts.
pub fn sentence_chunks(
    text: &str,
    split: (&[&str], bool, usize),
    chunk_size: usize,
    overlap: f64,
    min_pieces: usize,
    count: Option<&dyn Fn(&str) -> usize>,
) -> (Vec<(usize, usize)>, Vec<usize>) {
    let pieces = delimiter_pieces(text, split.0, split.1, split.2);
    let tokens = |s: usize, e: usize| -> usize {
        match count {
            Some(f) => f(&text[s..e]),
            None => text[s..e].chars().count(),
        }
    };
    let counts: Vec<usize> = pieces.iter().map(|&(s, e)| tokens(s, e)).collect();
    let runs = pack_sentences(&counts, chunk_size, overlap, min_pieces);
    let mut starts = CharOffsets::new(text);
    let mut ends = CharOffsets::new(text);
    let mut spans = Vec::with_capacity(runs.len());
    let mut sizes = Vec::with_capacity(runs.len());
    for (a, b) in runs {
        let (s, e) = (pieces[a].0, pieces[b - 1].1);
        let (cs, ce) = (starts.char_offset(s), ends.char_offset(e));
        sizes.push(if count.is_some() {
            tokens(s, e)
        } else {
            ce - cs
        });
        spans.push((cs, ce));
    }
    (spans, sizes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_like_chonkie() {
        assert_eq!(pack_sentences(&[3, 3, 3, 3], 6, 0.0, 1), [(0, 2), (2, 4)]);
        assert_eq!(pack_sentences(&[7, 1, 1], 5, 0.0, 1), [(0, 1), (1, 3)]);
        assert_eq!(pack_sentences(&[2, 2, 2, 2], 6, 3.0, 1), [(0, 3), (2, 4)]);
        assert_eq!(pack_sentences(&[1, 1, 1], 1, 0.0, 2), [(0, 2), (2, 3)]);
        assert!(pack_sentences(&[], 4, 0.0, 1).is_empty());
    }

    #[test]
    fn splits_like_chonkie() {
        let text = "Hi. Hello there. Bye";
        assert_eq!(
            delimiter_pieces(text, &[". "], false, 0),
            [(0, 4), (4, 17), (17, 20)]
        );
        assert_eq!(
            delimiter_pieces(text, &[". "], true, 0),
            [(0, 2), (2, 15), (15, 20)]
        );
        // "Hi. " and "Bye" are short: each merged with its neighbour
        assert_eq!(delimiter_pieces(text, &[". "], false, 5), [(0, 20)]);
        // leftmost-first: the earlier pattern wins at one position
        assert_eq!(
            delimiter_pieces("a.\n\nb", &[".", ".\n"], false, 0),
            [(0, 2), (2, 5)]
        );
        assert_eq!(delimiter_pieces("abc", &[], false, 3), [(0, 3)]);
        assert!(delimiter_pieces("", &["."], false, 1).is_empty());
    }

    #[test]
    fn chunks_in_code_points() {
        let text = "Hé. Bé. Cé.";
        let (spans, sizes) = sentence_chunks(text, (&[". "], false, 1), 8, 0.0, 1, None);
        assert_eq!(spans, [(0, 8), (8, 11)]);
        assert_eq!(sizes, [8, 3]);
        let four = |s: &str| s.len();
        let (spans, sizes) = sentence_chunks(text, (&[". "], false, 1), 10, 0.0, 1, Some(&four));
        assert_eq!((spans, sizes), (vec![(0, 8), (8, 11)], vec![10, 4]));
    }
}
