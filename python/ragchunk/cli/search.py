"""The ``search`` command: ``ragchunk search STORE "query" [-k N] [--mode M] [--json]``.

Searches a store that ``ragchunk ingest`` built (see :func:`ragchunk.ingest.search`) and
prints each hit with its citation (file, pages, heading path), its score and its text;
``--json`` prints the hits as one JSON array instead. Exit status 1 when nothing matched.

>>> import argparse
>>> p = argparse.ArgumentParser(); add_arguments(p)
>>> a = p.parse_args(["lancedb:./index", "how do I reset it?", "-k", "3", "--json"])
>>> a.store, a.query, a.k, a.mode, a.json
('lancedb:./index', 'how do I reset it?', 3, 'hybrid', True)
"""

from __future__ import annotations

import argparse
import sys
import textwrap

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    from ..ingest.search import SEARCH_MODES

    p.add_argument("store", metavar="STORE", help="lancedb:DIR, parquet:DIR, chroma:DIR...")
    p.add_argument("query", help="what to look for")
    p.add_argument("-k", type=int, default=10, help="the number of hits (10)")
    p.add_argument(
        "--mode",
        choices=SEARCH_MODES,
        default="hybrid",
        help="bm25, vector (needs --embed) or hybrid: both, fused by rank (hybrid)",
    )
    p.add_argument(
        "--embed",
        metavar="EMBEDDER",
        help="the embedder the store was built with (as ragchunk ingest --embed)",
    )
    p.add_argument(
        "--source", action="append", metavar="ID", help="only chunks of this source (repeatable)"
    )
    p.add_argument("--json", action="store_true", help="print the hits as a JSON array")


def run(args: argparse.Namespace) -> int:
    """Run the command; the exit status."""
    from ..ingest.search import hits_json, search
    from .ingest import load_embedder

    embedder = load_embedder(args.embed) if args.embed else None
    where = {"source_id": args.source} if args.source else None
    hits = search(args.store, args.query, k=args.k, mode=args.mode, filter=where, embedder=embedder)
    if args.json:
        print(hits_json(hits))
        return 0 if hits else 1
    for rank, hit in enumerate(hits, 1):
        print(f"{rank}. {hit.citation()}  (score {hit.score:.3f})")
        text = " ".join(hit.text.split())
        print(textwrap.indent(textwrap.shorten(text, 300, placeholder=" ..."), "   "))
    if not hits:
        print("ragchunk: no chunk matches the query", file=sys.stderr)
    return 0 if hits else 1
