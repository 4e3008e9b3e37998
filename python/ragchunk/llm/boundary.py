"""LLMBoundaryChunker: the model says where topics shift; chunks stay exact source spans."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any, Literal

from ..core.checks import check_int, check_text
from ..core.chunk import Chunk, check_texts
from ..core.counting import Counter
from ..splitters.sentence import SentenceSplitter
from ..splitters.token_window import TokenWindowSplitter
from .base import LLM, Estimate, LLMError, Price, Prompt, as_llm
from .prompts import BOUNDARY_PROMPT, PromptTemplate, as_template
from .runner import Job, ModelChunker, json_payload

__all__ = ["LLMBoundaryChunker", "parse_indices"]

_BARE = re.compile(r"^\s*\[?\s*(\d+(\s*[,;\s]\s*\d+)*)?\s*\]?\s*\.?\s*$")
_REASK = (
    "\n\nYour previous answer could not be used ({reason}). Answer again with only a JSON "
    "list of increasing integers between {first} and {last}."
)


def parse_indices(answer: str, first: int, last: int) -> list[int]:
    """The piece numbers in a model answer: a JSON list (possibly fenced or inside prose, or
    under a single key of a JSON object) or a bare list such as ``3, 7, 12``. Raises
    ``ValueError`` saying why when the answer is malformed, out of order or out of range.

    >>> parse_indices("```json\\n[4, 9]\\n```", 0, 10)
    [4, 9]
    >>> parse_indices("4, 9", 0, 10)
    [4, 9]
    >>> parse_indices("[9, 4]", 0, 10)
    Traceback (most recent call last):
    ...
    ValueError: numbers out of order: [9, 4]
    """
    if not isinstance(answer, str):
        raise ValueError(f"the answer is {type(answer).__name__}, not text")
    values: Any
    bare = _BARE.match(answer)
    if bare:
        values = [int(x) for x in re.findall(r"\d+", answer)]
    else:
        try:
            values = json_payload(answer, "[")
        except ValueError:
            try:
                obj = json_payload(answer, "{")
            except ValueError:
                raise ValueError("no list of numbers in the answer") from None
            lists = (
                [v for v in obj.values() if isinstance(v, list)] if isinstance(obj, dict) else []
            )
            if len(lists) != 1:
                raise ValueError("no list of numbers in the answer") from None
            values = lists[0]
    if not isinstance(values, list):
        raise ValueError("the answer is not a list")
    out: list[int] = []
    for v in values:
        if isinstance(v, bool):
            raise ValueError(f"not a piece number: {v!r}")
        if isinstance(v, str) and v.strip().isdigit():
            v = int(v.strip())
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if not isinstance(v, int):
            raise ValueError(f"not a piece number: {v!r}")
        out.append(v)
    if any(b <= a for a, b in itertools.pairwise(out)):
        raise ValueError(f"numbers out of order: {out}")
    bad = [v for v in out if not first <= v <= last]
    if bad:
        raise ValueError(f"numbers out of range {first}..{last}: {bad}")
    return out


class LLMBoundaryChunker(ModelChunker):
    """Chunks whose boundaries a language model chooses, cut from the source exactly.

    The text is cut into numbered candidate pieces (``pieces="sentences"``, ragchunk's
    sentence rules, or ``"tokens"``, windows of ``piece_size`` tokens). The model sees
    ``window`` pieces at a time (consecutive windows share ``window_overlap`` pieces) and
    answers with the numbers of the pieces that start a new topic. An answer that is malformed,
    out of order or out of range is asked again, up to ``max_reasks`` times; then that window
    falls back to size-based cuts (its chunks carry ``metadata["fallback"] = True``). Chunks
    are then held between ``min_chunk_size`` and ``chunk_size`` tokens: a longer stretch is
    cut at piece boundaries, a shorter one joins a neighbour when the two fit. A text of at
    most ``chunk_size`` tokens is one chunk, without a call.

    Every chunk is ``source[start:end]``: no text is lost or rewritten, and only whitespace
    between pieces is outside the chunks. ``metadata``: ``pieces`` (first and one past the
    last piece index), ``cut`` (why the chunk starts here: ``"start"``, ``"model"`` or
    ``"size"``) and ``fallback``. A model call that fails after its retries raises
    :class:`~ragchunk.llm.LLMError` naming the document and window (``on_error="raise"``), or
    falls back to size-based cuts with ``metadata["llm_error"]`` (``on_error="keep"``).

    >>> import re
    >>> def model(prompt):  # a stand-in for a real model: a new topic starts at "Dogs"
    ...     pieces = re.findall(r"\\[(\\d+)\\] (\\w+)", prompt)
    ...     return "[" + ",".join(n for n, word in pieces if word == "Dogs") + "]"
    >>> text = "Cats purr. Cats nap a lot. Dogs bark. They fetch sticks."
    >>> chunker = LLMBoundaryChunker(model, chunk_size=12, min_chunk_size=1)
    >>> [c.text for c in chunker.split(text)]
    ['Cats purr. Cats nap a lot.', 'Dogs bark. They fetch sticks.']
    """

    def __init__(
        self,
        llm: Any,
        chunk_size: int = 512,
        *,
        min_chunk_size: int | None = None,
        pieces: Literal["sentences", "tokens"] = "sentences",
        piece_size: int = 64,
        window: int = 40,
        window_overlap: int = 4,
        max_reasks: int = 2,
        prompt: PromptTemplate | str | None = None,
        tokenizer: Any = "cl100k_base",
        on_error: Literal["raise", "keep"] = "raise",
        completion_allowance: int = 24,
    ) -> None:
        self.llm: LLM = as_llm(llm)
        self.chunk_size = check_int("chunk_size", chunk_size, 1)
        if min_chunk_size is None:
            min_chunk_size = chunk_size // 4
        self.min_chunk_size = check_int("min_chunk_size", min_chunk_size, 0)
        if self.min_chunk_size > self.chunk_size:
            raise ValueError(
                f"min_chunk_size ({min_chunk_size}) must not exceed chunk_size ({chunk_size})"
            )
        if pieces not in ("sentences", "tokens"):
            raise ValueError(f"pieces must be 'sentences' or 'tokens', got {pieces!r}")
        self.pieces = pieces
        self.piece_size = check_int("piece_size", piece_size, 1)
        self.window = check_int("window", window, 2)
        self.window_overlap = check_int("window_overlap", window_overlap, 0)
        if self.window_overlap >= self.window:
            raise ValueError("window_overlap must be smaller than window")
        self.max_reasks = check_int("max_reasks", max_reasks, 0)
        self.prompt = as_template(prompt, BOUNDARY_PROMPT, BOUNDARY_PROMPT.fields)
        if on_error not in ("raise", "keep"):
            raise ValueError(f"on_error must be 'raise' or 'keep', got {on_error!r}")
        self.on_error = on_error
        self.completion_allowance = check_int("completion_allowance", completion_allowance, 0)
        self.tokenizer = tokenizer
        self._count = Counter(tokenizer)
        self._sentences_cut = SentenceSplitter(chunk_size=self.chunk_size, tokenizer=tokenizer)
        self._windows_cut = TokenWindowSplitter(
            chunk_size=min(self.piece_size, self.chunk_size), tokenizer=tokenizer
        )

    def __repr__(self) -> str:
        return (
            f"LLMBoundaryChunker({self.llm!r}, chunk_size={self.chunk_size}, "
            f"min_chunk_size={self.min_chunk_size}, pieces={self.pieces!r}, window={self.window})"
        )

    # -- pieces and windows -------------------------------------------------------------------

    def candidate_pieces(self, text: str) -> list[tuple[int, int]]:
        """The numbered candidate pieces of ``text``: ``(start, end)`` offsets, in order.

        >>> LLMBoundaryChunker(str, chunk_size=50).candidate_pieces("One. Two.")
        [(0, 4), (5, 9)]
        """
        text = check_text(text)
        if self.pieces == "tokens":
            return [(c.start, c.end) for c in self._windows_cut.split(text)]
        out: list[tuple[int, int]] = []
        for s, e in SentenceSplitter.sentence_spans(text):
            if self._count(text[s:e]) <= self.chunk_size:
                out.append((s, e))
            else:  # a sentence over the budget is cut at clauses, words, characters
                out.extend((s + c.start, s + c.end) for c in self._sentences_cut.split(text[s:e]))
        return out

    def _windows(self, n: int) -> list[tuple[int, int]]:
        step = self.window - self.window_overlap
        out = []
        a = 0
        while True:
            b = min(n, a + self.window)
            out.append((a, b))
            if b >= n:
                return out
            a += step

    def _prompt(
        self, text: str, spans: list[tuple[int, int]], a: int, b: int
    ) -> list[dict[str, str]]:
        listing = "\n".join(f"[{i}] {text[s:e]}" for i, (s, e) in enumerate(spans[a:b], a))
        example = f"{min(a + 3, b - 1)}, {min(a + 9, b - 1)}" if b - a > 10 else str(b - 1)
        return self.prompt.render(first=str(a), last=str(b - 1), example=example, pieces=listing)

    # -- the work -----------------------------------------------------------------------------

    def _job(self, text: str, document: int) -> Job[list[Chunk]]:
        spans = self.candidate_pieces(text)
        if not spans:
            return []
        if self._count(text[spans[0][0] : spans[-1][1]]) <= self.chunk_size:
            return self._assemble(text, spans, set(), set(), {})
        windows = self._windows(len(spans))
        base = [self._prompt(text, spans, a, b) for a, b in windows]
        cuts: set[int] = set()
        failed: dict[int, str] = {}  # window -> why it fell back
        errors: dict[int, str] = {}
        todo = list(range(len(windows)))
        prompts: list[Prompt] = [base[k] for k in todo]
        for round_ in range(self.max_reasks + 1):
            answers = yield prompts
            retry: list[int] = []
            retry_prompts: list[Prompt] = []
            for k, answer in zip(todo, answers, strict=True):
                a, b = windows[k]
                if isinstance(answer, BaseException):
                    if self.on_error == "raise":
                        raise LLMError(
                            f"window {k} (pieces {a}-{b - 1}): the model call failed: {answer}",
                            document=document,
                        ) from answer
                    errors[k] = f"{type(answer).__name__}: {answer}"
                    continue
                try:
                    found = parse_indices(answer, a, b - 1)
                except ValueError as why:
                    if round_ < self.max_reasks:
                        retry.append(k)
                        messages = [dict(m) for m in base[k]]
                        messages[-1]["content"] += _REASK.format(reason=why, first=a, last=b - 1)
                        retry_prompts.append(messages)
                    else:
                        failed[k] = str(why)
                    continue
                cuts.update(i for i in found if i > 0)
            if not retry:
                break
            todo, prompts = retry, retry_prompts
        fallback: set[int] = set()
        for k in list(failed) + list(errors):
            a, b = windows[k]
            fallback.update(range(a, b))
        return self._assemble(text, spans, cuts, fallback, errors)

    def _assemble(
        self,
        text: str,
        spans: list[tuple[int, int]],
        cuts: set[int],
        fallback: set[int],
        errors: dict[int, str],
    ) -> list[Chunk]:
        n = len(spans)
        starts = sorted({0, *(i for i in cuts if 0 < i < n)})
        # (first piece, one past last, why it starts)
        segments: list[tuple[int, int, str]] = []
        for j, a in enumerate(starts):
            b = starts[j + 1] if j + 1 < len(starts) else n
            segments.extend(self._fit(text, spans, a, b, "start" if a == 0 else "model"))
        segments = self._merge_small(text, spans, segments)
        error_note = "; ".join(errors.values()) if errors else None
        chunks = []
        for a, b, why in segments:
            s, e = spans[a][0], spans[b - 1][1]
            meta: dict[str, Any] = {
                "pieces": (a, b),
                "cut": why,
                "fallback": any(i in fallback for i in range(a, b)),
            }
            if error_note is not None and meta["fallback"]:
                meta["llm_error"] = error_note
            chunks.append(Chunk(text[s:e], s, e, self._count(text[s:e]), meta))
        return chunks

    def _size(self, text: str, spans: list[tuple[int, int]], a: int, b: int) -> int:
        return self._count(text[spans[a][0] : spans[b - 1][1]])

    def _fit(
        self, text: str, spans: list[tuple[int, int]], a: int, b: int, why: str
    ) -> list[tuple[int, int, str]]:
        """Pieces ``a..b`` as segments of at most ``chunk_size`` tokens (greedy)."""
        out = []
        start = a
        while start < b:
            end = start + 1
            while end < b and self._size(text, spans, start, end + 1) <= self.chunk_size:
                end += 1
            out.append((start, end, why if start == a else "size"))
            start = end
        return out

    def _merge_small(
        self, text: str, spans: list[tuple[int, int]], segments: list[tuple[int, int, str]]
    ) -> list[tuple[int, int, str]]:
        if self.min_chunk_size <= 0:
            return segments
        segs = list(segments)
        i = 0
        while i < len(segs):
            a, b, why = segs[i]
            if len(segs) == 1 or self._size(text, spans, a, b) >= self.min_chunk_size:
                i += 1
                continue
            options = []
            if i > 0:
                pa, _, pwhy = segs[i - 1]
                size = self._size(text, spans, pa, b)
                if size <= self.chunk_size:
                    options.append((size, i - 1, (pa, b, pwhy)))
            if i + 1 < len(segs):
                _, nb, _ = segs[i + 1]
                size = self._size(text, spans, a, nb)
                if size <= self.chunk_size:
                    options.append((size, i, (a, nb, why)))
            if not options:
                i += 1
                continue
            _, at, merged = min(options)
            segs[at : at + 2] = [merged]
            i = max(0, at)
        return segs

    # -- public -------------------------------------------------------------------------------

    def estimate(self, texts: str | Sequence[str], price: Price | None = None) -> Estimate:
        """The calls and tokens :meth:`split_batch` would use, without calling the model
        (re-asks not counted; ``completion_allowance`` tokens per call).

        >>> e = LLMBoundaryChunker(str, chunk_size=4, window=4, window_overlap=1).estimate(
        ...     "A b. C d. E f. G h. I j."
        ... )
        >>> e.calls, e.prompt_tokens > 0
        (2, True)
        """
        docs = [texts] if isinstance(texts, str) else check_texts(texts)
        calls = prompt_tokens = 0
        for text in docs:
            spans = self.candidate_pieces(text)
            if not spans or self._count(text[spans[0][0] : spans[-1][1]]) <= self.chunk_size:
                continue
            for a, b in self._windows(len(spans)):
                calls += 1
                prompt_tokens += self.llm.prompt_tokens(self._prompt(text, spans, a, b))
        return Estimate(calls, prompt_tokens, calls * self.completion_allowance, price, len(docs))
