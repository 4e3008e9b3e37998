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

use rayon::prelude::*;
use rustc_hash::FxHashMap;

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
        let mut vocab: FxHashMap<String, u32> = FxHashMap::default();
        let mut postings: Vec<Vec<(u32, u32)>> = Vec::new();
        let mut doc_len = Vec::with_capacity(docs.len());
        let mut total: u64 = 0;
        let mut counts: FxHashMap<u32, u32> = FxHashMap::default();
        for (d, doc) in docs.iter().enumerate() {
            doc_len.push(doc.len() as u32);
            total += doc.len() as u64;
            counts.clear();
            for tok in doc {
                let tok = tok.as_ref();
                let id = match vocab.get(tok) {
                    Some(&id) => id,
                    None => {
                        let id = postings.len() as u32;
                        vocab.insert(tok.to_owned(), id);
                        postings.push(Vec::new());
                        id
                    }
                };
                *counts.entry(id).or_insert(0) += 1;
            }
            for (&id, &tf) in &counts {
                postings[id as usize].push((d as u32, tf));
            }
        }
        let n = docs.len() as f64;
        let avgdl = if docs.is_empty() {
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
    ) -> Vec<Vec<(u32, f64)>> {
        queries.par_iter().map(|q| self.top_k(q, k)).collect()
    }
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
    fn empty_documents_score_zero() {
        let empty: Vec<Vec<&str>> = vec![vec![], vec![]];
        let index = Index::new(&empty, Params::default());
        assert_eq!(index.scores(&["x"]), [0.0, 0.0]);
        let batch = index.top_k_batch(&[vec!["x"]], 1);
        assert_eq!(batch, [[(0, 0.0)]]);
    }
}
