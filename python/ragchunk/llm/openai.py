"""A model behind an OpenAI-compatible chat-completions endpoint (vLLM, llama.cpp server,
Ollama, LM Studio, hosted APIs)."""

from __future__ import annotations

import random as _random
import re
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..core.http import HTTPClient, HTTPError
from .base import LLM, LLMError
from .cache import LLMCache

__all__ = ["OpenAICompatible"]

# reasoning models served by llama.cpp, Ollama or vLLM may put their reasoning first
_THINKING = re.compile(r"^\s*<think>.*?</think>\s*", re.DOTALL)


class OpenAICompatible(LLM):
    """A chat model at ``base_url`` (for example ``http://127.0.0.1:8080/v1``), spoken to with
    ``POST {base_url}/chat/completions``.

    The key is ``api_key`` or the environment variable ``api_key_env`` (``OPENAI_API_KEY`` by
    default; local servers need none); it is sent as ``Authorization: Bearer`` and never
    logged. Each HTTP request has ``timeout`` seconds; 429 (honouring ``Retry-After``), 5xx,
    timeouts and broken bodies are retried up to ``max_retries`` times with exponential
    backoff and full jitter. ``temperature`` (0 by default, for repeatable answers) and
    ``max_tokens`` are sent with every request, and are part of the cache key with the model
    name and the messages. Token counts come from the response's ``usage`` when the server
    reports it, otherwise they are counted with ``tokenizer``.

    >>> llm = OpenAICompatible(base_url="http://127.0.0.1:8080/v1", model="qwen2.5-7b-instruct",
    ...                        api_key="sk-local-secret")
    >>> "sk-local-secret" in repr(llm), llm.model
    (False, 'qwen2.5-7b-instruct')
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        api_key_env: str | None = "OPENAI_API_KEY",
        timeout: float = 120.0,
        max_retries: int = 5,
        max_concurrency: int = 4,
        cache: LLMCache | str | None = None,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        tokenizer: Any = "cl100k_base",
        context_window: int | None = None,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
        random: Callable[[], float] = _random.random,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError("model must be a non-empty string (the server's model name)")
        merged: dict[str, Any] = {}
        if temperature is not None:
            merged["temperature"] = temperature
        if max_tokens is not None:
            merged["max_tokens"] = max_tokens
        merged.update(params or {})
        super().__init__(
            None,
            model=model,
            max_concurrency=max_concurrency,
            max_retries=1,  # a malformed 200 answer is asked once more; HTTP retries below
            backoff=backoff,
            max_backoff=max_backoff,
            cache=cache,
            tokenizer=tokenizer,
            params=merged,
            context_window=context_window,
            sleep=sleep,
            random=random,
        )
        self.client = HTTPClient(
            base_url,
            api_key=api_key,
            api_key_env=api_key_env,
            timeout=timeout,
            max_retries=max_retries,
            backoff=backoff,
            max_backoff=max_backoff,
            max_concurrency=max_concurrency,
            headers=headers,
            sleep=sleep,
            random=random,
        )
        self.base_url = self.client.base_url
        self.timeout = self.client.timeout
        self.max_retries = max_retries

    def _endpoint(self) -> str:
        return str(self.base_url)

    def __repr__(self) -> str:
        return (
            f"OpenAICompatible(base_url={self.base_url!r}, model={self.model!r}, "
            f"api_key={'set' if self.client.has_api_key else 'None'}, timeout={self.timeout}, "
            f"max_retries={self.max_retries}, max_concurrency={self.max_concurrency}, "
            f"cache={self.cache!r})"
        )

    def _retryable(self, exc: Exception) -> bool:
        # the HTTP client already retried transport failures
        return not isinstance(exc, HTTPError)

    def _with_params(
        self, messages: list[dict[str, str]], params: Mapping[str, Any]
    ) -> tuple[str, int | None, int | None]:
        payload = {"model": self.model, "messages": messages, **params}
        return self._retrying_send_payload(payload)

    def _retrying_send_payload(self, payload: dict[str, Any]) -> tuple[str, int | None, int | None]:
        attempt = 0
        while True:
            try:
                return self._post(payload)
            except LLMError:
                if attempt >= 1:
                    raise
                attempt += 1

    def _post(self, payload: dict[str, Any]) -> tuple[str, int | None, int | None]:
        body = self.client.post_json("/chat/completions", payload)
        try:
            choice = body["choices"][0]
            content = choice["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise LLMError(
                f"POST {self.client.url('/chat/completions')}: the answer has no "
                "choices[0].message.content"
            ) from None
        if not isinstance(content, str):
            raise LLMError("the answer's message content is not a string")
        content = _THINKING.sub("", content, count=1)
        usage = body.get("usage")
        p_tokens = c_tokens = None
        if isinstance(usage, Mapping):
            p = usage.get("prompt_tokens")
            c = usage.get("completion_tokens")
            if isinstance(p, int) and not isinstance(p, bool) and p >= 0:
                p_tokens = p
            if isinstance(c, int) and not isinstance(c, bool) and c >= 0:
                c_tokens = c
        return content, p_tokens, c_tokens

    def _send(self, messages: list[dict[str, str]]) -> tuple[str, int | None, int | None]:
        return self._with_params(messages, self.params)
