"""Reading RAGFlow's golden vectors in place (``<shared>/golden/ragflow/<tag>/*.jsonl``).

The vectors are never copied: tests parametrise over the files as they are.
When no shared folder is found, every golden test is skipped with a reason
that says where we looked.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

# Golden tag folder -> the ``compat`` switch that reproduces it.
TAG_COMPAT = {
    "v0.27.0": "v0.27",
    "v0.26.4": "v0.26",
    "v0.23.1": "v0.23",
    "v0.22.1": "v0.22",
}


def shared_dir_candidates() -> list[Path]:
    """Where the project's shared/ folder may be, most specific first."""
    candidates = []
    if os.environ.get("RAGCHUNK_SHARED_DIR"):
        candidates.append(Path(os.environ["RAGCHUNK_SHARED_DIR"]))
    candidates.append(REPO_ROOT.parent / "shared")
    # In a linked git worktree, shared/ sits beside the main checkout instead.
    git_file = REPO_ROOT / ".git"
    if git_file.is_file():
        text = git_file.read_text(encoding="utf-8").strip()
        if text.startswith("gitdir:"):
            git_dir = Path(text.partition(":")[2].strip())
            main_checkout = git_dir.parent.parent.parent  # <main>/.git/worktrees/<name>
            candidates.append(main_checkout.parent / "shared")
    return candidates


def find_golden_root() -> Path | None:
    """``<shared>/golden/ragflow``, or None when no shared folder is present."""
    for shared in shared_dir_candidates():
        golden = shared / "golden" / "ragflow"
        if golden.is_dir():
            return golden
    return None


def golden_params(filename: str) -> list[Any]:
    """One ``pytest.param((compat, case), id="<tag>/<case id>")`` per golden case in ``filename``.

    Tags that lack the file (the image file exists for v0.27.0 and v0.26.4
    only) contribute nothing. Without a golden folder the single parameter is
    a loud skip.
    """
    root = find_golden_root()
    if root is None:
        looked = ", ".join(str(p) for p in shared_dir_candidates())
        reason = f"golden vectors not found (looked for golden/ragflow under: {looked})"
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason), id="no-golden")]
    params = []
    for tag, compat in TAG_COMPAT.items():
        path = root / tag / filename
        if not path.is_file():
            continue
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                case = json.loads(line)
                params.append(pytest.param((compat, case), id=f"{tag}/{case['id']}"))
    if not params:
        reason = f"no {filename} under {root}"
        return [pytest.param(None, marks=pytest.mark.skip(reason=reason), id="no-golden")]
    return params


def as_tuples(value: Any) -> Any:
    """JSON arrays that stand for ``(text, pos)`` pairs become tuples, as the README asks."""
    if isinstance(value, list):
        return [tuple(item) if isinstance(item, list) else item for item in value]
    return value


def build_image(spec: dict[str, Any] | None) -> Any:
    """``PIL.Image.new(mode or "RGB", (w, h), fill)`` for one image spec, or None."""
    if spec is None:
        return None
    from PIL import Image

    color = spec["color"]
    fill = color[0] if len(color) == 1 else tuple(color)
    return Image.new(spec.get("mode") or "RGB", (spec["w"], spec["h"]), fill)


def describe_image(image: Any) -> dict[str, Any] | None:
    """The comparable part of an image: size, mode and sha256 of its raw bytes."""
    if image is None:
        return None
    return {
        "w": image.size[0],
        "h": image.size[1],
        "mode": image.mode,
        "sha256": hashlib.sha256(image.tobytes()).hexdigest(),
    }
