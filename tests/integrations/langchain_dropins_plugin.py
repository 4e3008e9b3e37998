"""A pytest plugin that runs LangChain's own unit tests against ragchunk's drop-ins.

Loaded with ``-p langchain_dropins_plugin`` (this folder on ``PYTHONPATH``) by
``langchain_suite.py``: before any test module is imported it replaces every class of
:data:`NAMES` in ``langchain_text_splitters`` and in the module that defines it with the
drop-in of ``ragchunk.integrations.langchain``, so that ``from langchain_text_splitters
import ...`` in LangChain's tests gets the drop-ins. (LangChain's other splitters keep subclassing
LangChain's own classes: their base classes were bound when LangChain was imported.)

With ``RAGCHUNK_LC_SUITE_STATS=<path>`` it writes a JSON report at the end: which test
modules saw the drop-ins under LangChain's names, which drop-ins each test used (by pytest test
id), and how many ``split_text`` calls the Rust core answered (``core``) or left to
LangChain's code (``langchain``).
"""

from __future__ import annotations

from typing import Any

import langchain_text_splitters as lts
import pytest
from dropin_recording import Recorder
from langchain_text_splitters import base, character, html, markdown, python
from langchain_text_splitters import json as lc_json
from ragchunk.integrations import langchain as dropins

NAMES = {
    "RecursiveCharacterTextSplitter": (lts, character),
    "CharacterTextSplitter": (lts, character),
    "TokenTextSplitter": (lts, base),
    "MarkdownTextSplitter": (lts, markdown),
    "PythonCodeTextSplitter": (lts, python),
    "MarkdownHeaderTextSplitter": (lts, markdown),
    "RecursiveJsonSplitter": (lts, lc_json),
    "HTMLHeaderTextSplitter": (lts, html),
    "HTMLSectionSplitter": (lts, html),
}
for _name, _modules in NAMES.items():
    for _module in _modules:
        setattr(_module, _name, getattr(dropins, _name))

CALLS = {"core": 0, "langchain": 0}
RECORDER = Recorder()
# Not _merge_splits: a drop-in whose LangChain hooks are overridden runs LangChain's code.
_METHODS = ("__init__", "split_text", "split_json", "create_documents", "split_documents")
for _name in NAMES:
    for _method in _METHODS:
        if hasattr(getattr(dropins, _name), _method):
            RECORDER.wrap(getattr(dropins, _name), _method)


def _counted(function: Any) -> Any:
    def wrapper(*args: Any) -> Any:
        result = function(*args)
        CALLS["langchain" if result is None else "core"] += 1
        return result

    return wrapper


# Module globals, looked up at call time by the drop-ins' split_text.
dropins._core_splitter = _counted(dropins._core_splitter)  # type: ignore[attr-defined]
dropins._token_windows = _counted(dropins._token_windows)  # type: ignore[attr-defined]


pytest_runtest_protocol = RECORDER.pytest_runtest_protocol


def pytest_report_header(config: pytest.Config) -> str:
    return f"langchain_text_splitters {', '.join(NAMES)} -> ragchunk.integrations.langchain"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    RECORDER.write("RAGCHUNK_LC_SUITE_STATS", NAMES, dropins, calls=CALLS)
