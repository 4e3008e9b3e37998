"""The install hints name the extra that provides what is missing (checked in a fresh
interpreter where the package is made unimportable, as in an install without the extra)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def _error(backend: str, blocked: str, code: str) -> str:
    script = f"import sys\nsys.modules[{blocked!r}] = None\n{code}"
    env = dict(os.environ, RAGCHUNK_BACKEND=backend)
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0, done.stdout
    return done.stderr.strip().splitlines()[-1]


def test_load_wordllama_without_wordllama(backend: str) -> None:
    pytest.importorskip("numpy")
    last = _error(
        backend, "wordllama", "from ragchunk.embeddings import load_wordllama\nload_wordllama()"
    )
    assert last.startswith("ImportError: load_wordllama needs wordllama")
    assert "pip install 'ragchunk[wordllama]'" in last
