"""``ragchunk.integrations.langchain.SemanticChunker`` is langchain_experimental's
``SemanticChunker``: the same chunks, documents and ``start_index``, the same embedding calls
in the same order, the same errors; and langchain-experimental's own tests pass with it
swapped in (``dropin_suites.py``)."""

from __future__ import annotations

import hashlib
import os
import re
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from testdata import CORPUS

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    lce = pytest.importorskip("langchain_experimental.text_splitter")
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from ragchunk.integrations import langchain as rc

_WORD = re.compile(r"\w+|[^\w\s]")


@cache
def _vector(text: str) -> list[float]:
    out = [0.0] * 24
    for w in _WORD.findall(text.lower()):
        out[
            hashlib.blake2b(w.encode("utf-8", "surrogatepass"), digest_size=2).digest()[0] % 24
        ] += 1
    return out


class Recording(Embeddings):
    """Hashed bag-of-words vectors (small integers: exact in float32 and float64), and every
    call's texts."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return [_vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


@cache
def corpus(limit: int = 4_000) -> tuple[tuple[str, str], ...]:
    root = CORPUS
    if not root.is_dir() and os.environ.get("RAGCHUNK_SHARED"):
        root = Path(os.environ["RAGCHUNK_SHARED"]) / "corpus"
    if not root.is_dir():
        return ()
    files = sorted(root.rglob("*.md"))
    return tuple((str(p.relative_to(root)), p.read_text(encoding="utf-8")[:limit]) for p in files)


def both(**kwargs: Any) -> tuple[Any, Recording, Any, Recording]:
    a, b = Recording(), Recording()
    return rc.SemanticChunker(a, **kwargs), a, lce.SemanticChunker(b, **kwargs), b


#: The configurations docs/integrations.md lists.
CONFIGS: list[dict[str, Any]] = [
    {},
    {"breakpoint_threshold_type": "standard_deviation"},
    {"breakpoint_threshold_type": "interquartile", "buffer_size": 2},
    {"breakpoint_threshold_type": "gradient", "breakpoint_threshold_amount": 80},
    {"breakpoint_threshold_amount": 50, "buffer_size": 0},
    {"number_of_chunks": 8},
    {"min_chunk_size": 300},
    {"sentence_split_regex": r"\n\n+"},
    {"sentence_split_regex": r"(?<=[.?!。！？])\s*", "breakpoint_threshold_amount": 90},
]


@pytest.mark.parametrize(
    "kwargs", CONFIGS, ids=lambda k: ",".join(f"{a}={v}" for a, v in k.items())
)
def test_corpus_matches_langchain(kwargs: dict[str, Any]) -> None:
    docs = corpus()
    if not docs:
        pytest.skip("SHARED TEST DATA MISSING: ../shared/corpus not found; not run")
    ours, our_calls, theirs, their_calls = both(**kwargs)
    scripts = set()
    for name, text in docs:
        assert ours.split_text(text) == theirs.split_text(text), name
        scripts.add(name.split("/")[0])
    assert our_calls.calls == their_calls.calls
    assert len(our_calls.calls) >= len(docs) // 2
    assert len(scripts) >= 7


EDGE = [
    "",
    "One sentence only",
    "Two sentences. Here they are.",
    "Three. Sentences. Here.",
    "Same. Same. Same. Same. Same.",
    "A cat sat! The cat slept? Stocks fell.  Stocks rose.\n\nThe market closed. Cats again.",
    "  Leading space. Trailing space.  ",
    "Ünïcödé wörds. 中文句子。 More English! 🦀 crabs? Yes.",
    "Lone \ud800 surrogate. And more. And more.",
]


@pytest.mark.parametrize("kwargs", [*CONFIGS, {"number_of_chunks": 1}, {"min_chunk_size": 1}])
@pytest.mark.parametrize("text", EDGE)
def test_edge_cases_match_langchain(kwargs: dict[str, Any], text: str) -> None:
    ours, our_calls, theirs, their_calls = both(**kwargs)
    assert ours.split_text(text) == theirs.split_text(text)
    assert our_calls.calls == their_calls.calls


def test_documents_match_langchain() -> None:
    text = "A cat sat. The cat slept. Stock prices fell. The stock rose. Cats again."
    docs = [Document(page_content=text, metadata={"source": "a"}), Document(page_content="Hi.")]
    for kw in ({"add_start_index": True, "buffer_size": 0}, {"breakpoint_threshold_amount": 50}):
        ours, _, theirs, _ = both(**kw)
        assert ours.split_documents(docs) == theirs.split_documents(docs)
        assert ours.create_documents([text], [{"n": 1}]) == theirs.create_documents(
            [text], [{"n": 1}]
        )
        assert ours.transform_documents(docs) == theirs.transform_documents(docs)
    ours, _, _, _ = both(add_start_index=True, buffer_size=0, breakpoint_threshold_amount=50)
    starts = [d.metadata["start_index"] for d in ours.create_documents([text])]
    # LangChain's start_index is the running sum of chunk lengths, kept as it is
    assert starts[0] == 0 and len(starts) >= 2


@pytest.mark.parametrize(
    "kwargs",
    [
        {"breakpoint_threshold_type": "nonsense", "breakpoint_threshold_amount": 1},
        {"breakpoint_threshold_amount": 150},
        {"breakpoint_threshold_amount": float("nan")},
        {"buffer_size": -1},
        {"number_of_chunks": 0},
        {"min_chunk_size": 0},
    ],
)
def test_out_of_range_settings_behave_as_langchain(kwargs: dict[str, Any]) -> None:
    text = "One. Two. Three. Four. Five."
    ours, our_calls, theirs, their_calls = both(**kwargs)
    try:
        want: Any = theirs.split_text(text)
    except Exception as exc:
        with pytest.raises(type(exc)) as got:
            ours.split_text(text)
        assert str(got.value) == str(exc)
    else:
        assert ours.split_text(text) == want
    assert our_calls.calls == their_calls.calls


def test_unknown_type_without_amount_raises_as_langchain() -> None:
    with pytest.raises(KeyError):
        lce.SemanticChunker(Recording(), breakpoint_threshold_type="nonsense")
    with pytest.raises(KeyError):
        rc.SemanticChunker(Recording(), breakpoint_threshold_type="nonsense")


def test_overridden_hooks_run_langchains_code() -> None:
    class Sentences(rc.SemanticChunker):
        def _get_single_sentences_list(self, text: str) -> list[str]:
            return text.split("|")

    text = "a cat|the cat|stocks fell|stock rose"
    ours = Sentences(Recording(), buffer_size=0, breakpoint_threshold_amount=50)
    theirs = lce.SemanticChunker(Recording(), buffer_size=0, breakpoint_threshold_amount=50)
    theirs._get_single_sentences_list = lambda t: t.split("|")
    assert ours.split_text(text) == theirs.split_text(text)
    assert "|" not in "".join(ours.split_text(text))  # the override cut the sentences


def test_settings_changed_after_construction_are_used() -> None:
    text = "A cat sat. The cat slept. Stock prices fell. The stock rose. Cats again."
    ours, _, theirs, _ = both(buffer_size=0)
    first = ours.split_text(text)
    for chunker in (ours, theirs):
        chunker.breakpoint_threshold_amount = 40
    assert ours.split_text(text) == theirs.split_text(text) != first


def test_is_langchains_class_from_the_langchain_module() -> None:
    assert issubclass(rc.SemanticChunker, lce.SemanticChunker)
    with pytest.raises(AttributeError):
        rc.NoSuchSplitter  # noqa: B018


@pytest.mark.single_backend
def test_langchain_experimentals_own_tests_pass_on_the_dropin() -> None:
    import dropin_suites

    suite = dropin_suites.SUITES["langchain-experimental"]
    root = dropin_suites.fetched(suite)
    if root is None:  # the set-up fetches it; the tests download nothing
        pytest.fail(f"the sdist is not in {dropin_suites.SDISTS}: run scripts/setup.sh --dev")
    theirs = dropin_suites.run("langchain-experimental", root, patched=False)
    ours = dropin_suites.run("langchain-experimental", root, patched=True)
    assert theirs.count("passed") >= 8, theirs.output[-3000:]
    assert dropin_suites.langchain_suite.differences(theirs, ours) == {}, ours.output[-3000:]
    passed, total = dropin_suites.langchain_suite.by_class(theirs, ours)["SemanticChunker"]
    assert total >= 8 and passed == total
