"""Benchmark inputs: ``../shared/corpus`` when present, else a generated multilingual corpus."""

from __future__ import annotations

import gzip
import hashlib
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
VOCAB = ROOT / "python" / "ragchunk" / "_vocab"


def offline_tiktoken() -> str:
    """Point tiktoken (used by the oracle and by peers) at the shipped vocabularies.

    tiktoken looks for ``$TIKTOKEN_CACHE_DIR/<sha1 of the official URL>`` before downloading
    and checks the file's sha256, so this makes every ``get_encoding`` call offline.
    """
    existing = os.environ.get("TIKTOKEN_CACHE_DIR")
    if existing:
        return existing
    cache = tempfile.mkdtemp(prefix="ragchunk-bench-tiktoken-")
    for name in ("cl100k_base", "o200k_base"):
        url = f"https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
        target = os.path.join(cache, hashlib.sha1(url.encode()).hexdigest())
        with gzip.open(VOCAB / f"{name}.tiktoken.gz", "rb") as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst)
    os.environ["TIKTOKEN_CACHE_DIR"] = cache
    return cache


def load_corpus(limit_bytes: int | None = None) -> tuple[str, list[str]]:
    """Return (description, documents). Documents are whole files, in path order."""
    docs: list[str] = []
    if CORPUS.is_dir():
        for path in sorted(CORPUS.rglob("*.md")):
            docs.append(path.read_text(encoding="utf-8"))
        label = f"../shared/corpus ({len(docs)} documents)"
    else:
        docs = generated_corpus()
        label = f"generated multilingual corpus ({len(docs)} documents)"
    if limit_bytes is not None:
        kept, total = [], 0
        for d in docs:
            if total >= limit_bytes:
                break
            kept.append(d)
            total += len(d.encode("utf-8"))
        docs = kept
        label += f", first {total / 1e6:.1f} MB"
    return label, docs


_WORDS_EN = (
    "the chunk token budget splits long documents into pieces that a retriever can rank while "
    "keeping sentences whole and counting exactly with byte pair encoding over unicode text"
).split()
_WORDS_ZH = list("分块预算把长文档切成检索器可以排序的片段同时保持句子完整并用字节对编码精确计数")


def generated_corpus(n_docs: int = 60, seed: int = 7) -> list[str]:
    """A deterministic English + Chinese Markdown-like corpus (about 5 MB)."""
    rng = random.Random(seed)
    docs = []
    for d in range(n_docs):
        parts = [f"# Document {d}\n"]
        for _ in range(rng.randint(150, 250)):
            if rng.random() < 0.5:
                words = rng.choices(_WORDS_EN, k=rng.randint(8, 60))
                parts.append(" ".join(words).capitalize() + ".")
            else:
                parts.append("".join(rng.choices(_WORDS_ZH, k=rng.randint(10, 80))) + "。")
            parts.append("\n\n" if rng.random() < 0.3 else ("\n" if rng.random() < 0.5 else " "))
        docs.append("".join(parts))
    return docs


def best_time(fn: Callable[[], Any], repeat: int = 1) -> tuple[float, Any]:
    """Best wall time of ``repeat`` calls of ``fn``, and its last result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def ragchunk_rows(
    label: str, splitter: Any, docs: list[str], check: Callable[[list[Any]], None]
) -> list[tuple[str, float, int]]:
    """The ragchunk rows of a structure-aware benchmark: ``splitter.split`` one document at a
    time and ``split_batch`` on the Rust backend (``check``-ed, and equal), then the
    pure-Python fallback on the first eighth of ``docs`` (results equal to Rust's), its time
    scaled to all of ``docs``. Returns the rows."""
    from ragchunk.core import dispatch

    mb = sum(len(d.encode()) for d in docs)
    dispatch.set_backend("rust")
    t, res = best_time(lambda: [splitter.split(d) for d in docs])
    check(res)
    rows = [(f"ragchunk {label} (Rust, one doc at a time)", t, sum(map(len, res)))]
    t, res_b = best_time(lambda: splitter.split_batch(docs))
    assert res_b == res
    rows.append((f"ragchunk {label}.split_batch (Rust, rayon)", t, sum(map(len, res_b))))
    sub = docs[: max(1, len(docs) // 8)]
    dispatch.set_backend("python")
    t_py, res_py = best_time(lambda: [splitter.split(d) for d in sub])
    dispatch.set_backend("rust")
    assert res_py == [splitter.split(d) for d in sub], "backends disagree"
    sub_mb = sum(len(d.encode()) for d in sub)
    rows.append((f"ragchunk {label} (pure-Python fallback)", t_py * mb / sub_mb, -1))
    return rows


def print_table(
    rows: list[tuple[str, float, int]], mb: float, baseline: str, digits: int = 2
) -> None:
    """The Markdown table of (name, seconds, chunks or -1) rows; ratios against row 0."""
    base = rows[0][1]
    print(f"| chunker | seconds | MB/s | chunks | time vs {baseline} |")
    print("|---|---:|---:|---:|---:|")
    for name, secs, n in rows:
        chunks = "" if n < 0 else str(n)
        print(f"| {name} | {secs:.{digits}f} | {mb / secs:.2f} | {chunks} | {secs / base:.1f}x |")
