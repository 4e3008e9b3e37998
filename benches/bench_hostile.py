"""Scaling on hostile input: each chunker timed on its worst shapes at size n and 4n.

    .venv/bin/python benches/bench_hostile.py [--n 50000] [--rounds 3] [--backend rust]
    .venv/bin/python -m pytest benches/bench_hostile.py --benchmark-only   # smoke/timings

Shapes: *depth* (nesting that parsers and tree walks recurse on), *huge* (one piece with no
boundary to cut at), *tiny* (very many minimal pieces). Each row prints the median time at
n and at 4n characters (interleaved rounds, after a warm-up) and their ratio: linear work
gives ~4x, quadratic ~16x; the target is <= ~5x. Every run asserts its result is non-empty.
The slowest shapes (:data:`SLOW`) run at n/5 and 4n/5.
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

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _corpus import offline_tiktoken

offline_tiktoken()

from ragchunk import (  # noqa: E402
    CharacterSplitter,
    CodeSplitter,
    HTMLSplitter,
    JSONSplitter,
    MarkdownSplitter,
    RecursiveSplitter,
    SentenceSplitter,
    TitleTreeChunker,
    TokenWindowSplitter,
)
from ragchunk.core import dispatch  # noqa: E402


def _reps(unit: str, n: int) -> str:
    return unit * max(1, n // len(unit))


def _nest(opening: str, middle: str, closing: str, n: int) -> str:
    depth = max(1, n // (len(opening) + len(closing)))
    return opening * depth + middle + closing * depth


def _json_tiny(n: int) -> str:
    return json.dumps([0] * max(1, n // 3))


def _json_deep(n: int) -> str:
    # As deep as allowed (256 levels), repeated to size: nesting at the limit, n/1k times.
    one = "[" * 255 + "0" + "]" * 255
    return "[" + ", ".join([one] * max(1, n // (len(one) + 2))) + "]"


# (chunker, shape, make the splitter, make the input of about n characters)
CASES: list[tuple[str, str, Callable[[], Any], Callable[[int], str]]] = [
    ("character", "huge", lambda: CharacterSplitter(256), lambda n: "a" * n),
    ("character", "tiny", lambda: CharacterSplitter(256), lambda n: _reps("a\n", n)),
    ("recursive", "huge", lambda: RecursiveSplitter(chunk_size=256), lambda n: "a" * n),
    ("recursive", "tiny", lambda: RecursiveSplitter(chunk_size=256), lambda n: _reps("a\n\n", n)),
    (
        "sentence",
        "huge",
        lambda: SentenceSplitter(chunk_size=256, length="chars"),
        lambda n: "a" * n,
    ),
    ("sentence", "tiny", lambda: SentenceSplitter(chunk_size=256), lambda n: _reps("A. ", n)),
    (
        "token_window",
        "huge",
        lambda: TokenWindowSplitter(chunk_size=256),
        lambda n: _reps("ab ", n),
    ),
    (
        "token_window",
        "tiny",
        lambda: TokenWindowSplitter(chunk_size=256),
        lambda n: _reps("a\n", n),
    ),
    (
        "markdown",
        "depth",
        lambda: MarkdownSplitter(chunk_size=256),
        lambda n: _nest("> ", "x", "", n),
    ),
    (
        "markdown",
        "huge",
        lambda: MarkdownSplitter(chunk_size=256, length="chars"),
        lambda n: "a" * n,
    ),
    ("markdown", "tiny", lambda: MarkdownSplitter(chunk_size=256), lambda n: _reps("- a\n", n)),
    (
        "html",
        "depth",
        lambda: HTMLSplitter(chunk_size=256),
        lambda n: _nest("<div>", "x", "</div>", n),
    ),
    ("html", "huge", lambda: HTMLSplitter(chunk_size=256, length="chars"), lambda n: "a" * n),
    ("html", "tiny", lambda: HTMLSplitter(chunk_size=256), lambda n: _reps("<p>a</p>", n)),
    (
        "code",
        "depth",
        lambda: CodeSplitter("python", chunk_size=256),
        lambda n: "x = " + _nest("(", "1", ")", n),
    ),
    (
        "code",
        "depth chars",
        lambda: CodeSplitter("python", chunk_size=256, length="chars"),
        lambda n: "x = " + _nest("(", "1", ")", n),
    ),
    (
        "code",
        "huge",
        lambda: CodeSplitter("python", chunk_size=256, length="chars"),
        lambda n: "x = '" + "a" * n + "'",
    ),
    ("code", "tiny", lambda: CodeSplitter("python", chunk_size=256), lambda n: _reps("x=1\n", n)),
    ("json", "depth", lambda: JSONSplitter(chunk_size=256), _json_deep),
    (
        "json",
        "huge",
        lambda: JSONSplitter(chunk_size=256, length="chars"),
        lambda n: json.dumps("a" * n),
    ),
    ("json", "tiny", lambda: JSONSplitter(chunk_size=256), _json_tiny),
    (
        "title_tree",
        "huge",
        lambda: TitleTreeChunker(chunk_size=256, length="chars"),
        lambda n: "a" * n,
    ),
    (
        "title_tree",
        "tiny",
        lambda: TitleTreeChunker(chunk_size=256),
        lambda n: _reps("# a\nb\n", n),
    ),
]


#: Shapes timed at n/5 (and 4n/5): seconds per call at n.
SLOW = {("code", "depth"), ("json", "depth")}


def _time(fn: Callable[[], Any]) -> float:
    t = time.perf_counter()
    result = fn()
    elapsed = time.perf_counter() - t
    assert result, "no chunks"
    return elapsed


def run(n: int, rounds: int, only: str | None) -> list[tuple[str, str, float, float]]:
    rows = []
    for name, shape, make, build in CASES:
        if only and only not in name:
            continue
        splitter = make()
        size = n // 5 if (name, shape) in SLOW else n
        small, large = build(size), build(4 * size)
        splitter.split(small)  # warm-up: tokenizer tables, parsers
        ts, tl = [], []
        for _ in range(rounds):
            ts.append(_time(lambda s=splitter, t=small: s.split(t)))
            tl.append(_time(lambda s=splitter, t=large: s.split(t)))
        rows.append((name, shape, statistics.median(ts), statistics.median(tl)))
        a, b = rows[-1][2], rows[-1][3]
        print(f"| {name} | {shape} | {a * 1e3:.1f} | {b * 1e3:.1f} | {b / a:.1f}x |", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=50_000, help="characters at size n")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--backend", choices=("rust", "python"), default="rust")
    ap.add_argument("--only", help="chunkers whose name contains this")
    args = ap.parse_args()
    dispatch.set_backend(args.backend)
    print(f"backend {args.backend}, n = {args.n} characters, {args.rounds} rounds, medians")
    print("| chunker | shape | n (ms) | 4n (ms) | 4n / n |\n|---|---|---|---|---|")
    run(args.n, args.rounds, args.only)


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_hostile_shape(benchmark: Any, case: tuple[str, str, Any, Any]) -> None:
    _, _, make, build = case
    splitter, text = make(), build(4000)
    chunks = benchmark(splitter.split, text)
    assert chunks


if __name__ == "__main__":
    main()
