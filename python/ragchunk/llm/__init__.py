"""Chunking with a language model: propositions, model-chosen boundaries, contextual chunks.

A model is a plain callable ``prompt -> str`` or an :class:`LLM`;
:class:`OpenAICompatible` speaks the chat-completions API of vLLM, llama.cpp server, Ollama,
LM Studio and hosted services. Every chunker has ``split``, ``split_batch``, their asyncio
forms ``asplit`` / ``asplit_batch``, and ``estimate`` (calls, tokens and cost before any call).

>>> from ragchunk.llm import LLMBoundaryChunker
>>> chunker = LLMBoundaryChunker(lambda prompt: "[]", chunk_size=64)
>>> [c.text for c in chunker.split("A short text. It fits in one chunk.")]
['A short text. It fits in one chunk.']
"""

from __future__ import annotations

from .base import LLM, CallRecord, Estimate, LLMError, Price, Usage, as_llm
from .boundary import LLMBoundaryChunker
from .cache import LLMCache
from .contextual import ContextualChunker
from .openai import OpenAICompatible
from .prompts import (
    BOUNDARY_PROMPT,
    CONTEXT_PROMPT,
    GROUPING_PROMPT,
    PROPOSITION_PROMPT,
    PromptTemplate,
)
from .propositions import PropositionChunker

__all__ = [
    "BOUNDARY_PROMPT",
    "CONTEXT_PROMPT",
    "GROUPING_PROMPT",
    "LLM",
    "PROPOSITION_PROMPT",
    "CallRecord",
    "ContextualChunker",
    "Estimate",
    "LLMBoundaryChunker",
    "LLMCache",
    "LLMError",
    "OpenAICompatible",
    "Price",
    "PromptTemplate",
    "PropositionChunker",
    "Usage",
    "as_llm",
]
