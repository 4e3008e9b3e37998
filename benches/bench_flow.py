"""RAGFlow v0.27 pipeline components (TokenChunker, TitleChunker): Rust backend vs fallback.

    .venv/bin/python -m pytest benches/bench_flow.py --benchmark-only   # timings
    .venv/bin/python benches/bench_flow.py [--limit-mb 2] [--rounds 3]  # side by side

Workloads: every golden case's ``(params, upstream)`` (``../shared/golden/ragflow-flow``),
and the corpus (``../shared/corpus``) turned into parser-like JSON items (one item per
paragraph, synthetic page boxes, a table or figure every 12 items) and into Markdown, run
through a few typical parameter sets. RAGFlow's own component code is not installable here,
so the comparison is ragchunk's Rust backend against its pure-Python fallback, which runs the
same algorithms in Python with tiktoken as RAGFlow does (RAGFlow adds pydantic validation and
``deepcopy`` of every working chunk on top, so the fallback is a lower bound on RAGFlow's
time). Every round checks that both backends give identical outputs.
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

import _corpus
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import load_corpus, offline_tiktoken

offline_tiktoken()

from ragchunk.core import dispatch  # noqa: E402
from ragchunk.ragflow.pipeline import TitleChunker, TokenChunker  # noqa: E402


def _flow_dir() -> Path:
    return _corpus.CORPUS.parent / "golden" / "ragflow-flow" / "v0.27.0"


FRONTEND_LEVELS = [
    ["^#[^#]", "^##[^#]", "^###[^#]", "^####[^#]"],
    [
        "第[零一二三四五六七八九十百0-9]+(分?编|部分)",
        "第[零一二三四五六七八九十百0-9]+章",
        "第[零一二三四五六七八九十百0-9]+节",
        "第[零一二三四五六七八九十百0-9]+条",
        "[\\(（][零一二三四五六七八九十百]+[\\)）]",
    ],
    [
        "第[0-9]+章",
        "第[0-9]+节",
        "[0-9]{1,2}[\\. 、]",
        "[0-9]{1,2}\\.[0-9]{1,2}($|[^a-zA-Z/%~.-])",
        "[0-9]{1,2}\\.[0-9]{1,2}\\.[0-9]{1,2}",
    ],
]
TOKEN_PARAMS: dict[str, dict[str, Any]] = {
    "merge 512, 10% overlap, context 64": {
        "chunk_token_size": 512,
        "overlapped_percent": 0.1,
        "table_context_size": 64,
        "image_context_size": 64,
    },
    "backtick `。` `. `, children": {
        "chunk_token_size": 256,
        "delimiters": ["`。`", "`. `"],
        "children_delimiters": ["\n"],
        "table_context_size": 32,
    },
}
TITLE_PARAMS: dict[str, dict[str, Any]] = {
    "hierarchy 2, cap 512": {"method": "hierarchy", "hierarchy": 2, "levels": FRONTEND_LEVELS},
    "group, cap 256": {"method": "group", "levels": FRONTEND_LEVELS, "chunk_token_cap": 256},
}

Job = tuple[Any, dict[str, Any]]


def golden_jobs() -> list[Job]:
    """(configured component, upstream) of every golden case that produces outputs."""
    jobs: list[Job] = []
    for name, cls in (("token_chunker.jsonl", TokenChunker), ("title_chunker.jsonl", TitleChunker)):
        path = _flow_dir() / name
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            if "expected" in case:
                jobs.append((cls(case["params"]), case["upstream"]))
    return jobs


def json_items(doc: str) -> list[dict[str, Any]]:
    """A parser-like JSON payload: one item per paragraph, page boxes, media every 12."""
    items: list[dict[str, Any]] = []
    top = 60.0
    page = 1
    for k, para in enumerate(p for p in doc.split("\n\n") if p.strip()):
        height = 12.0 * (para.count("\n") + 1)
        if top + height > 780:
            page, top = page + 1, 60.0
        item: dict[str, Any] = {
            "text": para,
            "doc_type_kwd": "text",
            "layout_type": "title" if para.startswith("#") else "text",
            "page_number": page,
            "x0": 56.0,
            "x1": 540.0,
            "top": top,
            "bottom": top + height,
        }
        if k % 12 == 11:
            item["doc_type_kwd"] = "table" if k % 24 == 23 else "image"
            item["img_id"] = f"img-{k}"
        items.append(item)
        top += height + 6
    return items


def corpus_jobs(docs: list[str]) -> dict[str, list[Job]]:
    jobs: dict[str, list[Job]] = {}
    for label, params in TOKEN_PARAMS.items():
        c = TokenChunker(params)
        jobs[f"TokenChunker JSON, {label}"] = [
            (c, {"name": "d.pdf", "output_format": "json", "json": json_items(d)}) for d in docs
        ]
    c = TokenChunker({"chunk_token_size": 512, "overlapped_percent": 0.1})
    jobs["TokenChunker markdown, merge 512"] = [
        (c, {"name": "d.md", "output_format": "markdown", "markdown": d}) for d in docs
    ]
    for label, params in TITLE_PARAMS.items():
        t = TitleChunker(params)
        jobs[f"TitleChunker markdown, {label}"] = [
            (t, {"name": "d.md", "output_format": "markdown", "markdown": d}) for d in docs
        ]
        jobs[f"TitleChunker JSON, {label}"] = [
            (t, {"name": "d.pdf", "output_format": "json", "json": json_items(d)}) for d in docs
        ]
    return jobs


def run(jobs: list[Job]) -> list[dict[str, Any]]:
    return [component.invoke(upstream) for component, upstream in jobs]


def timed(backend: str, jobs: list[Job]) -> tuple[float, list[dict[str, Any]]]:
    dispatch.set_backend(backend)
    t = time.perf_counter()
    out = run(jobs)
    return time.perf_counter() - t, out


# -- pytest-benchmark ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample() -> list[str]:
    _, docs = load_corpus(limit_bytes=300_000)
    return docs


def test_bench_golden_rust(benchmark: Any) -> None:
    jobs = golden_jobs()
    if not jobs:
        pytest.skip("golden cases missing")
    dispatch.set_backend("rust")
    out = benchmark(run, jobs)
    assert len(out) == len(jobs)


def test_bench_corpus_json_merge_rust(benchmark: Any, sample: list[str]) -> None:
    jobs = corpus_jobs(sample)["TokenChunker JSON, merge 512, 10% overlap, context 64"]
    dispatch.set_backend("rust")
    out = benchmark(run, jobs)
    assert all(o["chunks"] for o, (_, u) in zip(out, jobs, strict=True) if u["json"])


# -- side by side -------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit-mb", type=float, default=2.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--shared", type=Path, help="the shared data folder (default: ../shared)")
    args = ap.parse_args()
    if args.shared:
        _corpus.CORPUS = args.shared / "corpus"
    label, docs = load_corpus(limit_bytes=int(args.limit_mb * 1_000_000))
    workloads = {"golden cases (all outputs)": golden_jobs(), **corpus_jobs(docs)}
    mb = sum(len(d.encode()) for d in docs) / 1e6
    print(f"corpus: {label}, {mb:.2f} MB; rounds: {args.rounds} (median, after a warm-up)")
    print("| workload | Rust s | fallback s | fallback / Rust |")
    print("|---|---:|---:|---:|")
    for name, jobs in workloads.items():
        timed("rust", jobs[:5])
        timed("python", jobs[:5])
        rust_t: list[float] = []
        pure_t: list[float] = []
        for _ in range(args.rounds):
            tr, out_r = timed("rust", jobs)
            tp, out_p = timed("python", jobs)
            assert out_r == out_p, name
            rust_t.append(tr)
            pure_t.append(tp)
        r, p = statistics.median(rust_t), statistics.median(pure_t)
        print(f"| {name} ({len(jobs)} docs) | {r:.3f} | {p:.3f} | {p / r:.1f}x |")
    dispatch.set_backend("rust")


_: Callable[..., Any] = main

if __name__ == "__main__":
    main()
