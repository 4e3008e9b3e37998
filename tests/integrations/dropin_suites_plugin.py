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

import importlib
import os
import warnings

import pytest
from dropin_recording import Recorder

SUITE = os.environ.get("RAGCHUNK_DROPIN_SUITE", "")
#: suite -> (drop-in module, {class name: modules holding it under that name})
SWAPS: dict[str, tuple[str, dict[str, tuple[str, ...]]]] = {
    "chonkie": (
        "ragchunk.integrations.chonkie",
        {
            "TokenChunker": ("chonkie", "chonkie.chunker", "chonkie.chunker.token"),
            "SentenceChunker": ("chonkie", "chonkie.chunker", "chonkie.chunker.sentence"),
            "RecursiveChunker": ("chonkie", "chonkie.chunker", "chonkie.chunker.recursive"),
            "TableChunker": ("chonkie", "chonkie.chunker", "chonkie.chunker.table"),
        },
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

RECORDER = Recorder()
_NAMES = SWAPS[SUITE][1]

for _name, _modules in _NAMES.items():
    _cls = getattr(_dropins, _name)
    for _module_name in _modules:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            setattr(importlib.import_module(_module_name), _name, _cls)
    if SUITE == "chonkie":
        from chonkie.pipeline import ComponentRegistry

        ComponentRegistry.get_component(_name).component_class = _cls
RECORDER.wrap_all(
    [getattr(_dropins, n) for n in _NAMES],
    ("__init__", "chunk", "chunk_batch", "split_text", "create_documents"),
)

pytest_runtest_protocol = RECORDER.pytest_runtest_protocol


def pytest_report_header(config: pytest.Config) -> str:
    return f"{SUITE}: {', '.join(_NAMES)} -> {SWAPS[SUITE][0]}"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    RECORDER.write("RAGCHUNK_DROPIN_STATS", _NAMES, _dropins)
