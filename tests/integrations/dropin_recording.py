"""What the drop-in suites' pytest plugins (``langchain_dropins_plugin``,
``dropin_suites_plugin``) share: recording which drop-ins each of a project's tests builds or
calls, and the report they write at the end of the run.

A plugin makes one :class:`Recorder`, wraps the drop-ins' methods with :meth:`Recorder.wrap`
and re-exports its hooks under pytest's names::

    RECORDER = Recorder()
    pytest_runtest_protocol = RECORDER.pytest_runtest_protocol
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Generator, Iterable
from typing import Any

import pytest


class Recorder:
    """The drop-in classes each test used (made one, or called one's splitting), by test id."""

    def __init__(self) -> None:
        self.used: dict[str, set[str]] = {}
        self._current: list[str] = []

        @pytest.hookimpl(wrapper=True)
        def pytest_runtest_protocol(
            item: pytest.Item, nextitem: pytest.Item | None
        ) -> Generator[None, Any, Any]:
            self._current.append(item.nodeid)
            try:
                return (yield)
            finally:
                self._current.pop()

        self.pytest_runtest_protocol = pytest_runtest_protocol

    def wrap(self, cls: type, method: str) -> None:
        """Record each call of ``cls.method`` against the running test. (``functools.wraps``
        keeps the signature visible: Chonkie's pipeline reads it.)"""
        original = getattr(cls, method)

        @functools.wraps(original)
        def wrapper(obj: Any, *args: Any, **kwargs: Any) -> Any:
            if self._current:
                self.used.setdefault(self._current[-1], set()).add(cls.__name__)
            return original(obj, *args, **kwargs)

        setattr(cls, method, wrapper)

    def wrap_all(self, classes: Iterable[type], methods: Iterable[str]) -> None:
        """:meth:`wrap` each of ``methods`` that a class defines (``__init__`` always)."""
        names = tuple(methods)
        for cls in classes:
            for method in names:
                if method == "__init__" or method in vars(cls):
                    self.wrap(cls, method)

    def write(self, env: str, names: Iterable[str], dropins: Any, **extra: Any) -> None:
        """Write the JSON report to the path in environment variable ``env`` (nothing when it
        is unset): ``modules``, each test module that holds one of ``names`` and whether it is
        the drop-in of ``dropins``; ``used``, the drop-ins each test used; and ``extra``."""
        path = os.environ.get(env)
        if not path:
            return
        wanted = tuple(names)
        seen: dict[str, dict[str, bool]] = {}
        for mod_name, module in list(sys.modules.items()):
            if mod_name.rsplit(".", 1)[-1].startswith("test_"):
                found = {
                    n: getattr(module, n) is getattr(dropins, n)
                    for n in wanted
                    if hasattr(module, n)
                }
                if found:
                    seen[mod_name] = found
        used = {test: sorted(names) for test, names in self.used.items()}
        with open(path, "w", encoding="utf-8") as out:
            json.dump({**extra, "modules": seen, "used": used}, out)
