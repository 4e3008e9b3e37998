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

import json
import os
import sys
from typing import Any

import langchain_text_splitters as lts
import pytest
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
#: The drop-in classes each test used (made one, or called one's splitting), by test id.
USED: dict[str, set[str]] = {}
_CURRENT: list[str] = []


def _recording(cls: type, method: str) -> None:
    original = getattr(cls, method)

    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        if _CURRENT:
            USED.setdefault(_CURRENT[-1], set()).add(cls.__name__)
        return original(self, *args, **kwargs)

    wrapper.__name__ = wrapper.__qualname__ = method
    wrapper.__doc__ = original.__doc__
    setattr(cls, method, wrapper)


for _name in NAMES:
    # Not _merge_splits: a drop-in whose LangChain hooks are overridden runs LangChain's code.
    for _method in ("__init__", "split_text", "split_json", "create_documents", "split_documents"):
        if hasattr(getattr(dropins, _name), _method):
            _recording(getattr(dropins, _name), _method)


def _counted(function: Any) -> Any:
    def wrapper(*args: Any) -> Any:
        result = function(*args)
        CALLS["langchain" if result is None else "core"] += 1
        return result

    return wrapper


# Module globals, looked up at call time by the drop-ins' split_text.
dropins._core_splitter = _counted(dropins._core_splitter)  # type: ignore[attr-defined]
dropins._token_windows = _counted(dropins._token_windows)  # type: ignore[attr-defined]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    _CURRENT.append(item.nodeid)
    try:
        return (yield)
    finally:
        _CURRENT.pop()


def pytest_report_header(config: pytest.Config) -> str:
    return f"langchain_text_splitters {', '.join(NAMES)} -> ragchunk.integrations.langchain"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = os.environ.get("RAGCHUNK_LC_SUITE_STATS")
    if not path:
        return
    seen: dict[str, dict[str, bool]] = {}
    for mod_name, module in list(sys.modules.items()):
        if mod_name.rsplit(".", 1)[-1].startswith("test_"):
            names = {
                n: getattr(module, n) is getattr(dropins, n) for n in NAMES if hasattr(module, n)
            }
            if names:
                seen[mod_name] = names
    with open(path, "w", encoding="utf-8") as out:
        used = {test: sorted(names) for test, names in USED.items()}
        json.dump({"calls": CALLS, "modules": seen, "used": used}, out)
