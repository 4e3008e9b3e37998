"""Shared fixtures: the shipped part of Chroma's evaluation set, read in place."""

from __future__ import annotations

from pathlib import Path

import pytest
from testdata import ROOT, SHARED, require_shared

# ``../shared`` beside the repository (or beside the folder holding a git worktree of it).
_CANDIDATES = [SHARED / "eval" / "chroma", ROOT.parent.parent / "shared" / "eval" / "chroma"]
CHROMA = next((p for p in _CANDIDATES if p.is_dir()), _CANDIDATES[0])


@pytest.fixture(scope="session")
def chroma_dir() -> Path:
    return require_shared(CHROMA / "questions.csv").parent


@pytest.fixture(scope="session")
def chroma(chroma_dir: Path):  # type: ignore[no-untyped-def]
    from ragchunk.eval import load_chroma

    return load_chroma(chroma_dir)
