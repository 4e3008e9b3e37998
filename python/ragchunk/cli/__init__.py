"""The ``ragchunk`` command: chunk files and directories in batch, count their tokens, view,
evaluate, estimate, ingest and search.

One parser holds every subcommand. Each lives in its own module of this package with
``add_arguments(parser)`` and ``run(args) -> int``, registered in :data:`COMMANDS`; a module
is imported only when its command runs, and a command whose module is not installed is left
out. ``ragchunk FILE`` and ``ragchunk --sample`` are ``ragchunk file FILE`` and ``ragchunk
file --sample``: the single-file ``naive_merge`` printer, run whenever the first argument is
not a command. ``python -m ragchunk`` and the ``ragchunk`` script are the same program.

A closed pipe (``ragchunk chunk docs | head``) ends the run quietly; bad input ends it with a
one-line message and exit status 2.

Nothing else in ragchunk imports this package: what the commands build on lives in library
modules (:mod:`ragchunk.io.files`, :mod:`ragchunk.core.progress`, :mod:`ragchunk.chunkers`),
re-exported here under the names this module has always offered.

>>> sorted(COMMANDS)
['chunk', 'count', 'estimate', 'eval', 'file', 'ingest', 'search', 'view']
>>> build_chunker("character", {"chunk_overlap": 1}, 4)
CharacterSplitter(chunk_size=4, chunk_overlap=1, drop_last=False)
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from collections.abc import Sequence

from ..chunkers import CHUNKERS, build_chunker, parse_options
from ..core.dispatch import holds_gil
from ..core.progress import Progress
from ..io.files import DEFAULT_INCLUDE, iter_sources

__all__ = [
    "CHUNKERS",
    "COMMANDS",
    "DEFAULT_INCLUDE",
    "PLUGINS",
    "Progress",
    "build_chunker",
    "holds_gil",
    "iter_sources",
    "main",
    "parse_options",
    "single_file",
]

#: Every subcommand: name -> (module, one-line help), in the order ``--help`` lists them.
#: Each module has ``add_arguments(parser)`` and ``run(args) -> int`` (and may have
#: ``PARSER``, keyword arguments of its parser).
COMMANDS = {
    "chunk": ("ragchunk.cli.chunk", "chunk files and directories"),
    "count": ("ragchunk.cli.count", "count the tokens of each file"),
    "eval": ("ragchunk.cli.eval", "evaluate chunkers on a retrieval benchmark"),
    "estimate": ("ragchunk.cli.estimate", "estimate the cost of embedding or prompting chunks"),
    "view": ("ragchunk.cli.view", "show the chunks of a file in an HTML page or the terminal"),
    "ingest": ("ragchunk.cli.ingest", "chunk and embed files into a vector store, incrementally"),
    "search": ("ragchunk.cli.search", "search a store built by ingest; hits with their citations"),
    "file": ("ragchunk.cli.file", "chunk one file with naive_merge and print it (ragchunk FILE)"),
}

#: The table's former name.
PLUGINS = COMMANDS

#: The command a first argument that names none stands for: ``ragchunk FILE``.
DEFAULT_COMMAND = "file"


def _available(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # the parent package is missing
        return False


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``ragchunk`` parser with the arguments of ``command`` (the others are listed by
    name, their modules not imported).

    >>> build_parser("count").parse_args(["count", "a.md"]).tokenizer
    'cl100k_base'
    """
    parser = argparse.ArgumentParser(
        prog="ragchunk", description="Chunk documents for retrieval, in batch."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module, help_text) in COMMANDS.items():
        if name == command:
            mod = importlib.import_module(module)
            p = sub.add_parser(name, help=help_text, **getattr(mod, "PARSER", {}))
            mod.add_arguments(p)
            p.set_defaults(run=mod.run)
        elif _available(module):
            sub.add_parser(name, help=help_text, add_help=False)
    return parser


def _with_default_command(args: list[str]) -> list[str]:
    """``args`` with :data:`DEFAULT_COMMAND` in front when the first names no command
    (``ragchunk notes.md``, ``ragchunk --sample``; not ``ragchunk --help``)."""
    if args and args[0] not in COMMANDS and args[0] not in ("-h", "--help"):
        return [DEFAULT_COMMAND, *args]
    return args


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
    args_list = _with_default_command(list(sys.argv[1:] if argv is None else argv))
    first = next((a for a in args_list if not a.startswith("-")), None)
    command = first if first in COMMANDS else None
    if command is not None and not _available(COMMANDS[command][0]):
        print(f"ragchunk: the {command!r} command is not installed", file=sys.stderr)
        return 2
    args = build_parser(command).parse_args(args_list)
    try:
        return int(args.run(args))
    except BrokenPipeError:
        _quiet_pipe()
        return 0
    except (TypeError, ValueError) as exc:
        print(f"ragchunk: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def single_file(argv: list[str]) -> int:
    """``ragchunk FILE`` / ``--sample``: :func:`main` with ``file`` and ``argv``: chunk one
    text with :func:`ragchunk.naive_merge` and print the chunks; returns the exit status."""
    return main([DEFAULT_COMMAND, *argv])
