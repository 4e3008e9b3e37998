"""The ``ragchunk`` command: chunk files and directories in batch, count their tokens.

``ragchunk chunk PATH...`` chunks files, directories (every file matching ``--include``,
recursively), glob patterns and ``-`` (standard input) with any ragchunk chunker, and writes
one record per chunk as JSON Lines, Parquet or plain text. ``ragchunk count PATH...`` prints
the tokens of each file. A progress bar (bytes and documents, rate, ETA) is drawn on standard
error when it is a terminal; ``--quiet`` turns it off. A file that cannot be read or chunked
is reported and skipped (``--fail-fast`` stops instead; the exit status is 1 either way), and
a closed pipe (``ragchunk chunk docs | head``) ends the run quietly.

Commands of other ragchunk modules (``eval``, ``estimate``) are registered from
:data:`PLUGINS` when their module is installed. ``ragchunk FILE`` and ``python -m ragchunk
FILE`` without a command run the single-file ``naive_merge`` printer (:func:`single_file`):
``python -m ragchunk`` and the ``ragchunk`` script are the same program.

>>> build_chunker("character", {"chunk_overlap": 1}, 4)
CharacterSplitter(chunk_size=4, chunk_overlap=1, drop_last=False)
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import glob
import importlib
import importlib.resources
import importlib.util
import inspect
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

__all__ = ["CHUNKERS", "PLUGINS", "Progress", "build_chunker", "main", "parse_options"]

#: ``--chunker`` names: short aliases of the public chunker classes (their class names work
#: too, in any case).
CHUNKERS = {
    "character": "CharacterSplitter",
    "code": "CodeSplitter",
    "html": "HTMLSplitter",
    "json": "JSONSplitter",
    "markdown": "MarkdownSplitter",
    "recursive": "RecursiveSplitter",
    "sentence": "SentenceSplitter",
    "title-tree": "TitleTreeChunker",
    "token": "SplitterComponent",
    "naive-merge": "SplitterComponent",
    "token-window": "TokenWindowSplitter",
}

#: Commands that live in other modules: name -> (module, one-line help). Each module has
#: ``add_arguments(parser)`` and ``run(args) -> int``; it is imported only when its command
#: runs, and a command whose module is not installed is left out.
PLUGINS = {
    "eval": ("ragchunk.eval.cli", "evaluate chunkers on a retrieval benchmark"),
    "estimate": ("ragchunk.llm.cli", "estimate the cost of embedding or prompting chunks"),
    "view": ("ragchunk.viz.cli", "show the chunks of a file in an HTML page or the terminal"),
    "ingest": ("ragchunk.ingest.cli", "chunk and embed files into a vector store, incrementally"),
}

DEFAULT_INCLUDE = "*.md,*.markdown,*.txt,*.rst,*.html,*.htm,*.json"
_BINARY_DOCUMENTS = (".pdf", ".docx", ".xlsx", ".xlsm")  # read only with --documents
_BATCH_BYTES = 4 << 20
_BATCH_DOCS = 256


def parse_options(items: Sequence[str]) -> dict[str, Any]:
    """``key=value`` options as keyword arguments: each value read as a Python literal
    (``64``, ``True``, ``["\\n\\n", "\\n"]``), else kept as a string.

    >>> parse_options(["chunk_size=128", "tokenizer=o200k_base", "drop_last=True"])
    {'chunk_size': 128, 'tokenizer': 'o200k_base', 'drop_last': True}
    """
    out: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.isidentifier():
            raise ValueError(f"--option must be key=value, got {item!r}")
        try:
            out[key] = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            out[key] = raw
    return out


def build_chunker(name: str, options: dict[str, Any], chunk_size: int | None = None) -> Any:
    """The chunker ``name`` (a :data:`CHUNKERS` alias or a class name) built with
    ``options``; ``chunk_size`` fills the class's size argument when given.

    >>> import ragchunk
    >>> build_chunker("recursive", {"length": "chars"}, 100) == ragchunk.RecursiveSplitter(
    ...     100, length="chars"
    ... )
    True
    """
    import ragchunk

    lookup = {k.lower(): v for k, v in CHUNKERS.items()}
    lookup.update({v.lower(): v for v in CHUNKERS.values()})
    cls_name = lookup.get(name.lower().replace("_", "-")) or lookup.get(name.lower())
    if cls_name is None:
        raise ValueError(f"unknown chunker {name!r}; choose one of {', '.join(CHUNKERS)}")
    cls = getattr(ragchunk, cls_name)
    kwargs = dict(options)
    if chunk_size is not None:
        size_name = "chunk_token_size" if cls_name == "SplitterComponent" else "chunk_size"
        kwargs.setdefault(size_name, chunk_size)
    if cls_name == "CodeSplitter":
        kwargs.setdefault("language", "python")
    try:
        inspect.signature(cls).bind(**kwargs)
    except TypeError as exc:
        raise ValueError(f"{cls_name}: {exc}") from None
    return cls(**kwargs)


# ---------------------------------------------------------------------------------------------
# inputs


@dataclass
class Source:
    """One document to chunk: a path, or ``-`` for standard input."""

    path: str
    size: int


def _is_glob(path: str) -> bool:
    return any(ch in path for ch in "*?[")


def iter_sources(paths: Sequence[str], include: str) -> Iterator[Source | str]:
    """Every document of ``paths`` in order (directories walked in sorted order, globs
    expanded); a path that matches nothing is yielded as its error message."""
    patterns = [p.strip() for p in include.split(",") if p.strip()]
    for path in paths:
        if path == "-":
            yield Source("-", 0)
        elif os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for name in sorted(files):
                    if any(fnmatch.fnmatch(name, p) for p in patterns):
                        full = os.path.join(root, name)
                        yield Source(full, os.path.getsize(full))
        elif os.path.isfile(path):
            yield Source(path, os.path.getsize(path))
        elif _is_glob(path):
            matches = sorted(m for m in glob.glob(path, recursive=True) if os.path.isfile(m))
            if not matches:
                yield f"{path}: no file matches"
            for m in matches:
                yield Source(m, os.path.getsize(m))
        else:
            yield f"{path}: no such file or directory"


def _read(source: Source, stdin: IO[str], binary: bool = False) -> Any:
    if binary:  # a file's bytes, for ragchunk.documents.parse
        if source.path == "-":
            return stdin.buffer.read()  # type: ignore[attr-defined]
        with open(source.path, "rb") as fh:
            return fh.read()
    if source.path == "-":
        return stdin.read()
    with open(source.path, encoding="utf-8") as fh:
        return fh.read()


# ---------------------------------------------------------------------------------------------
# progress


class Progress:
    """A one-line progress bar on a terminal: bytes and documents done, rate, ETA.

    Silent (every method a no-op) when ``stream`` is not a terminal or ``enabled`` is False.

    >>> import io
    >>> p = Progress(io.StringIO(), total_bytes=100, total_docs=2)
    >>> p.enabled
    False
    """

    def __init__(
        self,
        stream: IO[str],
        total_bytes: int,
        total_docs: int,
        enabled: bool = True,
        interval: float = 0.1,
    ) -> None:
        isatty = getattr(stream, "isatty", None)
        self.enabled = bool(enabled and isatty is not None and isatty())
        self.stream = stream
        self.total_bytes = total_bytes
        self.total_docs = total_docs
        self.bytes = 0
        self.docs = 0
        self.errors = 0
        self.interval = interval
        self._start = time.monotonic()
        self._last = 0.0

    def update(self, nbytes: int, docs: int = 1, errors: int = 0) -> None:
        """Count ``docs`` more documents of ``nbytes`` bytes; redraw at most every
        ``interval`` seconds."""
        self.bytes += nbytes
        self.docs += docs
        self.errors += errors
        now = time.monotonic()
        if self.enabled and now - self._last >= self.interval:
            self._last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        elapsed = max(now - self._start, 1e-9)
        rate = self.bytes / elapsed
        frac = self.bytes / self.total_bytes if self.total_bytes else 0.0
        width = 24
        filled = min(width, int(frac * width))
        bar = "#" * filled + "-" * (width - filled)
        eta = (self.total_bytes - self.bytes) / rate if rate > 0 and self.total_bytes else 0.0
        line = (
            f"\r[{bar}] {_mb(self.bytes)}/{_mb(self.total_bytes)} MB "
            f"{self.docs}/{self.total_docs} docs {_mb(int(rate))} MB/s "
            f"ETA {_clock(eta)}"
        )
        if self.errors:
            line += f" ({self.errors} errors)"
        self.stream.write(line + "\x1b[K")
        self.stream.flush()

    def close(self) -> None:
        """Draw the final state and end the line."""
        if self.enabled:
            self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f}"


def _clock(seconds: float) -> str:
    s = int(seconds + 0.5)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


# ---------------------------------------------------------------------------------------------
# output


class _Writer:
    def __init__(self, fmt: str, out: IO[str] | None, path: str | None) -> None:
        self.fmt = fmt
        self.out = out
        self.path = path
        self._parquet: Any = None

    def write(self, source: str, chunks: list[dict[str, Any]]) -> None:
        out = self.out
        assert out is not None
        if self.fmt == "jsonl":
            for c in chunks:
                out.write(json.dumps({"source": source, **c}, ensure_ascii=False) + "\n")
        else:
            for c in chunks:
                out.write(f"--- {source} [{c['chunk_index']}] ---\n{c['text']}\n")

    def write_table(self, table: Any) -> None:
        import pyarrow.parquet as pq  # type: ignore[import-untyped]

        if self._parquet is None:
            assert self.path is not None
            self._parquet = pq.ParquetWriter(self.path, table.schema)
        self._parquet.write_table(table)

    def close(self, schema: Any) -> None:
        if self.fmt == "parquet":
            if self._parquet is None:
                import pyarrow.parquet as pq

                pq.write_table(schema.empty_table(), self.path)
            else:
                self._parquet.close()
        elif self.out is not None:
            self.out.flush()


def _chunk_dicts(chunker: Any, texts: list[str], workers: int | None) -> list[list[dict[str, Any]]]:
    import ragchunk

    if isinstance(chunker, ragchunk.SplitterComponent):
        return [
            [
                {
                    "chunk_index": k,
                    "text": c["content"],
                    "start": None,
                    "end": None,
                    "token_count": c["token_count"],
                    "metadata": {"positions": c["positions"], "img_ids": c["img_ids"]},
                }
                for k, c in enumerate(chunker.invoke(t))
            ]
            for t in texts
        ]
    return [
        [
            {
                "chunk_index": k,
                "text": c.text,
                "start": c.start,
                "end": c.end,
                "token_count": c.token_count,
                "metadata": dict(c.metadata),
            }
            for k, c in enumerate(chunks)
        ]
        for chunks in chunker.split_batch(texts, workers)
    ]


def holds_gil(chunker: Any) -> bool:
    """Whether ``chunker`` runs in Python while it chunks a batch, so that threads would take
    turns (the fallback backend, the cleaning pipeline component, a tokenizer counted by a
    Python callable), and ``--parallel auto`` uses processes instead.

    >>> import ragchunk
    >>> holds_gil(ragchunk.SplitterComponent())
    True
    >>> holds_gil(ragchunk.RecursiveSplitter(64)) == (ragchunk.backend == "python")
    True
    """
    import ragchunk

    from .core import dispatch

    if dispatch.name() != "rust" or isinstance(chunker, ragchunk.SplitterComponent):
        return True
    for attribute in ("_tok", "_resolved"):
        tok = getattr(chunker, attribute, None)
        if tok is not None and tok.builtin is None:
            return True
    return False


def _parallelism(args: argparse.Namespace, chunker: Any) -> str:
    """``"threads"`` or ``"processes"``, as ``--parallel`` and the chunker decide."""
    if args.parallel != "auto":
        return str(args.parallel)
    if args.workers == 1:
        return "threads"
    return "processes" if holds_gil(chunker) else "threads"


def _chunk_part(
    chunker: Any, parquet: bool, names: list[str], texts: list[str]
) -> list[list[dict[str, Any]]] | Any:
    """One process's share of a batch: chunk dicts, or an Arrow table for Parquet."""
    if parquet:
        from .io.arrow import _pyarrow, chunk_table

        docs = _pyarrow().table({"source": names, "text": texts})
        return chunk_table(docs, chunker, id_columns=["source"], workers=1)
    return _chunk_dicts(chunker, texts, 1)


class _Processes:
    """A pool of worker processes (started by spawning, never by forking a process whose
    native thread pool may be running) that chunk one batch's documents in parts."""

    def __init__(self, workers: int | None) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.workers = workers or os.cpu_count() or 1
        self.pool = ProcessPoolExecutor(
            self.workers, mp_context=multiprocessing.get_context("spawn")
        )

    def run(
        self, chunker: Any, parquet: bool, names: list[str], texts: list[Any], part: Any = None
    ) -> list[Any]:
        """The parts' results in document order (contiguous parts, one per worker)."""
        size = max(1, -(-len(texts) // self.workers))
        futures = [
            self.pool.submit(
                part or _chunk_part, chunker, parquet, names[i : i + size], texts[i : i + size]
            )
            for i in range(0, len(texts), size)
        ]
        return [f.result() for f in futures]

    def close(self) -> None:
        self.pool.shutdown(cancel_futures=True)


def _run_chunk(args: argparse.Namespace) -> int:
    chunker = build_chunker(args.chunker, parse_options(args.option), args.chunk_size)
    mode = _parallelism(args, chunker)
    part: Callable[..., Any] | None = None
    if args.documents:  # files parsed by ragchunk.documents, in processes: parsing is Python
        from .documents._batch import DOCUMENT_INCLUDE, available, chunk_files

        if not available():
            raise ValueError("--documents needs the parsers: pip install 'ragchunk[documents]'")
        if args.include == DEFAULT_INCLUDE:
            args.include += "," + DOCUMENT_INCLUDE
        part = chunk_files
        if args.parallel == "auto":
            mode = "threads" if args.workers == 1 else "processes"
    if not args.quiet and sys.stderr.isatty():  # said where the progress bar is drawn
        workers = args.workers or os.cpu_count() or 1
        print(f"ragchunk: chunking on {workers} {mode}", file=sys.stderr)
    processes = _Processes(args.workers) if mode == "processes" else None
    if args.format == "parquet":
        if not args.out:
            raise ValueError("--format parquet needs --out FILE")
        from .io.arrow import _pyarrow, chunk_table, output_schema

        pa = _pyarrow()
        schema = output_schema([pa.field("source", pa.string())])
    out: IO[str] | None = None
    if args.format != "parquet":
        out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout
    writer = _Writer(args.format, out, args.out)

    sources: list[Source] = []
    failures = 0

    def fail(message: str) -> None:
        nonlocal failures
        failures += 1
        print(f"ragchunk: error: {message}", file=sys.stderr)
        if args.fail_fast:
            raise _FailFast

    try:
        for item in iter_sources(args.paths, args.include):
            if isinstance(item, str):
                fail(item)
            else:
                sources.append(item)
        progress = Progress(
            sys.stderr, sum(s.size for s in sources), len(sources), enabled=not args.quiet
        )

        def flush(batch: list[tuple[Source, Any]]) -> None:
            if not batch:
                return
            names = [s.path if s.path != "-" else "<stdin>" for s, _ in batch]
            texts = [t for _, t in batch]
            try:
                if processes is not None or part is not None:
                    parquet = args.format == "parquet"
                    parts = (
                        processes.run(chunker, parquet, names, texts, part)
                        if processes is not None
                        else [part(chunker, parquet, names, texts)]  # type: ignore[misc]
                    )
                    if parquet:
                        for table in parts:
                            writer.write_table(table)
                    else:
                        dicts = [d for one in parts for d in one]
                        for name, chunks in zip(names, dicts, strict=True):
                            writer.write(name, chunks)
                elif args.format == "parquet":
                    docs = pa.table({"source": names, "text": texts})
                    writer.write_table(
                        chunk_table(docs, chunker, id_columns=["source"], workers=args.workers)
                    )
                else:
                    for name, chunks in zip(
                        names, _chunk_dicts(chunker, texts, args.workers), strict=True
                    ):
                        writer.write(name, chunks)
                progress.update(sum(s.size for s, _ in batch), len(batch))
            except (TypeError, ValueError) as exc:
                if len(batch) == 1:
                    progress.update(batch[0][0].size, 1, errors=1)
                    fail(f"{names[0]}: {exc}")
                else:  # find the document that fails: one at a time
                    for one in batch:
                        flush([one])

        batch: list[tuple[Source, Any]] = []
        batch_bytes = 0
        for source in sources:
            if part is None and os.path.splitext(source.path)[1].lower() in _BINARY_DOCUMENTS:
                progress.update(source.size, 1, errors=1)
                fail(f"{source.path}: a binary document; pass --documents to parse it")
                continue
            try:
                text = _read(source, sys.stdin, binary=part is not None)
            except (OSError, UnicodeDecodeError) as exc:
                progress.update(source.size, 1, errors=1)
                fail(f"{source.path}: {exc}")
                continue
            if source.path == "-":
                source.size = len(
                    text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
                )
            batch.append((source, text))
            batch_bytes += source.size
            if len(batch) >= _BATCH_DOCS or batch_bytes >= _BATCH_BYTES:
                flush(batch)
                batch, batch_bytes = [], 0
        flush(batch)
        progress.close()
        writer.close(schema if args.format == "parquet" else None)
    except _FailFast:
        return 1
    finally:
        if processes is not None:
            processes.close()
        if out is not None and out is not sys.stdout:
            out.close()
    return 1 if failures else 0


class _FailFast(Exception):
    pass


def _run_count(args: argparse.Namespace) -> int:
    import ragchunk

    failures = 0
    total = 0
    for item in iter_sources(args.paths, args.include):
        if isinstance(item, str):
            print(f"ragchunk: error: {item}", file=sys.stderr)
            failures += 1
            continue
        try:
            text = _read(item, sys.stdin)
            n = ragchunk.count_tokens(text, args.tokenizer)
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            print(f"ragchunk: error: {item.path}: {exc}", file=sys.stderr)
            failures += 1
            if args.fail_fast:
                return 1
            continue
        total += n
        name = item.path if item.path != "-" else "<stdin>"
        if args.format == "jsonl":
            print(json.dumps({"source": name, "tokens": n}, ensure_ascii=False))
        else:
            print(f"{n}\t{name}")
    if args.format == "text":
        print(f"{total}\ttotal")
    sys.stdout.flush()
    return 1 if failures else 0


# ---------------------------------------------------------------------------------------------
# parser


def _add_inputs(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, directories, globs, - (stdin)")
    p.add_argument(
        "--include",
        default=DEFAULT_INCLUDE,
        help=f"file patterns read from directories (default: {DEFAULT_INCLUDE})",
    )
    p.add_argument("--fail-fast", action="store_true", help="stop at the first failing file")


def _parser(plugin: str | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragchunk", description="Chunk documents for retrieval, in batch."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    chunk = sub.add_parser("chunk", help="chunk files and directories")
    _add_inputs(chunk)
    chunk.add_argument(
        "--chunker", default="recursive", help=f"one of {', '.join(CHUNKERS)} (recursive)"
    )
    chunk.add_argument("--chunk-size", type=int, default=512, help="chunk size (512)")
    chunk.add_argument(
        "-o",
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="another argument of the chunker, e.g. -o chunk_overlap=64 -o length=chars",
    )
    chunk.add_argument("--format", choices=["jsonl", "parquet", "text"], default="jsonl")
    chunk.add_argument("--out", help="output file (default: standard output)")
    chunk.add_argument(
        "--workers", type=int, default=None, help="threads or processes (one per core)"
    )
    chunk.add_argument(
        "--parallel",
        choices=["auto", "threads", "processes"],
        default="auto",
        help="threads when the chunker releases the GIL, else processes (auto)",
    )
    chunk.add_argument(
        "--documents",
        action="store_true",
        help="parse files (PDF, DOCX, XLSX, HTML, Markdown...) with ragchunk.documents, in "
        "processes: chunks carry pages, boxes and headings; folders also give *.pdf, *.docx...",
    )
    chunk.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    chunk.set_defaults(run=_run_chunk)

    count = sub.add_parser("count", help="count the tokens of each file")
    _add_inputs(count)
    count.add_argument("--tokenizer", default="cl100k_base", help="cl100k_base or o200k_base")
    count.add_argument("--format", choices=["text", "jsonl"], default="text")
    count.set_defaults(run=_run_count)

    for name, (module, help_text) in PLUGINS.items():
        if name == plugin:
            mod = importlib.import_module(module)
            p = sub.add_parser(name, help=help_text)
            mod.add_arguments(p)
            p.set_defaults(run=mod.run)
        elif _available(module):
            sub.add_parser(name, help=help_text, add_help=False)
    return parser


def _available(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # the parent package is missing
        return False


def _quiet_pipe() -> None:
    # Output went to a closed pipe: point stdout at /dev/null so that the interpreter's
    # final flush does not fail again.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``ragchunk`` command with ``argv`` (default: ``sys.argv[1:]``); returns the
    exit status: 0, 1 when a file failed, 2 for a usage error."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    commands = {"chunk", "count", *PLUGINS}
    first = next((a for a in args_list if not a.startswith("-")), None)
    run: Callable[[], int]
    if args_list and args_list[0] not in commands and not _wants_help(args_list):
        run = lambda: single_file(args_list)  # noqa: E731
    else:
        plugin = first if first in PLUGINS else None
        if plugin is not None and not _available(PLUGINS[plugin][0]):
            print(f"ragchunk: the {plugin!r} command is not installed", file=sys.stderr)
            return 2
        args = _parser(plugin).parse_args(args_list)
        run = lambda: int(args.run(args))  # noqa: E731
    try:
        return int(run())
    except BrokenPipeError:
        _quiet_pipe()
        return 0
    except (TypeError, ValueError) as exc:
        print(f"ragchunk: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _read_sample() -> str:
    return (
        importlib.resources.files("ragchunk").joinpath("data/sample.md").read_text(encoding="utf-8")
    )


def single_file(argv: list[str]) -> int:
    """``ragchunk FILE`` / ``--sample``: chunk one text with :func:`ragchunk.naive_merge` and
    print the chunks; returns the exit status."""
    import ragchunk

    parser = argparse.ArgumentParser(
        prog="ragchunk",
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
    if args.sample:
        _print_sample_pdf(args.chunk_token_num)
    return 0


def _print_sample_pdf(chunk_size: int) -> None:
    """The bundled PDF parsed with ragchunk.documents and chunked: each chunk with its pages
    and heading path (without the documents extra: how to install it)."""
    from .documents._batch import available

    name = "ragchunk/data/sample.pdf"
    if not available():
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


def _wants_help(args: list[str]) -> bool:
    return args[0] in ("-h", "--help")


if __name__ == "__main__":
    sys.exit(main())
