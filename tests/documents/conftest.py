"""Fixtures of the document tests."""

from __future__ import annotations

from types import ModuleType

import pytest


@pytest.fixture(scope="module")
def core() -> ModuleType:
    """The compiled core (the test is skipped where it cannot be imported)."""
    try:
        from ragchunk import _core
    except ImportError as exc:
        pytest.skip(f"the compiled core is not importable: {exc}")
    return _core
