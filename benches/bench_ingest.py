"""Ingestion: ``ingest()`` into LanceDB against ``ragchunk chunk`` to Parquet, re-runs, and
LangChain's indexing API (``index()`` with an SQL record manager) on the same chunks.

Measured in one run, best of ``--repeat`` (fresh stores each time):

* ``chunk``: ``ragchunk chunk DIR --format parquet`` (in process);
* ``ingest``: ``ingest(DIR, "lancedb:...")`` without embeddings, the first run;
* ``rerun``: the same, nothing changed; ``rerun 5%``: with 5% of the files changed;
* ``langchain first`` / ``langchain rerun``: ``langchain_core.indexing.index`` with
  ``SQLRecordManager`` (SQLite) and ``InMemoryVectorStore``, cleanup ``incremental``, fed the
  chunks ragchunk made, against ``ingest`` into LanceDB with the same deterministic embedder.

    python benches/bench_ingest.py [--repeat 3] [--limit-mb 5] [--ray]

With ``--ray``, also ``ingest_ray`` on a local two-CPU cluster (one actor), first run and
re-run, against ``ingest`` in the same round.

The test run executes :func:`test_bench_ingest_smoke` on a small slice: every ratio is
computed and the stores are checked (same ids on re-run, LangChain's record count equal to
the chunks).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import load_corpus, offline_tiktoken

DIM = 16


def embed(texts: list[str]) -> list[list[float]]:
    """A deterministic embedder (sha256 bytes), the same for both sides."""
    return [[b / 255.0 for b in hashlib.sha256(t.encode()).digest()[:DIM]] for t in texts]


class _LCEmbeddings:
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return embed(texts)

    def embed_query(self, text: str) -> list[float]:
        return embed([text])[0]


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def write_files(docs: list[str], root: Path) -> list[Path]:
    root.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, d in enumerate(docs):
        p = root / f"doc{i:04d}.md"
        p.write_text(d, encoding="utf-8")
        # an hour old, as a corpus is when it is ingested: a file modified within two
        # seconds of a run is always hashed again, whatever its size and mtime say
        past = time.time_ns() - 3600 * 10**9
        os.utime(p, ns=(past, past))
        paths.append(p)
    return paths


def run_once(docs: list[str], work: Path, langchain: bool = True) -> dict[str, float]:
    """One round of every measurement; the checks are asserts."""
    import ragchunk
    from ragchunk.cli import main
    from ragchunk.ingest import ingest, open_store

    chunker = ragchunk.RecursiveSplitter(512)
    src = work / "src"
    paths = write_files(docs, src)
    out: dict[str, float] = {}
    out["chunk"], status = _timed(
        lambda: main(
            ["chunk", str(src), "--format", "parquet", "--out", str(work / "c.parquet"), "-q"]
        )
    )
    assert status == 0
    store = f"lancedb:{work / 'lance'}"
    out["ingest"], first = _timed(lambda: ingest([src], store, chunker, base=src))
    assert first.added == len(docs) and first.failed == 0
    ids = open_store(store).read()["id"].to_pylist()
    out["rerun"], again = _timed(lambda: ingest([src], store, chunker, base=src))
    assert again.unchanged == len(docs) and again.chunks_written == 0
    assert open_store(store).read()["id"].to_pylist() == ids
    changed = paths[::20]  # 5% of the files
    for p in changed:
        p.write_text(p.read_text(encoding="utf-8") + "\n\nAn added closing line.\n", "utf-8")
    out["rerun 5%"], part = _timed(lambda: ingest([src], store, chunker, base=src))
    assert part.changed == len(changed) and part.unchanged == len(docs) - len(changed)
    if not langchain:
        return out

    # the same chunks, embedded by the same function, through LangChain's indexing API
    from langchain_classic.indexes import SQLRecordManager
    from langchain_core.documents import Document as LCDocument
    from langchain_core.indexing import index
    from langchain_core.vectorstores import InMemoryVectorStore

    for p in changed:  # back to the first version for both sides
        p.write_text(docs[paths.index(p)], encoding="utf-8")
    lc_docs = [
        LCDocument(page_content=text, metadata={"source": f"doc{i:04d}.md", "chunk": k})
        for i, chunks in enumerate(chunker.split_batch(docs))
        for k, text in enumerate(c.text for c in chunks)
    ]
    manager = SQLRecordManager("bench", db_url=f"sqlite:///{work / 'records.sqlite'}")
    manager.create_schema()
    vectors = InMemoryVectorStore(_LCEmbeddings())

    def lc() -> Any:
        return index(
            lc_docs,
            manager,
            vectors,
            cleanup="incremental",
            source_id_key="source",
            key_encoder="sha256",
        )

    out["langchain first"], lc_first = _timed(lc)
    assert lc_first["num_added"] == len(lc_docs)
    out["langchain rerun"], lc_again = _timed(lc)
    # LangChain re-adds (and deletes) the chunks of a source whose chunks straddle two of
    # its batches of 100; the store ends with every chunk once either way
    assert lc_again["num_skipped"] + lc_again["num_added"] == len(lc_docs), lc_again
    assert len(vectors.store) == len(lc_docs)
    emb_store = f"lancedb:{work / 'lance-emb'}"
    run = lambda: ingest([src], emb_store, chunker, embedder=embed, base=src)  # noqa: E731
    out["ragchunk first"], ours = _timed(run)
    assert ours.chunks_written == len(lc_docs)
    out["ragchunk rerun"], ours_again = _timed(run)
    assert ours_again.unchanged == len(docs)
    return out


def run_ray(docs: list[str], work: Path) -> dict[str, float]:
    """``ingest_ray`` into LanceDB on the running cluster: first run, then nothing changed."""
    import ragchunk
    from ragchunk.ingest import ingest, ingest_ray, open_store

    chunker = ragchunk.RecursiveSplitter(512)
    src = work / "src"
    if not src.exists():
        write_files(docs, src)
    store = f"lancedb:{work / 'lance-ray'}"
    out: dict[str, float] = {}
    out["ray first"], first = _timed(lambda: ingest_ray([src], store, chunker, base=src))
    assert first.added == len(docs) and first.failed == 0
    out["ray rerun"], again = _timed(lambda: ingest_ray([src], store, chunker, base=src))
    assert again.unchanged == len(docs)
    check = f"lancedb:{work / 'lance-check'}"
    ingest([src], check, chunker, base=src)
    local = open_store(check).read()
    assert open_store(store).read()["id"].to_pylist() == local["id"].to_pylist()
    return out


def table(times: dict[str, float]) -> str:
    rows = [
        ("ingest / chunk (target <= 1.5)", times["ingest"] / times["chunk"]),
        ("rerun / ingest (target < 0.05)", times["rerun"] / times["ingest"]),
        ("rerun 5% / ingest (target < 0.15)", times["rerun 5%"] / times["ingest"]),
    ]
    if "langchain first" in times:
        rows += [
            (
                "langchain / ragchunk, first run (target >= 10)",
                times["langchain first"] / times["ragchunk first"],
            ),
            (
                "langchain / ragchunk, rerun (target >= 10)",
                times["langchain rerun"] / times["ragchunk rerun"],
            ),
        ]
    if "ray first" in times:
        rows.append(("ray first / ingest", times["ray first"] / times["ingest"]))
    lines = [f"{k:<24} {v * 1000:9.1f} ms" for k, v in times.items()]
    lines += [f"{k:<48} {v:7.2f}" for k, v in rows]
    return "\n".join(lines)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_bench_ingest_smoke(tmp_path: Path) -> None:
    pytest.importorskip("lancedb")
    pytest.importorskip("langchain_classic")
    _, docs = load_corpus(limit_bytes=300_000)
    times = run_once(docs[:40], tmp_path)
    assert all(v > 0 for v in times.values())
    assert "rerun" in table(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit-mb", type=float, default=5.0)
    parser.add_argument("--no-langchain", action="store_true")
    parser.add_argument("--ray", action="store_true", help="also ingest_ray on a local cluster")
    args = parser.parse_args()
    if args.ray:
        import ray

        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        ray.data.DataContext.get_current().enable_progress_bars = False
    offline_tiktoken()
    label, docs = load_corpus(limit_bytes=int(args.limit_mb * 1e6))
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as warm:  # imports, tokenizer and store set-up
        run_once(docs[:3], Path(warm), langchain=False)
    for _ in range(args.repeat):
        work = Path(tempfile.mkdtemp(prefix="ragchunk-bench-ingest-"))
        try:
            times = run_once(docs, work, not args.no_langchain)
            if args.ray:
                times.update(run_ray(docs, work))
            for k, v in times.items():
                best[k] = min(v, best.get(k, v))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print(f"corpus: {label}, best of {args.repeat}")
    print(table(best))


if __name__ == "__main__":
    main()
