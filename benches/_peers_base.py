"""What every pair of the peers harness (``benches/peers.py``) shares: the documents, the
checks on each side's chunks, and the adapters that turn a library's result into them."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _corpus import CORPUS, generated_corpus, offline_tiktoken  # noqa: E402

offline_tiktoken()

import tiktoken  # noqa: E402

SIZE = 512
ENC = tiktoken.get_encoding("cl100k_base")

#: One chunk as the checks see it: its text, the offsets where the chunker reports them, and
#: the text it documents as added in front (``metadata["added_prefix"]``, else "").
Out = tuple[str, "int | None", "int | None", str]


@dataclass
class Side:
    """One chunker: ``run(docs)`` is timed, ``chunks(raw, docs)`` (not timed) turns its
    result into one list of :data:`Out` per document; ``prepare()`` runs before each round."""

    name: str
    run: Callable[[list[str]], Any]
    chunks: Callable[[Any, list[str]], list[list[Out]]]
    prepare: Callable[[], None] | None = None
    extra: Callable[[], dict[str, Any]] | None = None
    after_warm_up: Callable[[], None] | None = None


@dataclass
class Pair:
    name: str
    peer: Side
    ours: Side
    semantic: bool = False
    note: str = ""
    times: dict[str, list[float]] = field(default_factory=lambda: {"peer": [], "ours": []})
    checks: dict[str, dict[str, Any]] = field(default_factory=dict)
    same: bool = True
    docs: int = 0


# -- documents ------------------------------------------------------------------------------------


def documents(limit_mb: float | None) -> tuple[str, list[str]]:
    """The corpus documents, one source after another in turn (d2l-zh, hugo-docs-en, ...),
    up to ``limit_mb`` megabytes of UTF-8."""
    if CORPUS.is_dir():
        by_source = [
            sorted(p for p in src.rglob("*.md")) for src in sorted(CORPUS.iterdir()) if src.is_dir()
        ]
        order: list[Path] = []
        for i in range(max(map(len, by_source), default=0)):
            order.extend(paths[i] for paths in by_source if i < len(paths))
        texts = (p.read_text(encoding="utf-8") for p in order)
        label = "../shared/corpus"
    else:
        texts = iter(generated_corpus())
        label = "generated multilingual corpus"
    docs: list[str] = []
    total = 0
    for t in texts:
        if limit_mb is not None and total >= limit_mb * 1e6:
            break
        docs.append(t)
        total += len(t.encode("utf-8"))
    return f"{label}: {len(docs)} documents, {total / 1e6:.2f} MB", docs


def cut_documents(docs: list[str], kb: float) -> list[str]:
    """Every document cut at blank lines into pieces of about ``kb`` kilobytes (the sizes
    vary from half to one and a half times that): many documents of ordinary length, where a
    chunker's fixed cost per call counts."""
    out: list[str] = []
    for d in docs:
        piece: list[str] = []
        size, target = 0, kb * 1e3 * (0.5 + (len(out) * 0.618) % 1)
        for para in d.split("\n\n"):
            piece.append(para)
            size += len(para) + 2
            if size >= target:
                out.append("\n\n".join(piece))
                piece, size = [], 0
                target = kb * 1e3 * (0.5 + (len(out) * 0.618) % 1)
        if piece:
            out.append("\n\n".join(piece))
    return out


def semantic_documents(n: int, chars: int, docs: list[str]) -> list[str]:
    """``n`` documents spread over ``docs`` (every k-th), each cut to ``chars`` characters."""
    step = max(1, len(docs) // max(1, n))
    return [d[:chars] for d in docs[::step][:n]]


# -- checks ---------------------------------------------------------------------------------------

_WS = re.compile(r"\s+")


def lossless(doc: str, texts: list[str]) -> str:
    cursor = 0
    for t in texts:
        if not t:
            continue
        pos = doc.find(t, cursor)
        if pos < 0 or (pos > cursor and not doc[cursor:pos].isspace()):
            break
        cursor = pos + len(t)
    else:
        if cursor == len(doc) or doc[cursor:].isspace():
            return "verbatim"
    if _WS.sub("", "".join(texts)) == _WS.sub("", doc):
        return "whitespace"
    return "LOSSY"


def check(docs: list[str], outs: list[list[Out]]) -> dict[str, Any]:
    """The three checks over every document's chunks."""
    kinds = {"verbatim": 0, "whitespace": 0, "LOSSY": 0}
    bad_offsets, with_offsets, n, largest, over, fffd = 0, 0, 0, 0, 0, 0
    added = 0
    for doc, chunks in zip(docs, outs, strict=True):
        texts = [c[0] for c in chunks]
        kinds[lossless(doc, [t[len(a) :] for t, _, _, a in chunks])] += 1
        fffd += max(0, sum(t.count("\ufffd") for t in texts) - doc.count("\ufffd"))
        for text, s, e, a in chunks:
            added += bool(a)
            if s is not None and e is not None:
                with_offsets += 1
                bad_offsets += a + doc[s:e] != text
        counts = [len(x) for x in ENC.encode_ordinary_batch(texts)] if texts else []
        n += len(texts)
        largest = max([largest, *counts])
        over += sum(c > SIZE for c in counts)
    worst = "LOSSY" if kinds["LOSSY"] else ("whitespace" if kinds["whitespace"] else "verbatim")
    return {
        "chunks": n,
        "lossless": worst,
        "docs_by_lossless": kinds,
        "replacement_chars": fffd,
        "documented_additions": added,
        "offsets_checked": with_offsets,
        "offsets_wrong": bad_offsets if with_offsets else None,
        "max_tokens": largest,
        "over_budget": over,
    }


def same_texts(a: list[list[Out]], b: list[list[Out]]) -> bool:
    return all([c[0] for c in x] == [c[0] for c in y] for x, y in zip(a, b, strict=True))


# -- adapters -------------------------------------------------------------------------------------


def each(fn: Callable[[str], Any]) -> Callable[[list[str]], list[Any]]:
    return lambda docs: [fn(d) for d in docs]


def from_chunks(raw: list[list[Any]], docs: list[str]) -> list[list[Out]]:
    """ragchunk ``Chunk`` objects."""
    return [
        [
            (c.text, c.start, c.end, c.metadata.get("added_prefix", ""))
            if not c.metadata.get("rejoined")
            else (c.text, None, None, "")  # joined with spaces: offsets span, not slice
            for c in cs
        ]
        for cs in raw
    ]


def from_chonkie(raw: list[list[Any]], docs: list[str]) -> list[list[Out]]:
    return [[(c.text, c.start_index, c.end_index, "") for c in cs] for cs in raw]


def from_strings(raw: list[list[str]], docs: list[str]) -> list[list[Out]]:
    return [[(t, None, None, "") for t in ts] for ts in raw]


def from_indices(raw: list[list[tuple[int, str]]], docs: list[str]) -> list[list[Out]]:
    """semantic-text-splitter's ``(character offset, text)`` pairs."""
    return [[(t, i, i + len(t), "") for i, t in cs] for cs in raw]


def from_semchunk(raw: list[tuple[list[str], list[tuple[int, int]]]], docs: list[str]):
    return [[(t, s, e, "") for t, (s, e) in zip(ts, offs, strict=True)] for ts, offs in raw]


def llama_nodes(parser: Any) -> Callable[[Any, list[str]], list[list[Out]]]:
    """A LlamaIndex parser's ``split_text`` result checked with the offsets of its nodes."""

    def chunks(raw: list[list[str]], docs: list[str]) -> list[list[Out]]:
        from llama_index.core import Document

        out = []
        for d in docs:
            nodes = parser.get_nodes_from_documents([Document(text=d)])
            out.append([(n.text, n.start_char_idx, n.end_char_idx, "") for n in nodes])
        return out

    return chunks
