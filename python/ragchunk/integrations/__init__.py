"""Adapters for frameworks and engines, each an optional extra imported only when used:
:mod:`~ragchunk.integrations.langchain`, :mod:`~ragchunk.integrations.llama_index`,
:mod:`~ragchunk.integrations.chonkie`, :mod:`~ragchunk.integrations.ray`,
:mod:`~ragchunk.integrations.spark`.

>>> import ragchunk.integrations
>>> ragchunk.integrations.__name__
'ragchunk.integrations'
"""

from __future__ import annotations

__all__: list[str] = []
