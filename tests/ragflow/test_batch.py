"""Batch and streaming APIs: same chunks as one call per document, order kept, GIL released."""

from __future__ import annotations

import random
import sys
import threading
import time
from collections.abc import Iterator

import pytest
import ragchunk
from testdata import corpus_documents

_DOCS = [
    "First doc。With two sentences！",
    ["list", "of", "sections"],
    [("tagged text that is long enough to keep its tag", "@@1\t1\t2\t3\t4##"), ("b", None)],
    "",
    [],
    "中文文档。第二句；第三句？" * 50,
]


@pytest.mark.parametrize("workers", [None, 1, 2, 3])
def test_batch_equals_per_document(workers: int | None) -> None:
    for kwargs in ({}, {"chunk_token_num": 8, "overlapped_percent": 30}, {"delimiter": "`。`"}):
        expected = [ragchunk.naive_merge(d, **kwargs) for d in _DOCS]  # type: ignore[arg-type]
        assert ragchunk.naive_merge_batch(_DOCS, workers=workers, **kwargs) == expected  # type: ignore[arg-type]


def test_batch_equals_per_document_on_corpus(backend: str) -> None:
    docs = [text for _, text in corpus_documents()]
    if not docs:
        pytest.skip("SHARED CORPUS MISSING: ../shared/corpus not found")
    if backend == "python":
        docs = docs[:12]  # the fallback is the slow reference; a sample proves the wiring
    expected = [ragchunk.naive_merge(d, 512) for d in docs]
    assert ragchunk.naive_merge_batch(docs, 512, workers=2) == expected
    streamed = list(ragchunk.iter_naive_merge(iter(docs), 512, batch_size=5))
    assert streamed == expected


def _mixed_sizes(n: int, seed: int) -> list[object]:
    """Documents from a few bytes to ~300 KB, each one's text unique to its index."""
    rng = random.Random(seed)
    docs: list[object] = []
    for i in range(n):
        size = int(rng.lognormvariate(8, 2)) % 300_000  # mostly small, some very large
        unit = f"doc {i} line {{}} 中文第{i}句。More words for {i}！\n"
        text = "".join(unit.format(k) for k in range(size // len(unit) + 1))
        shape = i % 5
        if shape == 3:
            docs.append([text[: len(text) // 2], text[len(text) // 2 :]])
        elif shape == 4:
            docs.append([(text, f"@@{i % 9 + 1}\t1\t2\t3\t4##"), (f"tail {i}", None)])
        else:
            docs.append(text if i % 17 else "")
    return docs


@pytest.mark.parametrize("workers", [None, 1, 2])
def test_batch_keeps_order_over_mixed_sizes(backend: str, workers: int | None) -> None:
    # Enough bytes (~12 MB) to cross the Rust pipeline's in-flight budget (8 MB) several
    # times and documents of wildly different sizes, so workers finish out of order: a
    # reordered, lost or duplicated result changes the list.
    docs = _mixed_sizes(40 if backend == "python" else 700, seed=3)
    expected = [ragchunk.naive_merge(d, 64) for d in docs]  # type: ignore[arg-type]
    assert ragchunk.naive_merge_batch(docs, 64, workers=workers) == expected  # type: ignore[arg-type]
    streamed = ragchunk.iter_naive_merge(iter(docs), 64, workers=workers, batch_size=37)  # type: ignore[arg-type]
    assert list(streamed) == expected


def test_batch_with_late_lone_surrogate(backend: str) -> None:
    if backend != "rust":
        pytest.skip("only the Rust batch has work in flight to abandon")
    # A lone surrogate cannot be copied to UTF-8: the Rust batch stops with work in flight
    # and the facade falls back to per-document calls. Results must not change.
    docs: list[object] = _mixed_sizes(700, seed=3)
    docs[650] = "before \ud800 after。" * 3
    expected = [ragchunk.naive_merge(d, 64) for d in docs]  # type: ignore[arg-type]
    assert ragchunk.naive_merge_batch(docs, 64, workers=2) == expected  # type: ignore[arg-type]


def _fresh(text: str) -> str:
    """A new string object equal to ``text``, with nothing cached in it (no UTF-8 copy)."""
    return "".join(list(text))


def test_batch_reads_every_string_width_in_place(backend: str) -> None:
    # The Rust batch reads each text where CPython keeps it: ASCII strings and strings that
    # already cache their UTF-8 are borrowed, 1- and 2-byte strings are encoded by the workers
    # from their characters, 4-byte ones are copied by CPython. Each path must give the chunks
    # of one call per document, and none may leave a UTF-8 copy attached to the caller's
    # strings (sys.getsizeof counts it).
    rng = random.Random(7)
    alphabets = [
        "abc xyz。\n",  # ASCII plus a CJK delimiter: 2-byte
        "abc déjà vu ÿ\n",  # Latin-1: 1-byte, not ASCII
        "中文，分块测试。ж Ā\uffffa b\n",  # 2-byte
        "emoji 🦀 中文。\n",  # 4-byte
        "plain ascii words. more!\n",  # ASCII
    ]
    texts = []
    for alphabet in alphabets:
        for n in (1, 7, 8, 9, 15, 16, 17, 100, 5000):
            texts.append("".join(rng.choice(alphabet) for _ in range(n)))
    docs: list[object] = [_fresh(t) for t in texts]
    docs += [[_fresh(t) for t in texts[i : i + 3]] for i in range(0, len(texts), 3)]
    docs.append([(_fresh("Tagged 中文 text。"), _fresh("@@1\t1\t2\t3\t4##"))])
    sizes = [sys.getsizeof(t) for t in texts]
    expected = [ragchunk.naive_merge(_copy(d), 16) for d in docs]
    for workers in (1, 2):
        assert ragchunk.naive_merge_batch(docs, 16, workers=workers) == expected
    for d in docs[: len(texts)]:
        assert isinstance(d, str)
    assert [sys.getsizeof(d) for d in docs[: len(texts)]] == sizes
    # And once CPython caches UTF-8 in them (a per-document call did), the batch borrows it.
    for d in docs:
        ragchunk.naive_merge(d, 16)  # type: ignore[arg-type]
    assert ragchunk.naive_merge_batch(docs, 16, workers=2) == expected


def _copy(doc: object) -> object:
    if isinstance(doc, str):
        return _fresh(doc)
    return [
        (_fresh(t[0]), _fresh(t[1])) if isinstance(t, tuple) else _fresh(t)
        for t in doc  # type: ignore[attr-defined]
    ]


def test_batch_with_callable_tokenizer() -> None:
    docs = ["a b c\nd e f", "g h"]
    words = lambda s: len(s.split())  # noqa: E731
    assert ragchunk.naive_merge_batch(docs, 2, tokenizer=words) == [
        ragchunk.naive_merge(d, 2, tokenizer=words) for d in docs
    ]


def test_batch_errors_name_the_document() -> None:
    with pytest.raises(TypeError, match=r"docs\[2\]"):
        ragchunk.naive_merge_batch(["ok", "fine", 42])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="docs"):
        ragchunk.naive_merge_batch("not a list")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="workers"):
        ragchunk.naive_merge_batch(["a"], workers=0)
    with pytest.raises(TypeError, match="workers"):
        ragchunk.naive_merge_batch(["a"], workers=1.5)  # type: ignore[arg-type]


def test_stream_error_keeps_earlier_results_and_names_global_index() -> None:
    def gen() -> Iterator[object]:
        yield from ["one", "two", "three", None, "five"]

    out = []
    with pytest.raises(TypeError, match=r"docs\[3\]"):
        for chunks in ragchunk.iter_naive_merge(gen(), batch_size=2):  # type: ignore[arg-type]
            out.append(chunks)
    assert out == [["\none"], ["\ntwo"]]  # the batch holding docs[3] never started
    with pytest.raises(ValueError, match="batch_size"):
        list(ragchunk.iter_naive_merge(["a"], batch_size=0))


def test_stream_is_lazy() -> None:
    pulled = []

    def gen() -> Iterator[str]:
        for i in range(100):
            pulled.append(i)
            yield f"doc {i}"

    it = ragchunk.iter_naive_merge(gen(), batch_size=10)
    assert next(it) == ["\ndoc 0"]
    assert len(pulled) == 10


@pytest.mark.parametrize("workers", [1, 2])
def test_stream_source_error_comes_after_earlier_results(workers: int) -> None:
    def gen() -> Iterator[str]:
        for i in range(7):
            yield f"doc {i}"
        raise OSError("disk gone")

    out = []
    with pytest.raises(OSError, match="disk gone"):
        for chunks in ragchunk.iter_naive_merge(gen(), batch_size=3, workers=workers):
            out.append(chunks)
    # The batch holding doc 6 could not be read; every document before it was yielded.
    assert out == [[f"\ndoc {i}"] for i in range(6)]


def test_stream_closed_early() -> None:
    def endless() -> Iterator[str]:
        i = 0
        while True:
            yield f"doc {i}。" * 50
            i += 1

    it = ragchunk.iter_naive_merge(endless(), 16, batch_size=50, workers=2)
    first = [next(it) for _ in range(75)]  # inside the second batch, the third computing
    it.close()  # returns once the batch in flight is done; nothing keeps running
    assert first == [ragchunk.naive_merge(f"doc {i}。" * 50, 16) for i in range(75)]


def test_count_tokens_batch(tiktoken_cl100k: object) -> None:
    texts = ["hello", "", "中文 text", "🦀" * 5, "x\ud800y"]
    assert ragchunk.count_tokens_batch(texts, workers=2) == [
        ragchunk.count_tokens(t) for t in texts
    ]
    with pytest.raises(ValueError, match=r"texts\[1\]"):
        ragchunk.count_tokens_batch(["fine", "<|endoftext|>"])
    with pytest.raises(TypeError, match=r"texts\[0\]"):
        ragchunk.count_tokens_batch([b"x"])  # type: ignore[list-item]


@pytest.mark.parametrize("workers", [1, 2])
def test_gil_is_released_during_long_calls(backend: str, workers: int) -> None:
    if backend != "rust":
        pytest.skip("the pure-Python fallback holds the GIL by nature")
    text = ("A sentence that goes on for a while, counted exactly. " * 40 + "\n") * 4000
    ticks = 0
    done = threading.Event()

    def work() -> None:
        try:
            ragchunk.naive_merge(text, 512)
            ragchunk.naive_merge_batch([text] * 4, 512, workers=workers)
        finally:
            done.set()

    worker = threading.Thread(target=work)
    start = time.perf_counter()
    worker.start()
    while not done.is_set():
        ticks += 1  # pure-Python work: only possible while the worker is not holding the GIL
        time.sleep(0)
    worker.join()
    elapsed = time.perf_counter() - start
    # With the GIL held for the whole call, this loop could run only at the switch interval
    # (5 ms) at best; released, it spins freely the whole time.
    assert elapsed > 0
    assert ticks > 20 * (elapsed / 0.005), (ticks, elapsed)
