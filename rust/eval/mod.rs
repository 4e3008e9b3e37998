//! Retrieval evaluation: the BM25 retriever ([`bm25`]), its term dictionary ([`vocab`]) and
//! the tokenizers it indexes with ([`tokenize`]). The span and rank metrics are plain
//! arithmetic over a few hundred numbers per question and live in Python.

pub mod bm25;
pub mod tokenize;
pub mod vocab;
