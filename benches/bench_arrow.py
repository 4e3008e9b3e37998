"""Arrow in, Arrow out: ``chunk_table`` against the same chunking on Python lists.

Three ways to chunk the corpus with one splitter, measured side by side (best of ``--repeat``):

* ``chunk_table(table, splitter)``: the documents read from the Arrow column in place, the
  chunks written into Arrow buffers (the Rust path);
* ``splitter.split_batch(docs)``: the same documents as a Python list, chunks as Python
  objects (no table);
* the same output table built from ``split_batch``'s chunks (what a caller without the Arrow
  path writes).

``--ray`` adds Ray Data on a local two-CPU cluster: the Parquet corpus chunked by
``chunk_dataset`` and written back, against the local ``chunk_table``, and the time of the
same pipeline on a one-document corpus (the per-job overhead).

    python benches/bench_arrow.py --repeat 5 [--ray] [--corpus DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import load_corpus, offline_tiktoken


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def table_from_lists(splitter: Any, docs: list[str], ids: list[int]) -> Any:
    import pyarrow as pa

    rows: dict[str, list[Any]] = {
        k: [] for k in ("doc_id", "chunk_index", "text", "start", "end", "token_count", "metadata")
    }
    for doc_id, chunks in zip(ids, splitter.split_batch(docs), strict=True):
        for k, c in enumerate(chunks):
            rows["doc_id"].append(doc_id)
            rows["chunk_index"].append(k)
            rows["text"].append(c.text)
            rows["start"].append(c.start)
            rows["end"].append(c.end)
            rows["token_count"].append(c.token_count)
            rows["metadata"].append(json.dumps(dict(c.metadata), ensure_ascii=False))
    return pa.table(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--ray", action="store_true")
    parser.add_argument("--corpus", help="a directory of .md files (default: ../shared/corpus)")
    args = parser.parse_args()
    offline_tiktoken()

    import pyarrow as pa
    import ragchunk
    from ragchunk.io.arrow import has_arrow_path

    if args.corpus:
        paths = sorted(Path(args.corpus).rglob("*.md"))
        docs = [p.read_text(encoding="utf-8") for p in paths]
        label = f"{args.corpus} ({len(docs)} documents)"
    else:
        label, docs = load_corpus()
    mb = sum(len(d.encode()) for d in docs) / 1e6
    ids = list(range(len(docs)))
    table = pa.table({"doc_id": ids, "text": docs})
    print(f"{label}, {mb:.1f} MB, backend {ragchunk.backend}, repeat {args.repeat}")
    splitters = [
        ("RecursiveSplitter", ragchunk.RecursiveSplitter(args.size, args.size // 8)),
        ("CharacterSplitter", ragchunk.CharacterSplitter(args.size * 4, args.size // 2)),
        ("SentenceSplitter", ragchunk.SentenceSplitter(args.size)),
        ("MarkdownSplitter", ragchunk.MarkdownSplitter(args.size)),
        ("TitleTreeChunker", ragchunk.TitleTreeChunker(args.size)),
    ]
    summary: list[str] = []
    for name, splitter in splitters:
        assert has_arrow_path(splitter)
        summary.append(bench_one(name, splitter, table, docs, ids, mb, args))
    # The chunkers whose own work is Python (JSON, RAGFlow's pipeline splitter) and code,
    # each on documents of its kind, so that the table shows what Arrow output saves there.
    for name, splitter, tbl, texts in extra_workloads(args.size, pa):
        summary.append(bench_one(name, splitter, tbl, texts, list(range(len(texts))), None, args))
    print("\n| chunker | native Arrow path | `chunk_table` s | `split_batch` s |", end="")
    print(" table from `split_batch` s | / table from lists | output share |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for row in summary:
        print(row)

    if args.ray:
        bench_ray(table, splitters[0][1], args.repeat, mb)


def bench_one(
    name: str,
    splitter: Any,
    table: Any,
    docs: list[str],
    ids: list[int],
    mb: float | None,
    args: argparse.Namespace,
) -> str:
    """One chunker three ways; returns its summary row.

    The output share is the part of the table-from-lists time that is not chunking: Python
    chunk objects, metadata strings and the table's columns, which the Arrow path does not
    build. ``chunk_table`` cannot be more than ``1 / (1 - share)`` times faster than the table
    built from lists, since both run the same chunking code."""
    from ragchunk.io.arrow import chunk_table, has_arrow_path

    mb = mb if mb is not None else sum(len(d.encode()) for d in docs) / 1e6
    t_arrow, out = best(lambda: chunk_table(table, splitter, id_columns=["doc_id"]), args.repeat)
    t_batch, _ = best(lambda: splitter.split_batch(docs), args.repeat)
    t_build, built = best(lambda: table_from_lists(splitter, docs, ids), args.repeat)
    assert out.column("text").to_pylist() == built.column("text").to_pylist()
    assert out.column("metadata").to_pylist() == built.column("metadata").to_pylist()
    label = f"{name}, {len(docs)} documents, {mb:.1f} MB, {out.num_rows} chunks"
    print(f"\n| {label} | seconds | MB/s | vs chunk_table |")
    print("|---|---:|---:|---:|")
    for what, t in (
        ("`chunk_table` (Arrow in, Arrow out)", t_arrow),
        ("`split_batch` on a Python list", t_batch),
        ("`split_batch` + table built from the chunks", t_build),
    ):
        print(f"| {what} | {t:.3f} | {mb / t:.1f} | {t / t_arrow:.2f}x |")
    share = max(0.0, (t_build - t_batch) / t_build)
    native = "yes" if has_arrow_path(splitter) else "no (Python chunker)"
    return (
        f"| `{name}` | {native} | {t_arrow:.3f} | {t_batch:.3f} | {t_build:.3f} | "
        f"{t_build / t_arrow:.2f}x | {share:.0%} |"
    )


def extra_workloads(size: int, pa: Any) -> list[tuple[str, Any, Any, list[str]]]:
    import ragchunk
    from bench_code import code_files
    from bench_json import load as load_json

    out: list[tuple[str, Any, Any, list[str]]] = []
    for lang in ("python", "rust"):
        files = code_files(lang, 2_000_000)
        if files:
            splitter = ragchunk.CodeSplitter(lang, size)
            out.append((f"CodeSplitter({lang!r}, {size})", splitter, files))
    json_docs = [json.dumps(d, ensure_ascii=False) for d in load_json(8)]
    if json_docs:
        out.append((f"JSONSplitter({size})", ragchunk.JSONSplitter(size), json_docs))
    return [
        (name, splitter, pa.table({"doc_id": list(range(len(texts))), "text": texts}), texts)
        for name, splitter, texts in out
    ]


def bench_ray(table: Any, splitter: Any, repeat: int, mb: float) -> None:
    import pyarrow.parquet as pq
    import ray
    from ragchunk.integrations.ray import chunk_dataset
    from ragchunk.io.arrow import chunk_table

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    pythonpath = str(Path(__file__).resolve().parents[1] / "python")
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": pythonpath}},
    )
    try:
        with tempfile.TemporaryDirectory() as tmp:
            src, tiny = Path(tmp, "corpus"), Path(tmp, "tiny")
            src.mkdir()
            tiny.mkdir()
            for i, part in enumerate(table.to_batches(max_chunksize=64)):
                pq.write_table(pa_table(part), src / f"part-{i}.parquet")
            pq.write_table(table.slice(0, 1), tiny / "part-0.parquet")

            def run(path: Path, out: str) -> None:
                ds = ray.data.read_parquet(str(path))
                chunk_dataset(ds, splitter, id_columns=["doc_id"], batch_size=64).write_parquet(
                    str(Path(tmp, out))
                )

            t_local, _ = best(lambda: chunk_table(table, splitter, id_columns=["doc_id"]), repeat)
            t_ray = min(timed(lambda i=i: run(src, f"out{i}")) for i in range(repeat))
            t_tiny = min(timed(lambda i=i: run(tiny, f"tiny{i}")) for i in range(repeat))
    finally:
        ray.shutdown()
    print("\n| Ray Data, 2 CPUs (1 chunking actor) | seconds | MB/s |")
    print("|---|---:|---:|")
    print(f"| local `chunk_table` (all cores, in memory) | {t_local:.3f} | {mb / t_local:.1f} |")
    print(
        f"| `chunk_dataset`: read Parquet, chunk, write Parquet | {t_ray:.3f} | {mb / t_ray:.1f} |"
    )
    print(f"| the same pipeline on one document (per-job overhead) | {t_tiny:.3f} | |")


def pa_table(batch: Any) -> Any:
    import pyarrow as pa

    return pa.Table.from_batches([batch])


def timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
