"""Fixtures of the viewer's tests: one headless Chromium for the whole run (see
``viewer_support``), and a fresh page per test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from viewer_support import Page, chromium_path


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    path = chromium_path()
    if path is None:
        reason = "Debian's chromium is not installed (scripts/setup.sh --dev installs it)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=path, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1100, "height": 640})
    try:
        yield Page(context.new_page())
    finally:
        context.close()
