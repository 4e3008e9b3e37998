"""``ragchunk file FILE`` (also ``ragchunk FILE``) and ``ragchunk --sample``: chunk one text
exactly as RAGFlow's ``naive_merge`` does and print the chunks.

>>> import argparse
>>> p = argparse.ArgumentParser(**PARSER); add_arguments(p)
>>> a = p.parse_args(["notes.md", "--chunk-token-num", "64"])
>>> a.file, a.chunk_token_num, a.strategy
('notes.md', 64, 'over_cap')
"""

from __future__ import annotations

import argparse
import importlib.resources
import json
import sys

__all__ = ["PARSER", "add_arguments", "run"]

#: The command's parser settings: it is named ``ragchunk`` in its usage line, as it is also
#: run without its name (``ragchunk FILE``).
PARSER = {
    "prog": "ragchunk",
    "description": "Chunk a document exactly as RAGFlow's naive_merge does, and print the chunks.",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments."""
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
    parser.set_defaults(usage_error=parser.error)


def _read_sample() -> str:
    return (
        importlib.resources.files("ragchunk").joinpath("data/sample.md").read_text(encoding="utf-8")
    )


def run(args: argparse.Namespace) -> int:
    """Chunk the file (or the bundled sample) and print the chunks; the exit status."""
    import ragchunk

    if args.sample:
        text, name = _read_sample(), "bundled sample (ragchunk/data/sample.md)"
    elif args.file == "-":
        text, name = sys.stdin.read().removeprefix("\ufeff"), "<stdin>"
    else:
        with open(args.file, encoding="utf-8-sig") as fh:  # a byte-order mark is not text
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
        args.usage_error(str(exc))
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
    if args.sample:
        _print_sample_pdf(args.chunk_token_num)
    return 0


def _print_sample_pdf(chunk_size: int) -> None:
    """The bundled PDF parsed with ragchunk.documents and chunked: each chunk with its pages
    and heading path (without the documents extra: how to install it)."""
    from ..documents import parsers_available

    name = "ragchunk/data/sample.pdf"
    if not parsers_available():
        print(
            f"\n{name}: install the documents extra to parse it too: "
            "pip install 'ragchunk[documents]'"
        )
        return
    import ragchunk
    from ragchunk.documents import chunk_document, parse

    data = importlib.resources.files("ragchunk").joinpath("data/sample.pdf").read_bytes()
    doc = parse(data, filename="sample.pdf")
    chunks = chunk_document(doc, ragchunk.RecursiveSplitter(chunk_size))
    print(
        f"\nbundled sample ({name}): {len(doc.pages)} pages, {len(doc.sections)} sections "
        f"-> {len(chunks)} chunks (RecursiveSplitter(chunk_size={chunk_size}))"
    )
    for i, c in enumerate(chunks, 1):
        pages = ", ".join(map(str, c.metadata["pages"]))
        print(f"\n--- chunk {i} (pages {pages}; {' > '.join(c.metadata['headings'])}) ---")
        print(c.text)
