"""What the embedding-driven chunkers share: sentence units cut to fit, exact spans, token
counts, diagnostics, the hard maximum."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.checks import check_int, check_text
from ..core.chunk import Chunk, Splitter, check_texts, check_workers
from ..core.counting import Counter
from ..core.optional import np
from ..embeddings.base import ManagedEmbedder, as_embedder
from ..embeddings.counting import BatchCounter
from ..splitters.sentence import SentenceSplitter

__all__ = ["EmbeddingChunker", "SemanticAnalysis"]


@dataclass
class SemanticAnalysis:
    """What a semantic chunker saw in one text: the units (sentence spans, code points), the
    distance between consecutive units (``distances[i]`` between unit ``i`` and ``i + 1``),
    the array the threshold was compared with (the distances, or their gradient), the
    ``threshold``, the ``breakpoints`` (a cut after unit ``i`` for each ``i``) and the chunks.

    >>> a = SemanticAnalysis(units=[(0, 2), (3, 5)], distances=[0.5], threshold=0.4,
    ...                      breakpoints=[0])
    >>> a.segments()
    [(0, 0), (1, 1)]
    """

    units: list[tuple[int, int]]
    distances: list[float]
    threshold: float | None = None
    breakpoints: list[int] = field(default_factory=list)
    breakpoint_array: list[float] | None = None
    chunks: list[Chunk] = field(default_factory=list)
    method: str = ""

    def segments(self) -> list[tuple[int, int]]:
        """``(first unit, last unit)`` of each segment between breakpoints."""
        out, start = [], 0
        for b in sorted(self.breakpoints):
            out.append((start, b))
            start = b + 1
        if start < len(self.units):
            out.append((start, len(self.units) - 1))
        return out

    def plot(self, path: Any = None, **kwargs: Any) -> Any:
        """:func:`ragchunk.semantic.plot` of this analysis."""
        from .plot import plot

        return plot(self, path, **kwargs)


def group_spans(
    text: str, units: Sequence[tuple[int, int]], groups: Sequence[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Source extents of unit groups that together cover the whole text: a group runs from
    its first unit's start (0 for the first group) to the next group's first unit's start
    (the text's end for the last), so the whitespace between units belongs to the group
    before it.

    >>> group_spans("Ab. Cd. Ef.", [(0, 3), (4, 7), (8, 11)], [(0, 0), (1, 2)])
    [(0, 4), (4, 11)]
    """
    return unit_extents(text, [units[first] for first, _last in groups])


def unit_extents(text: str, units: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """``group_spans`` of every unit on its own.

    >>> unit_extents("Ab. Cd.", [(0, 3), (4, 7)])
    [(0, 4), (4, 7)]
    """
    if not units:
        return []
    starts = [s for s, _e in units]
    starts[0] = 0
    ends = starts[1:]
    ends.append(len(text))
    return list(zip(starts, ends, strict=True))


def slices(text: str, spans: Sequence[tuple[int, int]]) -> list[str]:
    """``[text[s:e] for s, e in spans]``, with the loop in C."""
    return list(map(text.__getitem__, itertools.starmap(slice, spans)))


class EmbeddingChunker(Splitter):
    """Base of the embedding-driven chunkers (subclasses give ``_cuts``).

    Units are the sentences of ragchunk's sentence splitter (CJK included); a sentence longer
    than ``chunk_size`` tokens, or than the embedder's window, is first cut (clauses, words,
    characters) so that every unit fits both. Chunks are exact source spans that together
    cover the whole text; a text of only whitespace is one chunk (``sentences`` None).
    """

    embedder: ManagedEmbedder | None
    # the last text's unit and group counts, reused by the next steps of the same call
    _memo: tuple[str, list[tuple[int, int]], list[int]] | None = None
    _memo_groups: tuple[str, list[tuple[int, int]], list[int]] | None = None
    chunk_size: int | None
    tokenizer: Any
    _count: BatchCounter
    _count_spans: Callable[[str, Sequence[tuple[int, int]]], list[int]]

    def _setup(self, embedder: Any, chunk_size: int | None, tokenizer: Any) -> None:
        self.embedder = None if embedder is None else as_embedder(embedder)
        self.chunk_size = None if chunk_size is None else check_int("chunk_size", chunk_size, 1)
        self.tokenizer = tokenizer
        counter = Counter(tokenizer)
        self._count = counter.batch
        self._count_spans = counter.spans

    # -- units ---------------------------------------------------------------------------------

    def _fit(
        self,
        text: str,
        spans: list[tuple[int, int]],
        limit: int,
        tokenizer: Any,
        count: Callable[[Sequence[str]], list[int]],
    ) -> list[tuple[int, int]]:
        """``spans`` with each span over ``limit`` tokens cut by a sentence splitter."""
        counts = count(slices(text, spans))
        if all(n <= limit for n in counts):
            return spans
        cutter = SentenceSplitter(chunk_size=limit, tokenizer=tokenizer)
        out: list[tuple[int, int]] = []
        for (s, e), n in zip(spans, counts, strict=True):
            if n <= limit:
                out.append((s, e))
                continue
            for c in cutter.split(text[s:e]):
                out.append((s + c.start, s + c.end))
        return out

    def units(self, text: str) -> list[tuple[int, int]]:
        """Sentence spans of ``text``, each within the embedder's window and, with the
        whitespace that follows it, within ``chunk_size``."""
        units = SentenceSplitter.sentence_spans(text)  # a list of (int, int) on both backends
        e = self.embedder
        if e is not None and e.max_tokens is not None:
            units = self._fit(text, units, e.max_tokens, e.tokenizer, e.count_tokens)
        if self.chunk_size is None or not units:
            return units
        limit = self.chunk_size
        fitted_at: int | None = None
        while True:
            counts = self._count_spans(text, unit_extents(text, units))
            over = [i for i, n in enumerate(counts) if n > self.chunk_size]
            if not over or (limit == 1 and fitted_at == 1):
                self._memo = (text, units, counts)
                return units
            if fitted_at == limit:  # cut at this limit already: leave room for whitespace
                limit = max(1, limit - max(1, max(counts[i] for i in over) - self.chunk_size))
            units = self._fit(text, units, limit, self.tokenizer, self._count)
            fitted_at = limit

    def windows(self, text: str, units: list[tuple[int, int]], buffer: int) -> list[str]:
        """For each unit, the source slice from ``buffer`` units before to ``buffer`` after,
        narrowed (the far side first) until it fits the embedder's window."""
        n = len(units)
        embedder = self.embedder
        assert embedder is not None
        if n == 0:
            return []
        starts = [s for s, _e in units]
        ends = [e for _s, e in units]
        # unit i's window runs from unit max(0, i - buffer) to unit min(n - 1, i + buffer)
        first = [starts[0]] * min(buffer, n) + starts[: max(0, n - buffer)]
        last = ends[buffer:] + [ends[-1]] * min(buffer, n)
        out = slices(text, list(zip(first, last, strict=True)))
        limit = embedder.max_tokens
        if limit is None or buffer == 0:
            return out
        for i, count in enumerate(embedder.count_tokens(out)):
            if count <= limit:
                continue
            lo, hi = max(0, i - buffer), min(n - 1, i + buffer)
            window = out[i]
            while lo < i or hi > i:
                if i - lo >= hi - i and lo < i:
                    lo += 1
                else:
                    hi -= 1
                window = text[starts[lo] : ends[hi]]
                if embedder.count_tokens([window])[0] <= limit:
                    break
            out[i] = window
        return out

    # -- chunks --------------------------------------------------------------------------------

    def _cuts(self, text: str, units: list[tuple[int, int]]) -> SemanticAnalysis:
        raise NotImplementedError

    def _enforce_max(
        self,
        text: str,
        units: list[tuple[int, int]],
        distances: Sequence[float],
        groups: list[tuple[int, int]],
        reasons: dict[int, str],
    ) -> list[tuple[int, int]]:
        """Groups over ``chunk_size`` cut at their largest internal distance, recursively
        (down to single units, which fit by construction). Sizes are first estimated from the
        units' own counts, then every group is counted exactly and any group still over the
        limit is cut again, so the maximum holds on exact counts."""
        if self.chunk_size is None:
            return groups
        limit = self.chunk_size
        memo = self._memo
        if memo is not None and memo[0] is text and memo[1] is units:
            unit_counts = memo[2]
        else:
            unit_counts = self._count_spans(text, unit_extents(text, units))
        prefix = list(itertools.accumulate(unit_counts, initial=0))
        dist = np.asarray([*distances, 0.0], dtype=np.float64)

        def cut_point(first: int, last: int) -> int:
            # a cut after unit i, first <= i < last: the largest distance (the first of equals)
            return first + int(np.argmax(dist[first:last]))

        def split(
            group: tuple[int, int], fits: Callable[[int, int], bool]
        ) -> list[tuple[int, int]]:
            out: list[tuple[int, int]] = []
            todo = [group]
            while todo:
                first, last = todo.pop()
                if first == last or fits(first, last):
                    out.append((first, last))
                    continue
                cut = cut_point(first, last)
                reasons[cut] = "max_size"
                todo.append((cut + 1, last))
                todo.append((first, cut))
            return out

        estimated: list[tuple[int, int]] = []
        for g in groups:
            estimated.extend(split(g, lambda a, b: prefix[b + 1] - prefix[a] <= limit))

        def exact(first: int, last: int) -> int:
            start = 0 if first == 0 else units[first][0]
            end = units[last + 1][0] if last + 1 < len(units) else len(text)
            return self._count([text[start:end]])[0]

        spans = group_spans(text, units, estimated)
        counts = self._count_spans(text, spans)
        final: list[tuple[int, int]] = []
        exact_counts: list[int] = []
        for g, n in zip(estimated, counts, strict=True):
            if n <= limit or g[0] == g[1]:
                final.append(g)
                exact_counts.append(n)
            else:
                parts = split(g, lambda a, b: exact(a, b) <= limit)
                final.extend(parts)
                exact_counts.extend(exact(a, b) for a, b in parts)
        self._memo_groups = (text, final, exact_counts)
        return final

    def _chunks(
        self,
        text: str,
        units: list[tuple[int, int]],
        groups: list[tuple[int, int]],
        distances: Sequence[float],
        reasons: dict[int, str],
    ) -> list[Chunk]:
        spans = group_spans(text, units, groups)
        memo = self._memo_groups
        if memo is not None and memo[0] is text and memo[1] is groups:
            counts = memo[2]
        else:
            counts = self._count_spans(text, spans)
        out = []
        for k, ((first, last), (s, e), n) in enumerate(zip(groups, spans, counts, strict=True)):
            meta: dict[str, Any] = {
                "sentences": (first, last),
                "distance_before": distances[first - 1] if first > 0 else None,
                "distance_after": distances[last] if last < len(distances) else None,
                "cut": reasons.get(last, "threshold") if k + 1 < len(groups) else "end",
            }
            out.append(Chunk(text[s:e], s, e, n, meta))
        return out

    def analyze(self, text: str) -> SemanticAnalysis:
        """The chunks of ``text`` and the diagnostics behind them."""
        text = check_text(text)
        if not text.strip():
            if not text:
                return SemanticAnalysis([], [], method=self._method())
            n = self._count([text])[0]
            return SemanticAnalysis(
                [],
                [],
                chunks=[Chunk(text, 0, len(text), n, {"sentences": None, "cut": "end"})],
                method=self._method(),
            )
        units = self.units(text)
        return self._cuts(text, units)

    def _method(self) -> str:
        return type(self).__name__

    def split(self, text: str) -> list[Chunk]:
        """Chunks with code-point offsets; together they cover ``text`` exactly."""
        return self.analyze(text).chunks

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many texts, in input order (one after another: the embedder's
        own batching and concurrency do the parallel work)."""
        check_workers(workers)
        return [self.split(t) for t in check_texts(texts)]
