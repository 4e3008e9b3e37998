"""Pure-Python fallback of the evaluation core: the BM25 tokenizers and index
(``rust/eval/``)."""
