"""Late chunking: hand-checked pooled vectors, special tokens, CJK and emoji offsets, a small
context-dependent model, macro windows."""

from __future__ import annotations

import numpy as np
import pytest
from ragchunk import Chunk, SentenceSplitter
from ragchunk.late import TokenEmbeddings, char_offsets, late_chunk, macro_windows


class ContextModel:
    """A tiny deterministic 'transformer': a token's vector is its own hashed one-hot plus the
    mean of all tokens of its input (so it depends on the context it was embedded in).
    Tokens: words and single non-space characters; CLS and SEP with offsets (0, 0) frame
    the input, as Hugging Face's ``offset_mapping`` reports them."""

    dim = 8

    def tokenize(self, text: str) -> list[tuple[int, int]]:
        import re

        return [(m.start(), m.end()) for m in re.finditer(r"\w+|\S", text)]

    def own(self, token: str) -> np.ndarray:
        v = np.zeros(self.dim)
        v[sum(map(ord, token)) % self.dim] = 1.0
        return v

    def embed_tokens(self, text: str) -> tuple[np.ndarray, list[tuple[int, int]]]:
        offs = self.tokenize(text)
        own = np.array([self.own(text[s:e]) for s, e in offs]) if offs else np.zeros((0, self.dim))
        ctx = own.mean(axis=0) if offs else np.zeros(self.dim)
        vecs = np.vstack([np.full(self.dim, 9.0), own + ctx, np.full(self.dim, -9.0)])
        return vecs.astype(np.float32), [(0, 0), *offs, (0, 0)]


def test_hand_checked_with_special_tokens() -> None:
    text = "ab cd ef"
    vecs = np.array([[100, 100], [1, 0], [3, 0], [0, 5], [-100, -100]], dtype=np.float32)
    offs = [(0, 0), (0, 2), (3, 5), (6, 8), (0, 0)]
    chunks = [Chunk("ab cd ", 0, 6, 2), Chunk("ef", 6, 8, 1)]
    out = late_chunk(text, chunks, TokenEmbeddings(vecs, offs))
    assert out.tolist() == [[2.0, 0.0], [0.0, 5.0]]


def test_context_dependent_model_matches_hand_computation() -> None:
    m = ContextModel()
    text = "Cats purr. Stocks fell."
    chunks = SentenceSplitter(chunk_size=5).split(text)
    out = late_chunk(text, chunks, m)
    toks = m.tokenize(text)
    own = np.array([m.own(text[s:e]) for s, e in toks])
    ctx = own.mean(axis=0)
    for c, row in zip(chunks, out, strict=True):
        inside = [i for i, (s, e) in enumerate(toks) if s < c.end and e > c.start]
        np.testing.assert_allclose(row, (own[inside] + ctx).mean(axis=0), rtol=1e-6)
    # context matters: the same sentence alone gets another vector
    alone = late_chunk("Cats purr.", [(0, 10)], m)
    assert not np.allclose(alone[0], out[0])


def test_cjk_and_emoji_offsets() -> None:
    text = "你好🦀世界 ok"
    # byte offsets as some tokenizers report them: 你 好 🦀 世界 ok
    byte_offs = [(0, 3), (3, 6), (6, 10), (10, 16), (17, 19)]
    offs = char_offsets(text, byte_offs)
    assert offs.dtype == np.int64 and offs.shape == (5, 2)
    assert offs.tolist() == [[0, 1], [1, 2], [2, 3], [3, 5], [6, 8]]
    # an int64 array in gives the same; the result goes to the pooling as it is
    assert char_offsets(text, np.array(byte_offs)).tolist() == offs.tolist()
    vecs = np.arange(10, dtype=np.float32).reshape(5, 2)
    out = late_chunk(text, [(0, 3), (3, 8)], TokenEmbeddings(vecs, offs, text))
    assert out.tolist() == [[2.0, 3.0], [7.0, 8.0]]


def test_char_offsets_bad_input() -> None:
    with pytest.raises(TypeError, match="byte_offsets"):
        char_offsets("ab", [(0.5, 1)])
    with pytest.raises(ValueError, match="byte_offsets"):
        char_offsets("ab", [(0, 1, 2)])
    with pytest.raises(TypeError, match="text"):
        char_offsets(b"ab", [(0, 1)])  # type: ignore[arg-type]


def test_macro_windows_rule() -> None:
    assert macro_windows(5, 8, 2) == [(0, 5, 0, 5)]
    w = macro_windows(20, 8, 4)
    owned = [t for _, _, ks, ke in w for t in range(ks, ke)]
    assert owned == list(range(20))  # each token from exactly one window
    for s, e, ks, ke in w:
        assert s <= ks <= ke <= e
    with pytest.raises(ValueError):
        macro_windows(10, 4, 4)


def test_long_document_in_windows_equals_hand_computation() -> None:
    m = ContextModel()
    text = " ".join(f"w{i}" for i in range(30))
    toks = m.tokenize(text)
    out = late_chunk(text, [(0, len(text))], m, window=10, overlap=4)
    expected = []
    for s, e, ks, ke in macro_windows(len(toks), 10, 4):
        own = np.array([m.own(text[a:b]) for a, b in toks[s:e]])
        ctx = own.mean(axis=0)
        expected.extend((own + ctx)[ks - s : ke - s])
    np.testing.assert_allclose(out[0], np.mean(expected, axis=0), rtol=1e-6)


def test_bad_input() -> None:
    te = TokenEmbeddings(np.ones((1, 2), dtype=np.float32), [(0, 1)])
    with pytest.raises(ValueError, match=r"chunks\[0\].*no token"):
        late_chunk("a b", [(2, 3)], te)
    with pytest.raises(ValueError, match="outside"):
        late_chunk("a", [(0, 5)], te)
    with pytest.raises(TypeError, match="token_embedder"):
        late_chunk("a", [(0, 1)], 42)
    with pytest.raises(ValueError, match="rows"):
        late_chunk("a", [(0, 1)], TokenEmbeddings(np.ones((2, 2)), [(0, 1)]))
    with pytest.raises(ValueError, match="NaN"):
        late_chunk("a", [(0, 1)], TokenEmbeddings(np.full((1, 2), np.nan), [(0, 1)]))
