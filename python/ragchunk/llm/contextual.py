"""ContextualChunker: any chunker's chunks, each with a short model-written context."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from ..core.checks import check_int
from ..core.chunk import Chunk, check_texts
from ..core.counting import Counter
from ..splitters.recursive import RecursiveSplitter
from .base import LLM, Estimate, LLMError, Price, Prompt, as_llm
from .prompts import CONTEXT_PROMPT, PromptTemplate, as_template
from .runner import Job, ModelChunker

__all__ = ["ContextualChunker"]

_REASK = "\n\nYour previous answer was empty. Answer with the context only."
_PREAMBLES = ("context:", "contexte :", "contexte:", "上下文：", "上下文:", "背景：", "背景:")


def _clean(answer: str) -> str:
    text = answer.strip()
    lowered = text.casefold()
    for p in _PREAMBLES:
        if lowered.startswith(p):
            text = text[len(p) :].strip()
            break
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1].strip()
    return text


class ContextualChunker(ModelChunker):
    """Contextual chunking: wraps any ragchunk chunker (``chunker``; a
    :class:`~ragchunk.RecursiveSplitter` of 512 tokens by default) and asks the model, for
    each chunk, for a short context (50-100 tokens) that situates it in the whole document.

    The prompt (``prompt``, fields ``{document}`` and ``{chunk}``) puts the document first
    and identically for every chunk of a document, so servers with prompt caching (vLLM,
    llama.cpp, hosted APIs) reuse it. A document longer than ``max_document_tokens`` (by
    default the model's ``context_window`` minus room for the answer, else 8000 tokens) is
    replaced by a window around the chunk, taken from a fixed grid so neighbouring chunks still
    share their prefix (``metadata["context_window"]`` gives its offsets).

    The context goes to ``metadata["context"]``. With ``prefix=True`` it is also put before
    the chunk's text, followed by ``separator``; ``metadata["added_prefix"]`` then holds the
    added text and ``token_count`` includes it. Offsets always refer to the source span. A
    call that fails after its retries raises :class:`~ragchunk.llm.LLMError` naming the
    document and chunk index; with ``on_error="keep"`` the chunk is kept without a context,
    ``metadata["context"]`` is ``None`` and ``metadata["context_error"]`` says why.

    >>> from ragchunk import SentenceSplitter
    >>> model = lambda prompt: "From a note about pets; this part is about dogs."
    >>> chunker = ContextualChunker(model, SentenceSplitter(chunk_size=8), prefix=True)
    >>> chunks = chunker.split("Cats purr a lot. Dogs bark at night.")
    >>> chunks[1].metadata["context"]
    'From a note about pets; this part is about dogs.'
    >>> chunks[1].text[len(chunks[1].metadata["added_prefix"]):]
    'Dogs bark at night.'
    """

    def __init__(
        self,
        llm: Any,
        chunker: Any = None,
        *,
        prefix: bool = False,
        separator: str = "\n\n",
        max_document_tokens: int | None = None,
        prompt: PromptTemplate | str | None = None,
        on_error: Literal["raise", "keep"] = "raise",
        max_reasks: int = 1,
        completion_allowance: int = 100,
        tokenizer: Any = "cl100k_base",
    ) -> None:
        self.llm: LLM = as_llm(llm)
        if chunker is None:
            chunker = RecursiveSplitter(chunk_size=512)
        if not callable(getattr(chunker, "split", None)):
            raise TypeError(
                f"chunker must be a ragchunk chunker with a .split(text) method, "
                f"got {type(chunker).__name__}"
            )
        self.chunker = chunker
        self.prefix = bool(prefix)
        if not isinstance(separator, str):
            raise TypeError("separator must be a str")
        self.separator = separator
        if max_document_tokens is None:
            window = self.llm.context_window
            max_document_tokens = max(256, window - 1024) if window else 8000
        self.max_document_tokens = check_int("max_document_tokens", max_document_tokens, 64)
        self.prompt = as_template(prompt, CONTEXT_PROMPT, CONTEXT_PROMPT.fields)
        if on_error not in ("raise", "keep"):
            raise ValueError(f"on_error must be 'raise' or 'keep', got {on_error!r}")
        self.on_error = on_error
        self.max_reasks = check_int("max_reasks", max_reasks, 0)
        self.completion_allowance = check_int("completion_allowance", completion_allowance, 0)
        self.tokenizer = tokenizer
        self._count = Counter(tokenizer)

    def __repr__(self) -> str:
        return (
            f"ContextualChunker({self.llm!r}, {self.chunker!r}, prefix={self.prefix}, "
            f"max_document_tokens={self.max_document_tokens})"
        )

    def _windows(self, text: str, chunks: list[Chunk]) -> list[tuple[int, int]]:
        """The document span each chunk is shown with: the whole text when it fits."""
        total = self._count(text)
        n = len(text)
        if total <= self.max_document_tokens:
            return [(0, n)] * len(chunks)
        width = max(1, int(n * self.max_document_tokens / total * 0.9))
        step = max(1, width // 2)
        out = []
        fitted: dict[tuple[int, int, int, int], tuple[int, int]] = {}
        for c in chunks:
            middle = (c.start + c.end) // 2
            start = round((middle - width / 2) / step) * step
            start = max(0, min(start, n - width))
            window = (start, min(n, start + width))
            key = (*window, c.start, c.end)
            if key not in fitted:
                fitted[key] = self._shrink(text, window, c)
            out.append(fitted[key])
        return out

    def _shrink(self, text: str, window: tuple[int, int], chunk: Chunk) -> tuple[int, int]:
        """``window`` narrowed around ``chunk`` until it fits ``max_document_tokens`` (token
        density varies: code and CJK text hold more tokens per character)."""
        a, b = window
        a, b = min(a, chunk.start), max(b, chunk.end)
        for _ in range(8):
            tokens = self._count(text[a:b])
            if tokens <= self.max_document_tokens:
                break
            keep = (b - a) * self.max_document_tokens / tokens * 0.95
            spare = max(0.0, keep - (chunk.end - chunk.start))
            left = chunk.start - a
            right = b - chunk.end
            total = left + right or 1
            a = chunk.start - int(spare * left / total)
            b = chunk.end + int(spare * right / total)
        return a, b

    def _prompt(self, text: str, window: tuple[int, int], chunk: Chunk) -> list[dict[str, str]]:
        return self.prompt.render(
            document=text[window[0] : window[1]], chunk=text[chunk.start : chunk.end]
        )

    def _job(self, text: str, document: int) -> Job[list[Chunk]]:
        chunks = list(self.chunker.split(text))
        if not chunks:
            return []
        windows = self._windows(text, chunks)
        base = [self._prompt(text, w, c) for w, c in zip(windows, chunks, strict=True)]
        contexts: dict[int, str] = {}
        errors: dict[int, str] = {}
        todo = list(range(len(chunks)))
        prompts: list[Prompt] = list(base)
        for round_ in range(self.max_reasks + 1):
            answers = yield prompts
            retry: list[int] = []
            for k, answer in zip(todo, answers, strict=True):
                if isinstance(answer, BaseException):
                    errors[k] = f"{type(answer).__name__}: {answer}"
                    continue
                cleaned = _clean(answer)
                if cleaned:
                    contexts[k] = cleaned
                    errors.pop(k, None)
                elif round_ < self.max_reasks:
                    retry.append(k)
                else:
                    errors[k] = "the model answered with an empty context"
            if not retry:
                break
            todo = retry
            prompts = []
            for k in retry:
                messages = [dict(m) for m in base[k]]
                messages[-1]["content"] += _REASK
                prompts.append(messages)
        if errors and self.on_error == "raise":
            k = min(errors)
            raise LLMError(
                f"no context: {errors[k]} ({len(errors)} chunk(s) failed)",
                document=document,
                chunk=k,
            )
        out = []
        whole = windows[0] == (0, len(text))
        for k, c in enumerate(chunks):
            meta: dict[str, Any] = dict(c.metadata)
            context = contexts.get(k)
            meta["context"] = context
            if not whole:
                meta["context_window"] = windows[k]
            if context is None:
                meta["context_error"] = errors.get(k, "no context")
                out.append(Chunk(c.text, c.start, c.end, c.token_count, meta))
                continue
            if not self.prefix:
                out.append(Chunk(c.text, c.start, c.end, c.token_count, meta))
                continue
            added = context + self.separator
            meta["added_prefix"] = added + str(c.metadata.get("added_prefix", ""))
            out.append(
                Chunk(added + c.text, c.start, c.end, c.token_count + self._count(added), meta)
            )
        return out

    # -- public -------------------------------------------------------------------------------

    def estimate(self, texts: str | Sequence[str], price: Price | None = None) -> Estimate:
        """The calls and tokens :meth:`split_batch` would use, without calling the model: one
        call per chunk, the prompt counted by parts (document or window, chunk, template),
        ``completion_allowance`` tokens per answer. ``details["prefix_tokens"]`` is the part
        of the prompt tokens a server with prompt caching can reuse.

        >>> from ragchunk import SentenceSplitter
        >>> e = ContextualChunker(str, SentenceSplitter(chunk_size=4)).estimate("A b. C d. E f.")
        >>> e.calls, e.completion_tokens
        (3, 300)
        """
        docs = [texts] if isinstance(texts, str) else check_texts(texts)
        overhead = self.llm.prompt_tokens(self.prompt.render(document="", chunk=""))
        calls = p_tokens = reusable = 0
        for text in docs:
            chunks = list(self.chunker.split(text))
            windows = self._windows(text, chunks)
            sizes: dict[tuple[int, int], int] = {}
            for w, c in zip(windows, chunks, strict=True):
                if w not in sizes:
                    sizes[w] = self._count(text[w[0] : w[1]])
                else:
                    reusable += sizes[w]
                calls += 1
                p_tokens += overhead + sizes[w] + self._count(text[c.start : c.end])
        return Estimate(
            calls,
            p_tokens,
            calls * self.completion_allowance,
            price,
            len(docs),
            {"prefix_tokens": reusable},
        )
