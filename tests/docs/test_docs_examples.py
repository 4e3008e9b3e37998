"""The documentation's examples run: every ```python block of README.md and docs/*.md is
executed, the blocks of one page in order in one namespace (they build on each other), in a
fresh folder and home, with no network beyond this machine. A block that cannot run here (it
reads the reader's own files, or needs a server or a cluster) carries a visible marker on the
line before it, ``<!-- docs-test: skip REASON -->``, and is reported as skipped with that
reason; an unmarked block that fails fails the test."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(
    r"^(?:<!-- docs-test: skip (?P<skip>.+?) -->\n)?```python\n(?P<code>.*?)^```", re.S | re.M
)


def _blocks(page: Path) -> list[tuple[str | None, str]]:
    return [(m["skip"], m["code"]) for m in _BLOCK.finditer(page.read_text(encoding="utf-8"))]


PAGES_WITH_CODE = [p for p in PAGES if _blocks(p)]


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    real = socket.socket.connect

    def connect(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else str(address)
        if self.family in (socket.AF_INET, socket.AF_INET6) and host not in (
            "127.0.0.1",
            "::1",
            "localhost",
        ):
            raise OSError(f"the docs' examples may not reach {host}")
        return real(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    yield


@pytest.mark.single_backend
@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=lambda p: p.name)
def test_page_examples_run(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, offline: None
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    skipped = []
    for i, (skip, code) in enumerate(_blocks(page)):
        name = f"{page.name}, block {i + 1}"
        if skip is not None:
            skipped.append(f"{name}: {skip}")
            continue
        try:
            exec(compile(code, name, "exec"), namespace)
        except Exception as exc:
            pytest.fail(f"{name} fails: {type(exc).__name__}: {exc}\n{code}")
    if skipped:
        # visible in the report (-rs), never silent
        print("marked, not run:", *skipped, sep="\n  ")


@pytest.mark.single_backend
def test_every_marker_names_a_reason() -> None:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in re.finditer(r"<!-- docs-test:(.*?)-->", text):
            assert re.fullmatch(r" skip \S.+ ", m[1]), (page.name, m[0])
            assert text[m.end() : m.end() + 10] == "\n```python", (page.name, m[0])


@pytest.mark.single_backend
def test_readme_lists_every_extra() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    tooling = {"test", "lint", "docs", "bench", "fuzz", "integrations"}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    install = readme[readme.index("## Install") :]
    install = install[: install.index("\n## ", 3)]
    missing = [
        e
        for e in extras
        if e not in tooling and f"`{e}`" not in install and f"ragchunk[{e}]" not in install
    ]
    assert not missing, f"README's install section names no extra {missing}"
