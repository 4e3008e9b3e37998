"""Test setup for the pure-Python backend (``ragchunk._pure``).

* Puts ``python/`` on ``sys.path`` so ``ragchunk._pure`` imports without an
  installed package or a facade ``ragchunk/__init__.py``.
* Points ``TIKTOKEN_CACHE_DIR`` at a temporary folder holding the shipped
  vocabularies under the names tiktoken caches them by (the sha1 of the
  official URL), **before** tiktoken loads anything, so that
  ``tiktoken.get_encoding`` works offline and is compared against our build.
* Registers hypothesis profiles ``fast`` (default) and ``slow``, chosen with
  ``HYPOTHESIS_PROFILE``.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO_ROOT / "python"))

from pure_golden import find_golden_root  # noqa: E402
from ragchunk._pure.tokens import ENCODINGS, read_vocab_bytes  # noqa: E402

OFFICIAL_VOCAB_URL = "https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"


def _offline_tiktoken_cache() -> Path:
    """Write the shipped vocabularies where tiktoken looks for its download cache."""
    cache_dir = Path(tempfile.mkdtemp(prefix="ragchunk-tiktoken-cache-"))
    atexit.register(shutil.rmtree, cache_dir, ignore_errors=True)
    for name in ENCODINGS:
        url = OFFICIAL_VOCAB_URL.format(name=name)
        cache_key = hashlib.sha1(url.encode()).hexdigest()
        (cache_dir / cache_key).write_bytes(read_vocab_bytes(name))
    return cache_dir


os.environ["TIKTOKEN_CACHE_DIR"] = str(_offline_tiktoken_cache())

settings.register_profile(
    "fast", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "slow", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))


def pytest_report_header(config: pytest.Config) -> str:
    """Show which backend these tests exercise and where the golden vectors come from."""
    golden = find_golden_root()
    where = str(golden) if golden else "NOT FOUND (golden tests will be skipped)"
    return f"ragchunk backend under test: python (ragchunk._pure); golden vectors: {where}"
