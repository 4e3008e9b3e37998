"""Command line: ``python -m ragchunk [FILE | --sample] [options]`` prints the chunks.

``python -m ragchunk COMMAND ...`` (``chunk``, ``count``...) runs the batch commands of
:mod:`ragchunk.cli`, the ``ragchunk`` console script.

It runs :func:`ragchunk.naive_merge` (RAGFlow's chunking) over a UTF-8 text file, standard
input (``-``), or the sample document bundled with the package (``--sample``).
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources

import ragchunk


def _read_sample() -> str:
    return resources.files("ragchunk").joinpath("data/sample.md").read_text(encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv``, chunk the chosen text and print the chunks; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m ragchunk",
        description="Chunk a document exactly as RAGFlow's naive_merge does, and print the chunks.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("file", nargs="?", help="UTF-8 text file to chunk, or - for stdin")
    source.add_argument("--sample", action="store_true", help="chunk the bundled sample document")
    parser.add_argument("--chunk-token-num", type=int, default=128, help="token budget (128)")
    parser.add_argument(
        "--delimiter", default="\n。；！？", help="RAGFlow delimiter field (newline and 。；！？)"
    )
    parser.add_argument("--overlap", type=float, default=0, help="overlapped_percent, 0-100 (0)")
    parser.add_argument(
        "--strategy",
        choices=["over_cap", "under_cap", "hard_cap"],
        default="over_cap",
        help="(over_cap)",
    )
    parser.add_argument("--tokenizer", default="cl100k_base", help="cl100k_base or o200k_base")
    parser.add_argument("--json", action="store_true", help="print a JSON list instead")
    args = parser.parse_args(argv)

    if args.sample:
        text, name = _read_sample(), "bundled sample (ragchunk/data/sample.md)"
    elif args.file == "-":
        text, name = sys.stdin.read(), "<stdin>"
    else:
        with open(args.file, encoding="utf-8") as fh:
            text, name = fh.read(), args.file

    try:
        chunks = ragchunk.naive_merge(
            text,
            chunk_token_num=args.chunk_token_num,
            delimiter=args.delimiter,
            overlapped_percent=args.overlap,
            strategy=args.strategy,
            tokenizer=args.tokenizer,
        )
    except (TypeError, ValueError) as exc:
        parser.error(str(exc))
    if args.json:
        json.dump(chunks, sys.stdout, ensure_ascii=False, indent=1)
        print()
        return 0
    print(
        f"{name}: {len(text)} characters -> {len(chunks)} chunks "
        f"(chunk_token_num={args.chunk_token_num}, backend={ragchunk.backend})"
    )
    for i, chunk in enumerate(chunks, 1):
        try:
            tokens: object = ragchunk.count_tokens(chunk, args.tokenizer)
        except ValueError:  # special-token text: tiktoken refuses to count it
            tokens = "n/a"
        print(f"\n--- chunk {i} ({tokens} tokens) ---")
        print(chunk.lstrip("\n"))
    return 0


if __name__ == "__main__":
    from ragchunk.cli import main as cli_main

    sys.exit(cli_main())
