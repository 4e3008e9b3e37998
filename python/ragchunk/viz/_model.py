"""What the views show, computed once: the columns (one per chunker, with its chunks, size
budget and semantic diagnostics) and the evaluation overlay (per question, its reference spans
and each column's top-k retrieved chunks)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.checks import check_text
from ..core.chunk import Chunk

__all__ = ["Column", "Overlay", "QuestionView", "build_columns", "build_overlay"]

#: The most chunkers shown side by side.
MAX_COLUMNS = 4


@dataclass
class Column:
    """One chunker's chunks of the source.

    >>> c = Column("lines", [Chunk("ab", 0, 2, 2), Chunk("cd", 3, 5, 2)], budget=1)
    >>> c.over_budget()
    [0, 1]
    """

    name: str
    chunks: list[Chunk]
    budget: int | None = None
    unit: str | None = None
    analysis: Any = None

    def over_budget(self) -> list[int]:
        """Indices of the chunks whose ``token_count`` is over :attr:`budget`."""
        if self.budget is None:
            return []
        return [i for i, c in enumerate(self.chunks) if c.token_count > self.budget]


@dataclass
class QuestionView:
    """One question of the overlay: its reference spans, and per column the indices of the
    retrieved chunks (best first) and the share of the reference characters they cover."""

    id: str
    text: str
    references: list[tuple[int, int]]
    retrieved: list[list[int]] = field(default_factory=list)
    recall: list[float] = field(default_factory=list)


@dataclass
class Overlay:
    """The evaluation overlay: the questions about the source, the ``k`` retrieved per
    question and the retriever's name."""

    questions: list[QuestionView]
    k: int
    retriever: str


def _describe(chunker: Any) -> str:
    name = type(chunker).__name__
    size = getattr(chunker, "chunk_size", None)
    method = getattr(chunker, "breakpoint_threshold_type", None)
    parts = [str(method)] if isinstance(method, str) else []
    if isinstance(size, int) and not isinstance(size, bool):
        parts.append(f"chunk_size={size}")
    overlap = getattr(chunker, "chunk_overlap", None)
    if isinstance(overlap, int) and not isinstance(overlap, bool) and overlap:
        parts.append(f"chunk_overlap={overlap}")
    return f"{name}({', '.join(parts)})"


def _check_chunks(source: str, chunks: object, where: str) -> list[Chunk]:
    if isinstance(chunks, (str, bytes)) or not isinstance(chunks, Sequence):
        raise TypeError(f"{where} must be a list of Chunk, got {type(chunks).__name__}")
    out = []
    for j, c in enumerate(chunks):
        if not isinstance(c, Chunk):
            raise TypeError(f"{where}[{j}] must be a Chunk, got {type(c).__name__}")
        for name in ("start", "end", "token_count"):
            v = getattr(c, name)
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"{where}[{j}].{name} must be an int, got {type(v).__name__}")
        if not 0 <= c.start <= c.end <= len(source):
            raise ValueError(
                f"{where}[{j}]: span [{c.start}, {c.end}) is not inside the source of "
                f"{len(source)} characters"
            )
        out.append(c)
    return out


def _column(source: str, item: object, name: str | None, where: str) -> Column:
    if isinstance(item, Sequence) and not isinstance(item, (str, bytes)):
        return Column(name or f"chunks {where}", _check_chunks(source, item, where))
    analysis = None
    if isinstance(item, (str, bytes)):
        raise TypeError(f"{where} must be a chunker or a list of Chunk, got {type(item).__name__}")
    if callable(getattr(item, "analyze", None)):
        analysis = item.analyze(source)  # type: ignore[attr-defined]
        chunks = analysis.chunks
    elif callable(getattr(item, "split", None)):
        chunks = item.split(source)  # type: ignore[attr-defined]
    else:
        hint = " (it gives no offsets; use TokenWindowSplitter)" if hasattr(item, "invoke") else ""
        raise TypeError(
            f"{where} must be a chunker with split(text) or a list of Chunk, "
            f"got {type(item).__name__}{hint}"
        )
    size = getattr(item, "chunk_size", None)
    budget = size if isinstance(size, int) and not isinstance(size, bool) else None
    unit = getattr(item, "tokenizer_name", None)
    if unit is None and isinstance(getattr(item, "tokenizer", None), str):
        unit = item.tokenizer  # type: ignore[attr-defined]
    return Column(
        name or _describe(item),
        _check_chunks(source, chunks, f"{where} chunks"),
        budget,
        unit if isinstance(unit, str) else None,
        analysis if getattr(analysis, "distances", None) else None,
    )


def build_columns(source: str, chunkers: object) -> list[Column]:
    """The columns of ``chunkers``: one chunker, a list of one to four chunkers or ``Chunk``
    lists, or a mapping of column name to either.

    >>> from ragchunk import RecursiveSplitter
    >>> [c.name for c in build_columns("aa bb", RecursiveSplitter(2, length="chars"))]
    ['RecursiveSplitter(chunk_size=2)']

    Raises:
        TypeError: ``chunkers`` (or one of them) is not a chunker or a list of Chunk.
        ValueError: no chunker, more than four, or a chunk outside the source.
    """
    check_text(source, "source")
    named: list[tuple[str | None, object, str]]
    if isinstance(chunkers, Mapping):
        named = [(str(k), v, f"chunkers[{k!r}]") for k, v in chunkers.items()]
    elif (
        isinstance(chunkers, Sequence)
        and not isinstance(chunkers, (str, bytes))
        and (not chunkers or not isinstance(chunkers[0], Chunk))
    ):
        named = [(None, v, f"chunkers[{i}]") for i, v in enumerate(chunkers)]
    else:
        named = [(None, chunkers, "chunkers")]
    if not named:
        raise ValueError("chunkers must name at least one chunker")
    if len(named) > MAX_COLUMNS:
        raise ValueError(f"chunkers: at most {MAX_COLUMNS} side by side, got {len(named)}")
    columns = [_column(source, item, name, where) for name, item, where in named]
    seen: dict[str, int] = {}
    for col in columns:
        seen[col.name] = seen.get(col.name, 0) + 1
        if seen[col.name] > 1:
            col.name = f"{col.name} #{seen[col.name]}"
    return columns


def _questions(source: str, questions: object) -> list[Any]:
    from ..eval.dataset import Dataset, Question

    if isinstance(questions, Dataset):
        ids = [cid for cid, text in questions.corpora.items() if text == source]
        if not ids:
            raise ValueError("questions: no corpus of the dataset is the source text")
        return [q for q in questions.questions if q.corpus_id in ids]
    if isinstance(questions, (str, bytes)) or not isinstance(questions, Sequence):
        raise TypeError(
            f"questions must be a Dataset or a list of Question, got {type(questions).__name__}"
        )
    out = []
    for i, q in enumerate(questions):
        if not isinstance(q, Question):
            raise TypeError(f"questions[{i}] must be a Question, got {type(q).__name__}")
        for j, r in enumerate(q.references):
            if not 0 <= r.start <= r.end <= len(source) or source[r.start : r.end] != r.content:
                raise ValueError(
                    f"questions[{i}] references[{j}]: [{r.start}, {r.end}) does not slice the "
                    "source to the reference content"
                )
        out.append(q if q.id else Question(q.text, q.corpus_id, q.references, f"q{i}"))
    return out


def _covered(spans: list[tuple[int, int]], refs: list[tuple[int, int]]) -> float:
    total = sum(e - s for s, e in refs)
    if not total:
        return 0.0
    merged: list[list[int]] = []
    for s, e in sorted(spans):
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    hit = 0
    for rs, re_ in refs:
        for s, e in merged:
            hit += max(0, min(e, re_) - max(s, rs))
    return hit / total


def build_overlay(
    source: str, columns: list[Column], questions: object, k: int, retriever: Any
) -> Overlay:
    """Retrieve the top ``k`` chunks of every column for every question about ``source``
    (BM25 unless ``retriever`` is given: anything with ``index(texts).search(queries, k)``).

    >>> from ragchunk.eval import Question, Reference
    >>> text = "Cats purr. Dogs bark. Cows moo."
    >>> spans = [(0, 11), (11, 22), (22, 31)]
    >>> cols = [Column("c", [Chunk(text[s:e], s, e, 3) for s, e in spans])]
    >>> q = Question("Which animal does bark?", "d", (Reference(11, 21, "Dogs bark."),))
    >>> o = build_overlay(text, cols, [q], 1, None)
    >>> o.questions[0].retrieved, o.questions[0].recall
    ([[1]], [1.0])
    """
    from ..eval.retrievers import BM25, check_k

    k = check_k(k)
    qs = _questions(source, questions)
    if retriever is None:
        retriever = BM25()
    if not callable(getattr(retriever, "index", None)):
        raise TypeError(f"retriever must have index(texts), got {type(retriever).__name__}")
    views = [
        QuestionView(q.id, q.text, [(r.start, r.end) for r in q.references if r.end > r.start])
        for q in qs
    ]
    for col in columns:
        hits: list[list[tuple[int, float]]] = (
            retriever.index([c.text for c in col.chunks]).search([q.text for q in qs], k)
            if qs and col.chunks
            else [[] for _ in qs]
        )
        for view, row in zip(views, hits, strict=True):
            ranked = [int(i) for i, _ in row]
            view.retrieved.append(ranked)
            spans = [(col.chunks[i].start, col.chunks[i].end) for i in ranked]
            view.recall.append(_covered(spans, view.references))
    name = getattr(retriever, "name", None) or type(retriever).__name__
    return Overlay(views, k, str(name))


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


class Utf16:
    """Code-point offsets (Python's) to UTF-16 offsets (the browser's) of one text.

    >>> Utf16("a\U0001f600b")(2)
    3
    """

    def __init__(self, text: str) -> None:
        self._astral = (
            []
            if not text or max(text) < "\U00010000"
            else [m.start() for m in _ASTRAL.finditer(text)]
        )

    def __call__(self, offset: int) -> int:
        if not self._astral:
            return offset
        return offset + bisect.bisect_left(self._astral, offset)
