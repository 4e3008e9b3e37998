"""What the LangChain drop-in tests share: the drop-ins' names, how a splitter is built the same
way from LangChain's module and ragchunk's, and how outcomes are compared."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import langchain_text_splitters as lc
import pytest

DROPINS = [
    "RecursiveCharacterTextSplitter",
    "CharacterTextSplitter",
    "TokenTextSplitter",
    "MarkdownTextSplitter",
    "PythonCodeTextSplitter",
]


def words(text: str) -> int:
    """A custom length function (called from Rust), 0 for whitespace."""
    return len(text.split())


def build(module: Any, name: str, how: str, kwargs: dict[str, Any]) -> Any:
    """The splitter ``name`` of ``module`` (LangChain's or ragchunk's), made the same way."""
    cls = getattr(module, name)
    if how == "init":
        return cls(**kwargs)
    if how.startswith("tiktoken:"):
        return cls.from_tiktoken_encoder(encoding_name=how.split(":", 1)[1], **kwargs)
    if how.startswith("language:"):
        return cls.from_language(lc.Language(how.split(":", 1)[1]), **kwargs)
    raise AssertionError(how)


def outcome(call: Callable[[], Any]) -> Any:
    """The result of ``call``, or the class and message of what it raised."""
    try:
        return call()
    except Exception as exc:
        return ("raised", type(exc), str(exc))


def documents(docs: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(d.page_content, d.metadata) for d in docs]


@pytest.fixture(autouse=True)
def quiet_langchain() -> Iterator[None]:
    # LangChain's CharacterTextSplitter logs a warning for every oversized chunk.
    logger = logging.getLogger("langchain_text_splitters")
    level = logger.level
    logger.setLevel(logging.ERROR)
    yield
    logger.setLevel(level)
