"""Tests of the pure-Python backend's own modules (``ragchunk._pure``), called directly.

They do not go through the facade, so the suite-wide backend parameter means nothing here:
every test in this folder runs once. The offline tiktoken cache and hypothesis profiles come
from ``tests/conftest.py``.
"""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = __file__.rsplit("/", 1)[0]
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.single_backend)
