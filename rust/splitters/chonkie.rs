//! Chonkie's `SentenceChunker` packing and `RecursiveChunker` recursion, for the Chonkie
//! drop-ins: the pieces Chonkie's delimiter split makes (byte ranges), each counted, packed
//! greedily into chunks of at most `chunk_size` tokens with Chonkie's minimum-sentences rule
//! and its sentence overlap, or split level by level while a piece is over the size.

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
    pieces_with(text, matcher(patterns).as_ref(), include_next, min_bytes)
}

/// The leftmost-first matcher of delimiter patterns: at the leftmost position where any
/// pattern starts, the first pattern in the list that matches there; the search goes on
/// after the match. A table of the patterns' first bytes (memchr for up to three of them)
/// finds the candidates: on the corpus this splits 2-3x faster than aho-corasick's
/// leftmost-first automaton, whose per-match cost dominates when delimiters are every few
/// bytes (newlines, commas). An empty pattern (which would match everywhere) goes to
/// aho-corasick.
pub enum Matcher {
    Table {
        first: Box<[bool; 256]>,
        rare: Vec<u8>,
        patterns: Vec<Vec<u8>>,
    },
    Automaton(AhoCorasick),
}

impl Matcher {
    /// The matcher of `patterns`.
    pub fn new(patterns: &[&str]) -> Self {
        if patterns.iter().any(|p| p.is_empty()) {
            return Matcher::Automaton(
                AhoCorasick::builder()
                    .match_kind(MatchKind::LeftmostFirst)
                    .build(patterns)
                    .expect("plain patterns always build"),
            );
        }
        let mut first = Box::new([false; 256]);
        let mut rare = Vec::new();
        for p in patterns {
            let b = p.as_bytes()[0];
            if !first[b as usize] {
                first[b as usize] = true;
                rare.push(b);
            }
        }
        let patterns = patterns.iter().map(|p| p.as_bytes().to_vec()).collect();
        Matcher::Table {
            first,
            rare,
            patterns,
        }
    }

    /// Pushes onto `cuts` the start (with `at_start`) or the end of every match in `text`.
    pub fn cuts(&self, text: &str, at_start: bool, cuts: &mut Vec<usize>) {
        let (first, rare, patterns) = match self {
            Matcher::Automaton(ac) => {
                for m in ac.find_iter(text) {
                    cuts.push(if at_start { m.start() } else { m.end() });
                }
                return;
            }
            Matcher::Table {
                first,
                rare,
                patterns,
            } => (first, rare, patterns),
        };
        let bytes = text.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let rest = &bytes[at..];
            let found = match rare.as_slice() {
                [a] => memchr::memchr(*a, rest),
                [a, b] => memchr::memchr2(*a, *b, rest),
                [a, b, c] => memchr::memchr3(*a, *b, *c, rest),
                _ => rest.iter().position(|&b| first[b as usize]),
            };
            let Some(offset) = found else { break };
            let pos = at + offset;
            match patterns.iter().find(|p| bytes[pos..].starts_with(p)) {
                Some(p) => {
                    cuts.push(if at_start { pos } else { pos + p.len() });
                    at = pos + p.len();
                }
                None => at = pos + 1,
            }
        }
    }
}

/// The matcher of `patterns` (None for no pattern).
fn matcher(patterns: &[&str]) -> Option<Matcher> {
    (!patterns.is_empty()).then(|| Matcher::new(patterns))
}

/// [`delimiter_pieces`] with the patterns' matcher built (once per level, not per piece:
/// building it for each piece cost the recursive chunker half its time).
fn pieces_with(
    text: &str,
    matcher: Option<&Matcher>,
    include_next: bool,
    min_bytes: usize,
) -> Vec<(usize, usize)> {
    let mut cuts = Vec::new();
    if let Some(matcher) = matcher {
        matcher.cuts(text, include_next, &mut cuts);
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

/// How Chonkie counts for the recursive chunker: `count` gives a text's tokens, `edges` the
/// byte offset where each of its tokens starts, then its length (what a token level cuts at).
pub struct Counting<'a> {
    pub count: &'a dyn Fn(&str) -> usize,
    pub edges: &'a dyn Fn(&str) -> Vec<usize>,
}

/// One level of Chonkie's `RecursiveRules`: a delimiter split on `patterns` (the delimiter
/// kept with the piece before it, or with the next one when `include_next`), or, for
/// `None`, windows of `chunk_size` tokens.
pub type RecursiveLevel<'a> = Option<(&'a [&'a str], bool)>;

/// Chonkie's `RecursiveChunker` chunks of `text` as byte `(start, end)` ranges and token
/// counts. At each level the piece is split: on its delimiters (pieces under `min_bytes`
/// merged as in [`delimiter_pieces`]) and then packed greedily — the most pieces from the
/// first whose summed counts stay within `chunk_size`, at least one — the chunk's count being
/// that sum, as Chonkie's; or, at a token level, into windows of `chunk_size` tokens (a
/// window edge inside a character moves to the character's end, so each character belongs
/// to the window holding its first byte, and an emptied window is dropped), each counted
/// anew. A piece still over `chunk_size` goes to the next level; past the last level it is
/// one chunk, counted whole.
pub fn recursive_chunks(
    text: &str,
    levels: &[RecursiveLevel<'_>],
    chunk_size: usize,
    min_bytes: usize,
    counting: &Counting<'_>,
) -> (Vec<(usize, usize)>, Vec<usize>) {
    let rules: Vec<Rule> = levels
        .iter()
        .map(|l| l.map(|(patterns, next)| (matcher(patterns), next)))
        .collect();
    let mut out = (Vec::new(), Vec::new());
    let setup = (rules.as_slice(), chunk_size, min_bytes, counting);
    recurse(text, 0, 0, &setup, &mut out);
    out
}

/// A level with its matcher built: `(matcher, include_next)`, or None for tokens.
type Rule = Option<(Option<Matcher>, bool)>;

/// What stays the same through the recursion: the rules, `chunk_size`, `min_bytes`, counting.
type Setup<'a> = (&'a [Rule], usize, usize, &'a Counting<'a>);

fn recurse(
    text: &str,
    base: usize,
    level: usize,
    setup: &Setup<'_>,
    out: &mut (Vec<(usize, usize)>, Vec<usize>),
) {
    let &(levels, chunk_size, min_bytes, counting) = setup;
    if text.is_empty() {
        return;
    }
    let Some(rule) = levels.get(level) else {
        out.0.push((base, base + text.len()));
        out.1.push((counting.count)(text));
        return;
    };
    let mut pieces: Vec<(usize, usize, usize)> = Vec::new();
    match rule {
        Some((matcher, include_next)) => {
            let split = pieces_with(text, matcher.as_ref(), *include_next, min_bytes);
            let counts: Vec<usize> = split
                .iter()
                .map(|&(s, e)| (counting.count)(&text[s..e]))
                .collect();
            let mut at = 0;
            while at < split.len() {
                let (mut total, mut end) = (counts[at], at + 1);
                while end < split.len() && total + counts[end] <= chunk_size {
                    total += counts[end];
                    end += 1;
                }
                pieces.push((split[at].0, split[end - 1].1, total));
                at = end;
            }
        }
        None => {
            let edges = (counting.edges)(text);
            let up = |mut b: usize| {
                while !text.is_char_boundary(b) {
                    b += 1;
                }
                b
            };
            let mut start = 0;
            while start + 1 < edges.len() {
                let end = (start + chunk_size).min(edges.len() - 1);
                let (s, e) = (up(edges[start]), up(edges[end]));
                if s < e {
                    pieces.push((s, e, (counting.count)(&text[s..e])));
                }
                start = end;
            }
        }
    }
    for (s, e, n) in pieces {
        if n > chunk_size {
            let piece = &text[s..e];
            recurse(piece, base + s, level + 1, setup, out);
        } else {
            out.0.push((base + s, base + e));
            out.1.push(n);
        }
    }
}

/// Code-point offsets of ordered byte `spans` of `text` (one forward walk each for the
/// starts and the ends).
pub fn char_spans(text: &str, spans: &[(usize, usize)]) -> (Vec<usize>, Vec<usize>) {
    let (mut starts, mut ends) = (CharOffsets::new(text), CharOffsets::new(text));
    spans
        .iter()
        .map(|&(s, e)| (starts.char_offset(s), ends.char_offset(e)))
        .unzip()
}

/// Chonkie's `TableChunker` split of a Markdown `table` (already stripped): byte ranges of
/// its pieces, cut before every `|` that starts a line; the first two are the header (the
/// header line and the separator line), the rest the data rows, each with its newline.
pub fn table_pieces(table: &str) -> Vec<(usize, usize)> {
    let bytes = table.as_bytes();
    let mut pieces = Vec::new();
    let mut start = 0;
    for nl in memchr::memchr_iter(b'\n', bytes) {
        if bytes.get(nl + 1) == Some(&b'|') {
            pieces.push((start, nl + 1));
            start = nl + 1;
        }
    }
    if start < bytes.len() {
        pieces.push((start, bytes.len()));
    }
    pieces
}

/// Chonkie's token packing of table rows with token `counts` under a header of
/// `header_tokens`: `[first, last)` row ranges and each chunk's tokens (the header's plus its
/// rows', summed). A row starts a new chunk when the chunk so far has a row and the row would
/// bring it to `chunk_size` tokens or more (Chonkie's `>=`: a chunk stays under the size).
pub fn pack_table_rows(
    counts: &[usize],
    header_tokens: usize,
    chunk_size: usize,
) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    let (mut first, mut tokens) = (0, header_tokens);
    for (i, &n) in counts.iter().enumerate() {
        if tokens + n >= chunk_size && i > first {
            out.push((first, i, tokens));
            (first, tokens) = (i, header_tokens);
        }
        tokens += n;
    }
    if counts.len() > first {
        out.push((first, counts.len(), tokens));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars() -> Counting<'static> {
        Counting {
            count: &|s: &str| s.chars().count(),
            edges: &|s: &str| {
                let mut e: Vec<usize> = s.char_indices().map(|(i, _)| i).collect();
                e.push(s.len());
                e
            },
        }
    }

    #[test]
    fn recursion_like_chonkie() {
        let levels: [RecursiveLevel<'_>; 2] = [Some((&["\n"], false)), None];
        let text = "aaaa\nbb\ncc\ndddddddddd";
        let (spans, counts) = recursive_chunks(text, &levels, 6, 1, &chars());
        // "aaaa\n" alone (adding "bb\n" would make 8), "bb\ncc\n", then the long line in
        // windows of 6 characters
        assert_eq!(spans, [(0, 5), (5, 11), (11, 17), (17, 21)]);
        assert_eq!(counts, [5, 6, 6, 4]);
        // past the last level a long piece is one chunk
        let (spans, counts) = recursive_chunks("abcdefgh", &[], 3, 1, &chars());
        assert_eq!((spans, counts), (vec![(0, 8)], vec![8]));
        assert!(recursive_chunks("", &levels, 3, 1, &chars()).0.is_empty());
    }

    #[test]
    fn token_windows_keep_whole_characters() {
        // bytes as tokens: "é" is two tokens, a window edge between them moves to its end
        let bytes = Counting {
            count: &|s: &str| s.len(),
            edges: &|s: &str| (0..=s.len()).collect(),
        };
        let (spans, counts) = recursive_chunks("aébc", &[None], 2, 1, &bytes);
        assert_eq!(spans, [(0, 3), (3, 4), (4, 5)]);
        assert_eq!(counts, [3, 1, 1]);
        assert_eq!(char_spans("aébc", &spans), (vec![0, 2, 3], vec![2, 3, 4]));
        // a window wholly inside a character is dropped, its bytes are in the one before
        let (spans, _) = recursive_chunks("中", &[None], 1, 1, &bytes);
        assert_eq!(spans, [(0, 3)]);
    }

    #[test]
    fn table_matcher_is_leftmost_first() {
        let cases: [(&str, &[&str]); 4] = [
            ("a\n\nb\r\nc\rd\n", &["\n\n", "\r\n", "\n", "\r"]),
            ("x... y.. z—w", &["...", ".", "—"]),
            ("a.b!c?d", &[".", "!", "?", ",", ";"]),
            ("ab abc abcd", &["abc", "ab", "abcd"]),
        ];
        for (text, patterns) in cases {
            let ac = AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostFirst)
                .build(patterns)
                .unwrap();
            for at_start in [false, true] {
                let want: Vec<usize> = ac
                    .find_iter(text)
                    .map(|m| if at_start { m.start() } else { m.end() })
                    .collect();
                let mut got = Vec::new();
                Matcher::new(patterns).cuts(text, at_start, &mut got);
                assert_eq!(got, want, "{text:?} {patterns:?}");
            }
        }
    }

    #[test]
    fn tables_like_chonkie() {
        let table = "| a |\n|---|\n| 1 |\n| 2\nmore |\n| 3 |";
        assert_eq!(
            table_pieces(table),
            [(0, 6), (6, 12), (12, 18), (18, 29), (29, 34)]
        );
        assert_eq!(table_pieces("| a |"), [(0, 5)]);
        // header 4: a row joins while the total stays under 10
        assert_eq!(
            pack_table_rows(&[3, 2, 9, 1], 4, 10),
            [(0, 2, 9), (2, 3, 13), (3, 4, 5)]
        );
        assert!(pack_table_rows(&[], 4, 10).is_empty());
    }

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
