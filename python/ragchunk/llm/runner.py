"""Running chunkers written as generators of model-call rounds, synchronously or on asyncio.

A chunker's work on one document is a generator: it yields a list of prompts (one round of
independent calls), receives the answers (a ``str`` or the exception of a failed call, in
order) and finally returns its result. Rounds of several documents run together, so calls of
different documents share the model's concurrency bound.
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator, Sequence
from typing import Any, TypeVar

from ..core.checks import check_text
from ..core.chunk import Chunk, Splitter, check_texts
from .base import LLM, Prompt

T = TypeVar("T")
Answer = "str | BaseException"
Job = Generator[list[Prompt], list[Any], T]

__all__ = ["ModelChunker", "adrive", "drive", "json_payload"]


def drive(llm: LLM, jobs: Sequence[Job[T]]) -> list[T]:
    """Run ``jobs`` to completion with threads; results in input order."""
    results: list[Any] = [None] * len(jobs)
    pending = _start(jobs, results)
    while pending:
        order, prompts = _round(pending)
        _deliver(jobs, order, pending, llm.complete_many(prompts), results)
    return results


async def adrive(llm: LLM, jobs: Sequence[Job[T]]) -> list[T]:
    """Run ``jobs`` to completion on the running event loop; results in input order."""
    results: list[Any] = [None] * len(jobs)
    pending = _start(jobs, results)
    while pending:
        order, prompts = _round(pending)
        _deliver(jobs, order, pending, await llm.acomplete_many(prompts), results)
    return results


def _start(jobs: Sequence[Job[Any]], results: list[Any]) -> dict[int, list[Prompt]]:
    pending: dict[int, list[Prompt]] = {}
    for i, job in enumerate(jobs):
        _advance(job, i, None, pending, results)
    return pending


def _round(pending: dict[int, list[Prompt]]) -> tuple[list[int], list[Prompt]]:
    """The jobs waiting for answers, and their prompts, in one flat list."""
    order = list(pending)
    return order, [p for i in order for p in pending[i]]


def _deliver(
    jobs: Sequence[Job[Any]],
    order: list[int],
    pending: dict[int, list[Prompt]],
    answers: list[Any],
    results: list[Any],
) -> None:
    """Hand each job of ``order`` its share of ``answers``; jobs that ask again re-enter
    ``pending``."""
    batch = {i: pending.pop(i) for i in order}
    at = 0
    for i in order:
        n = len(batch[i])
        _advance(jobs[i], i, answers[at : at + n], pending, results)
        at += n


class ModelChunker(Splitter):
    """A chunker whose work on one document is a :data:`Job` of model-call rounds: the entry
    points every model-driven chunker shares (``llm`` and ``_job`` come from the subclass)."""

    llm: LLM

    def _job(self, text: str, document: int) -> Job[list[Chunk]]:
        raise NotImplementedError

    def split(self, text: str) -> list[Chunk]:
        """The chunks of ``text`` (see the class docstring)."""
        return drive(self.llm, [self._job(check_text(text), 0)])[0]

    def split_batch(self, texts: Sequence[str], workers: int | None = None) -> list[list[Chunk]]:
        """:meth:`split` over many documents, their calls run concurrently (``workers`` is not
        used; the model's ``max_concurrency`` bounds them)."""
        docs = check_texts(texts)
        return drive(self.llm, [self._job(t, i) for i, t in enumerate(docs)])

    async def asplit(self, text: str) -> list[Chunk]:
        """The asyncio entry point of :meth:`split`."""
        return (await adrive(self.llm, [self._job(check_text(text), 0)]))[0]

    async def asplit_batch(self, texts: Sequence[str]) -> list[list[Chunk]]:
        """The asyncio entry point of :meth:`split_batch`."""
        docs = check_texts(texts)
        return await adrive(self.llm, [self._job(t, i) for i, t in enumerate(docs)])


def _advance(
    job: Job[Any],
    index: int,
    answers: list[Any] | None,
    pending: dict[int, list[Prompt]],
    results: list[Any],
) -> None:
    try:
        while True:
            prompts = next(job) if answers is None else job.send(answers)
            if prompts:
                pending[index] = list(prompts)
                return
            answers = []  # an empty round needs no call
    except StopIteration as done:
        results[index] = done.value


_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)


def json_payload(answer: str, opening: str) -> Any:
    """The first JSON value starting with ``opening`` (``[`` or ``{``) in a model answer,
    code fences and surrounding prose ignored. Raises ``ValueError`` when there is none."""
    text = answer.strip()
    fenced = _FENCE.search(text)
    candidates = [fenced.group(1).strip()] if fenced else []
    candidates.append(text)
    decoder = json.JSONDecoder()
    for candidate in candidates:
        at = candidate.find(opening)
        while at != -1:
            try:
                value, _ = decoder.raw_decode(candidate, at)
                return value
            except ValueError:
                at = candidate.find(opening, at + 1)
    raise ValueError(f"no JSON {'list' if opening == '[' else 'object'} in the answer")
