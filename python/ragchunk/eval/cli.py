"""The ``eval`` subcommand: sweep a chunker over sizes and overlaps on a dataset and print the
table (``ragchunk eval ...`` or ``python -m ragchunk.eval ...``).

>>> import argparse
>>> p = argparse.ArgumentParser(); add_arguments(p)
>>> a = p.parse_args(["--dataset", "d", "--chunk-size", "200,400", "--overlap", "0,0.25"])
>>> a.chunk_size, a.overlap, a.k
([200, 400], [0.0, 0.25], [5])
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

__all__ = ["add_arguments", "main", "run"]

CHUNKERS = ("recursive", "token", "character", "sentence")


def _ints(name: str) -> Any:
    def parse(text: str) -> list[int]:
        try:
            vals = [int(v) for v in text.split(",") if v.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{name} must be comma-separated integers, got {text!r}"
            ) from None
        if not vals or any(v <= 0 for v in vals):
            raise argparse.ArgumentTypeError(f"{name} must be integers >= 1, got {text!r}")
        return vals

    return parse


def _overlaps(text: str) -> list[float]:
    try:
        vals = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--overlap must be comma-separated numbers, got {text!r}"
        ) from None
    if not vals or any(v < 0 for v in vals):
        raise argparse.ArgumentTypeError(f"--overlap must be numbers >= 0, got {text!r}")
    return vals


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the subcommand's options to ``parser``."""
    parser.add_argument(
        "--dataset",
        required=True,
        help="a Chroma-layout directory (questions.csv, corpora/) or a .jsonl file",
    )
    parser.add_argument(
        "--chunker",
        default="recursive",
        choices=CHUNKERS,
        help="chunking strategy (default: recursive)",
    )
    parser.add_argument(
        "--chunk-size",
        type=_ints("--chunk-size"),
        default=[200, 400, 800],
        help="comma-separated sizes in tokens",
    )
    parser.add_argument(
        "--overlap",
        type=_overlaps,
        default=[0.0],
        help="comma-separated overlaps: a fraction of the size when < 1, else tokens",
    )
    parser.add_argument(
        "--retriever", default="bm25", choices=("bm25",), help="retriever (default: bm25)"
    )
    parser.add_argument(
        "--tokenizer",
        default="english",
        choices=("english", "cjk", "whitespace"),
        help="BM25 tokenizer",
    )
    parser.add_argument("--k", type=_ints("--k"), default=[5], help="comma-separated cut-offs")
    parser.add_argument("--csv", help="write the table as CSV here")
    parser.add_argument("--json", help="write the rows (with per-question spans) as JSON here")
    parser.add_argument("--png", help="plot recall against chunk size here (needs matplotlib)")
    parser.add_argument("--metric", default="recall_mean", help="the metric --png plots")


def _chunker(kind: str, size: int, overlap: int) -> Any:
    from .. import CharacterSplitter, RecursiveSplitter, SentenceSplitter, TokenWindowSplitter

    if kind == "recursive":
        return RecursiveSplitter(chunk_size=size, chunk_overlap=overlap)
    if kind == "token":
        return TokenWindowSplitter(chunk_size=size, chunk_overlap=overlap)
    if kind == "character":
        return CharacterSplitter(chunk_size=size, chunk_overlap=overlap)
    return SentenceSplitter(chunk_size=size)


def run(args: argparse.Namespace) -> int:
    """Run the sweep ``args`` describe; print the table. Returns the exit status (0, or 2 on
    bad input, reported on stderr)."""
    from .dataset import load_chroma, load_jsonl
    from .retrievers import BM25
    from .sweep import evaluate, plot

    try:
        path = args.dataset
        dataset = load_jsonl(path) if os.path.isfile(path) else load_chroma(path)
        chunkers = []
        for size in args.chunk_size:
            for ov in args.overlap:
                tokens = round(ov * size) if ov < 1 else int(ov)
                if tokens >= size:
                    raise ValueError(f"--overlap {ov} is not smaller than --chunk-size {size}")
                chunkers.append(_chunker(args.chunker, size, tokens))
        result = evaluate(dataset, chunkers, BM25(tokenizer=args.tokenizer), k=args.k)
    except (OSError, ValueError, TypeError) as exc:
        print(f"ragchunk eval: error: {exc}", file=sys.stderr)
        return 2
    print(result.format())
    print(
        f"{len(chunkers)} configurations, {len(dataset.questions)} questions, "
        f"{result.seconds:.2f} s",
        file=sys.stderr,
    )
    if args.csv:
        result.to_csv(args.csv)
    if args.json:
        result.to_json(args.json)
    if args.png:
        try:
            plot(result, args.metric, args.png)
        except (ImportError, ValueError) as exc:
            print(f"ragchunk eval: error: {exc}", file=sys.stderr)
            return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m ragchunk.eval``: parse ``argv`` and :func:`run`."""
    parser = argparse.ArgumentParser(
        prog="python -m ragchunk.eval", description="Evaluate chunkers for retrieval."
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))
