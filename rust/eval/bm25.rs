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

use rustc_hash::FxHashMap;

use super::tokenize::{for_each_token, Kind};
use crate::batch::{self, BatchError};

/// A block of documents indexed against a local vocabulary (terms in order of first
/// appearance), merged into the index afterwards.
#[derive(Default)]
struct Part {
    vocab: FxHashMap<String, u32>,
    terms: Vec<String>,
    /// Per document: `(local term id, term frequency)`.
    docs: Vec<Vec<(u32, u32)>>,
    lens: Vec<u32>,
    /// Per local term: the last document it was seen in, and its place in that document's
    /// counts.
    seen_in: Vec<u32>,
    slot: Vec<u32>,
}

impl Part {
    /// Adds one document; `tokens` calls its argument with every token.
    fn add(&mut self, tokens: impl FnOnce(&mut dyn FnMut(&str))) {
        let doc = self.docs.len() as u32;
        let mut counts: Vec<(u32, u32)> = Vec::new();
        let mut len = 0u32;
        let Part {
            vocab,
            terms,
            seen_in,
            slot,
            ..
        } = self;
        tokens(&mut |tok: &str| {
            len += 1;
            let id = match vocab.get(tok) {
                Some(&id) => id as usize,
                None => {
                    let id = terms.len();
                    vocab.insert(tok.to_owned(), id as u32);
                    terms.push(tok.to_owned());
                    seen_in.push(u32::MAX);
                    slot.push(0);
                    id
                }
            };
            if seen_in[id] == doc {
                counts[slot[id] as usize].1 += 1;
            } else {
                seen_in[id] = doc;
                slot[id] = counts.len() as u32;
                counts.push((id as u32, 1));
            }
        });
        self.docs.push(counts);
        self.lens.push(len);
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
    params: Params,
    vocab: FxHashMap<String, u32>,
    /// Per term: `(document, term frequency)`, documents ascending.
    postings: Vec<Vec<(u32, u32)>>,
    idf: Vec<f64>,
    doc_len: Vec<u32>,
    avgdl: f64,
}

impl Index {
    /// Indexes `docs` (each a list of tokens).
    pub fn new<S: AsRef<str>>(docs: &[Vec<S>], params: Params) -> Index {
        let mut part = Part::default();
        for doc in docs {
            part.add(|f| doc.iter().for_each(|t| f(t.as_ref())));
        }
        Index::from_parts(vec![part], params)
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
            let mut part = Part::default();
            for d in docs {
                part.add(|f| for_each_token(d.as_ref(), kind, f));
            }
            part
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
        let mut vocab: FxHashMap<String, u32> = FxHashMap::default();
        let mut postings: Vec<Vec<(u32, u32)>> = Vec::new();
        let mut doc_len = Vec::new();
        let mut total: u64 = 0;
        for part in parts {
            let remap: Vec<u32> = part
                .terms
                .into_iter()
                .map(|t| {
                    *vocab.entry(t).or_insert_with(|| {
                        postings.push(Vec::new());
                        (postings.len() - 1) as u32
                    })
                })
                .collect();
            for (counts, len) in part.docs.into_iter().zip(part.lens) {
                let d = doc_len.len() as u32;
                doc_len.push(len);
                total += u64::from(len);
                for (local, tf) in counts {
                    postings[remap[local as usize] as usize].push((d, tf));
                }
            }
        }
        let n = doc_len.len() as f64;
        let avgdl = if doc_len.is_empty() {
            0.0
        } else {
            total as f64 / n
        };
        // Term ids are in order of first appearance, the order rank_bm25 sums its idf in.
        let mut idf: Vec<f64> = postings
            .iter()
            .map(|p| {
                let df = p.len() as f64;
                (n - df + 0.5).ln() - (df + 0.5).ln()
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
        Index {
            params,
            vocab,
            postings,
            idf,
            doc_len,
            avgdl,
        }
    }

    /// The number of documents.
    pub fn len(&self) -> usize {
        self.doc_len.len()
    }

    /// Whether the index holds no document.
    pub fn is_empty(&self) -> bool {
        self.doc_len.is_empty()
    }

    /// The idf of `token` (0 when it is not in the corpus).
    pub fn idf(&self, token: &str) -> f64 {
        self.vocab
            .get(token)
            .map_or(0.0, |&id| self.idf[id as usize])
    }

    /// The score of every document for `query`.
    pub fn scores<S: AsRef<str>>(&self, query: &[S]) -> Vec<f64> {
        let mut score = vec![0.0f64; self.len()];
        if self.avgdl == 0.0 {
            return score;
        }
        let Params { k1, b, .. } = self.params;
        for q in query {
            let Some(&id) = self.vocab.get(q.as_ref()) else {
                continue;
            };
            let idf = self.idf[id as usize];
            for &(d, tf) in &self.postings[id as usize] {
                let tf = tf as f64;
                let dl = self.doc_len[d as usize] as f64;
                let norm = k1 * (1.0 - b + b * dl / self.avgdl);
                score[d as usize] += idf * (tf * (k1 + 1.0) / (tf + norm));
            }
        }
        score
    }

    /// [`Index::top_k`] of a query text, tokenized by `kind`.
    pub fn top_k_text(&self, query: &str, kind: Kind, k: usize) -> Vec<(u32, f64)> {
        let mut tokens: Vec<&str> = Vec::new();
        let mut owned: Vec<String> = Vec::new();
        for_each_token(query, kind, |t| owned.push(t.to_owned()));
        tokens.extend(owned.iter().map(String::as_str));
        top_k(&self.scores(&tokens), k)
    }

    /// The best `k` documents for `query`: `(document, score)`, best first, equal scores in
    /// document order.
    pub fn top_k<S: AsRef<str>>(&self, query: &[S], k: usize) -> Vec<(u32, f64)> {
        top_k(&self.scores(query), k)
    }

    /// [`Index::top_k`] for every query, in parallel.
    pub fn top_k_batch<S: AsRef<str> + Sync>(
        &self,
        queries: &[Vec<S>],
        k: usize,
    ) -> Result<Vec<Vec<(u32, f64)>>, BatchError> {
        par_map_queries(queries, |q| self.top_k(q, k))
    }
}

/// `f` over the queries: on the calling thread for a few hundred, else on the thread pool
/// ([`batch::par_map`]) in groups of 64.
pub fn par_map_queries<Q: Sync, R: Send>(
    queries: &[Q],
    f: impl Fn(&Q) -> R + Sync + Send,
) -> Result<Vec<R>, BatchError> {
    if queries.len() < 256 {
        return Ok(queries.iter().map(f).collect());
    }
    let groups: Vec<&[Q]> = queries.chunks(64).collect();
    let done = batch::par_map(&groups, None, |group| {
        group.iter().map(&f).collect::<Vec<R>>()
    })?;
    Ok(done.into_iter().flatten().collect())
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
            assert_eq!(a.top_k_text(q, Kind::English, 5), b.top_k(&qt, 5));
        }
        assert_eq!(a.idf("topic"), b.idf("topic"));
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
