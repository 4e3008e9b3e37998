"""Where the test data lives: ``../shared`` beside the repository, read in place, never written."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
GOLDEN = SHARED / "golden" / "ragflow"
CORPUS = SHARED / "corpus"
VOCAB = ROOT / "python" / "ragchunk" / "_vocab"

#: The built-in encodings (tiktoken names).
ENCODINGS = ["cl100k_base", "o200k_base"]


def require_shared(path: Path) -> Path:
    """Skip loudly when the shared test data is not beside the repository."""
    if not path.exists():
        pytest.skip(f"SHARED TEST DATA MISSING: {path} not found; these tests were not run")
    return path


def corpus_documents() -> list[tuple[str, str]]:
    """(relative path, text) of every corpus document; empty when the corpus is absent."""
    if not CORPUS.is_dir():
        return []
    return [
        (str(p.relative_to(CORPUS)), p.read_text(encoding="utf-8"))
        for p in sorted(CORPUS.rglob("*.md"))
    ]
