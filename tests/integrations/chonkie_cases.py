"""What the Chonkie drop-in tests share: the corpus sample, chunk fields, tokenizers."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

from testdata import CORPUS


@cache
def corpus() -> tuple[tuple[str, str], ...]:
    """Every corpus document as ``(path under the corpus, text)``; empty when it is missing."""
    root = CORPUS
    if not root.is_dir() and os.environ.get("RAGCHUNK_SHARED"):
        root = Path(os.environ["RAGCHUNK_SHARED"]) / "corpus"
    if not root.is_dir():
        return ()
    return tuple(
        (str(p.relative_to(root)), p.read_text(encoding="utf-8"))
        for p in sorted(root.rglob("*.md"))
    )


@cache
def sample(per_script: int = 3) -> tuple[tuple[str, str], ...]:
    """A few documents of each corpus folder (every script): the first, the largest and the
    middle one by path."""
    by_folder: dict[str, list[tuple[str, str]]] = {}
    for name, text in corpus():
        by_folder.setdefault(name.split("/")[0], []).append((name, text))
    out = []
    for docs in by_folder.values():
        picks = {0, len(docs) // 2, max(range(len(docs)), key=lambda i: len(docs[i][1]))}
        out += [docs[i] for i in sorted(picks)[:per_script]]
    return tuple(out)


def fields(chunks: list[Any]) -> list[tuple[str, int, int, int]]:
    return [(c.text, c.start_index, c.end_index, c.token_count) for c in chunks]


def tokenizer(name: str) -> Any:
    import tiktoken

    return name if name == "character" else tiktoken.get_encoding(name)


@cache
def tables() -> tuple[tuple[str, str], ...]:
    """Every Markdown table of the corpus (runs of three or more lines starting with ``|``)
    as ``(path under the corpus, table)``; empty when the corpus is missing."""
    out = []
    for name, text in corpus():
        run: list[str] = []
        for line in [*text.split("\n"), ""]:
            if line.startswith("|"):
                run.append(line)
                continue
            if len(run) >= 3:
                out.append((name, "\n".join(run)))
            run = []
    return tuple(out)
