"""A pytest plugin that runs Chonkie's or langchain-experimental's own tests against
ragchunk's drop-ins.

Loaded with ``-p dropin_suites_plugin`` (this folder on ``PYTHONPATH``) by
``dropin_suites.py``, with ``RAGCHUNK_DROPIN_SUITE`` naming the suite: before any test module
is imported it replaces each class of the suite's :data:`SWAPS` in the package, in every module
that defines or re-exports it, and (Chonkie) in the pipeline's component registry, so that
``from chonkie import TokenChunker``, ``Pipeline().chunk_with("token")`` and ``from
langchain_experimental.text_splitter import SemanticChunker`` get the drop-ins.

With ``RAGCHUNK_DROPIN_STATS=<path>`` it writes a JSON report at the end: which drop-ins each
test built or called (by pytest test id), the shape ``langchain_suite.by_class`` reads.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import sys
import warnings
from typing import Any

import pytest

SUITE = os.environ.get("RAGCHUNK_DROPIN_SUITE", "")
#: suite -> (drop-in module, {class name: modules holding it under that name})
SWAPS: dict[str, tuple[str, dict[str, tuple[str, ...]]]] = {
    "chonkie": (
        "ragchunk.integrations.chonkie",
        {"TokenChunker": ("chonkie", "chonkie.chunker", "chonkie.chunker.token")},
    ),
    "langchain-experimental": (
        "ragchunk.integrations.langchain_semantic",
        {"SemanticChunker": ("langchain_experimental.text_splitter",)},
    ),
}
if SUITE not in SWAPS:
    raise RuntimeError(f"RAGCHUNK_DROPIN_SUITE must be one of {list(SWAPS)}, got {SUITE!r}")

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    _dropins = importlib.import_module(SWAPS[SUITE][0])

USED: dict[str, set[str]] = {}
_CURRENT: list[str] = []

for _name, _modules in SWAPS[SUITE][1].items():
    _cls = getattr(_dropins, _name)
    for _module_name in _modules:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            setattr(importlib.import_module(_module_name), _name, _cls)
    if SUITE == "chonkie":
        from chonkie.pipeline import ComponentRegistry

        ComponentRegistry.get_component(_name).component_class = _cls

    def _recording(cls: type, method: str) -> None:
        original = getattr(cls, method)

        # functools.wraps keeps the signature visible: Chonkie's pipeline reads it.
        @functools.wraps(original)
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            if _CURRENT:
                USED.setdefault(_CURRENT[-1], set()).add(cls.__name__)
            return original(self, *args, **kwargs)

        setattr(cls, method, wrapper)

    for _method in ("__init__", "chunk", "chunk_batch", "split_text", "create_documents"):
        if _method in vars(_cls) or _method == "__init__":
            _recording(_cls, _method)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    _CURRENT.append(item.nodeid)
    try:
        return (yield)
    finally:
        _CURRENT.pop()


def pytest_report_header(config: pytest.Config) -> str:
    return f"{SUITE}: {', '.join(SWAPS[SUITE][1])} -> {SWAPS[SUITE][0]}"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = os.environ.get("RAGCHUNK_DROPIN_STATS")
    if not path:
        return
    seen = {
        name: [n for n in SWAPS[SUITE][1] if getattr(module, n, None) is getattr(_dropins, n)]
        for name, module in list(sys.modules.items())
        if name.rsplit(".", 1)[-1].startswith("test_")
    }
    with open(path, "w", encoding="utf-8") as out:
        used = {test: sorted(names) for test, names in USED.items()}
        json.dump({"modules": {k: v for k, v in seen.items() if v}, "used": used}, out)
