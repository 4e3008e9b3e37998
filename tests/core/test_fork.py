"""Batch calls in forked processes: a child made by ``fork()`` after its parent ran a batch
(so the parent's Rust thread pools exist) gets the parent's results, and never hangs.

This is what ``multiprocessing``'s fork start method, ``ProcessPoolExecutor`` with a fork
context, gunicorn ``--preload`` and Celery's prefork pool do. Each entry point runs first in
the parent (starting the pool for ``workers=None`` and ``workers=2``), then in a forked child,
in a ``Process`` and in a ``ProcessPoolExecutor``; a child that does not answer within
``TIMEOUT`` seconds is killed and the test fails.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import random
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path

import pytest
import ragchunk
from ragchunk.eval import BM25

pytestmark = [
    pytest.mark.skipif(
        "fork" not in multiprocessing.get_all_start_methods(), reason="no fork() on this OS"
    ),
    # Python >= 3.12 warns when a process with threads forks: that is the situation tested.
    pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning"),
]

#: Seconds a child has to answer; a hung child fails the test instead of hanging the suite.
TIMEOUT = 60.0

_WORDS = "chunk retrieval index token split document query vector answer passage".split()
_CJK = "检索增强生成分块文档向量查询"


def _texts() -> list[str]:
    """~1.3 MB of Markdown-ish documents: over BM25's threshold for indexing in parallel."""
    rng = random.Random(11)
    docs = []
    for i in range(400):
        parts = [f"# Document {i}"]
        for p in range(5):
            sentences = []
            for _ in range(rng.randint(3, 7)):
                words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(4, 14)))
                cjk = "".join(rng.choice(_CJK) for _ in range(rng.randint(0, 6)))
                sentences.append(f"{words.capitalize()} {i}{cjk}.")
            parts.append(f"## Part {p}\n\n" + " ".join(sentences))
        docs.append("\n\n".join(parts))
    return docs


TEXTS = _texts()
# Over BM25's threshold for searching in parallel (256 queries).
QUERIES = [" ".join(random.Random(q).sample(_WORDS, 3)) for q in range(300)]


# The jobs: module-level functions of `workers`, so a ProcessPoolExecutor can pickle them.


def recursive_split_batch(workers: int | None) -> object:
    return ragchunk.RecursiveSplitter(64, 8).split_batch(TEXTS, workers)


def sentence_split_batch(workers: int | None) -> object:
    return ragchunk.SentenceSplitter(64, 1).split_batch(TEXTS, workers)


def markdown_split_batch(workers: int | None) -> object:
    return ragchunk.MarkdownSplitter(64).split_batch(TEXTS, workers)


def naive_merge_batch(workers: int | None) -> object:
    return ragchunk.naive_merge_batch(TEXTS, 64, workers=workers)


def iter_naive_merge(workers: int | None) -> object:
    return list(ragchunk.iter_naive_merge(iter(TEXTS), 64, batch_size=64, workers=workers))


def count_tokens_batch(workers: int | None) -> object:
    return ragchunk.count_tokens_batch(TEXTS, workers=workers)


def arrow_chunk_table(workers: int | None) -> object:
    import pyarrow as pa  # type: ignore[import-untyped]
    from ragchunk.io.arrow import chunk_table

    table = pa.table({"doc": list(range(len(TEXTS))), "text": TEXTS})
    chunks = chunk_table(table, ragchunk.RecursiveSplitter(64), id_columns="doc", workers=workers)
    return chunks.to_pylist()


def bm25_index_and_search(workers: int | None) -> object:
    # No `workers` argument: BM25 always runs on the default pool.
    return BM25().index(TEXTS).search(QUERIES, 5)


class HfCount:
    """``count_tokens_batch`` with a Hugging Face ``tokenizer.json`` (a picklable job)."""

    def __init__(self, path: Path) -> None:
        self.name = f"hf:{path}"

    def __call__(self, workers: int | None) -> object:
        return ragchunk.count_tokens_batch(TEXTS, tokenizer=self.name, workers=workers)


JOBS: list[Callable[[int | None], object]] = [
    recursive_split_batch,
    sentence_split_batch,
    markdown_split_batch,
    naive_merge_batch,
    iter_naive_merge,
    count_tokens_batch,
    arrow_chunk_table,
]


def _child(send: Connection, job: Callable[[int | None], object], workers: int | None) -> None:
    try:
        send.send((True, job(workers)))
    except BaseException as exc:
        send.send((False, f"{type(exc).__name__}: {exc}"))


def in_process(job: Callable[[int | None], object], workers: int | None) -> object:
    """``job(workers)`` in a child made by ``multiprocessing``'s fork ``Process``."""
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    # Not a daemon: a daemon process may not fork children of its own (test_fork_after_fork).
    proc = ctx.Process(target=_child, args=(send, job, workers))
    proc.start()
    send.close()
    try:
        if not recv.poll(TIMEOUT):
            pytest.fail(f"the forked child hung: no result in {TIMEOUT:.0f} s")
        ok, value = recv.recv()
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        recv.close()
    if not ok:
        pytest.fail(f"the forked child raised {value}")
    return value


def in_executor(job: Callable[[int | None], object], workers: int | None) -> object:
    """``job(workers)`` in a worker of a ``ProcessPoolExecutor`` with a fork context."""
    pool = concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
    try:
        future = pool.submit(job, workers)
        try:
            return future.result(timeout=TIMEOUT)
        except concurrent.futures.TimeoutError:
            for proc in list(pool._processes.values()):
                proc.kill()
            pytest.fail(f"the forked worker hung: no result in {TIMEOUT:.0f} s")
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


LAUNCHERS = [in_process, in_executor]
WORKERS = [None, 2]


def check(
    launch: Callable[[Callable[[int | None], object], int | None], object],
    job: Callable[[int | None], object],
    workers: int | None,
) -> None:
    expected = job(workers)  # in the parent: this starts the pool the child inherits
    assert launch(job, workers) == expected


@pytest.fixture(autouse=True)
def _rust_only(backend: str) -> None:
    if backend != "rust":
        pytest.skip("only the Rust core has thread pools for a fork to copy")


@pytest.mark.parametrize("launch", LAUNCHERS)
@pytest.mark.parametrize("workers", WORKERS)
@pytest.mark.parametrize("job", JOBS)
def test_batch_in_forked_child(
    launch: Callable[[Callable[[int | None], object], int | None], object],
    job: Callable[[int | None], object],
    workers: int | None,
) -> None:
    if job is arrow_chunk_table:
        pytest.importorskip("pyarrow")
    check(launch, job, workers)


@pytest.mark.parametrize("launch", LAUNCHERS)
def test_bm25_in_forked_child(
    launch: Callable[[Callable[[int | None], object], int | None], object],
) -> None:
    check(launch, bm25_index_and_search, None)


@pytest.fixture(scope="module")
def hf_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A WordPiece ``tokenizer.json`` trained here on the test documents."""
    tokenizers = pytest.importorskip("tokenizers")
    from tokenizers import models, normalizers, pre_tokenizers, trainers

    tok = tokenizers.Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(vocab_size=500, special_tokens=["[UNK]"])
    with pytest.MonkeyPatch.context() as mp:
        # The package's own thread pool stays unused, so it has nothing to warn about at fork.
        mp.setenv("TOKENIZERS_PARALLELISM", "false")
        tok.train_from_iterator(TEXTS[:50], trainer)
    path: Path = tmp_path_factory.mktemp("hf") / "wordpiece.json"
    tok.save(str(path))
    return path


@pytest.mark.parametrize("launch", LAUNCHERS)
@pytest.mark.parametrize("workers", WORKERS)
def test_hf_count_batch_in_forked_child(
    launch: Callable[[Callable[[int | None], object], int | None], object],
    workers: int | None,
    hf_file: Path,
) -> None:
    check(launch, HfCount(hf_file), workers)


def test_fork_after_fork() -> None:
    """A grandchild: the child's own pools are inherited in turn, and replaced again."""
    naive_merge_batch(None)
    assert in_process(_fork_and_run, None) == naive_merge_batch(None)


def _fork_and_run(workers: int | None) -> object:
    naive_merge_batch(workers)  # the child starts its own pool, which the grandchild copies
    return in_process(naive_merge_batch, workers)
