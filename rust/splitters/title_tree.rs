//! The structure + length strategy of a title tree: chunks follow the document's titles, sized
//! by a budget.
//!
//! Input is a tree already laid out over a text: nodes in pre-order (`parents[i] < i`, node 0
//! the root) and *items* in document order, each a non-empty byte span of the text owned by
//! one node (a node's title line is its first item; then its paragraphs). The tree of a text
//! (Markdown headings, numbered titles, HTML headings) is laid out by
//! [`super::title_layout`], the tree of a Python dict by the facade; this module does the
//! sizing:
//!
//! 1. each maximal run of consecutive items of one node is a *unit* (the smallest-title
//!    unit);
//! 2. a unit over budget is packed by paragraph (item), an item over budget by sentence,
//!    then whitespace, then characters ([`super::packer::pack_spans`]);
//! 3. pieces are merged bottom-up: nodes are processed children first (reverse pre-order);
//!    at each node its own units' pieces and its children's merged pieces, in document
//!    order, are merged greedily while the exact count of the covered span fits. A merged
//!    piece spanning several nodes belongs to the node where it was merged (its title path
//!    is that node's).
//!
//! Everything is iterative, so a tree of any depth is fine.

use super::packer::pack_spans;
use super::Span;
use crate::text::CharOffsets;
use crate::tokenizer::TokenCounter;

/// One block of a title tree's layout (from HTML or Markdown): its span of the laid-out
/// text in code points, and for a heading its level and text (`0` and `""`
/// for every other block).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TitleBlock {
    pub start: usize,
    pub end: usize,
    pub level: usize,
    pub title: String,
}

/// One output chunk: the span and the node whose title path it carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeChunk {
    pub span: Span,
    pub node: usize,
}

/// Why the tree layout is inconsistent (a bug in the caller, reported, never a panic).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    #[error("node {0}: parent must be an earlier node (pre-order)")]
    Parent(usize),
    #[error("item {0}: unknown node or span outside the text / not in document order")]
    Item(usize),
    /// A code-point span past the end of the text ([`split_title_tree_chars`]).
    #[error("item {0}: span outside the text")]
    Outside(usize),
}

/// Error of [`split_title_tree`]: a bad layout or the counter's error.
#[derive(Debug)]
pub enum TitleTreeError<E> {
    Layout(TreeError),
    Count(E),
}

enum Entry {
    Run(usize, usize),
    Child(usize),
}

/// Chunks the tree; see the module docs.
pub fn split_title_tree<C: TokenCounter>(
    text: &str,
    parents: &[usize],
    items: &[(usize, usize, usize)],
    budget: usize,
    counter: &C,
) -> Result<Vec<TreeChunk>, TitleTreeError<C::Error>> {
    let n = parents.len();
    for (i, &p) in parents.iter().enumerate().skip(1) {
        if p >= i {
            return Err(TitleTreeError::Layout(TreeError::Parent(i)));
        }
    }
    let mut last_end = 0;
    for (k, &(node, s, e)) in items.iter().enumerate() {
        let ok = node < n
            && s < e
            && e <= text.len()
            && s >= last_end
            && text.is_char_boundary(s)
            && text.is_char_boundary(e);
        if !ok {
            return Err(TitleTreeError::Layout(TreeError::Item(k)));
        }
        last_end = e;
    }
    if n == 0 || items.is_empty() {
        return Ok(Vec::new());
    }
    let budget = budget.max(1);
    // Runs and each node's entries in document order.
    let mut entries: Vec<Vec<Entry>> = (0..n).map(|_| Vec::new()).collect();
    let mut registered = vec![false; n];
    registered[0] = true;
    let mut a = 0;
    while a < items.len() {
        let node = items[a].0;
        let mut b = a + 1;
        while b < items.len() && items[b].0 == node {
            b += 1;
        }
        entries[node].push(Entry::Run(a, b));
        let mut c = node;
        while !registered[c] {
            registered[c] = true;
            let p = parents[c];
            entries[p].push(Entry::Child(c));
            c = p;
        }
        a = b;
    }
    // A piece is "sealed" when it is known not to merge with the piece before it: consecutive
    // outputs of a node's merge failed to merge there, and they are retried at the parent
    // only when the earlier one has grown. Without this a deep chain re-counts every pair at
    // every level (quadratic). (Token counts are monotone in practice but not in theory, so
    // this is a rule both backends follow, not merely an optimisation.)
    let mut pieces: Vec<Vec<(TreeChunk, bool)>> = (0..n).map(|_| Vec::new()).collect();
    for node in (0..n).rev() {
        if entries[node].is_empty() {
            continue;
        }
        let mut seq: Vec<(TreeChunk, bool)> = Vec::new();
        for entry in std::mem::take(&mut entries[node]) {
            match entry {
                Entry::Run(a, b) => {
                    let units: Vec<(usize, usize)> =
                        items[a..b].iter().map(|&(_, s, e)| (s, e)).collect();
                    let spans = pack_spans(text, &units, 1, budget, counter)
                        .map_err(TitleTreeError::Count)?;
                    seq.extend(
                        spans
                            .into_iter()
                            .map(|span| (TreeChunk { span, node }, false)),
                    );
                }
                Entry::Child(c) => {
                    let first = seq.len();
                    seq.append(&mut pieces[c]);
                    if let Some(p) = seq.get_mut(first) {
                        p.1 = false;
                    }
                }
            }
        }
        let mut merged: Vec<(TreeChunk, bool)> = Vec::with_capacity(seq.len());
        let mut grown = false;
        for (p, sealed) in seq {
            if let Some((acc, _)) = merged.last_mut() {
                if grown || !sealed {
                    let size = counter
                        .count(&text[acc.span.start..p.span.end])
                        .map_err(TitleTreeError::Count)?;
                    if size <= budget {
                        acc.span.end = p.span.end;
                        acc.span.size = size;
                        if acc.node != p.node {
                            acc.node = node;
                        }
                        grown = true;
                        continue;
                    }
                }
            }
            let is_first = merged.is_empty();
            merged.push((p, !is_first));
            grown = false;
        }
        pieces[node] = merged;
    }
    Ok(std::mem::take(&mut pieces[0])
        .into_iter()
        .map(|p| p.0)
        .collect())
}

/// [`split_title_tree`] with code-point offsets in and out: the items' spans and the chunks'
/// spans index `text` by code point, as Python does.
pub fn split_title_tree_chars<C: TokenCounter>(
    text: &str,
    parents: &[usize],
    items: &[(usize, usize, usize)],
    budget: usize,
    counter: &C,
) -> Result<Vec<TreeChunk>, TitleTreeError<C::Error>> {
    // code point -> byte offset table (one pass)
    let mut byte_at: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
    byte_at.push(text.len());
    let nchars = byte_at.len() - 1;
    let mut bitems = Vec::with_capacity(items.len());
    for (k, &(node, s, e)) in items.iter().enumerate() {
        if s > nchars || e > nchars {
            return Err(TitleTreeError::Layout(TreeError::Outside(k)));
        }
        bitems.push((node, byte_at[s], byte_at[e]));
    }
    let mut chunks = split_title_tree(text, parents, &bitems, budget, counter)?;
    let mut conv = CharOffsets::new(text);
    for c in &mut chunks {
        c.span.start = conv.char_offset(c.span.start);
        c.span.end = conv.char_offset(c.span.end);
    }
    Ok(chunks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokenizer::CharCount;

    fn run(
        text: &str,
        parents: &[usize],
        items: &[(usize, usize, usize)],
        b: usize,
    ) -> Vec<(String, usize)> {
        split_title_tree(text, parents, items, b, &CharCount)
            .unwrap_or_else(|_| panic!("layout"))
            .into_iter()
            .map(|c| (text[c.span.start..c.span.end].to_owned(), c.node))
            .collect()
    }

    #[test]
    fn siblings_merge_then_parents() {
        //        0 root "A"
        //   1 "B1"      2 "B2"
        let text = "A\n\nB1\n\nb1 text.\n\nB2\n\nb2 text.";
        let items = [(0, 0, 1), (1, 3, 5), (1, 7, 15), (2, 17, 19), (2, 21, 29)];
        let parents = [usize::MAX, 0, 0];
        assert_eq!(run(text, &parents, &items, 100), vec![(text.to_owned(), 0)]);
        let got = run(text, &parents, &items, 16);
        assert_eq!(
            got,
            vec![
                ("A\n\nB1\n\nb1 text.".to_owned(), 0),
                ("B2\n\nb2 text.".to_owned(), 2)
            ]
        );
    }

    #[test]
    fn long_unit_split_at_sentences() {
        let text = "T\n\nOne. Two. Three. Four.";
        let items = [(0, 0, 1), (0, 3, text.len())];
        let got = run(text, &[usize::MAX], &items, 10);
        for (t, _) in &got {
            assert!(t.chars().count() <= 10, "{got:?}");
        }
        assert_eq!(got[1].0, "One. Two.");
    }

    #[test]
    fn deep_tree_no_recursion() {
        let depth = 50_000;
        let text = "x".repeat(depth);
        let parents: Vec<usize> = (0..depth).map(|i| i.wrapping_sub(1)).collect();
        let items: Vec<(usize, usize, usize)> = (0..depth).map(|i| (i, i, i + 1)).collect();
        let got = split_title_tree(&text, &parents, &items, 1000, &CharCount).unwrap_or_default();
        assert_eq!(got.len(), 50);
    }

    #[test]
    fn bad_layout_is_an_error() {
        assert!(matches!(
            split_title_tree("ab", &[usize::MAX, 1], &[], 5, &CharCount),
            Err(TitleTreeError::Layout(TreeError::Parent(1)))
        ));
        assert!(matches!(
            split_title_tree("ab", &[usize::MAX], &[(0, 1, 3)], 5, &CharCount),
            Err(TitleTreeError::Layout(TreeError::Item(0)))
        ));
    }

    #[test]
    fn code_point_offsets_in_and_out() {
        let text = "Tï\n\nbé";
        let items = [(0, 0, 2), (0, 4, 6)];
        let got = split_title_tree_chars(text, &[usize::MAX], &items, 100, &CharCount).unwrap();
        assert_eq!(
            got,
            [TreeChunk {
                span: Span {
                    start: 0,
                    end: 6,
                    size: 6
                },
                node: 0
            }]
        );
        assert!(matches!(
            split_title_tree_chars(text, &[usize::MAX], &[(0, 4, 7)], 5, &CharCount),
            Err(TitleTreeError::Layout(TreeError::Outside(0)))
        ));
    }
}
