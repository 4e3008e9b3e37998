"""The ``estimate`` subcommand: what an LLM chunker would cost over files, without any call.

Wire it into a command line with :func:`add_arguments` and :func:`run`::

    parser = subparsers.add_parser("estimate", help="dry-run cost of an LLM chunker")
    add_arguments(parser)
    parser.set_defaults(func=run)

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="ragchunk estimate")
>>> add_arguments(parser)
>>> args = parser.parse_args(["--strategy", "contextual", "--input-price", "0.15", "README.md"])
>>> args.strategy, args.input_price, args.files
('contextual', 0.15, ['README.md'])
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from ..llm import LLM, Estimate, Price

__all__ = ["add_arguments", "build_chunker", "run"]

STRATEGIES = ("boundary", "propositions", "contextual")


def _no_calls(prompt: str) -> str:
    raise RuntimeError("a dry-run estimate never calls the model")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``estimate`` options to ``parser`` (files, strategy, sizes, prices, output).

    >>> p = argparse.ArgumentParser(); add_arguments(p); p.parse_args(["a.md"]).strategy
    'contextual'
    """
    parser.add_argument("files", nargs="+", help="UTF-8 text files (- for standard input)")
    parser.add_argument(
        "--strategy", choices=STRATEGIES, default="contextual", help="the LLM chunker (contextual)"
    )
    parser.add_argument(
        "--chunk-size", type=int, default=None, help="chunk budget in tokens (chunker default)"
    )
    parser.add_argument(
        "--tokenizer", default="cl100k_base", help="how tokens are counted (cl100k_base)"
    )
    parser.add_argument(
        "--context-window",
        type=int,
        default=None,
        help="the model's context window in tokens (contextual: longer documents are windowed)",
    )
    parser.add_argument(
        "--group-by",
        choices=("llm", "embeddings"),
        default="llm",
        help="propositions: who groups them (llm)",
    )
    parser.add_argument(
        "--input-price", type=float, default=None, help="price per million prompt tokens"
    )
    parser.add_argument(
        "--output-price", type=float, default=None, help="price per million completion tokens"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")


def build_chunker(args: argparse.Namespace) -> Any:
    """The chunker the options describe, holding a model that refuses to be called.

    >>> ns = argparse.Namespace(strategy="boundary", chunk_size=256, tokenizer="cl100k_base",
    ...                         context_window=None, group_by="llm")
    >>> build_chunker(ns).chunk_size
    256
    """
    from ..llm import ContextualChunker, LLMBoundaryChunker, PropositionChunker

    llm = LLM(
        _no_calls, model="dry-run", tokenizer=args.tokenizer, context_window=args.context_window
    )
    sized: dict[str, Any] = {} if args.chunk_size is None else {"chunk_size": args.chunk_size}
    if args.strategy == "boundary":
        return LLMBoundaryChunker(llm, tokenizer=args.tokenizer, **sized)
    if args.strategy == "propositions":
        embedder = (lambda texts: [[1.0] for _ in texts]) if args.group_by == "embeddings" else None
        return PropositionChunker(
            llm, embedder=embedder, group_by=args.group_by, tokenizer=args.tokenizer, **sized
        )
    from ..splitters.recursive import RecursiveSplitter

    inner = RecursiveSplitter(chunk_size=args.chunk_size or 512, tokenizer=args.tokenizer)
    return ContextualChunker(llm, inner, tokenizer=args.tokenizer)


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read().removeprefix("\ufeff")
    with open(path, encoding="utf-8-sig") as fh:  # a byte-order mark is not text
        return fh.read()


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Estimate calls, tokens and cost for the files; print a table (or JSON); return 0, or 2
    when a file cannot be read.

    >>> import io, pathlib, tempfile
    >>> path = str(pathlib.Path(tempfile.mkdtemp()) / "doc.md")
    >>> _ = pathlib.Path(path).write_text("One sentence. Another one.\\n" * 50, encoding="utf-8")
    >>> p = argparse.ArgumentParser(); add_arguments(p)
    >>> buf = io.StringIO()
    >>> run(p.parse_args([path, "--strategy", "boundary", "--chunk-size", "64", "--json"]), buf)
    0
    >>> json.loads(buf.getvalue())["total"]["calls"]
    3
    """
    out = out if out is not None else sys.stdout
    chunker = build_chunker(args)
    price = None
    if args.input_price is not None or args.output_price is not None:
        price = Price(args.input_price or 0.0, args.output_price or 0.0)
    rows: list[tuple[str, Estimate]] = []
    for path in args.files:
        try:
            text = _read(path)
        except (OSError, UnicodeDecodeError) as exc:
            print(f"ragchunk estimate: cannot read {path}: {exc}", file=sys.stderr)
            return 2
        rows.append((path, chunker.estimate(text, price)))
    total = rows[0][1]
    for _, e in rows[1:]:
        total = total + e

    def record(e: Estimate) -> dict[str, Any]:
        return {
            "calls": e.calls,
            "prompt_tokens": e.prompt_tokens,
            "completion_tokens": e.completion_tokens,
            "total_tokens": e.total_tokens,
            "cost": e.cost,
        }

    if args.json:
        payload = {
            "strategy": args.strategy,
            "files": [{"file": path, **record(e)} for path, e in rows],
            "total": record(total),
        }
        print(json.dumps(payload, indent=2), file=out)
        return 0
    width = max(5, *(len(path) for path, _ in rows))
    header = f"{'file':<{width}}  {'calls':>7}  {'prompt':>10}  {'completion':>10}  {'cost':>10}"
    print(f"dry run of the {args.strategy} chunker (no model call made)", file=out)
    print(header, file=out)
    for name, e in [*rows, ("total", total)]:
        cost = "-" if e.cost is None else f"{e.cost:.4f}"
        print(
            f"{name:<{width}}  {e.calls:>7}  {e.prompt_tokens:>10}  {e.completion_tokens:>10}  "
            f"{cost:>10}",
            file=out,
        )
    return 0
