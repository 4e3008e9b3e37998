"""What the viewer's browser tests share: finding Chromium, a page that records dialogs,
console errors and page errors, and screenshots kept as artefacts.

Chromium is Debian's ``chromium`` (``scripts/setup.sh --dev`` installs it), driven by
Playwright with ``executable_path``: Playwright's own browser download is never used. Without
it the browser tests skip, except under CI (``CI`` set), where a missing browser fails.
Screenshots go to ``.artifacts/viz/`` (git-ignored); with ``RAGCHUNK_DOC_SCREENSHOTS=1`` the
ones that docs/viewer.md shows are also written to ``docs/images/``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / ".artifacts" / "viz"
DOC_IMAGES = ROOT / "docs" / "images"
CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")


def chromium_path() -> str | None:
    found = os.environ.get("RAGCHUNK_CHROMIUM") or next(
        (p for p in CHROMIUM_PATHS if os.path.exists(p)), None
    )
    return found or shutil.which("chromium")


class Page:
    """A browser page and what it reported: dialogs opened, console errors, page errors."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        page.on("dialog", self._dialog)
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _console(self, msg: Any) -> None:
        if msg.type in ("error", "warning"):
            self.errors.append(f"console {msg.type}: {msg.text}")

    def open(self, path: Path, timeout: float = 30_000) -> None:
        """Load ``path`` from ``file://`` and wait until the page's script is done."""
        self.page.goto(path.as_uri())
        self.page.wait_for_selector("body[data-ready='1']", state="attached", timeout=timeout)

    def js(self, code: str, arg: Any = None) -> Any:
        return self.page.evaluate(code, arg)


def screenshot(page: Page, name: str, docs: bool = False) -> bytes:
    """Save a screenshot of ``page`` as ``.artifacts/viz/<name>.png`` (and as
    ``docs/images/viewer-<name>.png`` when ``docs`` and ``RAGCHUNK_DOC_SCREENSHOTS=1``);
    returns the PNG."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    png: bytes = page.page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    if docs and os.environ.get("RAGCHUNK_DOC_SCREENSHOTS") == "1":
        DOC_IMAGES.mkdir(parents=True, exist_ok=True)
        (DOC_IMAGES / f"viewer-{name}.png").write_bytes(png)
    return png


def assert_not_blank(png: bytes) -> None:
    """The screenshot shows something: many colours, no colour covering nearly all of it."""
    import io

    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB")
    small = img.resize((img.width // 4, img.height // 4))
    colours = small.getcolors(maxcolors=1 << 20) or []
    assert len(colours) > 20, f"only {len(colours)} colours"
    top = max(n for n, _ in colours)
    assert top < 0.95 * small.width * small.height, "one colour covers the screenshot"
