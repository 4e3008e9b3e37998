"""An embedder for any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, vLLM, TEI,
Ollama, LM Studio, llama.cpp's server...)."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..core.http import HTTPClient
from ..core.optional import np
from .base import check_embeddings
from .counting import batch_counter

__all__ = ["OpenAICompatibleEmbedder"]


class OpenAICompatibleEmbedder:
    """``embed(texts)`` through ``POST {base_url}/embeddings``.

    Texts are sent in batches of at most ``batch_size`` texts and ``batch_tokens`` tokens
    (counted with ``tokenizer``), up to ``max_concurrency`` batches at once; each request is
    retried with backoff on 429, 5xx, timeouts and broken answers by
    :class:`ragchunk.core.http.HTTPClient`. The key comes from ``api_key`` or the environment
    variable ``api_key_env``. ``max_tokens`` is the model's input window: a longer text is a
    ``ValueError`` (never truncated).

    Args:
        base_url: the API root, e.g. ``"http://127.0.0.1:8080/v1"``.
        model: the model name sent with every request (and the cache key).
        dimensions: optional ``dimensions`` request field.
        client: an :class:`HTTPClient` to use instead of building one.

    >>> e = OpenAICompatibleEmbedder("http://127.0.0.1:9/v1", "bge-m3", api_key_env=None)
    >>> e.model, e.max_tokens, e.batch_size
    ('bge-m3', 8191, 128)
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        api_key_env: str | None = "OPENAI_API_KEY",
        batch_size: int = 128,
        batch_tokens: int = 100_000,
        max_tokens: int = 8191,
        tokenizer: Any = "cl100k_base",
        dimensions: int | None = None,
        max_concurrency: int = 4,
        timeout: float = 60.0,
        max_retries: int = 5,
        client: HTTPClient | None = None,
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ValueError(f"model must be a non-empty str, got {model!r}")
        for name, value in (
            ("batch_size", batch_size),
            ("batch_tokens", batch_tokens),
            ("max_tokens", max_tokens),
            ("max_concurrency", max_concurrency),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an int >= 1, got {value!r}")
        if max_tokens > batch_tokens:
            raise ValueError(f"batch_tokens ({batch_tokens}) must be >= max_tokens ({max_tokens})")
        self.model = model
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.max_tokens = max_tokens
        self.tokenizer = tokenizer
        self.dimensions = dimensions
        self.max_concurrency = max_concurrency
        self._count = batch_counter(tokenizer)
        self.client = client or HTTPClient(
            base_url,
            api_key=api_key,
            api_key_env=api_key_env,
            timeout=timeout,
            max_retries=max_retries,
            max_concurrency=max_concurrency,
        )

    def __repr__(self) -> str:
        return f"OpenAICompatibleEmbedder({self.client.base_url!r}, {self.model!r})"

    def batches(self, texts: Sequence[str]) -> list[list[int]]:
        """Indices of ``texts`` grouped into request batches (by count and by tokens).

        >>> e = OpenAICompatibleEmbedder(
        ...     "http://127.0.0.1:9/v1", "m", batch_size=2, batch_tokens=3, max_tokens=3,
        ...     api_key_env=None)
        >>> e.batches(["a b", "c", "d", "e f g"])
        [[0, 1], [2], [3]]
        """
        counts = self._count(texts)
        out: list[list[int]] = []
        current: list[int] = []
        used = 0
        for i, n in enumerate(counts):
            if n > self.max_tokens:
                raise ValueError(
                    f"texts[{i}] has {n} tokens, more than max_tokens ({self.max_tokens}) of "
                    f"{self.model!r}; split it first (ragchunk never truncates)"
                )
            if current and (len(current) >= self.batch_size or used + n > self.batch_tokens):
                out.append(current)
                current, used = [], 0
            current.append(i)
            used += n
        if current:
            out.append(current)
        return out

    def _request(self, texts: list[str]) -> Any:
        payload: dict[str, Any] = {"model": self.model, "input": texts}
        if self.dimensions is not None:
            payload["dimensions"] = self.dimensions
        answer = self.client.post_json("embeddings", payload)
        data = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(data, list) or len(data) != len(texts):
            got = len(data) if isinstance(data, list) else "no"
            raise ValueError(f"{self.model!r} answered {got} embeddings for {len(texts)} inputs")
        rows = sorted(data, key=lambda d: int(d.get("index", 0)))
        return check_embeddings(
            [r.get("embedding") for r in rows], len(texts), "the endpoint's answer"
        )

    def embed(self, texts: list[str]) -> Any:
        """``(len(texts), dim)`` float32 vectors in input order."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        groups = self.batches(texts)
        if len(groups) == 1 or self.max_concurrency == 1:
            parts = [self._request([texts[i] for i in g]) for g in groups]
        else:
            with ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(groups))) as pool:
                parts = list(pool.map(lambda g: self._request([texts[i] for i in g]), groups))
        return np.concatenate(parts, axis=0)
