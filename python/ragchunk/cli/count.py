"""``ragchunk count PATH...``: the tokens of each file, and their total."""

from __future__ import annotations

import argparse
import json
import sys

from ..io.files import iter_sources
from ._common import add_inputs, display_name, read

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    add_inputs(parser)
    parser.add_argument("--tokenizer", default="cl100k_base", help="cl100k_base or o200k_base")
    parser.add_argument("--format", choices=["text", "jsonl"], default="text")


def run(args: argparse.Namespace) -> int:
    """Print one line per file (and the total); the exit status."""
    import ragchunk

    failures = 0
    total = 0
    for item in iter_sources(args.paths, args.include):
        if isinstance(item, str):
            print(f"ragchunk: error: {item}", file=sys.stderr)
            failures += 1
            continue
        try:
            text = read(item, sys.stdin)
            n = ragchunk.count_tokens(text, args.tokenizer)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            print(f"ragchunk: error: {item.path}: {exc}", file=sys.stderr)
            failures += 1
            if args.fail_fast:
                return 1
            continue
        total += n
        name = display_name(item.path)
        if args.format == "jsonl":
            print(json.dumps({"source": name, "tokens": n}, ensure_ascii=False))
        else:
            print(f"{n}\t{name}")
    if args.format == "text":
        print(f"{total}\ttotal")
    sys.stdout.flush()
    return 1 if failures else 0
