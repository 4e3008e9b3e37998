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
import inspect
import os
import sys
from typing import Any

__all__ = ["add_arguments", "main", "run"]

#: Aliases of this command only: ``token`` is the token-window splitter here (the cleaning
#: pipeline component that ``ragchunk chunk --chunker token`` names gives no offsets, which
#: span metrics need).
ALIASES = {"token": "token-window"}
RETRIEVERS = ("bm25", "dense", "hybrid")


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
        help="any chunker `ragchunk chunk` takes, by alias or class name (default: recursive)",
    )
    parser.add_argument(
        "-o",
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="another argument of the chunker, e.g. -o length=chars",
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
        "--retriever",
        default="bm25",
        choices=RETRIEVERS,
        help="bm25, dense (embeddings) or hybrid (both, fused by rank) (default: bm25)",
    )
    parser.add_argument(
        "--embedder",
        default="wordllama",
        help="for dense and hybrid: 'wordllama' or 'wordllama:DIM' (the model shipped in the "
        "wordllama wheel), or an OpenAI-compatible base URL (with --embed-model)",
    )
    parser.add_argument("--embed-model", help="the model name at an OpenAI-compatible --embedder")
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


def _chunker(kind: str, size: int, overlap: int, options: dict[str, Any]) -> Any:
    """The chunker ``kind`` (an alias or class name of ``ragchunk chunk``) at ``size``, with
    ``overlap`` as its ``chunk_overlap`` where it takes one."""
    from ..cli import build_chunker
    from ..core.chunk import Splitter

    name = ALIASES.get(kind.lower(), kind)
    kwargs = dict(options)
    chunker = build_chunker(name, kwargs, size)
    if overlap:
        if "chunk_overlap" not in inspect.signature(type(chunker)).parameters:
            raise ValueError(f"--overlap: {type(chunker).__name__} takes no chunk_overlap")
        kwargs["chunk_overlap"] = overlap
        chunker = build_chunker(name, kwargs, size)
    if not isinstance(chunker, Splitter):
        raise ValueError(
            f"--chunker {kind}: {type(chunker).__name__} gives no offsets, which span metrics "
            "need; choose a splitter"
        )
    return chunker


def _embedder(spec: str, model: str | None) -> Any:
    if spec.startswith(("http://", "https://")):
        if not model:
            raise ValueError("--embedder URL needs --embed-model NAME")
        from ..embeddings import OpenAICompatibleEmbedder

        return OpenAICompatibleEmbedder(spec, model)
    name, _, dim = spec.partition(":")
    if name != "wordllama":
        raise ValueError(f"--embedder must be 'wordllama[:DIM]' or a base URL, got {spec!r}")
    from ..embeddings import load_wordllama

    if not dim:
        return load_wordllama()
    if not dim.isdigit():
        raise ValueError(f"--embedder wordllama:DIM needs an integer DIM, got {dim!r}")
    return load_wordllama(int(dim))


def _retriever(args: argparse.Namespace) -> Any:
    from .retrievers import BM25, Dense, Hybrid

    bm25 = BM25(tokenizer=args.tokenizer)
    if args.retriever == "bm25":
        return bm25
    dense = Dense(_embedder(args.embedder, args.embed_model))
    return dense if args.retriever == "dense" else Hybrid([bm25, dense])


def run(args: argparse.Namespace) -> int:
    """Run the sweep ``args`` describe; print the table. Returns the exit status (0, or 2 on
    bad input, reported on stderr)."""
    from ..cli import parse_options
    from .dataset import load_chroma, load_jsonl
    from .sweep import evaluate, plot

    try:
        options = parse_options(args.option)
        path = args.dataset
        dataset = load_jsonl(path) if os.path.isfile(path) else load_chroma(path)
        chunkers = []
        for size in args.chunk_size:
            for ov in args.overlap:
                tokens = round(ov * size) if ov < 1 else int(ov)
                if tokens >= size:
                    raise ValueError(f"--overlap {ov} is not smaller than --chunk-size {size}")
                chunkers.append(_chunker(args.chunker, size, tokens, options))
        result = evaluate(dataset, chunkers, _retriever(args), k=args.k)
    except (OSError, ValueError, TypeError, ImportError) as exc:
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
