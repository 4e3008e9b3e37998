//! Okapi BM25, scored exactly as `rank_bm25`'s `BM25Okapi` scores (same floating-point
//! operations in the same order, so the scores are equal to the last bit).
//!
//! For a query `q1..qn` (a repeated token counts each time) and a document `D`:
//!
//! ```text
//! score(D) = sum_i idf(qi) * tf(qi, D) * (k1 + 1) / (tf(qi, D) + k1 * (1 - b + b * |D| / avgdl))
//! idf(t)   = ln(N - df(t) + 0.5) - ln(df(t) + 0.5)
//! ```
//!
//! and a negative `idf(t)` is replaced by `epsilon * mean_idf` (the mean over the vocabulary,
//! summed in order of first appearance). Tokens absent from the corpus score zero.
//!
//! Every term of a document is one posting, and a posting holds the document's whole term of
//! the sum, `idf(t) * (tf * (k1 + 1) / (tf + norm(D)))`, computed at indexing time with the
//! operations the query would run: a query adds postings up, one query token after another,
//! into a score per document, and the sums are those of the formula, bit for bit. The postings
//! are flat arrays (one run per term, documents ascending).

use super::tokenize::{for_each_token_hashed, hash_bytes, Kind};
use super::vocab::Vocab;
use crate::batch::{self, BatchError};

/// A block of documents indexed against a local vocabulary, merged into the index afterwards.
#[derive(Default)]
struct Part {
    /// Local term ids, in order of first appearance.
    vocab: Vocab,
    /// `(local term id, term frequency)` of every document, one run per document: the first
    /// `used` entries; the rest are zeros, room for the document being added.
    counts: Vec<(u32, u32)>,
    used: usize,
    /// Per document: the end of its run in `counts`, and its length in tokens.
    ends: Vec<usize>,
    lens: Vec<u32>,
    /// Per local term: the last document it was seen in, and its place in `counts` there.
    seen: Vec<(u32, u32)>,
}

impl Part {
    /// Adds one document given as text, tokenized by `kind`.
    fn add_text(&mut self, text: &str, kind: Kind) {
        // A token takes at least one byte.
        self.make_room(text.len());
        let doc = self.ends.len() as u32;
        let mut len = 0u32;
        // A concrete closure, so that counting is inlined into the tokenizer's loop.
        for_each_token_hashed(text, kind, |tok, h| {
            len += 1;
            self.count(doc, tok, h);
        });
        self.ends.push(self.used);
        self.lens.push(len);
    }

    /// Adds one document given as tokens.
    fn add_tokens<S: AsRef<str>>(&mut self, tokens: &[S]) {
        self.make_room(tokens.len());
        let doc = self.ends.len() as u32;
        for t in tokens {
            let t = t.as_ref();
            self.count(doc, t, hash_bytes(t.as_bytes()));
        }
        self.ends.push(self.used);
        self.lens.push(tokens.len() as u32);
    }

    /// Counts one occurrence of `tok` (hash `h`) in document `doc`, the last one added.
    #[inline(always)]
    fn count(&mut self, doc: u32, tok: &str, h: u64) {
        let id = self.vocab.get_or_insert_hashed(tok, h) as usize;
        if id == self.seen.len() {
            self.seen.push((u32::MAX, 0));
        }
        // Without a branch on whether the term is new to the document (it is about as often
        // as not): a new term takes the next entry, whose count is still zero.
        let (last, place) = self.seen[id];
        let fresh = last != doc;
        let at = if fresh { self.used } else { place as usize };
        self.counts[at] = (id as u32, self.counts[at].1 + 1);
        self.seen[id] = (doc, at as u32);
        self.used += usize::from(fresh);
    }

    /// Zeroed room in `counts` for a document of up to `tokens` tokens.
    fn make_room(&mut self, tokens: usize) {
        let need = self.used + tokens;
        if self.counts.len() < need {
            self.counts.resize(need.max(self.counts.len() * 2), (0, 0));
        }
    }

    /// The part with its spare room dropped.
    fn sealed(mut self) -> Part {
        self.counts.truncate(self.used);
        self
    }

    /// The documents' runs of `(local term id, tf)`, in order.
    fn docs(&self) -> impl Iterator<Item = &[(u32, u32)]> {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let run = &self.counts[start..end];
            start = end;
            run
        })
    }
}

/// The BM25 parameters (`rank_bm25`'s defaults: `k1 = 1.5`, `b = 0.75`, `epsilon = 0.25`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    pub k1: f64,
    pub b: f64,
    pub epsilon: f64,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            k1: 1.5,
            b: 0.75,
            epsilon: 0.25,
        }
    }
}

/// An inverted index over tokenized documents.
#[derive(Debug)]
pub struct Index {
    vocab: Vocab,
    idf: Vec<f64>,
    n_docs: usize,
    /// Term `t`'s postings are `post_doc[offsets[t]..offsets[t + 1]]` (documents ascending)
    /// and the same range of `post_score` (the document's term of the BM25 sum).
    offsets: Vec<usize>,
    post_doc: Vec<u32>,
    post_score: Vec<f64>,
}

/// Per-thread working memory of queries: a score per document, and which documents the
/// current query has touched (`stamp == generation`).
pub struct Scratch {
    score: Vec<f64>,
    stamp: Vec<u32>,
    generation: u32,
    touched: Vec<u32>,
    terms: Vec<u32>,
}

impl Scratch {
    /// Working memory for queries of `index`.
    pub fn new(index: &Index) -> Scratch {
        Scratch {
            score: vec![0.0; index.n_docs],
            stamp: vec![0; index.n_docs],
            generation: 0,
            touched: Vec::new(),
            terms: Vec::new(),
        }
    }
}

/// Below this many queries a batch runs on the calling thread.
const PARALLEL_QUERIES: usize = 256;

/// Up to this many documents (and `k <= SMALL_K`), a query scores every document.
const DENSE_DOCS: usize = 1024;

/// Up to this `k`, the best documents are kept in a sorted buffer; above, selected at the end.
const SMALL_K: usize = 32;

impl Index {
    /// Indexes `docs` (each a list of tokens).
    pub fn new<S: AsRef<str>>(docs: &[Vec<S>], params: Params) -> Index {
        let mut part = Part::default();
        for doc in docs {
            part.add_tokens(doc);
        }
        Index::from_parts(vec![part.sealed()], params)
    }

    /// Tokenizes and indexes `texts`, in parallel (blocks of documents each build a local
    /// vocabulary; the blocks are merged in document order, so term ids stay in order of first
    /// appearance).
    pub fn from_texts<S: AsRef<str> + Sync>(
        texts: &[S],
        kind: Kind,
        params: Params,
    ) -> Result<Index, BatchError> {
        // Below about a megabyte, waking the thread pool costs more than it saves.
        let bytes: usize = texts.iter().map(|t| t.as_ref().len()).sum();
        let block = if bytes < 1 << 20 {
            texts.len().max(1)
        } else {
            texts
                .len()
                .div_ceil(batch::threads(None)?.max(1) * 4)
                .max(16)
        };
        Index::from_texts_in_blocks(texts, kind, params, block)
    }

    fn from_texts_in_blocks<S: AsRef<str> + Sync>(
        texts: &[S],
        kind: Kind,
        params: Params,
        block: usize,
    ) -> Result<Index, BatchError> {
        let build = |docs: &[S]| {
            let bytes: usize = docs.iter().map(|d| d.as_ref().len()).sum();
            let terms = bytes / 32 + 16;
            let mut part = Part {
                vocab: Vocab::with_capacity(terms),
                counts: vec![(0, 0); bytes / 8 + 16],
                ends: Vec::with_capacity(docs.len()),
                lens: Vec::with_capacity(docs.len()),
                seen: Vec::with_capacity(terms),
                ..Part::default()
            };
            for d in docs {
                part.add_text(d.as_ref(), kind);
            }
            part.sealed()
        };
        // One block runs on the calling thread: handing it to the pool would only add the
        // latency of waking a worker.
        let parts: Vec<Part> = if block >= texts.len() {
            vec![build(texts)]
        } else {
            let blocks: Vec<&[S]> = texts.chunks(block).collect();
            batch::par_map(&blocks, None, |docs| build(docs))?
        };
        Ok(Index::from_parts(parts, params))
    }

    fn from_parts(parts: Vec<Part>, params: Params) -> Index {
        // Global term ids: the first block's own, then every later block's new terms in its
        // order of first appearance.
        let mut parts = parts.into_iter();
        let mut first = parts.next().unwrap_or_default();
        let mut vocab = std::mem::take(&mut first.vocab);
        let mut all = vec![(first, None::<Vec<u32>>)];
        for mut part in parts {
            let local = std::mem::take(&mut part.vocab);
            let remap = (0..local.len() as u32)
                .map(|id| vocab.get_or_insert(local.term(id)))
                .collect();
            all.push((part, Some(remap)));
        }
        let global = |remap: &Option<Vec<u32>>, local: u32| match remap {
            Some(r) => r[local as usize] as usize,
            None => local as usize,
        };

        let n_terms = vocab.len();
        let mut offsets = vec![0usize; n_terms + 1];
        let mut total: u64 = 0;
        let mut doc_len: Vec<u32> = Vec::new();
        for (part, remap) in &all {
            for &(local, _) in &part.counts {
                offsets[global(remap, local) + 1] += 1;
            }
            doc_len.extend_from_slice(&part.lens);
        }
        for &len in &doc_len {
            total += u64::from(len);
        }
        for t in 0..n_terms {
            offsets[t + 1] += offsets[t];
        }
        let n = doc_len.len() as f64;
        let avgdl = if doc_len.is_empty() {
            0.0
        } else {
            total as f64 / n
        };
        // Term ids are in order of first appearance, the order rank_bm25 sums its idf in. The
        // idf depends on the document frequency alone: computed once per frequency.
        let mut by_df: Vec<f64> = vec![f64::NAN; doc_len.len() + 1];
        let mut idf: Vec<f64> = (0..n_terms)
            .map(|t| {
                let df = offsets[t + 1] - offsets[t];
                let v = &mut by_df[df];
                if v.is_nan() {
                    let df = df as f64;
                    *v = (n - df + 0.5).ln() - (df + 0.5).ln();
                }
                *v
            })
            .collect();
        if !idf.is_empty() {
            let mut sum = 0.0;
            for &v in &idf {
                sum += v;
            }
            let eps = params.epsilon * (sum / idf.len() as f64);
            for v in idf.iter_mut() {
                if *v < 0.0 {
                    *v = eps;
                }
            }
        }
        let Params { k1, b, .. } = params;
        let postings = offsets[n_terms];
        let mut post_doc = vec![0u32; postings];
        let mut post_score = vec![0.0f64; postings];
        let mut cursor: Vec<usize> = offsets[..n_terms].to_vec();
        let mut d = 0usize;
        for (part, remap) in &all {
            for run in part.docs() {
                // A document with postings has tokens, so avgdl > 0 here.
                let dl = doc_len[d] as f64;
                let norm = k1 * (1.0 - b + b * dl / avgdl);
                for &(local, tf) in run {
                    let t = global(remap, local);
                    let tf = tf as f64;
                    let at = cursor[t];
                    cursor[t] += 1;
                    post_doc[at] = d as u32;
                    post_score[at] = idf[t] * (tf * (k1 + 1.0) / (tf + norm));
                }
                d += 1;
            }
        }
        Index {
            vocab,
            idf,
            n_docs: doc_len.len(),
            offsets,
            post_doc,
            post_score,
        }
    }

    /// The number of documents.
    pub fn len(&self) -> usize {
        self.n_docs
    }

    /// Whether the index holds no document.
    pub fn is_empty(&self) -> bool {
        self.n_docs == 0
    }

    /// The idf of `token` (0 when it is not in the corpus).
    pub fn idf(&self, token: &str) -> f64 {
        self.vocab
            .get(token)
            .map_or(0.0, |id| self.idf[id as usize])
    }

    /// The score of every document for `query`.
    pub fn scores<S: AsRef<str>>(&self, query: &[S]) -> Vec<f64> {
        let mut score = vec![0.0f64; self.len()];
        for q in query {
            if let Some(t) = self.vocab.get(q.as_ref()) {
                let (lo, hi) = (self.offsets[t as usize], self.offsets[t as usize + 1]);
                for (&d, &s) in self.post_doc[lo..hi].iter().zip(&self.post_score[lo..hi]) {
                    score[d as usize] += s;
                }
            }
        }
        score
    }

    /// The best `k` documents of the query whose tokens `tokens` hands to its argument:
    /// `(document, score)`, best first, equal scores in document order.
    pub fn top_k_with(
        &self,
        tokens: impl FnOnce(&mut dyn FnMut(&str, u64)),
        k: usize,
        scratch: &mut Scratch,
    ) -> Vec<(u32, f64)> {
        let mut terms = std::mem::take(&mut scratch.terms);
        terms.clear();
        tokens(&mut |tok: &str, h: u64| {
            if let Some(t) = self.vocab.get_hashed(tok, h) {
                terms.push(t);
            }
        });
        let out = self.top_k_terms(&terms, k, scratch);
        scratch.terms = terms;
        out
    }

    /// [`Index::top_k_terms`] of a small index: every document's score summed in place (no
    /// record of which documents the query touched), then one pass in document order keeps
    /// the best `k` (`1 <= k <= n_docs`) in a sorted buffer.
    fn top_k_dense(&self, terms: &[u32], k: usize, score: &mut [f64]) -> Vec<(u32, f64)> {
        score.fill(0.0);
        for &t in terms {
            let (lo, hi) = (self.offsets[t as usize], self.offsets[t as usize + 1]);
            for (&d, &s) in self.post_doc[lo..hi].iter().zip(&self.post_score[lo..hi]) {
                score[d as usize] += s;
            }
        }
        let mut best: Vec<(u32, f64)> = Vec::with_capacity(k + 1);
        for (d, &s) in score.iter().enumerate() {
            if best.len() == k {
                // Scores are never NaN (nor -0.0); on an equal score the later document loses.
                if s <= best[k - 1].1 {
                    continue;
                }
                best.pop();
            }
            let mut at = best.len();
            while at > 0 && s > best[at - 1].1 {
                at -= 1;
            }
            best.insert(at, (d as u32, s));
        }
        best
    }

    fn top_k_terms(&self, terms: &[u32], k: usize, scratch: &mut Scratch) -> Vec<(u32, f64)> {
        let k = k.min(self.n_docs);
        if k == 0 {
            return Vec::new();
        }
        if self.n_docs <= DENSE_DOCS && k <= SMALL_K {
            return self.top_k_dense(terms, k, &mut scratch.score);
        }
        self.top_k_sparse(terms, k, scratch)
    }

    /// [`Index::top_k_terms`] of a large index (`1 <= k <= n_docs`): only the documents the
    /// query touches are scored and ranked, the first untouched ones fill in with 0.
    fn top_k_sparse(&self, terms: &[u32], k: usize, scratch: &mut Scratch) -> Vec<(u32, f64)> {
        if scratch.generation == u32::MAX {
            scratch.stamp.fill(0);
            scratch.generation = 0;
        }
        scratch.generation += 1;
        let generation = scratch.generation;
        let Scratch {
            score,
            stamp,
            touched,
            ..
        } = scratch;
        touched.clear();
        for &t in terms {
            let (lo, hi) = (self.offsets[t as usize], self.offsets[t as usize + 1]);
            for (&d, &s) in self.post_doc[lo..hi].iter().zip(&self.post_score[lo..hi]) {
                let d = d as usize;
                if stamp[d] != generation {
                    stamp[d] = generation;
                    score[d] = 0.0;
                    touched.push(d as u32);
                }
                score[d] += s;
            }
        }
        let cmp = |a: &(u32, f64), b: &(u32, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        let mut best: Vec<(u32, f64)>;
        if k <= SMALL_K {
            // A sorted buffer of the best k so far: most documents lose to its last at once.
            best = Vec::with_capacity(k + 1);
            for &d in touched.iter() {
                let c = (d, score[d as usize]);
                if best.len() == k {
                    // Scores are never NaN, so `<` is the order `cmp` sorts by.
                    let last = best[k - 1];
                    if c.1 < last.1 || cmp(&c, &last).is_ge() {
                        continue;
                    }
                    best.pop();
                }
                let mut at = best.len();
                while at > 0 && cmp(&c, &best[at - 1]).is_lt() {
                    at -= 1;
                }
                best.insert(at, c);
            }
        } else {
            best = touched.iter().map(|&d| (d, score[d as usize])).collect();
            if best.len() > k {
                best.select_nth_unstable_by(k - 1, cmp);
                best.truncate(k);
            }
            best.sort_unstable_by(cmp);
        }
        // Untouched documents score 0: the first of them (in document order) fill the places
        // that no positive score takes.
        if best.len() == k && best[k - 1].1 > 0.0 {
            return best;
        }
        let mut zeros = Vec::with_capacity(k);
        for (d, &st) in stamp.iter().enumerate() {
            if zeros.len() == k {
                break;
            }
            if st != generation {
                zeros.push((d as u32, 0.0f64));
            }
        }
        merge_top(&best, &zeros, k, cmp)
    }

    /// The best `k` documents for `query`: `(document, score)`, best first, equal scores in
    /// document order.
    pub fn top_k<S: AsRef<str>>(&self, query: &[S], k: usize) -> Vec<(u32, f64)> {
        let mut scratch = Scratch::new(self);
        self.top_k_with(|f| hashed(query, f), k, &mut scratch)
    }

    /// [`Index::top_k`] of every tokenized query, in parallel for many.
    pub fn top_k_batch<S: AsRef<str> + Sync>(
        &self,
        queries: &[Vec<S>],
        k: usize,
    ) -> Result<Vec<Vec<(u32, f64)>>, BatchError> {
        self.map_queries(queries, |q, scratch| {
            self.top_k_with(|f| hashed(q, f), k, scratch)
        })
    }

    /// The best `k` documents of every query text, tokenized by `kind`, in parallel for many.
    pub fn top_k_texts<S: AsRef<str> + Sync>(
        &self,
        queries: &[S],
        kind: Kind,
        k: usize,
    ) -> Result<Vec<Vec<(u32, f64)>>, BatchError> {
        self.map_queries(queries, |q, scratch| {
            self.top_k_with(|f| for_each_token_hashed(q.as_ref(), kind, f), k, scratch)
        })
    }

    /// `f` over the queries with working memory: on the calling thread for a few hundred,
    /// else on the thread pool ([`batch::par_map`]) in groups of 64.
    fn map_queries<Q: Sync, R: Send>(
        &self,
        queries: &[Q],
        f: impl Fn(&Q, &mut Scratch) -> R + Sync + Send,
    ) -> Result<Vec<R>, BatchError> {
        if queries.len() < PARALLEL_QUERIES {
            let mut scratch = Scratch::new(self);
            return Ok(queries.iter().map(|q| f(q, &mut scratch)).collect());
        }
        let groups: Vec<&[Q]> = queries.chunks(64).collect();
        let done = batch::par_map(&groups, None, |group| {
            let mut scratch = Scratch::new(self);
            group.iter().map(|q| f(q, &mut scratch)).collect::<Vec<R>>()
        })?;
        Ok(done.into_iter().flatten().collect())
    }
}

/// Calls `f` with every token of `tokens` and its [`hash_bytes`].
fn hashed<S: AsRef<str>>(tokens: &[S], f: &mut dyn FnMut(&str, u64)) {
    for t in tokens {
        let t = t.as_ref();
        f(t, hash_bytes(t.as_bytes()));
    }
}

/// The best `k` of two lists sorted by `cmp`.
fn merge_top(
    a: &[(u32, f64)],
    b: &[(u32, f64)],
    k: usize,
    cmp: impl Fn(&(u32, f64), &(u32, f64)) -> std::cmp::Ordering,
) -> Vec<(u32, f64)> {
    let mut out = Vec::with_capacity(k);
    let (mut i, mut j) = (0, 0);
    while out.len() < k && (i < a.len() || j < b.len()) {
        let take_a = j == b.len() || (i < a.len() && cmp(&a[i], &b[j]).is_le());
        if take_a {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out
}

/// The best `k` of `scores`, best first, ties in index order.
pub fn top_k(scores: &[f64], k: usize) -> Vec<(u32, f64)> {
    let mut order: Vec<u32> = (0..scores.len() as u32).collect();
    let cmp = |a: &u32, b: &u32| {
        scores[*b as usize]
            .total_cmp(&scores[*a as usize])
            .then(a.cmp(b))
    };
    let k = k.min(order.len());
    if k < order.len() && k > 0 {
        order.select_nth_unstable_by(k - 1, cmp);
        order.truncate(k);
    } else {
        order.truncate(k);
    }
    order.sort_unstable_by(cmp);
    order.into_iter().map(|i| (i, scores[i as usize])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs() -> Vec<Vec<&'static str>> {
        vec![
            vec!["hello", "there", "good", "man"],
            vec!["it", "is", "quite", "windy", "in", "london"],
            vec!["how", "is", "the", "weather", "today"],
        ]
    }

    #[test]
    fn scores_follow_the_formula() {
        let index = Index::new(&docs(), Params::default());
        let s = index.scores(&["windy", "london"]);
        // df = 1 of N = 3: idf = ln(2.5) - ln(1.5); |D| = 6, avgdl = 5.
        let idf = 2.5f64.ln() - 1.5f64.ln();
        let one = idf * (2.5 / (1.0 + 1.5 * (0.25 + 0.75 * 6.0 / 5.0)));
        assert_eq!(s[0], 0.0);
        assert!((s[1] - 2.0 * one).abs() < 1e-12);
        assert_eq!(s[2], 0.0);
        assert_eq!(index.top_k(&["windy"], 1)[0].0, 1);
    }

    #[test]
    fn negative_idf_takes_the_epsilon_floor() {
        // "is" is in 2 of 3 documents: ln(1.5) - ln(2.5) < 0.
        let index = Index::new(&docs(), Params::default());
        assert!(index.idf("is") > 0.0);
        assert_eq!(index.idf("absent"), 0.0);
    }

    #[test]
    fn ties_keep_document_order_and_k_is_capped() {
        assert_eq!(
            top_k(&[1.0, 3.0, 3.0, 0.5], 3),
            [(1, 3.0), (2, 3.0), (0, 1.0)]
        );
        assert_eq!(top_k(&[1.0], 5), [(0, 1.0)]);
        assert!(top_k(&[], 5).is_empty());
    }

    #[test]
    fn texts_index_like_their_tokens_in_parallel_blocks() {
        let texts: Vec<String> = (0..200)
            .map(|i| format!("Doc {i} about topic {} and The topic {}", i % 7, i % 3))
            .collect();
        let tokens: Vec<Vec<String>> = texts
            .iter()
            .map(|t| crate::eval::tokenize::tokenize(t, Kind::English))
            .collect();
        let a = Index::from_texts_in_blocks(&texts, Kind::English, Params::default(), 16).unwrap();
        let b = Index::new(&tokens, Params::default());
        for q in ["topic 3", "doc 17 topic", "absent"] {
            let qt = crate::eval::tokenize::tokenize(q, Kind::English);
            assert_eq!(a.scores(&qt), b.scores(&qt));
            assert_eq!(
                a.top_k_texts(&[q], Kind::English, 5).unwrap()[0],
                b.top_k(&qt, 5)
            );
        }
        assert_eq!(a.idf("topic"), b.idf("topic"));
    }

    #[test]
    fn top_k_equals_a_full_sort_of_the_scores() {
        // Small vocabularies give common terms (negative idf, floored at epsilon times a mean
        // that can be negative too) and many equal scores.
        let mut seed = 7u64;
        let mut next = move |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let words = ["a", "b", "c", "d", "e", "f"];
        for round in 0..200 {
            let n_docs = 1 + next(if round % 2 == 0 { 12 } else { 60 }) as usize;
            let docs: Vec<Vec<&str>> = (0..n_docs)
                .map(|_| (0..next(6)).map(|_| words[next(6) as usize]).collect())
                .collect();
            let eps = [0.0, 0.25, 1.0][round % 3];
            let index = Index::new(
                &docs,
                Params {
                    epsilon: eps,
                    ..Params::default()
                },
            );
            let queries: Vec<Vec<&str>> = (0..20)
                .map(|_| (0..next(4)).map(|_| words[next(6) as usize]).collect())
                .collect();
            for k in [1, 3, 20, 40] {
                // One working memory for every query, as a batch uses it.
                let batch = index.top_k_batch(&queries, k).unwrap();
                let mut scratch = Scratch::new(&index);
                for (q, got) in queries.iter().zip(&batch) {
                    let want = top_k(&index.scores(q), k);
                    assert_eq!(got, &want, "{docs:?} {q:?} {k}");
                    // The path of large indexes, on this small one.
                    let terms: Vec<u32> = q.iter().filter_map(|t| index.vocab.get(t)).collect();
                    let sparse = index.top_k_sparse(&terms, k.min(n_docs), &mut scratch);
                    assert_eq!(sparse, want, "{docs:?} {q:?} {k}");
                }
            }
        }
    }

    #[test]
    fn empty_documents_score_zero() {
        let empty: Vec<Vec<&str>> = vec![vec![], vec![]];
        let index = Index::new(&empty, Params::default());
        assert_eq!(index.scores(&["x"]), [0.0, 0.0]);
        let batch = index.top_k_batch(&[vec!["x"]], 1).unwrap();
        assert_eq!(batch, [[(0, 0.0)]]);
    }

    #[test]
    fn many_queries_in_parallel_keep_their_order() {
        let index = Index::new(&docs(), Params::default());
        let words = ["windy", "london", "weather", "hello", "absent", "is"];
        let queries: Vec<Vec<&str>> = (0..1000)
            .map(|i| vec![words[i % 6], words[i * 7 % 6]])
            .collect();
        let one_by_one: Vec<_> = queries.iter().map(|q| index.top_k(q, 2)).collect();
        assert_eq!(index.top_k_batch(&queries, 2).unwrap(), one_by_one);
    }
}
