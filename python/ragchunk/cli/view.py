"""The ``view`` subcommand: ``ragchunk view FILE [--chunker NAME -o k=v]... [--out view.html]
[--open] [--terminal] [--dataset D] [--max-pages N]``, or ``ragchunk view STORE --query Q
[--base DIR] [--k N]``.

With ``--query``, the first argument is a store that ``ragchunk ingest`` built: the command
searches it (:func:`ragchunk.ingest.search`) and shows the document of the best hit, with
the hits among the ``--k`` best that are in it as the column, on its page images for a PDF.

A text file is shown as it is; a PDF, DOCX or XLSX is parsed by :mod:`ragchunk.documents`
and its text shown, with the pages of a PDF beside it.

Each ``--chunker`` starts a column; the ``-o`` options after it are its own (those before the
first ``--chunker`` are the first column's; without ``--chunker``, the one column is
``recursive``).

>>> import argparse
>>> p = argparse.ArgumentParser(); add_arguments(p)
>>> a = p.parse_args(["f.md", "-o", "length=chars", "--chunker", "markdown", "-o", "x=1"])
>>> a.chunkers
[['markdown', ['length=chars', 'x=1']]]
>>> p.parse_args(["f.md", "-o", "length=chars"]).chunkers
[[None, ['length=chars']]]
"""

from __future__ import annotations

import argparse
import os
import sys
import webbrowser
from pathlib import Path
from typing import Any

from ..viz import MAX_PAGES

__all__ = ["add_arguments", "run"]

#: Embedding chunkers this command builds with the WordLlama model (offline, shipped in the
#: ``wordllama`` wheel) unless ``-o embedder=...`` names another importable object.
SEMANTIC = {"semantic": "SemanticChunker", "cluster-semantic": "ClusterSemanticChunker"}


def _specs(ns: argparse.Namespace) -> list[list[Any]]:
    """The namespace's own ``[name, options]`` list (never the shared default)."""
    if getattr(ns, "chunkers", None) is None:
        ns.chunkers = []
    specs: list[list[Any]] = ns.chunkers
    return specs


class _Chunker(argparse.Action):
    def __call__(self, parser: Any, ns: Any, values: Any, option: str | None = None) -> None:
        specs = _specs(ns)
        if len(specs) == 1 and specs[0][0] is None:  # options came first: they are its own
            specs[0][0] = values
        else:
            specs.append([values, []])


class _Option(argparse.Action):
    def __call__(self, parser: Any, ns: Any, values: Any, option: str | None = None) -> None:
        specs = _specs(ns)
        if not specs:
            specs.append([None, []])
        specs[-1][1].append(values)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the subcommand's options to ``parser``."""
    parser.add_argument(
        "file", help="the document: UTF-8 text, or a PDF, DOCX or XLSX parsed into sections"
    )
    parser.set_defaults(chunkers=None)
    parser.add_argument(
        "--chunker",
        action=_Chunker,
        metavar="NAME",
        help="a column: any chunker `ragchunk chunk` takes, or semantic / cluster-semantic "
        "(up to four; default: recursive)",
    )
    parser.add_argument(
        "-o",
        "--option",
        action=_Option,
        metavar="KEY=VALUE",
        help="an argument of the chunker before it, e.g. -o chunk_overlap=64 -o length=chars",
    )
    parser.add_argument("--chunk-size", type=int, default=512, help="chunk size (512)")
    parser.add_argument("--title", help="the page title")
    parser.add_argument("--out", default="view.html", help="the page to write (view.html)")
    parser.add_argument("--open", action="store_true", help="open the page in a web browser")
    parser.add_argument(
        "--terminal", action="store_true", help="print coloured chunks instead of a page"
    )
    parser.add_argument(
        "--dataset", help="evaluation questions: a .jsonl dataset or a Chroma-layout directory"
    )
    parser.add_argument("--k", type=int, default=5, help="chunks retrieved per question (5)")
    parser.add_argument(
        "--query",
        help="FILE is then a store URL (lancedb:DIR, parquet:DIR...): search it and show the "
        "hits of the best hit's document on its pages",
    )
    parser.add_argument(
        "--base",
        default=".",
        help="with --query: the folder the store's source ids are relative to (.)",
    )
    parser.add_argument(
        "--max-pages",
        type=int,
        default=MAX_PAGES,
        help=f"pages of a PDF embedded as images ({MAX_PAGES}); the rest show their boxes only",
    )


def _semantic(name: str, options: dict[str, Any], chunk_size: int) -> Any:
    from .. import semantic

    cls = getattr(semantic, SEMANTIC[name])
    embedder = options.pop("embedder", "wordllama")
    if embedder == "wordllama":
        from ..embeddings import load_wordllama

        embedder = load_wordllama()
    elif isinstance(embedder, str):
        raise ValueError(f"{name}: embedder must be 'wordllama', got {embedder!r}")
    options.setdefault("chunk_size", chunk_size)
    return cls(embedder, **options)


def _chunkers(args: argparse.Namespace) -> list[Any]:
    from ..chunkers import build_chunker, parse_options
    from .eval import ALIASES

    out = []
    for name, raw in args.chunkers or [["recursive", []]]:
        name = name or "recursive"
        options = parse_options(raw)
        if name.lower() in SEMANTIC:
            out.append(_semantic(name.lower(), options, args.chunk_size))
        else:
            out.append(build_chunker(ALIASES.get(name, name), options, args.chunk_size))
    return out


def _questions(args: argparse.Namespace, text: str) -> Any:
    if not args.dataset:
        return None
    from ..eval.dataset import load_chroma, load_jsonl

    path = Path(args.dataset)
    dataset = load_chroma(path) if path.is_dir() else load_jsonl(path)
    if not any(t == text for t in dataset.corpora.values()):
        raise ValueError(f"--dataset: no corpus of {args.dataset} is the text of {args.file}")
    return dataset


#: Formats shown as the file's own text; any other is parsed by :mod:`ragchunk.documents`.
TEXT_FORMATS = frozenset(("text", "markdown", "code", "json", "jsonl", "html", "csv"))


def _source(path: str) -> Any:
    """The file as a document: a text format as its text (a
    :func:`~ragchunk.documents.text_document`), any other (PDF, DOCX, XLSX...) parsed."""
    from ..documents import detect_format, parse, text_document

    with open(path, "rb") as fh:
        data = fh.read()
    if detect_format(data, path) in TEXT_FORMATS:
        try:
            return text_document(data.decode("utf-8-sig"), filename=path)
        except UnicodeDecodeError as exc:
            raise ValueError(
                f"{path}: not UTF-8 text (byte {exc.start} is {data[exc.start]:#04x}); "
                "convert it to UTF-8 first"
            ) from None
    return parse(data, filename=path)


def _shown(doc: Any) -> Any:
    """What the page shows: a text document's text (it has no pages or boxes to draw), a
    parsed document itself."""
    from ..documents import is_text_document

    return doc.text if is_text_document(doc) else doc


def _hits(args: argparse.Namespace) -> tuple[Any, list[Any], str]:
    """``--query``: the best hit's document and that document's hits
    among the ``--k`` best, as chunks, and the column's name."""
    from ..core.chunk import Chunk
    from ..ingest import search

    hits = search(args.file, args.query, k=args.k)
    if not hits:
        raise ValueError(f"--query: no chunk of {args.file} matches {args.query!r}")
    source = hits[0].source_id
    path = os.path.join(args.base, source)
    if not os.path.isfile(path):
        raise ValueError(f"--base: the hit's source {source!r} is not a file under {args.base!r}")
    doc = _source(path)
    chunks = [
        Chunk(h.text, h.start, h.end, h.token_count, {"score": h.score, "rank": rank})
        for rank, h in enumerate(hits, 1)
        if h.source_id == source and h.start is not None and h.end is not None
    ]
    return doc, chunks, f"hits for {args.query!r} in {source}"


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit status: a file that cannot be read or shown, or
    a package that is missing, is one error line naming the input (and no page is written)."""
    try:
        return _run(args)
    except OSError as exc:
        print(
            f"ragchunk: error: {exc.filename or args.file}: {exc.strerror or exc}", file=sys.stderr
        )
        return 1
    except ImportError as exc:
        print(f"ragchunk: error: {args.file}: {exc}", file=sys.stderr)
        return 1


def _run(args: argparse.Namespace) -> int:
    """The subcommand's work (:func:`run` turns a bad input into one line)."""
    if args.query:
        doc, hits, name = _hits(args)
        from ..viz import View

        view = View(
            _shown(doc),
            {name: hits},
            title=args.title or name,
            max_pages=args.max_pages,
        )
        view.save(args.out)
        print(f"ragchunk: wrote {args.out} ({len(hits)} hits)", file=sys.stderr)
        if args.open:
            webbrowser.open(Path(os.path.abspath(args.out)).as_uri())
        return 0
    doc = _source(args.file)
    chunkers = _chunkers(args)
    if args.terminal:
        from ..viz import print_chunks

        print_chunks(doc.text, chunkers)
        return 0
    from ..viz import View

    view = View(
        _shown(doc),
        chunkers,
        title=args.title,
        questions=_questions(args, doc.text),
        k=args.k,
        max_pages=args.max_pages,
    )
    view.save(args.out)
    counts = ", ".join(f"{c.name}: {len(c.chunks)}" for c in view.columns)
    print(f"ragchunk: wrote {args.out} ({counts} chunks)", file=sys.stderr)
    if args.open:
        webbrowser.open(Path(os.path.abspath(args.out)).as_uri())
    return 0
