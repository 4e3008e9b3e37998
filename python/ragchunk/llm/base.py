"""The one model protocol of the LLM chunkers, and the machinery around any model.

A model is either a plain callable ``prompt -> str`` or an :class:`LLM` (of which
:class:`~ragchunk.llm.OpenAICompatible` is one). :class:`LLM` adds, around any model: bounded
concurrency (threads and asyncio), retries with exponential backoff and jitter, an optional
persistent cache, and token accounting (per call and totals).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import random as _random
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..core.counting import Counter
from ..core.errors import RagchunkError
from .cache import LLMCache, as_cache, cache_key

__all__ = [
    "LLM",
    "CallRecord",
    "Estimate",
    "LLMError",
    "Messages",
    "Price",
    "Usage",
    "as_llm",
    "flatten",
]

_log = logging.getLogger("ragchunk.llm")

Messages = Sequence[Mapping[str, str]]
Prompt = str | Messages
_MESSAGE_OVERHEAD = 4  # tokens per chat message (role and separators), as OpenAI counts


class LLMError(RagchunkError):
    """A model call failed for good, or its answer could not be used.

    ``document`` and ``chunk`` (indices, when known) say where; the message names them.

    >>> str(LLMError("timed out", document=2, chunk=5))
    'document 2, chunk 5: timed out'
    """

    def __init__(
        self, message: str, *, document: int | None = None, chunk: int | None = None
    ) -> None:
        where = []
        if document is not None:
            where.append(f"document {document}")
        if chunk is not None:
            where.append(f"chunk {chunk}")
        super().__init__(", ".join(where) + ": " + message if where else message)
        self.reason = message
        self.document = document
        self.chunk = chunk


def flatten(prompt: Prompt) -> str:
    """The single string a plain ``prompt -> str`` callable receives: the message contents
    separated by blank lines.

    >>> flatten([{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}])
    'Be brief.\\n\\nHi'
    """
    if isinstance(prompt, str):
        return prompt
    return "\n\n".join(str(m.get("content", "")) for m in prompt)


def _messages(prompt: Prompt) -> list[dict[str, str]]:
    if isinstance(prompt, str):
        return [{"role": "user", "content": prompt}]
    out = []
    for i, m in enumerate(prompt):
        if not isinstance(m, Mapping) or not isinstance(m.get("content"), str):
            raise TypeError(f"messages[{i}] must be a mapping with a str 'content'")
        out.append({"role": str(m.get("role", "user")), "content": m["content"]})
    if not out:
        raise ValueError("messages must not be empty")
    return out


@dataclass(frozen=True)
class Price:
    """Prices per million tokens, for cost estimates and accounting.

    >>> Price(input=0.15, output=0.60).cost(1_000_000, 500_000)
    0.45
    """

    input: float = 0.0
    output: float = 0.0

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """The cost of that many prompt and completion tokens.

        >>> Price(2.0, 8.0).cost(1000, 1000)
        0.01
        """
        return round((prompt_tokens * self.input + completion_tokens * self.output) / 1e6, 10)


@dataclass(frozen=True)
class CallRecord:
    """One model call: its token counts, whether it came from the cache, whether the counts
    came from the server (``reported``) or were counted here.

    >>> CallRecord(120, 30).total_tokens
    150
    """

    prompt_tokens: int
    completion_tokens: int
    cached: bool = False
    reported: bool = False
    seconds: float = 0.0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens.

        >>> CallRecord(1, 2).total_tokens
        3
        """
        return self.prompt_tokens + self.completion_tokens


class Usage:
    """Token accounting of one model: every call recorded, and the totals.

    ``calls`` counts answers obtained from the model, ``cache_hits`` answers read from the
    cache (they cost nothing); token totals cover model calls only.

    >>> u = Usage()
    >>> u.record(CallRecord(100, 20)); u.record(CallRecord(100, 20, cached=True))
    >>> u.calls, u.cache_hits, u.prompt_tokens, u.completion_tokens
    (1, 1, 100, 20)
    >>> u.cost(Price(input=1.0, output=2.0))
    0.00014
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.records: list[CallRecord] = []
        self.calls = 0
        self.cache_hits = 0
        self.failures = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def record(self, call: CallRecord) -> None:
        """Add one call.

        >>> u = Usage(); u.record(CallRecord(3, 4)); u.total_tokens
        7
        """
        with self._lock:
            self.records.append(call)
            if call.cached:
                self.cache_hits += 1
            else:
                self.calls += 1
                self.prompt_tokens += call.prompt_tokens
                self.completion_tokens += call.completion_tokens

    def record_failure(self) -> None:
        """Count a call that failed after its retries.

        >>> u = Usage(); u.record_failure(); u.failures
        1
        """
        with self._lock:
            self.failures += 1

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens of the model calls.

        >>> Usage().total_tokens
        0
        """
        return self.prompt_tokens + self.completion_tokens

    def cost(self, price: Price) -> float:
        """What the model calls cost at ``price``.

        >>> Usage().cost(Price(1, 1))
        0.0
        """
        return price.cost(self.prompt_tokens, self.completion_tokens)

    def reset(self) -> None:
        """Forget every call.

        >>> u = Usage(); u.record(CallRecord(1, 1)); u.reset(); u.calls
        0
        """
        with self._lock:
            self.records.clear()
            self.calls = self.cache_hits = self.failures = 0
            self.prompt_tokens = self.completion_tokens = 0

    def __repr__(self) -> str:
        return (
            f"Usage(calls={self.calls}, cache_hits={self.cache_hits}, failures={self.failures}, "
            f"prompt_tokens={self.prompt_tokens}, completion_tokens={self.completion_tokens})"
        )


@dataclass(frozen=True)
class Estimate:
    """A dry-run estimate: the calls a chunker would make and their tokens, before any call.

    Prompt tokens are counted exactly on the prompts that would be sent; completion tokens are
    an allowance per call (each chunker documents it). ``cost`` is ``None`` without a price.

    >>> e = Estimate(calls=2, prompt_tokens=900, completion_tokens=100, price=Price(1.0, 4.0))
    >>> e.total_tokens, e.cost
    (1000, 0.0013)
    """

    calls: int
    prompt_tokens: int
    completion_tokens: int
    price: Price | None = None
    documents: int = 1
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens.

        >>> Estimate(1, 2, 3).total_tokens
        5
        """
        return self.prompt_tokens + self.completion_tokens

    @property
    def cost(self) -> float | None:
        """The estimated cost at ``price``, or ``None``.

        >>> Estimate(1, 10, 10).cost is None
        True
        """
        if self.price is None:
            return None
        return self.price.cost(self.prompt_tokens, self.completion_tokens)

    def __add__(self, other: Estimate) -> Estimate:
        details: dict[str, Any] = {}
        for key in set(self.details) | set(other.details):
            a, b = self.details.get(key, 0), other.details.get(key, 0)
            if isinstance(a, (int, float)) and isinstance(b, (int, float)):
                details[key] = a + b
        return Estimate(
            self.calls + other.calls,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.price or other.price,
            self.documents + other.documents,
            details,
        )


class LLM:
    """A model with bounded concurrency, retries, an optional cache and token accounting.

    ``fn`` is the model: a callable ``prompt -> str`` (it receives the messages flattened into
    one string). Subclasses such as :class:`~ragchunk.llm.OpenAICompatible` speak to a server
    instead. A call that raises is retried up to ``max_retries`` times with exponential
    backoff and full jitter; at most ``max_concurrency`` calls run at once from threads and
    asyncio tasks alike. With ``cache`` (an :class:`LLMCache` or a file path) an answer is
    stored under model + messages + parameters and never asked for twice. Tokens are counted
    with ``tokenizer`` unless the model reports them. An ``LLM`` is itself a callable
    ``prompt -> str``.

    >>> llm = LLM(lambda prompt: prompt.upper(), model="shout")
    >>> llm("hello")
    'HELLO'
    >>> llm.usage.calls, llm.usage.prompt_tokens, llm.usage.completion_tokens
    (1, 5, 2)
    """

    def __init__(
        self,
        fn: Callable[[str], str] | None = None,
        *,
        model: str | None = None,
        max_concurrency: int = 4,
        max_retries: int = 2,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        cache: LLMCache | str | None = None,
        tokenizer: Any = "cl100k_base",
        params: Mapping[str, Any] | None = None,
        context_window: int | None = None,
        sleep: Callable[[float], None] = time.sleep,
        random: Callable[[], float] = _random.random,
    ) -> None:
        if fn is not None and not callable(fn):
            raise TypeError(f"fn must be a callable prompt -> str, got {type(fn).__name__}")
        if fn is None and type(self)._send is LLM._send:
            raise TypeError("fn must be a callable prompt -> str")
        for name, value, low in (
            ("max_concurrency", max_concurrency, 1),
            ("max_retries", max_retries, 0),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
        if context_window is not None and (
            isinstance(context_window, bool)
            or not isinstance(context_window, int)
            or context_window < 256
        ):
            raise ValueError(
                f"context_window must be an integer >= 256 or None, got {context_window!r}"
            )
        self._fn = fn
        self.model = model or getattr(fn, "__name__", None) or "callable"
        self.max_concurrency = max_concurrency
        self.max_retries = max_retries
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.cache = as_cache(cache)
        self.params: dict[str, Any] = dict(params or {})
        self.context_window = context_window
        self.tokenizer = tokenizer
        self._count = Counter(tokenizer)
        self._sleep = sleep
        self._random = random
        self._semaphore = threading.BoundedSemaphore(max_concurrency)
        self._async: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )
        self._async_lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self.usage = Usage()

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(model={self.model!r}, max_concurrency={self.max_concurrency}, "
            f"max_retries={self.max_retries}, cache={self.cache!r})"
        )

    # -- counting -----------------------------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` with this model's ``tokenizer``.

        >>> LLM(str, tokenizer=len).count_tokens("abc")
        3
        """
        return self._count(text)

    def prompt_tokens(self, prompt: Prompt) -> int:
        """Tokens a prompt costs (message contents plus a small per-message overhead).

        >>> LLM(str, tokenizer=len).prompt_tokens([{"role": "user", "content": "abc"}])
        7
        """
        messages = _messages(prompt)
        return sum(self._count(m["content"]) + _MESSAGE_OVERHEAD for m in messages)

    # -- calling ------------------------------------------------------------------------------

    def _send(self, messages: list[dict[str, str]]) -> tuple[str, int | None, int | None]:
        """One model call: ``(answer, prompt_tokens, completion_tokens)``, counts ``None``
        when the model does not report them. Subclasses override this."""
        assert self._fn is not None
        answer = self._fn(flatten(messages))
        if not isinstance(answer, str):
            raise TypeError(f"the model returned {type(answer).__name__}, not str")
        return answer, None, None

    def _retrying_send(self, messages: list[dict[str, str]]) -> tuple[str, int | None, int | None]:
        attempt = 0
        while True:
            try:
                with self._semaphore:
                    return self._send(messages)
            except (TypeError, ValueError):
                raise
            except Exception as exc:
                if attempt >= self.max_retries or not self._retryable(exc):
                    raise
                ceiling = min(self.max_backoff, self.backoff * 2.0**attempt)
                wait = float(self._random()) * ceiling
                _log.warning(
                    "model call failed (%s); retry %d in %.2fs",
                    type(exc).__name__,
                    attempt + 1,
                    wait,
                )
                attempt += 1
                if wait > 0:
                    self._sleep(wait)

    def _retryable(self, exc: Exception) -> bool:
        return True

    def _endpoint(self) -> str:
        """Where the model is served, as the answer cache keys it ("" for a function)."""
        return ""

    def complete(self, prompt: Prompt, **params: Any) -> str:
        """The model's answer to ``prompt`` (a string or chat messages); thread-safe.

        ``params`` (``temperature``, ``max_tokens``...) override the model's defaults and are
        part of the cache key.

        >>> LLM(lambda p: p[::-1]).complete([{"role": "user", "content": "abc"}])
        'cba'
        """
        messages = _messages(prompt)
        merged = {**self.params, **params}
        key = (
            cache_key(self.model, messages, merged, self._endpoint())
            if self.cache is not None
            else None
        )
        if key is not None and self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.usage.record(CallRecord(hit.prompt_tokens, hit.completion_tokens, cached=True))
                return hit.answer
        started = time.monotonic()
        try:
            answer, p_tokens, c_tokens = self._with_params(messages, merged)
        except Exception:
            self.usage.record_failure()
            raise
        reported = p_tokens is not None and c_tokens is not None
        if p_tokens is None:
            p_tokens = sum(self._count(m["content"]) + _MESSAGE_OVERHEAD for m in messages)
        if c_tokens is None:
            c_tokens = self._count(answer)
        self.usage.record(
            CallRecord(p_tokens, c_tokens, reported=reported, seconds=time.monotonic() - started)
        )
        if key is not None and self.cache is not None:
            self.cache.put(key, self.model, answer, p_tokens, c_tokens)
        return answer

    def _with_params(
        self, messages: list[dict[str, str]], params: Mapping[str, Any]
    ) -> tuple[str, int | None, int | None]:
        # a plain callable takes no parameters; servers receive them (see OpenAICompatible)
        return self._retrying_send(messages)

    def __call__(self, prompt: str) -> str:
        return self.complete(prompt)

    async def acomplete(self, prompt: Prompt, **params: Any) -> str:
        """The asyncio entry point of :meth:`complete` (same bound, retries and cache).

        >>> import asyncio
        >>> asyncio.run(LLM(lambda p: "yes").acomplete("ok?"))
        'yes'
        """
        loop = asyncio.get_running_loop()
        with self._async_lock:
            semaphore = self._async.get(loop)
            if semaphore is None:
                semaphore = self._async[loop] = asyncio.Semaphore(self.max_concurrency)
            if self._executor is None:  # the loop's default executor may be smaller
                self._executor = ThreadPoolExecutor(
                    max_workers=self.max_concurrency, thread_name_prefix="ragchunk-llm"
                )
            pool = self._executor
        async with semaphore:
            call = functools.partial(
                contextvars.copy_context().run, self.complete, prompt, **params
            )
            return await loop.run_in_executor(pool, call)

    def complete_many(self, prompts: Sequence[Prompt], **params: Any) -> list[str | BaseException]:
        """Answers to many prompts, at most ``max_concurrency`` at once, in input order; a
        prompt whose call failed for good gives its exception instead of an answer.

        >>> LLM(lambda p: p * 2).complete_many(["a", "b"])
        ['aa', 'bb']
        """
        prompts = list(prompts)
        if not prompts:
            return []

        def one(prompt: Prompt) -> str | BaseException:
            try:
                return self.complete(prompt, **params)
            except Exception as exc:
                return exc

        if len(prompts) == 1 or self.max_concurrency == 1:
            return [one(p) for p in prompts]
        with ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(prompts))) as pool:
            return list(pool.map(one, prompts))

    async def acomplete_many(
        self, prompts: Sequence[Prompt], **params: Any
    ) -> list[str | BaseException]:
        """The asyncio entry point of :meth:`complete_many`.

        >>> import asyncio
        >>> asyncio.run(LLM(lambda p: p + "!").acomplete_many(["a", "b"]))
        ['a!', 'b!']
        """

        async def one(prompt: Prompt) -> str | BaseException:
            try:
                return await self.acomplete(prompt, **params)
            except Exception as exc:
                return exc

        return list(await asyncio.gather(*(one(p) for p in prompts)))


def as_llm(llm: object) -> LLM:
    """An :class:`LLM` as is, or a callable ``prompt -> str`` wrapped in one.

    >>> as_llm(lambda p: "ok").complete("hi")
    'ok'
    >>> as_llm(42)
    Traceback (most recent call last):
    ...
    TypeError: llm must be a callable prompt -> str or a ragchunk.llm.LLM, got int
    """
    if isinstance(llm, LLM):
        return llm
    if callable(llm):
        return LLM(llm)
    raise TypeError(
        f"llm must be a callable prompt -> str or a ragchunk.llm.LLM, got {type(llm).__name__}"
    )
