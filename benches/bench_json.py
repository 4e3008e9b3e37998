"""JSONSplitter vs LangChain's RecursiveJsonSplitter, on JSON made from ``../shared/corpus``.

Run from the repository root with a release build::

    .venv/bin/python benches/bench_json.py [--every 4] [--size 512] [--rounds 3]

The corpus is Markdown, so each document becomes the JSON a documentation pipeline would
store: ``{"path": ..., "sections": [{"heading": ..., "blocks": [paragraph, ...]}, ...]}``
(sections at headings, blocks at blank lines); the corpus manifest (real, 156 KB JSON) is
added as is. Every library gets the same parsed values.

LangChain measures chunks in characters of ``json.dumps``; so the like-for-like row is
ragchunk with ``length="chars"``. The token rows show the cost of exact cl100k_base sizes.
Results are checked, not just timed: every ragchunk chunk parses as JSON, is within budget
(or a single leaf over it), and together the chunks hold every leaf exactly once; the Rust
counting and the pure-Python fallback produce the same chunks.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _corpus import CORPUS, offline_tiktoken, print_table

offline_tiktoken()

from ragchunk import JSONSplitter  # noqa: E402
from ragchunk.core import dispatch  # noqa: E402


def _as_json(name: str, text: str) -> dict[str, Any]:
    sections: list[dict[str, Any]] = [{"heading": "", "blocks": []}]
    for block in text.split("\n\n"):
        block = block.strip()
        if not block:
            continue
        if block.startswith("#"):
            sections.append({"heading": block.lstrip("#").strip(), "blocks": []})
        else:
            sections[-1]["blocks"].append(block)
    return {"path": name, "sections": [s for s in sections if s["heading"] or s["blocks"]]}


def load(every: int) -> list[Any]:
    """The benchmark documents: every n-th corpus file as JSON, plus the manifest."""
    paths = sorted(CORPUS.rglob("*.md"))[::every]
    docs: list[Any] = [
        _as_json(str(p.relative_to(CORPUS)), p.read_text(encoding="utf-8")) for p in paths
    ]
    manifest = CORPUS / "manifest.json"
    if manifest.exists():
        docs.append(json.loads(manifest.read_text(encoding="utf-8")))
    return docs


def _leaves(value: Any) -> int:
    if isinstance(value, dict) and value:
        return sum(_leaves(v) for v in value.values())
    if isinstance(value, list) and value:
        return sum(_leaves(v) for v in value)
    return 1


def _check(docs: list[Any], results: list[list[Any]], size: int) -> None:
    for doc, chunks in zip(docs, results, strict=True):
        nxt = 0
        for c in chunks:
            json.loads(c.text)
            assert c.start == nxt and c.end > c.start, "leaves must partition the document"
            nxt = c.end
            assert c.token_count <= size or c.end - c.start == 1, "over budget"
        assert nxt == _leaves(doc), "lost leaves"


def _median(fn: Callable[[], Any], rounds: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(rounds):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--every", type=int, default=4, help="take every n-th corpus document")
    ap.add_argument("--size", type=int, default=512, help="budget (tokens, or characters)")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    docs = load(args.every)
    mb = sum(len(json.dumps(d, ensure_ascii=False).encode()) for d in docs) / 1e6
    size, rounds = args.size, args.rounds
    rows: list[tuple[str, float, int]] = []

    dispatch.set_backend("rust")
    for length, label in (("chars", "characters"), ("tokens", "tokens, exact cl100k_base")):
        js = JSONSplitter(size, length=length)
        t, res = _median(lambda js=js: [js.split_json(d) for d in docs], rounds)
        _check(docs, res, size)
        how = "" if length == "chars" else ", Rust counting"
        rows.append((f"ragchunk JSONSplitter ({label}{how})", t, sum(map(len, res))))
        if length == "tokens":
            sub = docs[: max(1, len(docs) // 4)]
            dispatch.set_backend("python")
            t_py, res_py = _median(lambda js=js, sub=sub: [js.split_json(d) for d in sub], 1)
            dispatch.set_backend("rust")
            assert res_py == [js.split_json(d) for d in sub], "backends disagree"
            sub_mb = sum(len(json.dumps(d, ensure_ascii=False).encode()) for d in sub) / 1e6
            rows.append(
                (f"ragchunk JSONSplitter ({label}, pure-Python fallback)", t_py * mb / sub_mb, -1)
            )

    try:
        from langchain_text_splitters import RecursiveJsonSplitter

        lc = RecursiveJsonSplitter(max_chunk_size=size)
        t, out = _median(lambda: [lc.split_text(d, convert_lists=True) for d in docs], rounds)
        rows.append(("LangChain RecursiveJsonSplitter (characters)", t, sum(map(len, out))))
    except ImportError as exc:
        print(f"(langchain-text-splitters unavailable: {exc})")

    print(f"{len(docs)} JSON documents, {mb:.1f} MB serialized, budget {size}, ", end="")
    print(f"median of {rounds} rounds\n")
    print_table(rows, mb, "ragchunk (chars)")


if __name__ == "__main__":
    main()
