"""Many documents through one configured pipeline component."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .title_chunker import TitleChunker
from .token_chunker import TokenChunker

__all__ = ["title_chunker_batch", "token_chunker_batch"]


def _run(
    component: TokenChunker | TitleChunker, upstreams: Iterable[Mapping[str, Any]], workers: int
) -> list[dict[str, Any]]:
    items = list(upstreams)
    if workers <= 1 or len(items) < 2:
        return [component.invoke(u) for u in items]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(component.invoke, items))


def _workers(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"workers must be an int >= 1, got {value!r}")
    return value


def token_chunker_batch(
    params: Mapping[str, Any] | None, upstreams: Iterable[Mapping[str, Any]], *, workers: int = 1
) -> list[dict[str, Any]]:
    """:func:`token_chunker` over many upstream payloads, outputs in input order.

    ``params`` are checked once. ``workers > 1`` runs documents on a thread pool; the
    token counting inside releases the GIL on the Rust backend.

    >>> outs = token_chunker_batch({}, [
    ...     {"name": "a.txt", "output_format": "text", "text": "One."},
    ...     {"name": "b.txt", "output_format": "text", "text": "Two."}])
    >>> [o["chunks"] for o in outs]
    [[{'text': 'One.'}], [{'text': 'Two.'}]]
    """
    return _run(TokenChunker(params), upstreams, _workers(workers))


def title_chunker_batch(
    params: Mapping[str, Any] | None, upstreams: Iterable[Mapping[str, Any]], *, workers: int = 1
) -> list[dict[str, Any]]:
    """:func:`title_chunker` over many upstream payloads, outputs in input order.

    >>> outs = title_chunker_batch({"method": "group", "levels": [["^#"]]}, [
    ...     {"name": "a.md", "output_format": "markdown", "markdown": "# A\\nx"}])
    >>> outs[0]["chunks"]
    [{'text': '# A\\nx\\n'}]
    """
    return _run(TitleChunker(params), upstreams, _workers(workers))
