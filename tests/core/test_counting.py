"""The counting seam: one Counter, the same counts on both backends, in every mode, and no
pure-Python engine built unless the fallback runs."""

from __future__ import annotations

import itertools
import pickle

import pytest
import ragchunk
import tiktoken
from ragchunk._pure import tokenizer as pure_tokenizer
from ragchunk.core import dispatch
from ragchunk.core.counting import Counter, counter

TEXTS = ["hello world", "你好，世界", "", "a\ud800b", "<|endoftext|> tail", "🦀 " * 50]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_ordinary_counts_equal_tiktoken(name: str) -> None:
    enc = tiktoken.get_encoding(name)
    c = Counter(name)
    for t in TEXTS:
        fixed = dispatch.fix_surrogates(t)
        assert c(t) == len(enc.encode_ordinary(fixed)), t
    assert c.batch(TEXTS) == [len(enc.encode_ordinary(dispatch.fix_surrogates(t))) for t in TEXTS]


@pytest.mark.parametrize("tokenizer", ["cl100k_base", "o200k_base", None, len])
def test_spans_count_the_slices(tokenizer: object) -> None:
    text = "Hello world. 你好，世界。 🦀 crab\n\n<|endoftext|> tail " * 3
    cuts = sorted({0, len(text), *range(0, len(text), 7), 13, 14, 15})
    spans = [*itertools.pairwise(cuts), (0, len(text)), (5, 5), (3, 40), (0, 1)]
    c = Counter(tokenizer)
    assert c.spans(text, spans) == c.batch([text[s:e] for s, e in spans])
    assert c.spans(text, iter(spans)) == c.spans(text, spans)
    assert c.spans(text, []) == []
    assert c.spans("a\ud800b", [(0, 3), (1, 2)]) == c.batch(["a\ud800b", "\ud800"])


@pytest.mark.parametrize("bad", [(0, 31), (5, 4), (-1, 2)])
def test_spans_outside_the_text_name_the_span(bad: tuple[int, int]) -> None:
    with pytest.raises(ValueError, match=rf"spans\[1\] = \({bad[0]}, {bad[1]}\) is not a span"):
        Counter("cl100k_base").spans("x" * 30, [(0, 1), bad])


def test_exact_mode_raises_on_special_text_and_names_it() -> None:
    c = Counter("cl100k_base", mode="exact")
    assert c("hello world") == 2
    with pytest.raises(ValueError):
        c("<|endoftext|>")
    with pytest.raises(ValueError, match=r"texts\[1\]"):
        c.batch(["fine", "<|endoftext|>"])


def test_ragflow_mode_counts_zero_where_counting_fails() -> None:
    c = Counter("cl100k_base", mode="ragflow")
    assert c("<|endoftext|>") == 0
    assert c.batch(["hello world", "<|endoftext|>"]) == [2, 0]
    assert c("hello world") == ragchunk.num_tokens_from_string("hello world")


def test_callables_and_characters() -> None:
    words = Counter(lambda s: len(s.split()))
    assert words("one two three") == 3
    assert words.batch(["a b", ""]) == [2, 0]
    assert Counter(None)("héllo") == 5
    with pytest.raises(TypeError, match="must return an int"):
        Counter(lambda s: "3")("x")


def test_bad_mode_and_tokenizer_name_the_argument() -> None:
    with pytest.raises(ValueError, match="mode must be one of"):
        Counter("cl100k_base", mode="strict")
    with pytest.raises(ValueError, match="unknown encoding"):
        counter("no_such_encoding")


def test_pickles_and_compares_by_configuration() -> None:
    c = Counter("o200k_base", mode="exact")
    assert c("hello world") == 2  # on the fallback, this builds the closure pickling drops
    copy = pickle.loads(pickle.dumps(c))
    assert copy == c and hash(copy) == hash(c)
    assert copy("hello world") == 2
    assert Counter("o200k_base") != c


@pytest.mark.single_backend
def test_rust_backend_never_builds_the_fallback_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the fallback's packages, everything that counts still works on the Rust core."""
    if dispatch.name() != "rust":
        pytest.skip("runs on the Rust backend only (RAGCHUNK_BACKEND=python)")

    def unavailable(*args: object, **kwargs: object) -> None:
        raise ImportError("the fallback's engine is not installed")

    monkeypatch.setattr(pure_tokenizer, "load_encoding", unavailable)
    monkeypatch.setattr(pure_tokenizer, "ragflow_counter", unavailable)
    np = pytest.importorskip("numpy")
    from ragchunk import embeddings, llm, semantic

    def embed(texts: list[str]) -> list[list[float]]:
        return [[float(t.count("cat")), float(t.count("car")), 0.1] for t in texts]

    assert Counter("cl100k_base")("hello world") == 2
    assert ragchunk.count_tokens_batch(["hello world"]) == [2]
    semantic.SemanticChunker(embed)
    semantic.ClusterSemanticChunker(embed)
    semantic.TopicChunker(n_topics=2)
    embeddings.as_embedder(embed, tokenizer="cl100k_base", max_tokens=16).embed(["a cat"])
    llm.OpenAICompatible("http://127.0.0.1:9/v1", "m", api_key="x")
    model = llm.LLM(lambda p: "ok")
    for chunker in (
        llm.LLMBoundaryChunker(model, chunk_size=32),
        llm.PropositionChunker(model, chunk_size=32),
        llm.ContextualChunker(model),
    ):
        assert chunker.estimate(["hello world. " * 40]).prompt_tokens > 20
    assert np is not None


@pytest.mark.single_backend
def test_a_tokenizer_loaded_on_the_fallback_counts_after_switching_to_rust() -> None:
    if dispatch.name() != "rust":
        pytest.skip("needs the compiled core")
    spec = (
        '{"version": "1.0", "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "switch": 1}, '
        '"unk_token": "[UNK]"}, "pre_tokenizer": {"type": "Whitespace"}}'
    )
    dispatch.set_backend("python")
    try:
        tok = ragchunk.Tokenizer.from_str(spec)
        assert tok.count("switch switch") == 2
    finally:
        dispatch.set_backend("rust")
    assert tok.count("switch switch switch") == 3
    assert Counter(tok).batch(["switch", "switch other"]) == [1, 2]
